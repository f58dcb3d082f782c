"""SP-4's lexicon: every currency code, name and symbol, and the colloquial money words, built once
from pycountry (ISO 4217), Babel (CLDR's English and Russian names and symbols), pymorphy3 (every
inflection of a Russian name) and Unicode's confusables table (look-alike letters)."""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from functools import cache, lru_cache
from typing import Any

from domain.poker.rules.wording.decisions import (
    _EN_AFTER_AMOUNT,
    _EN_EVERYDAY,
    _EN_MONEY_WORDS,
    _EXTRA_CODES,
    _NOT_MONEY_CODES,
    _RU_AFTER_AMOUNT,
    _RU_EVERYDAY,
    _RU_MONEY_LEMMAS,
    _RU_MONEY_WORDS,
    _UNNAMED_CODES,
)
from domain.poker.rules.wording.normalisation import (
    _CYRILLIC,
    _LATIN,
    _unicode,
    normalise,
)


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


@dataclass
class _Words:
    """The lexicon's word lists while it is built: the hand-made lists first, then what CLDR adds
    (a word already listed keeps its reason)."""

    en_money: dict[str, str]
    en_after: dict[str, str]
    ru_lemmas: dict[str, str]
    ru_words: dict[str, str]
    ru_after_words: dict[str, str]
    forms: set[str]  # every Russian form worth lemmatising

    @classmethod
    def hand_made(cls) -> _Words:
        ru_words = {_fold_yo(w): _names(c) for w, c in _RU_MONEY_WORDS.items()}
        return cls(
            en_money={w: _names(c) for w, c in _EN_MONEY_WORDS.items()},
            en_after={w: _names(c, after=True) for w, c in _EN_AFTER_AMOUNT.items()},
            ru_lemmas={_fold_yo(w): _names(c) for w, c in _RU_MONEY_LEMMAS.items()},
            ru_words=ru_words,
            ru_after_words={w: _names(c, after=True) for w, c in _RU_AFTER_AMOUNT.items()},
            forms=set(ru_words),
        )


@cache
def _lexicon() -> _Lexicon:
    import pycountry
    from babel import Locale
    from confusable_homoglyphs import confusables

    en, ru = Locale("en"), Locale("ru")
    words = _Words.hand_made()
    current = {c.alpha_3 for c in pycountry.currencies}
    for code in sorted(set(en.currencies) | set(ru.currencies), key=lambda c: (c not in current, c)):
        if code in _UNNAMED_CODES:
            continue
        _add_english_names(words, en, code)
        _add_russian_names(words, ru, code)
    _add_lemma_forms(words)
    to_latin, to_cyrillic = _confusable_maps(confusables.confusables_data)
    return _Lexicon(
        codes=_codes(pycountry.currencies, en),
        en_money=words.en_money,
        en_after_amount=words.en_after,
        ru_lemmas=words.ru_lemmas,
        ru_words=words.ru_words,
        ru_after_amount_words=words.ru_after_words,
        ru_prefixes=frozenset(f[:4] for f in words.forms),
        symbols=_symbols(en, ru),
        to_latin=to_latin,
        to_cyrillic=to_cyrillic,
        latin_only=re.compile(f"[{''.join(sorted(c for c in _LATIN if c not in to_cyrillic))}]"),
        cyrillic_only=re.compile(f"[{''.join(sorted(c for c in _CYRILLIC if c not in to_latin))}]"),
    )


def _codes(currencies: Iterable[Any], en: Any) -> dict[str, str]:
    """ISO 4217 code -> the currency's English name: every code pycountry knows but those that are
    not money, and the codes a club writes that ISO no longer lists."""
    codes = {c.alpha_3: en.currencies.get(c.alpha_3, c.name) for c in currencies}
    codes = {c: n for c, n in codes.items() if c not in _NOT_MONEY_CODES}
    codes.update({c: en.currencies.get(c, c) for c in _EXTRA_CODES})
    return codes


def _add_english_names(words: _Words, en: Any, code: str) -> None:
    """The head words of a currency's English names, singular and plural ("dollar", "dollars"):
    money anywhere, an everyday word only after an amount."""
    en_names = [en.currencies.get(code), *(en._data["currency_names_plural"].get(code) or {}).values()]
    heads = [ws[-1] for ws in (normalise(_strip_parens(n or "")).lower().split() for n in en_names) if ws]
    for head in heads:
        if head in _EN_EVERYDAY:
            words.en_after.setdefault(head, _names(heads[0], after=True))
        else:
            words.en_money.setdefault(head, _names(heads[0]))


def _add_russian_names(words: _Words, ru: Any, code: str) -> None:
    """The noun a currency's Russian name is built on, in the forms CLDR gives for counting it."""
    ru_name = ru.currencies.get(code)
    if not ru_name:
        return
    head, index = _russian_head(normalise(_strip_parens(ru_name)).lower())
    if head is None:
        return
    everyday = head in _RU_EVERYDAY
    label = _names(head, after=everyday)
    plural = (ru._data["currency_names_plural"].get(code) or {}).values()
    surfaces = {head} | {
        ws[index] for ws in (normalise(_strip_parens(p)).lower().split() for p in plural) if len(ws) > index
    }
    # a currency name by its lemma, so every inflection counts; an everyday word only in the forms
    # CLDR gives for counting it («5 марок», «2 лева» — not «2 льва», lions)
    parses = [p for p in _morph().parse(head) if p.normal_form == head and {"NOUN", "ADJF"} & p.tag.grammemes]
    if parses and not everyday:
        words.ru_lemmas.setdefault(_fold_yo(head), label)
        words.forms.update(_fold_yo(f.word) for f in parses[0].lexeme)
    target = words.ru_after_words if everyday else words.ru_words
    for surface in surfaces:
        target.setdefault(_fold_yo(surface), label)
    words.forms.update(_fold_yo(surface) for surface in surfaces)


def _add_lemma_forms(words: _Words) -> None:
    """Every form of the colloquial money lemmas, and every money lemma itself."""
    for lemma in _RU_MONEY_LEMMAS:
        for p in _morph().parse(lemma):
            if _fold_yo(p.normal_form) == _fold_yo(lemma):
                words.forms.update(_fold_yo(f.word) for f in p.lexeme)
    for lemma in words.ru_lemmas:
        words.forms.add(lemma)


def _symbols(en: Any, ru: Any) -> dict[str, str]:
    """The currency symbols CLDR writes with letters ("FCFA", «руб»), as written: each part of two
    letters or more that is no sign and not the code itself."""
    signs = _unicode().sign_chars
    symbols: dict[str, str] = {}
    for loc in (en, ru):
        for code, symbol in loc.currency_symbols.items():
            if code in _NOT_MONEY_CODES:
                continue
            for part in normalise(symbol).replace(".", " ").split():
                if len(part) >= 2 and not any(ch in signs for ch in part) and part != code:
                    symbols[part] = f"is a currency sign ({en.currencies.get(code, code)})"
    return symbols


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
