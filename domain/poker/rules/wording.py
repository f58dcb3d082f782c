"""Monetary wording (RULES SP-4): prize lines and mystery-bounty descriptions never name money.

How a line is checked (docs/wording.md tells the why and the decisions):

1. Normalised: default-ignorable characters (zero-width spaces and joiners, soft hyphens, bidi
   controls, variation selectors) removed; Unicode NFKC (fullwidth «ＵＳＤ» is USD, «5 000» with a
   figure space is 5 000); combining marks (stress marks, accents) removed, except the marks that
   make the Russian letters «й» and «ё»; every kind of space is one space.
2. Split into tokens: amounts (digits with group separators, «10к», «5 тыс.»), words (letters, with
   inner hyphens and apostrophes; the digits 0 1 3 6 between letters are read as the letters they
   look like), currency signs, the rest.
3. Look-alike letters are read in the line's script through Unicode's confusables table (the
   `confusable-homoglyphs` package): a word mixing Latin and Cyrillic, or holding letters outside
   the two alphabets, is also read wholly as Latin and wholly as Cyrillic; a word of the other
   script than the rest of the line is also read in the line's script.
4. Each reading is matched as a whole word: a Russian word by its lemmas (pymorphy3 with its
   Russian dictionary), an English word by the inflections CLDR gives (Babel). Money is: a currency
   sign (Unicode category Sc, and every symbol CLDR knows in Russian and English); a currency code
   (ISO 4217 from pycountry) in capitals, or in any case next to an amount; a currency name CLDR
   knows in Russian or English; a colloquial money word (`_RU_MONEY_LEMMAS`, `_EN_MONEY_WORDS`).
   Names that are also everyday words («марка», «лев», "pound", "real", "won"; `_RU_EVERYDAY`,
   `_EN_EVERYDAY`), the one-letter rouble «р» and codes that are English words (ALL, TOP, CUP…;
   `_WORD_CODES`) count only right after an amount ("500 ALL", «5 марок», «10к р»).

The database cannot run this (pymorphy3 lives in Python), so every accepted line carries the
domain's verdict, `wording_seal(text)`, which only an accepted text gets; the tables refuse a line
without its seal (domain/poker/tables/results.py).
"""

from __future__ import annotations

import hashlib
import re
import unicodedata
from dataclasses import dataclass
from functools import cache, lru_cache
from itertools import repeat
from typing import Any

from domain.errors import DomainError, Problem

MAX_DESCRIPTION_CHARS = 500  # a prize line or a mystery prize description (3.4)
CHECKER = "sp4-2"  # names the check that sealed a line; a change in what is refused bumps it

# -- decisions where the rule is silent (docs/wording.md) ----------------------------------------

# ISO 4217 codes that are not money (precious metals, units of account, testing, "no currency")
_NOT_MONEY_CODES = frozenset(
    "XAG XAU XPD XPT XBA XBB XBC XBD XDR XSU XUA XAD XTS XXX XEU XFO XFU XRE".split()
)
# codes whose CLDR names are units or an everyday word, not a currency's name ("Zimbabwean gold")
_UNNAMED_CODES = _NOT_MONEY_CODES | frozenset("CLF COU ECV MXV UYW ZWG".split())
# codes a club writes that ISO 4217 no longer lists, or never did
_EXTRA_CODES = frozenset("RUR BYR USDT BTC".split())
# codes that are ordinary English words or abbreviations: money only in capitals after an amount
_WORD_CODES = frozenset("ALL AMD BAM BOB CAD COP CUP GEL MAD MOP PEN PHP RON SOS TOP TRY".split())

# currency names (CLDR heads) that are also everyday words or names: money only after an amount
_EN_EVERYDAY = frozenset(
    "won real reals mark marks pound pounds sol soles rand rands kip kips dong lev leva lei leu ley som "
    "soms tala sucre sucres zaire zaires dram drams dobra dobras kina pula pulas colon colones colons "
    "cordoba cordobas balboa balboas bolivar bolivars guarani guaranis lempira lempiras austral australs "
    "leone leones quetzal quetzals cupon lari laris lats lati loti lotis kuna kunas inti intis".split()
)
_RU_EVERYDAY = frozenset(
    "марка фунт франк лира крона лев лей сом реал рэнд ранд вона кип сум драм добра кина пула тала вату "
    "лари колон кордоба бальбоа боливар гуарани лемпира аустрал леоне кетсаль купон талон лат лит соль "
    "заир инти куна така".split()
)

# colloquial money a club writes, beyond CLDR's currency names: word -> the currency it names
# ("" for money in general)
_RU_MONEY_LEMMAS: dict[str, str] = {
    **dict.fromkeys("рублик рублишко рублёвый".split(), "рубль"),
    **dict.fromkeys("копейка копеечка".split(), "копейка"),
    **dict.fromkeys("бакс долларовый".split(), "доллар"),
    "еврик": "евро",
    "стерлинг": "фунт стерлингов",
    "червонец": "рубль",
    "целковый": "рубль",
    **dict.fromkeys(
        "деньга деньги денежка деньжата деньжищи денежный денежно наличные наличный наличка безнал "
        "безналичный кэш кеш кэшбэк кешбэк кэшбек кешбек бабло валюта валютный купюра банкнота".split(),
        "",
    ),
}
_RU_MONEY_WORDS: dict[str, str] = {  # forms the dictionary does not know, and abbreviations
    "руб": "рубль",
    "долл": "доллар",
    "у.е": "условная единица",
    **dict.fromkeys("грн гривня гривни гривне гривню гривней гривень".split(), "гривна"),
    **dict.fromkeys("нал нала налу налом налы лавэ лаве".split(), ""),
}
_RU_AFTER_AMOUNT: dict[str, str] = {  # money only right after an amount
    **dict.fromkeys("р тр т.р кр".split(), "рубль"),
    "коп": "копейка",
    "тг": "тенге",
}
_EN_MONEY_WORDS: dict[str, str] = dict.fromkeys(
    "cash money moneys monies monetary cashback currency currencies banknote banknotes greenback "
    "greenbacks bitcoin bitcoins".split(),
    "",
)
_EN_AFTER_AMOUNT: dict[str, str] = {
    **dict.fromkeys("buck bucks".split(), "dollar"),
    **dict.fromkeys("cent cents dime dimes".split(), "cent"),
    **dict.fromkeys("penny pennies pence p quid".split(), "pound"),
}
# multipliers that make an amount of a number: 10к, 5 тыс., 2 млн, 3k
_MULTIPLIERS = frozenset(
    "к k kk кк т тыс тыщ тысяча тысяч тысячи млн млрд миллион миллиард mln bn thousand thousands "
    "million millions".split()
)

# -- normalisation -------------------------------------------------------------------------------

_LATIN = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ")
_CYRILLIC = frozenset("абвгдеёжзийклмнопрстуфхцчшщъыьэюяАБВГДЕЁЖЗИЙКЛМНОПРСТУФХЦЧШЩЪЫЬЭЮЯ")
_KEPT_MARKS = (("и\u0306", "й"), ("И\u0306", "Й"), ("е\u0308", "ё"), ("Е\u0308", "Ё"))
_SPACE = " "


@dataclass(frozen=True)
class _Unicode:
    """What normalisation needs from the Unicode database, built once."""

    invisible: frozenset[str]  # format characters (Cf) and the other default-ignorables: removed
    plain: frozenset[str]  # characters normalisation leaves as they are (most of every line)
    not_plain: re.Pattern[str]
    signs: re.Pattern[str]  # currency signs (Sc)
    sign_chars: frozenset[str]


_APOSTROPHES = frozenset("\u2018\u2019\u02bb\u02bc\uff07")
_IGNORABLE_NON_FORMAT = frozenset(
    map(chr, (0x034F, 0x115F, 0x1160, 0x17B4, 0x17B5, 0x3164, 0xFFA0, *range(0x180B, 0x1810),
              *range(0xFE00, 0xFE10), *range(0xFFF0, 0xFFF9), *range(0xE0100, 0xE01F0)))
)


# pictographs of money by their Unicode names: 💰 MONEY BAG, 💵 BANKNOTE WITH DOLLAR SIGN, 💱 CURRENCY EXCHANGE
_MONEY_SYMBOL_NAME = re.compile(r"\b(?:MONEY|BANKNOTE|CURRENCY)\b|\b(?:DOLLAR|YEN|EURO|POUND|RUPEE|RUBLE) SIGN\b")


@cache
def _unicode() -> _Unicode:
    invisible = set(_IGNORABLE_NON_FORMAT)
    signs: list[int] = []
    for cp in (*range(0x30000), *range(0xE0000, 0xE1000)):
        cat = unicodedata.category(chr(cp))
        if cat == "Cf":
            invisible.add(chr(cp))
        elif cat == "Sc" or (cat == "So" and _MONEY_SYMBOL_NAME.search(unicodedata.name(chr(cp), ""))):
            signs.append(cp)
    plain = {
        c
        for c in map(chr, (*range(0x20, 0x7F), *range(0xA0, 0x250), *range(0x400, 0x530), *range(0x2010, 0x2070)))
        if c not in invisible and _char(c) == c and unicodedata.normalize("NFKC", c) == c
    }
    bmp = "".join(re.escape(chr(cp)) for cp in signs if cp <= 0xFFFF)
    return _Unicode(
        invisible=frozenset(invisible),
        plain=frozenset(plain),
        not_plain=re.compile(f"[^{''.join(re.escape(c) for c in sorted(plain))}]"),
        # astral characters are tried one by one: a class holding them is slow in `re`
        signs=re.compile(f"[{bmp}]|[\U00010000-\U0010ffff]"),
        sign_chars=frozenset(map(chr, signs)),
    )


@lru_cache(maxsize=8192)
def _char(c: str) -> str:
    """One character of an NFKC text as SP-4 reads it: a space of any kind is " ", an apostrophe
    «'», a combining mark nothing, a letter with marks its bare letter («ѐ» -> «е», "á" -> "a") but
    for «й» and «ё»."""
    if c in _APOSTROPHES:
        return "'"
    cat = unicodedata.category(c)
    if cat in ("Zs", "Zl", "Zp", "Cc"):
        return _SPACE
    if cat in ("Mn", "Me", "Cf") or c in _IGNORABLE_NON_FORMAT:
        return ""
    if c in "йЙёЁ":
        return c
    decomposed = unicodedata.normalize("NFD", c)
    if decomposed == c:
        return c
    return "".join(d for d in decomposed if unicodedata.category(d) not in ("Mn", "Me"))


def normalise(text: str) -> str:
    """SP-4's reading of `text`: invisible characters gone, NFKC, marks gone (but «й», «ё»), one
    kind of space, one apostrophe."""
    u = _unicode()
    if not u.not_plain.search(text):
        return text
    odd = set(text) - u.plain
    for c in odd & u.invisible:
        text = text.replace(c, "")
    text = unicodedata.normalize("NFKC", text)
    for c in set(text) - u.plain:
        text = text.replace(c, _char(c))
    return text


def _normalise_mapped(text: str) -> tuple[str, list[int]]:
    """`normalise`, character by character, with the index in `text` of each character it yields
    (to quote a refused word as the club wrote it); no indices when the two readings part."""
    u = _unicode()
    kept = dict(_KEPT_MARKS)
    out: list[str] = []
    origin: list[int] = []
    for i, c in enumerate(text):
        if c in u.invisible:
            continue
        for d in unicodedata.normalize("NFKC", c):
            if out and out[-1] + d in kept:
                out[-1] = kept[out[-1] + d]
                continue
            for e in _char(d):
                out.append(e)
                origin.append(i)
    joined = "".join(out)
    return joined, origin if len(joined) == len(origin) else []


# -- the lexicon: built once from pycountry, Babel (CLDR), pymorphy3 and the confusables table ------


@dataclass(frozen=True)
class _Lexicon:
    codes: dict[str, str]  # ISO code -> currency name
    en_money: dict[str, str]  # English word -> what it names
    en_after_amount: dict[str, str]
    ru_lemmas: dict[str, str]  # Russian lemma -> what it names
    ru_words: dict[str, str]  # Russian forms the dictionary does not know (ё written е)
    ru_after_amount_words: dict[str, str]
    ru_prefixes: frozenset[str]  # first 4 letters of every form of a money lemma: worth lemmatising
    symbols: dict[str, str]  # CLDR symbols written with letters ("FCFA"), case as written
    to_latin: dict[str, str]  # look-alike -> plain Latin letter
    to_cyrillic: dict[str, str]  # look-alike -> plain Cyrillic letter
    latin_only: re.Pattern[str]  # Latin letters with no Cyrillic look-alike: they tell a Latin line
    cyrillic_only: re.Pattern[str]


@cache
def _morph() -> Any:
    """The pymorphy3 analyzer with its Russian dictionary, loaded once."""
    import pymorphy3

    return pymorphy3.MorphAnalyzer(lang="ru")


@lru_cache(maxsize=100_000)
def _lemmas(word: str) -> frozenset[str]:
    """Every lemma pymorphy3 reads `word` as (lower case, ё as е)."""
    return frozenset(_fold_yo(p.normal_form) for p in _morph().parse(word))


def _fold_yo(s: str) -> str:
    return s.replace("ё", "е")


def _strip_parens(name: str) -> str:
    return re.sub(r"\([^)]*\)", " ", name)


@cache
def _lexicon() -> _Lexicon:
    import pycountry
    from babel import Locale
    from confusable_homoglyphs import confusables

    en, ru = Locale("en"), Locale("ru")
    codes = {c.alpha_3: en.currencies.get(c.alpha_3, c.name) for c in pycountry.currencies}
    codes = {c: n for c, n in codes.items() if c not in _NOT_MONEY_CODES}
    codes.update({c: en.currencies.get(c, c) for c in _EXTRA_CODES})

    en_money = {w: _names(c) for w, c in _EN_MONEY_WORDS.items()}
    en_after = {w: _names(c, after=True) for w, c in _EN_AFTER_AMOUNT.items()}
    ru_lemmas = {_fold_yo(w): _names(c) for w, c in _RU_MONEY_LEMMAS.items()}
    ru_words = {_fold_yo(w): _names(c) for w, c in _RU_MONEY_WORDS.items()}
    ru_after_words = {w: _names(c, after=True) for w, c in _RU_AFTER_AMOUNT.items()}
    morph = _morph()
    forms: set[str] = set(ru_words)

    current = {c.alpha_3 for c in pycountry.currencies}
    for code in sorted(set(en.currencies) | set(ru.currencies), key=lambda c: (c not in current, c)):
        if code in _UNNAMED_CODES:
            continue
        en_names = [en.currencies.get(code), *(en._data["currency_names_plural"].get(code) or {}).values()]
        heads = [ws[-1] for ws in (normalise(_strip_parens(n or "")).lower().split() for n in en_names) if ws]
        for head in heads:
            if head in _EN_EVERYDAY:
                en_after.setdefault(head, _names(heads[0], after=True))
            else:
                en_money.setdefault(head, _names(heads[0]))
        ru_name = ru.currencies.get(code)
        if not ru_name:
            continue
        head, index = _russian_head(normalise(_strip_parens(ru_name)).lower())
        if head is None:
            continue
        everyday = head in _RU_EVERYDAY
        label = _names(head, after=everyday)
        plural = (ru._data["currency_names_plural"].get(code) or {}).values()
        surfaces = {head} | {
            ws[index] for ws in (normalise(_strip_parens(p)).lower().split() for p in plural) if len(ws) > index
        }
        # a currency name by its lemma, so every inflection counts; an everyday word only in the forms
        # CLDR gives for counting it («5 марок», «2 лева» — not «2 льва», lions)
        parses = [p for p in morph.parse(head) if p.normal_form == head and {"NOUN", "ADJF"} & p.tag.grammemes]
        if parses and not everyday:
            ru_lemmas.setdefault(_fold_yo(head), label)
            forms.update(_fold_yo(f.word) for f in parses[0].lexeme)
        target = ru_after_words if everyday else ru_words
        for surface in surfaces:
            target.setdefault(_fold_yo(surface), label)
        forms.update(_fold_yo(surface) for surface in surfaces)

    for lemma in _RU_MONEY_LEMMAS:
        for p in morph.parse(lemma):
            if _fold_yo(p.normal_form) == _fold_yo(lemma):
                forms.update(_fold_yo(f.word) for f in p.lexeme)
    for lemma in ru_lemmas:
        forms.add(lemma)

    signs = _unicode().sign_chars
    symbols: dict[str, str] = {}
    for loc in (en, ru):
        for code, symbol in loc.currency_symbols.items():
            if code in _NOT_MONEY_CODES:
                continue
            for part in normalise(symbol).replace(".", " ").split():
                if len(part) >= 2 and not any(ch in signs for ch in part) and part != code:
                    symbols[part] = f"is a currency sign ({en.currencies.get(code, code)})"

    to_latin, to_cyrillic = _confusable_maps(confusables.confusables_data)
    return _Lexicon(
        codes=codes,
        en_money=en_money,
        en_after_amount=en_after,
        ru_lemmas=ru_lemmas,
        ru_words=ru_words,
        ru_after_amount_words=ru_after_words,
        ru_prefixes=frozenset(f[:4] for f in forms),
        symbols=symbols,
        to_latin=to_latin,
        to_cyrillic=to_cyrillic,
        latin_only=re.compile(f"[{''.join(sorted(c for c in _LATIN if c not in to_cyrillic))}]"),
        cyrillic_only=re.compile(f"[{''.join(sorted(c for c in _CYRILLIC if c not in to_latin))}]"),
    )


def _names(currency: str, after: bool = False) -> str:
    """The reason a refusal gives: "names a currency (рубль)", "names money"."""
    what = f"names a currency ({currency})" if currency else "names money"
    return f"after an amount {what}" if after else what


def _russian_head(name: str) -> tuple[str | None, int]:
    """The noun a Russian currency name is built on («доллар» of «доллар США», «рубль» of «российский
    рубль») and its position; the last word when every word reads as an adjective («злотый»)."""
    words = name.split()
    for i, w in enumerate(words):
        if not re.fullmatch(r"[а-яё]+", w):
            continue
        tags = [p.tag for p in _morph().parse(w)[:3]]
        if not any({"ADJF", "PRTF", "Abbr", "Geox"} & t.grammemes for t in tags):
            return w, i
    last = len(words) - 1
    return (words[last], last) if words and re.fullmatch(r"[а-яё]+", words[last]) else (None, 0)


def _confusable_maps(data: dict[str, list[dict[str, str]]]) -> tuple[dict[str, str], dict[str, str]]:
    """Look-alike -> plain Latin letter and look-alike -> plain Cyrillic letter, from Unicode's
    confusables: «с» -> c, c -> «с», ѕ -> s, 0 -> O, 6 -> «б». A letter with no look-alike in an
    alphabet is absent from that map."""
    to_latin: dict[str, str] = {}
    to_cyrillic: dict[str, str] = {}
    for char, alikes in data.items():
        if len(char) != 1 or not (char.isalpha() or char in "0136"):
            continue
        for alike in (a["c"] for a in alikes):
            if alike in _LATIN and char not in _LATIN:
                to_latin.setdefault(char, alike)
            if alike in _CYRILLIC and char not in _CYRILLIC:
                to_cyrillic.setdefault(char, alike)
    for char, latin in list(to_latin.items()):  # ɑ -> a -> «а»
        if char not in to_cyrillic and latin in to_cyrillic and char not in _CYRILLIC:
            to_cyrillic[char] = to_cyrillic[latin]
    for char, cyrillic in list(to_cyrillic.items()):
        if char not in to_latin and cyrillic in to_latin and char not in _LATIN:
            to_latin[char] = to_latin[cyrillic]
    return to_latin, to_cyrillic


# -- tokens --------------------------------------------------------------------------------------

_LETTER = r"[^\W\d_]"
_JOINER = r"[-\u2010\u2011']"
_TOKEN = re.compile(
    r"(?P<num>\d+(?:[ .,']\d{3})*(?:[.,]\d+)?)"
    rf"|(?P<abbr>(?:{_LETTER}\.){{2,}})"
    rf"|(?P<word>{_LETTER}+(?:(?:{_JOINER}|[0136]+){_LETTER}+)*)\.?"
)
_WORDISH = re.compile(rf"(?:{_LETTER}\.){{2,}}|{_LETTER}+(?:(?:{_JOINER}|[0136]+){_LETTER}+)*")
_SPLIT_JOINER = re.compile(_JOINER)


@dataclass(frozen=True)
class MoneyFinding:
    """A word or sign that names money: as written, as read after normalisation, and why."""

    written: str
    reads: str
    reason: str

    def describe(self) -> str:
        text = f"'{self.written}' {self.reason}"
        if self.reads.casefold() != self.written.casefold():
            shown = self.reads if self.written.isupper() else self.reads.lower()
            text += f" (read as '{shown}')"
        return text


@dataclass(frozen=True)
class _Class:
    """What one word names: money anywhere, right after an amount, or right before one."""

    reads: str
    always: str | None = None
    after: str | None = None
    before: str | None = None


_NOTHING = _Class("")


def _script(word: str) -> str | None:
    """'lat' or 'cyr' for a word whose letters are all of one plain alphabet, None otherwise."""
    letters = [c for c in word if c.isalpha()]
    if letters and all(c in _LATIN for c in letters):
        return "lat"
    if letters and all(c in _CYRILLIC for c in letters):
        return "cyr"
    return None


def _fold(word: str, table: dict[str, str], plain: frozenset[str]) -> str | None:
    """`word` with every letter read in one alphabet, or None when a letter has no look-alike there."""
    out = []
    for c in word:
        if c in plain or not (c.isalpha() or c.isdigit()):
            out.append(c)
        elif c in table:
            out.append(table[c])
        else:
            return None
    return "".join(out)


def _readings(word: str, line_script: str | None, lex: _Lexicon) -> list[str]:
    """The word as written and, where look-alikes may be at play, read wholly in each alphabet: a
    word of mixed or other letters, with digits inside, of the other script than the line's, or in
    a line with no script of its own."""
    if line_script is not None and _script(word) == line_script and not any(c.isdigit() for c in word):
        return [word]
    out = [word]
    for table, plain in ((lex.to_latin, _LATIN), (lex.to_cyrillic, _CYRILLIC)):
        folded = _fold(word, table, plain)
        if folded is not None and folded not in out:
            out.append(folded)
    return out


def _classify(reading: str, lex: _Lexicon) -> _Class | None:
    """What `reading` (a word in one plain alphabet) names, or None."""
    if reading in lex.symbols:
        return _Class(reading, always=lex.symbols[reading])
    low = reading.lower()
    script = _script(reading)
    if script == "lat":
        word = low[:-2] if low.endswith("'s") else low
        if word in lex.en_money:
            return _Class(reading, always=lex.en_money[word])
        if word in lex.en_after_amount:
            return _Class(reading, after=lex.en_after_amount[word])
        code = reading.upper()
        if code in lex.codes:
            why = f"is a currency code ({lex.codes[code]})"
            if code in _WORD_CODES:
                return _Class(reading, after=why) if reading == code else None
            if reading == code:
                return _Class(reading, always=why)
            return _Class(reading, after=why, before=why)
        return None
    if script == "cyr":
        word = _fold_yo(low)
        if word in lex.ru_words:
            return _Class(reading, always=lex.ru_words[word])
        if word in lex.ru_after_amount_words:
            return _Class(reading, after=lex.ru_after_amount_words[word])
        if word[:4] in lex.ru_prefixes:
            lemmas = _lemmas(low)
            for lemma in sorted(lemmas):
                if lemma in lex.ru_lemmas:
                    return _Class(reading, always=lex.ru_lemmas[lemma])
    return None


@lru_cache(maxsize=100_000)
def _word_class(part: str, line_script: str | None) -> _Class:
    """The first reading of a word (no joiners inside) that names money, merged over its readings."""
    lex = _lexicon()
    found = [c for c in (_classify(r, lex) for r in _readings(part, line_script, lex)) if c is not None]
    if not found:
        return _NOTHING
    return _Class(
        found[0].reads,
        always=next((c.always for c in found if c.always), None),
        after=next((c.after or c.always for c in found if c.after or c.always), None),
        before=next((c.before or c.always for c in found if c.before or c.always), None),
    )


@lru_cache(maxsize=100_000)
def _compound_class(text: str, line_script: str | None) -> _Class:
    """A word as a whole and, with hyphens or apostrophes inside («р-р», "cash-back"), part by part:
    a part counts when it is money anywhere; the after/before-an-amount forms count only for the
    whole word («р», not «р-р»)."""
    whole = _word_class(text, line_script)
    if whole is not _NOTHING or not _SPLIT_JOINER.search(text):
        return whole
    for part in _SPLIT_JOINER.split(text):
        c = _word_class(part, line_script)
        if c.always:
            return _Class(c.reads, always=c.always)
    return _NOTHING


def _line_script(norm: str, lex: _Lexicon) -> str | None:
    """The line's script: the alphabet with more letters that have no look-alike in the other."""
    lat = lex.latin_only.search(norm) is not None
    cyr = lex.cyrillic_only.search(norm) is not None
    if lat and cyr:
        lat_n, cyr_n = len(lex.latin_only.findall(norm)), len(lex.cyrillic_only.findall(norm))
        return "lat" if lat_n > cyr_n else "cyr" if cyr_n > lat_n else None
    return "lat" if lat else "cyr" if cyr else None


@dataclass(frozen=True)
class _Hit:
    start: int
    end: int
    reads: str
    reason: str


def _hits(norm: str, lex: _Lexicon) -> list[_Hit]:
    """Every sign and word of the normalised line that names money, where it stands."""
    u = _unicode()
    hits = [
        _Hit(m.start(), m.end(), m.group(), "is a currency sign")
        for m in u.signs.finditer(norm)
        if m.group() in u.sign_chars
    ]
    line_script = _line_script(norm, lex)
    flags = [c for c in map(_chunk_flag, set(norm.split(_SPACE)), repeat(line_script)) if c is not None]
    if not flags:
        return hits  # no word names money here (most lines): decided on cached space-separated chunks
    amount_end = -1  # where the amount just before this token ends; -1: the token before is no amount
    pending: tuple[int, int, _Class] | None = None  # a word that counts right before an amount
    for m in _TOKEN.finditer(norm):
        kind = m.lastgroup or "word"
        start = m.start()
        if kind == "num":
            if pending is not None and _adjacent(norm, pending[1], start):
                hits.append(_Hit(pending[0], pending[1], pending[2].reads, pending[2].before or ""))
            pending = None
            amount_end = m.end()
            continue
        pending = None
        text = m.group(kind)
        after = amount_end >= 0 and _adjacent(norm, amount_end, start)
        amount_end = -1
        if after and kind == "word" and _is_multiplier(text):
            amount_end = m.end()
            continue
        if kind == "word" and _is_number_word(text):
            amount_end = m.end()  # «сто р», «пятьсот рублей», «две тысячи р»
            continue
        c = _word_class(text.rstrip("."), line_script) if kind == "abbr" else _compound_class(text, line_script)
        if c is _NOTHING:
            continue
        why = c.always or (c.after if after else None)
        if why:
            hits.append(_Hit(m.start(kind), m.end(kind), c.reads, why))
        elif c.before:
            pending = (m.start(kind), m.end(kind), c)
    return hits


@lru_cache(maxsize=100_000)
def _chunk_flag(chunk: str, line_script: str | None) -> _Class | None:
    """What the words of a space-separated piece of a line may name: the first class found (one
    that names money anywhere first), None when none of them names money in any place."""
    found = None
    for token in _WORDISH.findall(chunk):
        c = _word_class(token.rstrip("."), line_script) if token.endswith(".") else _compound_class(token, line_script)
        if c.always:
            return c
        if c is not _NOTHING and found is None:
            found = c
    return found


def _adjacent(norm: str, end: int, start: int) -> bool:
    """Nothing but spaces between two tokens."""
    return end == start or not norm[end:start].strip(_SPACE)


@lru_cache(maxsize=4096)
def _is_number_word(word: str) -> bool:
    """A Russian numeral («сто», «пятьсот», «две»), or «тысяча», «миллион» on their own."""
    for reading in _readings(word, None, _lexicon()):
        low = reading.lower()
        if _script(low) == "cyr" and "-" not in low:
            if any("NUMR" in p.tag for p in _morph().parse(low)) or _lemmas(low) <= _MULTIPLIERS:
                return True
    return False


@lru_cache(maxsize=4096)
def _is_multiplier(word: str) -> bool:
    """«к», "k", «тыс», «тысяч», «млн» after a number make it an amount («10к р», «5 тыс. р»)."""
    lex = _lexicon()
    for reading in _readings(word, None, lex):
        low = reading.lower()
        if low in _MULTIPLIERS or (_script(low) == "cyr" and len(low) > 2 and _lemmas(low) & _MULTIPLIERS):
            return True
    return False


# -- the check -----------------------------------------------------------------------------------


@dataclass(frozen=True)
class Verdict:
    """SP-4 on one text: the money found in it (empty: accepted)."""

    text: str
    findings: tuple[MoneyFinding, ...]

    @property
    def accepted(self) -> bool:
        return not self.findings

    @property
    def seal(self) -> str:
        """The verdict stored with an accepted line: `CHECKER:sha256(CHECKER:text)`. A refused text
        has none."""
        if self.findings:
            raise DomainError("money-wording", f"no seal for a text that names money: {self.findings[0].describe()}")
        return seal_for(CHECKER, self.text)


def seal_for(checker: str, text: str) -> str:
    """The seal's recipe, which the database's CHECK repeats (domain/poker/tables/results.py)."""
    return f"{checker}:{hashlib.sha256(f'{checker}:{text}'.encode()).hexdigest()}"


def verdict(text: str) -> Verdict:
    """SP-4 on `text`: every word or sign in it that names money, quoted as written."""
    if not isinstance(text, str):
        raise DomainError("wording-not-text", f"SP-4 checks text; got {type(text).__name__}")
    return _verdict(text)


@lru_cache(maxsize=4096)
def _verdict(text: str) -> Verdict:
    lex = _lexicon()
    norm = normalise(text)
    hits = _hits(norm, lex)
    u = _unicode()
    raw_signs = [  # ₨ reads Rs once normalised: the sign as written still names money
        c for c in {m.group() for m in u.signs.finditer(text)} & u.sign_chars if not u.signs.search(normalise(c))
    ]
    if not hits and not raw_signs:
        return Verdict(text, ())
    mapped, origin = (norm, list(range(len(text)))) if norm == text else _normalise_mapped(text)
    findings: list[MoneyFinding] = []
    for h in hits:
        if mapped == norm and origin:
            written = text[origin[h.start] : origin[h.end - 1] + 1]
        else:
            written = norm[h.start : h.end]
        finding = MoneyFinding(written.strip().rstrip("."), h.reads, h.reason)
        if finding not in findings:
            findings.append(finding)
    findings.extend(MoneyFinding(c, c, "is a currency sign") for c in sorted(raw_signs))
    return Verdict(text, tuple(findings))


def names_money(text: str) -> str | None:
    """The first word or sign of `text` that names money, as written; None when there is none."""
    found = verdict(text).findings
    return found[0].written if found else None


def money_problem(text: str, what: str, code: str = "money-wording") -> Problem | None:
    """SP-4 for one piece of text; `what` names it for the floor ("prize line 3")."""
    found = verdict(text).findings
    if not found:
        return None
    return Problem(
        code,
        f"{what} names money: {'; '.join(f.describe() for f in found)} — prizes are non-monetary only; "
        "describe the award itself (a cup, a certificate, a free entry)",
    )


def wording_seal(text: str) -> str:
    """The seal a table stores with an accepted prize line or description; DomainError when the
    text names money. The one way to a seal goes through the check."""
    return verdict(text).seal


def warm_up() -> None:
    """Builds the lexicon and loads the analyzer now rather than on the first check."""
    _lexicon()


