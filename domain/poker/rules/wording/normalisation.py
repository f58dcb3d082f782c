"""SP-4's step 1: a line as the check reads it. Default-ignorable characters removed, Unicode NFKC,
combining marks removed but for «й» and «ё», every kind of space one space, one apostrophe; and the
two plain alphabets the later steps read words in."""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
from functools import cache, lru_cache

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
    map(
        chr,
        (
            0x034F,
            0x115F,
            0x1160,
            0x17B4,
            0x17B5,
            0x3164,
            0xFFA0,
            *range(0x180B, 0x1810),
            *range(0xFE00, 0xFE10),
            *range(0xFFF0, 0xFFF9),
            *range(0xE0100, 0xE01F0),
        ),
    )
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
