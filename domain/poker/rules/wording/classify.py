"""SP-4's steps 2 to 4: a normalised line split into tokens (amounts, words, currency signs), each
word read in the line's script through its look-alikes and matched against the lexicon, and where
in the line each word or sign that names money stands (some count only next to an amount)."""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from itertools import repeat

from domain.poker.rules.wording.decisions import (
    _EN_NUMBER_WORDS,
    _MULTIPLIERS,
    _WORD_CODES,
)
from domain.poker.rules.wording.lexicon import (
    _fold_yo,
    _lemmas,
    _Lexicon,
    _lexicon,
    _morph,
)
from domain.poker.rules.wording.normalisation import _CYRILLIC, _LATIN, _SPACE, _unicode

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
        text = m.group(kind)
        before, pending = pending, None
        after = amount_end >= 0 and _adjacent(norm, amount_end, start)
        amount_end = -1
        if after and kind == "word" and _is_multiplier(text):
            amount_end = m.end()
            continue
        if kind == "word" and _is_number_word(text):  # an amount in words counts as one in digits
            if before is not None and _adjacent(norm, before[1], start):  # "USD fifty"
                hits.append(_Hit(before[0], before[1], before[2].reads, before[2].before or ""))
            amount_end = m.end()  # «сто р», «пятьсот рублей», «две тысячи р», "fifty quid"
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
    """A Russian numeral («сто», «пятьсот», «две»), or «тысяча», «миллион» on their own; an English
    cardinal ("five", "twenty-five", "hundred")."""
    for reading in _readings(word, None, _lexicon()):
        low = reading.lower()
        if _script(low) == "cyr" and "-" not in low:
            if any("NUMR" in p.tag for p in _morph().parse(low)) or _lemmas(low) <= _MULTIPLIERS:
                return True
        if _script(low) == "lat" and all(part in _EN_NUMBER_WORDS for part in _SPLIT_JOINER.split(low)):
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
