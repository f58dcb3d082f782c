"""Monetary wording (RULES SP-4): prize lines and mystery-bounty descriptions never name money.

One pattern, `MONEY_PATTERN`, is the rule. Python searches it here (`money_problem`, used by the
domain services and so by the CLI), and the database repeats it as a CHECK constraint
(`description !~ MONEY_PATTERN` on poker_prizes and poker_mystery_draws), so every door the text can
come in by runs the same check. The pattern is written in the subset of regular-expression syntax
that Python's `re` and PostgreSQL's advanced regular expressions read alike: explicit character
classes, `(?:...)`, look-ahead and one-character look-behind; no `\\b`, `\\d`, `\\s` or flags. Case is
folded by spelling both cases in the pattern (`_caseless`), because PostgreSQL folds Cyrillic case
only under some locales.

Refused: a currency sign; a currency code (RUB, USD, ...); a currency word in Russian or English in
any inflection (рубль/рубля/рублей..., руб., доллар..., евро, деньги/денег..., денежный...,
наличные..., dollar(s), euro(s), cash, money, ...); the one-letter rouble «р» after an amount
("5 000 р", "100р.") or written alone with its dot ("р." — so «р. Волга» is refused too). A word counts only as a whole word: «Европа» or "cashmere" are fine, and so are
counts without money ("Dinner for 2", "Freeroll ×3").
"""

from __future__ import annotations

import re

from domain.errors import Problem

MAX_DESCRIPTION_CHARS = 500  # a prize line or a mystery prize description (3.4)

_LETTER = "a-zа-яё"
_BEFORE = f"(?<![{_LETTER}])"  # not preceded by a letter
_AFTER = f"(?![{_LETTER}])"  # not followed by a letter
_SPACE = "[ \u00a0\u202f\u2009]"  # space, no-break space, narrow no-break space, thin space

_SIGNS = "[₽$€£¥₸₴]"
_CODES = ["rub", "rur", "usd", "eur", "gbp", "jpy", "cny", "kzt", "uah", "byn", "byr", "chf", "usdt", "btc"]
# whole words, in lower case; [а-яё]* and the like cover the inflections
_WORDS = [
    # Russian
    "рубл[а-яё]*",
    "руб",
    "копе(?:йк|ек)[а-яё]*",
    "коп",
    "доллар[а-яё]*",
    "бакс[а-яё]*",
    "евро",
    "тенге",
    "гривн[а-яё]*",
    "грн",
    "юан[а-яё]*",
    "ден[ье]г[а-яё]*",
    "денежн[а-яё]*",
    "наличн[а-яё]*",
    "наличк[а-яё]*",
    "к[эе]ш[а-яё]*",
    # English
    "r?oubles?",
    "dollars?",
    "bucks?",
    "euros?",
    "cents?",
    "kopecks?",
    "cash(?:es)?",
    "mone(?:y|ys|ies)",
    "monetary",
    "bitcoins?",
]
# the one-letter rouble: after an amount ("5 000 р", "100р.", "1 000,50 р"), or alone with its dot ("р.")
_AMOUNT_R = f"[0-9](?:[0-9.,]|{_SPACE})*р{_AFTER}|{_BEFORE}р\\."


def _caseless(pattern: str) -> str:
    """Spell every letter in both cases: `р` -> `[рР]`, `[а-яё]` -> `[а-яёА-ЯЁ]`."""
    out: list[str] = []
    in_class = False
    i = 0
    while i < len(pattern):
        c = pattern[i]
        if c == "\\":
            out.append(pattern[i : i + 2])
            i += 2
            continue
        if in_class:
            if c == "]":
                in_class = False
                out.append(c)
            elif c.upper() != c and pattern[i + 1 : i + 2] == "-" and i + 2 < len(pattern):
                end = pattern[i + 2]
                out.append(f"{c}-{end}{c.upper()}-{end.upper()}")
                i += 3
                continue
            else:
                out.append(c + c.upper() if c.upper() != c else c)
        elif c == "[":
            in_class = True
            out.append(c)
        elif c.upper() != c:
            out.append(f"[{c}{c.upper()}]")
        else:
            out.append(c)
        i += 1
    return "".join(out)


MONEY_PATTERN: str = _caseless(
    "|".join(
        [
            _SIGNS,
            f"{_BEFORE}(?:{'|'.join(_CODES)}){_AFTER}",
            f"{_BEFORE}(?:{'|'.join(_WORDS)}){_AFTER}",
            _AMOUNT_R,
        ]
    )
)
_MONEY = re.compile(MONEY_PATTERN)


def names_money(text: str) -> str | None:
    """The first piece of `text` that names money, or None."""
    found = _MONEY.search(text)
    return found.group(0) if found else None


def money_problem(text: str, what: str, code: str = "money-wording") -> Problem | None:
    """SP-4 for one piece of text; `what` names it for the floor ("prize line 3")."""
    found = names_money(text)
    if found is None:
        return None
    return Problem(
        code,
        f"{what} names money ('{found.strip()}'): prizes are non-monetary only — "
        "describe the award itself (a cup, a certificate, a free entry)",
    )
