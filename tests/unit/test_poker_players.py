"""Players: adults only (Sport Poker 1.2.1), blocks (1.5.3), forgetting (1.6.1)."""

from __future__ import annotations

from datetime import date

import pytest

from domain.poker.rules.players import age_on, eligibility_problems, profile_problems

TODAY = date(2026, 11, 29)


@pytest.mark.parametrize(
    "born, expected",
    [(date(2008, 11, 29), []), (date(2008, 11, 30), ["player-under-18"]), (date(2008, 11, 28), [])],
)
def test_1_2_1_registration_is_refused_under_18_to_the_day(born, expected):
    assert [p.code for p in eligibility_problems(born, False, False, TODAY)] == expected
    assert [p.code for p in profile_problems("Anna", "anna", born, TODAY)] == expected


def test_1_2_1_a_leap_day_birthday_counts_from_1_march_in_other_years():
    assert age_on(date(2008, 2, 29), date(2026, 2, 28)) == 17
    assert age_on(date(2008, 2, 29), date(2026, 3, 1)) == 18


def test_1_5_3_a_blocked_player_may_not_register():
    assert [p.code for p in eligibility_problems(date(1990, 1, 1), True, False, TODAY)] == ["player-blocked"]


def test_1_6_1_a_forgotten_player_may_not_register():
    assert [p.code for p in eligibility_problems(None, False, True, TODAY)] == ["player-forgotten"]


@pytest.mark.parametrize("handle", ["a", "1ace", "has space", "x" * 33, "_ace"])
def test_bad_handles_are_refused(handle):
    assert [p.code for p in profile_problems("Anna", handle, date(1990, 1, 1), TODAY)] == ["handle-invalid"]


def test_handles_may_be_cyrillic():
    assert profile_problems("Анна", "анна_77", date(1990, 1, 1), TODAY) == []
