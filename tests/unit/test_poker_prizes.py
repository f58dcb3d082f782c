"""Prize lines, presets, ITM and the bubble (Sport Poker 3.4, RULES SP-3, SP-4)."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from domain.errors import DomainError
from domain.poker.rules.prizes import (
    itm,
    paid_places,
    preset_lines,
    prize_line_problems,
    validated_prize_lines,
)


def codes(problems):
    return [p.code for p in problems]


@pytest.mark.parametrize("money", ["1000 руб.", "$50", "5 000 р", "денежный приз", "cash"])
def test_sp_4_a_prize_line_naming_money_is_refused(money):
    """SP-4: the issue's examples, each refused with money-wording."""
    assert codes(prize_line_problems(["Cup", money])) == ["money-wording"]


def test_sp_4_two_hundred_lines_are_fine_and_201_are_refused():
    """SP-4: at most 200 lines."""
    assert prize_line_problems(["Medal"] * 200) == []
    assert codes(prize_line_problems(["Medal"] * 201)) == ["prizes-too-many-lines"]


def test_sp_4_a_500_character_line_is_fine_and_501_are_refused():
    """SP-4: at most 500 characters a line."""
    assert prize_line_problems(["x" * 500]) == []
    assert codes(prize_line_problems(["x" * 501])) == ["prize-line-too-long"]


def test_sp_4_every_problem_is_reported_at_once():
    problems = prize_line_problems(["Cup", "", "cash " + "x" * 500])
    assert codes(problems) == ["prize-line-empty", "prize-line-too-long", "money-wording"]
    with pytest.raises(DomainError) as refused:
        validated_prize_lines(["Cup", "", "cash"])
    assert refused.value.code == "prize-line-empty"
    assert [p.code for p in refused.value.problems] == ["prize-line-empty", "money-wording"]


def test_an_empty_prize_list_is_a_tournament_without_prizes():
    """3.4: an empty list is valid."""
    assert validated_prize_lines([]) == ()


@pytest.mark.parametrize(
    "entries, players, percent, minimum, paid",
    [
        (100, 80, 15, 1, 15),
        (10, 10, 15, 1, 2),  # 1.5 rounds half up to 2
        (10, 10, 14, 1, 1),  # 1.4 rounds down
        (30, 25, 5, 1, 2),  # 1.5 -> 2
        (9, 9, 5, 1, 1),  # 0.45 -> 0, raised to at least 1
        (9, 9, 5, 3, 3),  # raised to the minimum
        (9, 9, 5, 0, 1),  # a minimum of 0 still pays one place
        (50, 4, 20, 1, 4),  # 10 capped at 4 distinct players
        (12, 10, 25, 1, 3),  # re-entries count: 12 entries
    ],
)
def test_sp_3_paid_places_round_half_up_with_minimum_and_cap(entries, players, percent, minimum, paid):
    """SP-3: round-half-up(percent × entries / 100), ≥ max(minimum, 1), ≤ distinct players."""
    assert paid_places(entries, players, percent, minimum) == paid


@pytest.mark.parametrize(
    "remaining, to_money, bubble, in_money",
    [(7, 2, False, False), (6, 1, True, False), (5, 0, False, True), (3, -2, False, True)],
)
def test_sp_3_remaining_to_the_money_the_bubble_and_in_the_money(remaining, to_money, bubble, in_money):
    """SP-3: 50 entries at 10% pay 5; the bubble is exactly one to go."""
    status = itm(entries=50, players=45, remaining=remaining, percent=10)
    assert status.paid_places == 5
    assert (status.remaining_to_money, status.on_bubble, status.in_money) == (to_money, bubble, in_money)


@settings(max_examples=100)
@given(st.integers(0, 10_000), st.integers(0, 100), st.integers(0, 50), st.integers(0, 10_000))
def test_sp_3_paid_places_equal_the_exact_fraction_rounded_half_up(entries, percent, minimum, players):
    """SP-3: the integer formula is floor(percent·entries/100 + 1/2), bounded."""
    import math
    from fractions import Fraction

    exact = math.floor(Fraction(percent * entries, 100) + Fraction(1, 2))
    assert paid_places(entries, players, percent, minimum) == min(max(exact, minimum, 1), players)


@pytest.mark.parametrize("locale", ["ru", "en"])
@pytest.mark.parametrize("name", ["cup", "merch", "certificates"])
def test_fixed_presets_give_the_top_3_and_are_trimmed_to_the_field(name, locale):
    """3.4: fixed presets for the top 3, trimmed to the field; all free of money (SP-4)."""
    assert len(preset_lines(name, entries=20, players=20, locale=locale)) == 3
    assert len(preset_lines(name, entries=2, players=2, locale=locale)) == 2
    assert prize_line_problems(preset_lines(name, 20, 20, locale)) == []


def test_3_4_presets_speak_the_club_s_language():
    """3.4, DOC-4: a preset's lines are stored in the club's language (documents print prize lines as
    they are): Russian lines have no Latin letter, English lines no Cyrillic one."""
    assert preset_lines("cup", 20, 20, "ru") == (
        "Кубок и вход на турнир клуба",
        "Вход на турнир клуба",
        "Вход на турнир клуба",
    )
    assert preset_lines("cup", 20, 20, "en") == ("Cup and a free entry", "Free entry", "Free entry")
    for name in ("cup", "merch", "certificates", "freerolls"):
        ru, en = " ".join(preset_lines(name, 40, 40, "ru")), " ".join(preset_lines(name, 40, 40, "en"))
        assert not any("a" <= ch.lower() <= "z" for ch in ru), ru
        assert not any("а" <= ch.lower() <= "я" for ch in en), en


@pytest.mark.parametrize("locale", ["ru", "en"])
def test_the_freerolls_preset_gives_a_free_entry_to_10_percent_of_the_field(locale):
    """3.4 + SP-3: 45 entries at 10% → 4.5 → 5 lines; trimmed to the players."""
    lines = preset_lines("freerolls", entries=45, players=40, locale=locale)
    assert len(lines) == 5 and len(set(lines)) == 1
    assert len(preset_lines("freerolls", entries=3, players=3, locale=locale)) == 1
    assert prize_line_problems(lines) == []


def test_an_unknown_preset_is_refused():
    with pytest.raises(DomainError) as refused:
        preset_lines("gold", 10, 10, "ru")
    assert refused.value.code == "prize-preset-unknown"
