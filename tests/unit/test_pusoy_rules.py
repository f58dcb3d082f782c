"""Pusoy Dos sizes, brackets, join codes, statuses and scoring (PD-1, PD-2, PD-3, PD-5, PD-6, PD-11)."""

from __future__ import annotations

import random
import secrets

import pytest

from domain.pusoy.rules.bracket import (
    bracket,
    bracket_problems,
    capacity_problems,
    default_bracket,
    games_problems,
)
from domain.pusoy.rules.codes import ALPHABET, handle_problems, new_code, normalise
from domain.pusoy.rules.scoring import points, report_problems
from domain.pusoy.rules.status import Status, transition_problems
from domain.pusoy.rules.status import report_problems as status_report_problems


@pytest.mark.parametrize(("capacity", "fields"), [(8, (8, 4)), (16, (16, 8, 4)), (32, (32, 16, 8, 4))])
def test_pd_1_the_default_bracket_halves_the_field_until_four_remain(capacity, fields):
    """PD-1"""
    assert capacity_problems(capacity) == []
    assert default_bracket(capacity) == fields
    assert bracket(capacity) == fields


@pytest.mark.parametrize("capacity", [0, 4, 12, 24, 64])
def test_pd_1_any_other_capacity_is_refused(capacity):
    """PD-1"""
    assert [p.code for p in capacity_problems(capacity)] == ["bad-capacity"]


@pytest.mark.parametrize(
    ("capacity", "advancing"),
    [(32, (12, 4)), (32, (4,)), (16, (12, 8, 4)), (8, (4,)), (32, (28, 24, 20, 16, 12, 8, 4))],
)
def test_pd_2_a_custom_bracket_of_whole_shrinking_tables_ending_at_four_is_valid(capacity, advancing):
    """PD-2"""
    assert bracket_problems(capacity, advancing) == []
    assert bracket(capacity, advancing) == (capacity, *advancing)


@pytest.mark.parametrize(
    ("advancing", "message"),
    [
        ((12, 6), "round 3 would have 6 players, not whole tables of 4"),
        ((10, 4), "round 2 would have 10 players, not whole tables of 4"),
        ((16, 8), "the last round (round 3) has 8 players; the final table has 4"),
        ((32, 4), "round 1 advances 32 of 32 players; a round must shrink the field"),
        ((8, 12, 4), "round 2 advances 12 of 8 players; a round must shrink the field"),
        ((), "a custom bracket names at least one round's advancers"),
    ],
)
def test_pd_2_a_bad_custom_bracket_is_refused_naming_the_bad_round(advancing, message):
    """PD-2"""
    problems = bracket_problems(32, advancing)
    assert {p.code for p in problems} == {"bad-bracket"}
    assert message in [p.message for p in problems]


@pytest.mark.parametrize(("games", "ok"), [(0, False), (1, True), (10, True), (11, False)])
def test_pd_5_games_per_round_are_one_to_ten(games, ok):
    """PD-5"""
    assert (games_problems(games) == []) is ok
    if not ok:
        assert games_problems(games)[0].code == "bad-games-per-round"


def test_pd_3_join_codes_are_six_characters_without_look_alikes_from_the_given_rng():
    """PD-3"""
    assert not set("01IO") & set(ALPHABET) and len(ALPHABET) == 32
    assert new_code(random.Random(7)) == new_code(random.Random(7))
    code = new_code(secrets.SystemRandom())
    assert len(code) == 6 and set(code) <= set(ALPHABET)


def test_pd_3_codes_are_matched_case_insensitively():
    """PD-3"""
    assert normalise("  ab3xyz ") == "AB3XYZ"


@pytest.mark.parametrize(
    ("handle", "ok"), [("ann", True), ("Анна_1", True), ("", False), ("a b", False), ("a=1", False), ("x" * 41, False)]
)
def test_player_handles_are_short_words_without_separators(handle, ok):
    assert (handle_problems(handle) == []) is ok
    assert ok or handle_problems(handle)[0].code == "bad-player"


@pytest.mark.parametrize(
    ("current", "target", "ok"),
    [
        (Status.SETUP, Status.ACTIVE, True),
        (Status.SETUP, Status.CANCELLED, True),
        (Status.ACTIVE, Status.COMPLETE, True),
        (Status.SETUP, Status.COMPLETE, False),
        (Status.ACTIVE, Status.CANCELLED, False),
        (Status.ACTIVE, Status.SETUP, False),
        (Status.COMPLETE, Status.ACTIVE, False),
        (Status.CANCELLED, Status.SETUP, False),
    ],
)
def test_pd_11_only_the_four_status_changes_exist(current, target, ok):
    """PD-11"""
    assert (transition_problems(current, target) == []) is ok


@pytest.mark.parametrize("status", [Status.SETUP, Status.COMPLETE, Status.CANCELLED])
def test_pd_11_only_an_active_tournament_takes_reports(status):
    """PD-11"""
    assert [p.code for p in status_report_problems(status)] == ["tournament-not-active"]
    assert status_report_problems(Status.ACTIVE) == []


@pytest.mark.parametrize(
    ("position", "diamond", "expected"), [(1, False, 3), (1, True, 4), (2, False, 2), (3, False, 1), (4, False, 0)]
)
def test_pd_6_points_by_finishing_position_and_the_two_of_diamonds_win(position, diamond, expected):
    """PD-6"""
    assert points(position, diamond) == expected


SEATED = ("ann", "bob", "cyd", "dee")


def test_pd_6_a_complete_report_has_no_problems():
    """PD-6"""
    assert report_problems(SEATED, [("bob", 1), ("ann", 2), ("dee", 3), ("cyd", 4)], "bob", 2, 3) == []


@pytest.mark.parametrize(
    ("finishes", "diamond", "game", "code"),
    [
        ([("ann", 1), ("bob", 2), ("cyd", 3), ("eve", 4)], None, 1, "not-at-table"),
        ([("ann", 1), ("bob", 2), ("cyd", 2), ("dee", 4)], None, 1, "repeated-position"),
        ([("ann", 1), ("ann", 2), ("cyd", 3), ("dee", 4)], None, 1, "repeated-player"),
        ([("ann", 1), ("bob", 2), ("cyd", 3), ("dee", 5)], None, 1, "bad-position"),
        ([("ann", 1), ("bob", 2), ("cyd", 3)], None, 1, "missing-player"),
        ([("ann", 1), ("bob", 2), ("cyd", 3), ("dee", 4)], "bob", 1, "two-of-diamonds-not-winner"),
        ([("ann", 1), ("bob", 2), ("cyd", 3), ("dee", 4)], None, 4, "bad-game-number"),
        ([("ann", 1), ("bob", 2), ("cyd", 3), ("dee", 4)], None, 0, "bad-game-number"),
    ],
)
def test_pd_6_each_bad_report_names_its_problem(finishes, diamond, game, code):
    """PD-6"""
    assert code in [p.code for p in report_problems(SEATED, finishes, diamond, game, 3)]
