"""The words of the club's screen and of the results page's summary, in the club's language (DOC-4):
one place, used for the page's first paint and for every server-sent message, so the browser only
writes text it is given. Prize places are "prize places", never money (1.1.5, SP-4, DOC-4).

Counted words take the locale's plural forms from the catalogs (gettext plurals: `1 player left`,
`Осталось 21 игрок`, `Осталось 5 игроков`); numbers, dates and times are CLDR's (Babel). A person's
name that a Russian sentence puts in another case than the nominative («от Анны Петровой») is
declined by `inflect` (pymorphy3), or left as it is when it cannot be."""

from __future__ import annotations

import re
from datetime import datetime
from functools import cache, lru_cache
from typing import Any
from zoneinfo import ZoneInfo

from infra import i18n

# pymorphy3's names of the Russian cases `inflect` declines into
CASES = frozenset({"nomn", "gent", "datv", "accs", "ablt", "loct"})
_CYRILLIC_WORD = re.compile(r"[А-Яа-яЁё]+(?:-[А-Яа-яЁё]+)*")
_PERSON = frozenset({"Name", "Surn", "Patr"})  # a first name, a surname, a patronymic
_GENDERS = frozenset({"masc", "femn", "ms-f"})  # ms-f: either ("Саша", "Дюма")


@cache
def _morph() -> Any:
    """pymorphy3's analyzer with its Russian dictionary, loaded at the first name declined."""
    import pymorphy3

    return pymorphy3.MorphAnalyzer(lang="ru")


def _person_parses(part: str, kinds: frozenset[str] = _PERSON) -> list[Any]:
    """The readings of one word of a name as a first name, surname or patronymic in the nominative singular."""
    return [p for p in _morph().parse(part) if kinds & p.tag.grammemes and {"nomn", "sing"} <= p.tag.grammemes]


def _gender(parts: list[list[str]]) -> str | None:
    """The name's gender: its first name's (its first word's); a first name of either gender
    ("Саша") takes its surname's or patronymic's; None when neither tells."""
    first = {g for p in _person_parses(parts[0][0], frozenset({"Name"})) for g in _GENDERS & p.tag.grammemes}
    if first in ({"masc"}, {"femn"}):
        return first.pop()
    if "ms-f" not in first:
        return None
    rest = {
        g
        for word in parts[1:]
        for part in word
        for p in _person_parses(part, frozenset({"Surn", "Patr"}))
        for g in {"masc", "femn"} & p.tag.grammemes
    }
    return rest.pop() if len(rest) == 1 else None


def _cased(like: str, word: str) -> str:
    """`word` (pymorphy3's, lower case) written as `like` is: capitals, a capital first, lower; «ё»
    only where `like` has it."""
    if "ё" not in like.lower():
        word = word.replace("ё", "е")
    if len(like) > 1 and like.isupper():
        return word.upper()
    return word[:1].upper() + word[1:] if like[:1].isupper() else word


def _declined(part: str, gender: str, case: str) -> str | None:
    """One word of a name (a part of a hyphenated one) in `case`, as a name of `gender`; None when
    pymorphy3 does not know it as such."""
    for parse in _person_parses(part):
        if not {gender, "ms-f"} & parse.tag.grammemes:
            continue
        if "Fixd" in parse.tag.grammemes:  # indeclinable (Дюма; a woman's Ковальчук)
            return part
        form = parse.inflect({case})
        if form is not None:
            return _cased(part, form.word)
    return None


@lru_cache(maxsize=4096)
def inflect(name: str, case: str) -> str:
    """A person's name as written ("Анна Петрова", "Егор Смирнов", a hyphenated first name or
    surname, a patronymic) in the Russian `case` (pymorphy3's: gent, datv, accs, ablt, loct):
    "Анны Петровой", "Егора Смирнова". The gender is the first name's; each word and each part of a
    hyphenated word is declined as a first name, surname or patronymic of that gender. A name that
    is not all Cyrillic (Latin "Ann Smith", a handle) or has a word pymorphy3 does not know as a name
    of that gender is returned unchanged, whole: never half declined."""
    if case not in CASES:
        raise ValueError(f"unknown case {case!r}: one of {sorted(CASES)}")
    pieces = re.split(r"(\s+)", name.strip())
    words = pieces[::2]
    if not words or not all(_CYRILLIC_WORD.fullmatch(w) for w in words):
        return name
    parts = [w.split("-") for w in words]
    gender = _gender(parts)
    if gender is None:
        return name
    declined = []
    for word in parts:
        forms = [_declined(part, gender, case) for part in word]
        if None in forms:
            return name
        declined.append("-".join(f for f in forms if f is not None))
    pieces[::2] = declined
    return "".join(pieces)


def clock_text(seconds: int | None) -> str:
    """A countdown as the screen writes it (static/screen.js writes it the same way): 19:51, 1:05:00;
    a dash when there is none."""
    if seconds is None:
        return "—"
    seconds = max(0, int(seconds))
    hours, minutes, secs = seconds // 3600, seconds % 3600 // 60, seconds % 60
    return f"{hours}:{minutes:02d}:{secs:02d}" if hours else f"{minutes}:{secs:02d}"


def blinds(small: int, big: int, locale: str) -> str:
    return f"{i18n.number(small, locale)} / {i18n.number(big, locale)}"


def field_text(state: dict[str, Any], locale: str) -> dict[str, str]:
    """Players left of entries, the prize places, and where the field stands (SP-3)."""
    t = i18n.translations(locale)
    n = state["players_left"], state["entries"], state["prize_places"], state["remaining_to_money"]

    def num(message: str, value: int) -> str:
        return message % {"num": i18n.number(value, locale)}

    if state["status"] == "registration_open":  # before the start: who is coming
        players = num(
            t.ngettext("%(num)s player registered", "%(num)s players registered", state["registered"]),
            state["registered"],
        )
    else:
        players = " ".join(
            (
                num(t.ngettext("%(num)s player left", "%(num)s players left", n[0]), n[0]),
                num(t.ngettext("of %(num)s entry", "of %(num)s entries", n[1]), n[1]),
            )
        )
    if state["status"] in ("registration_open", "finished", "cancelled"):
        standing = ""
    elif state["in_money"]:
        standing = t.gettext("Everyone left is in the prize places")
    elif state["on_bubble"]:
        standing = t.gettext("The last bust before the prize places")
    else:
        standing = num(t.ngettext("%(num)s bust to the prize places", "%(num)s busts to the prize places", n[3]), n[3])
    return {
        "players": players,
        "prize_places": num(t.ngettext("%(num)s prize place", "%(num)s prize places", n[2]), n[2]),
        "standing": standing,
    }


def screen_text(state: dict[str, Any], locale: str) -> dict[str, str]:
    """Every line the screen shows, from `views.screen`'s state."""
    t = i18n.translations(locale)
    c = state["clock"]
    tournament = state["status"]
    next_level = c["next_level"]
    start = datetime.fromisoformat(state["scheduled_start"]).astimezone(ZoneInfo(state["timezone"]))
    shown = None  # (small, big, ante) under the level line
    blinds_label = ""
    if tournament == "finished":
        level = t.gettext("Finished")
    elif tournament == "cancelled":
        level = t.gettext("Cancelled")
    elif c["level"] is None:
        server_now = datetime.fromisoformat(state["server_now"])
        level = (
            t.gettext("Starts at %(time)s") % {"time": i18n.short_time(start, locale)}
            if datetime.fromisoformat(state["scheduled_start"]) > server_now
            else t.gettext("Starting soon")
        )
        if next_level:
            blinds_label = t.gettext("Level %(n)s") % {"n": i18n.number(next_level["level"], locale)}
    elif c["is_break"]:
        level = t.gettext("Break")
        if next_level:
            blinds_label = t.gettext("After the break: level %(n)s") % {"n": i18n.number(next_level["level"], locale)}
    else:
        level = t.gettext("Level %(n)s") % {"n": i18n.number(c["level"], locale)}
        shown = (c["small_blind"], c["big_blind"], c["ante"])
    if shown is None and blinds_label and next_level:
        shown = (next_level["small_blind"], next_level["big_blind"], next_level["ante"])
    ante = ""
    if shown and shown[2]:
        ante = (t.gettext("BB ante %(n)s") if c["bb_ante"] else t.gettext("ante %(n)s")) % {
            "n": i18n.number(shown[2], locale)
        }
    status = {
        "paused": t.gettext("paused"),
        "structure exhausted": t.gettext("the last level"),
        "registration open": t.gettext("registration open"),
    }.get(c["status"], "")
    if c["stopped_at"] and c["level"]:
        status = t.gettext("the clock stopped at level %(n)s") % {"n": i18n.number(c["level"], locale)}
    winners = state["winners"]
    return {
        "level": level,
        "status": status,
        "blinds_label": blinds_label,
        "blinds": blinds(shown[0], shown[1], locale) if shown else "",
        "ante": ante,
        "next_break": t.gettext("break in"),
        "winner": (t.ngettext("Winner: %(names)s", "Winners: %(names)s", len(winners)) % {"names": ", ".join(winners)})
        if winners
        else "",
        **field_text(state, locale),
    }


def with_text(state: dict[str, Any]) -> dict[str, Any]:
    """The screen's state with its words, in the club's language."""
    return {**state, "text": screen_text(state, state["locale"])}
