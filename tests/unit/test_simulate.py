"""The simulator's pure decisions: one seed, one script; the script ends with one player in; the demo's
Russian names (DOC-3)."""

from __future__ import annotations

import random
import re
from datetime import UTC, datetime, timedelta
from functools import cache

import pymorphy3
from hypothesis import given, settings
from hypothesis import strategies as st

from domain.simulate.rules.names import FEMN, FIRST_NAMES, MASC, SURNAMES, russian_names, surname_for
from domain.simulate.rules.script import (
    ADDON,
    BUST,
    CHECKIN,
    REENTRY,
    PokerTimes,
    game_finishes,
    no_shows,
    poker_script,
    started_late,
)

START = datetime(2026, 11, 29, 12, 2, tzinfo=UTC)
TIMES = PokerTimes(
    opens=START - timedelta(minutes=2),
    start=START,
    late_close=START + timedelta(minutes=2),
    reentry_until=START + timedelta(minutes=2),
    addon_at=START + timedelta(minutes=2, seconds=1),
    finish_by=START + timedelta(minutes=4),
)
PLAYERS = [f"demo{i:02d}" for i in range(1, 31)]


def script(seed: int, players=PLAYERS, times=TIMES):
    rng = random.Random(seed)
    absent = no_shows(rng, players, 3)
    return absent, poker_script(rng, [p for p in players if p not in absent], times)


def test_the_same_seed_gives_the_same_script_and_another_seed_another():
    assert script(7) == script(7)
    assert script(7) != script(8)
    rng_a, rng_b = random.Random(1), random.Random(1)
    seated = ["ann", "bob", "cyd", "dee"]
    assert [game_finishes(rng_a, seated) for _ in range(5)] == [game_finishes(rng_b, seated) for _ in range(5)]


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 10**6), field=st.integers(4, 40), absent=st.integers(0, 5))
def test_a_script_checks_in_everyone_who_comes_and_busts_all_but_one_in_time(seed, field, absent):
    players = [f"p{i}" for i in range(field)]
    rng = random.Random(seed)
    away = no_shows(rng, players, absent)
    steps = poker_script(rng, [p for p in players if p not in away], TIMES)
    assert len(away) == min(absent, field - 2)
    assert [s.at for s in steps] == sorted(s.at for s in steps)
    checkins = [s.player for s in steps if s.kind == CHECKIN]
    assert sorted(checkins) == sorted(set(players) - set(away))
    assert all(s.at < TIMES.late_close for s in steps if s.kind == CHECKIN)
    reentries = [s for s in steps if s.kind == REENTRY]
    assert all(s.at + TIMES.tick < TIMES.reentry_until for s in reentries)
    busts = [s for s in steps if s.kind == BUST]
    assert len(busts) == len(checkins) + len(reentries) - 1  # one player left
    assert all(TIMES.start < s.at <= TIMES.finish_by and s.killer not in (None, s.player) for s in busts)
    addons = [s.player for s in steps if s.kind == ADDON]
    assert len(addons) == len(set(addons)) and all(s.at >= TIMES.addon_at for s in steps if s.kind == ADDON)
    alive = set()
    for s in steps:  # nobody busts, kills or takes an add-on while out
        if s.kind in (CHECKIN, REENTRY):
            assert s.player not in alive
            alive.add(s.player)
        elif s.kind == BUST:
            assert {s.player, s.killer} <= alive
            alive.remove(s.player)
        else:
            assert s.player in alive
    assert len(alive) == 1


@given(late=st.integers(min_value=-5, max_value=90))
@settings(max_examples=40, deadline=None)
def test_a_late_start_moves_only_the_add_ons_by_as_much_and_keeps_the_script_in_time_order(late):
    """SP 3.1: the add-on waits for the clock's break, which a late start delays; deadlines stay."""
    _, steps = script(5)
    moved = started_late(steps, timedelta(seconds=late))
    shift = timedelta(seconds=max(late, 0))
    assert sorted((s.at - (shift if s.kind == ADDON else timedelta(0)), s.kind, s.player) for s in moved) == sorted(
        (s.at, s.kind, s.player) for s in steps
    )
    assert [s.at for s in moved] == sorted(s.at for s in moved)
    assert [s for s in moved if s.kind != ADDON] == [s for s in steps if s.kind != ADDON]


def test_a_start_on_time_or_early_changes_nothing():
    _, steps = script(5)
    assert started_late(steps, timedelta(0)) == steps == started_late(steps, timedelta(seconds=-3))
    assert any(s.kind == ADDON for s in steps)


def test_a_game_gives_every_seated_player_one_position_and_the_diamond_only_to_the_winner():
    rng = random.Random(4)
    for _ in range(50):
        finishes, diamond = game_finishes(rng, ["ann", "bob", "cyd", "dee"])
        assert sorted(p for p, _ in finishes) == ["ann", "bob", "cyd", "dee"]
        assert [pos for _, pos in finishes] == [1, 2, 3, 4]
        assert diamond in (None, finishes[0][0])


CYRILLIC_NAME = re.compile(r"[А-ЯЁ][а-яё]+ [А-ЯЁ][а-яё]+")


@cache
def _morph() -> pymorphy3.MorphAnalyzer:
    return pymorphy3.MorphAnalyzer(lang="ru")


def _genders(word: str, kind: str) -> set[str]:
    """The genders pymorphy3 reads `word` as, as a first name (`Name`) or a surname (`Surn`) in the
    nominative singular."""
    return {
        g
        for p in _morph().parse(word)
        if {kind, "nomn", "sing"} <= p.tag.grammemes
        for g in {"masc", "femn", "ms-f"} & p.tag.grammemes
    }


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 10**9), count=st.integers(0, 80))
def test_doc_3_the_demo_s_russian_names_are_cyrillic_and_the_surname_has_the_first_name_s_gender(seed, count):
    """DOC-3: every name the demo gives a Russian club's player is Cyrillic, a first name and a
    surname, and pymorphy3 reads the surname in the first name's gender only (Егор Смирнов, Анна
    Смирнова, never Анна Смирнов); the lists' own gender tags say the same; a field's names differ."""
    names = russian_names(random.Random(seed), count)
    assert len(names) == count == len(set(names))
    tagged = dict(FIRST_NAMES)
    for name in names:
        assert CYRILLIC_NAME.fullmatch(name), name
        first, surname = name.split(" ")
        assert _genders(first, "Name") == {tagged[first]}, name
        assert _genders(surname, "Surn") == {tagged[first]}, name
        assert surname in {surname_for(s, tagged[first]) for s in SURNAMES}


def test_doc_3_every_first_name_and_surname_of_the_lists_is_known_in_its_gender():
    """DOC-3: the fixed lists, whole, as pymorphy3 reads them: each first name of its tagged gender, each
    surname masculine and its feminine form feminine."""
    assert {g for _, g in FIRST_NAMES} == {MASC, FEMN}
    assert all(_genders(first, "Name") == {g} for first, g in FIRST_NAMES)
    assert all(_genders(s, "Surn") == {MASC} and _genders(surname_for(s, FEMN), "Surn") == {FEMN} for s in SURNAMES)
    assert (surname_for("Смирнов", FEMN), surname_for("Островский", FEMN), surname_for("Ильин", MASC)) == (
        "Смирнова",
        "Островская",
        "Ильин",
    )


def test_doc_3_one_seed_one_field_of_names():
    assert russian_names(random.Random(42), 46) == russian_names(random.Random(42), 46)
    assert russian_names(random.Random(42), 46) != russian_names(random.Random(43), 46)
    assert len(set(russian_names(random.Random(1), 2000))) == len(FIRST_NAMES) * len(SURNAMES)  # then repeats
