"""Knockouts, bust numbers, voiding, credits and mystery draws (Sport Poker 3.2, 3.3; SP-4, SP-5)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from fractions import Fraction

import pytest

from domain.poker.rules.knockouts import (
    DEFAULT_VOID_WINDOW,
    Bust,
    EntryState,
    KnockoutState,
    as_credit,
    bust_number,
    credit_halves,
    credit_halves_by_player,
    draw_problems,
    group_problems,
    knockout_problems,
    void_problems,
)

NOW = datetime(2026, 5, 1, 20, 0, tzinfo=UTC)


def entries(*out: int, count: int = 5) -> dict[int, EntryState]:
    """Entries 1..count of players 101..; the given ones already out."""
    return {n: EntryState(n, 100 + n, n in out) for n in range(1, count + 1)}


def codes(problems):
    return [p.code for p in problems]


def test_3_2_a_plain_knockout_is_accepted():
    assert knockout_problems([Bust(2, 1)], entries()) == []


def test_3_2_nobody_knocks_out_himself():
    """3.2: you cannot knock out yourself."""
    assert codes(knockout_problems([Bust(2, 2)], entries())) == ["knockout-self"]


def test_3_2_a_busted_entry_is_recorded_once():
    """3.2: a single eliminated player is recorded exactly once."""
    assert codes(knockout_problems([Bust(2, 1)], entries(2))) == ["knockout-already-out"]
    assert codes(knockout_problems([Bust(2, 1), Bust(2, 1)], entries())) == ["knockout-duplicate"] * 2


def test_3_2_unknown_entries_and_killers_are_refused():
    assert codes(knockout_problems([Bust(99, 1)], entries())) == ["knockout-unknown-entry"]
    assert codes(knockout_problems([Bust(2, 99)], entries())) == ["knockout-unknown-killer"]


def test_3_2_a_killer_who_is_out_or_busts_in_the_same_block_is_refused():
    assert codes(knockout_problems([Bust(2, 3)], entries(3))) == ["knockout-killer-out"]
    assert codes(knockout_problems([Bust(2, 3), Bust(3, 1)], entries())) == ["knockout-killer-out"]


def test_3_2_two_killers_must_differ_and_the_second_needs_a_primary():
    assert codes(knockout_problems([Bust(2, 1, 1)], entries())) == ["knockout-same-killers"]
    assert codes(knockout_problems([Bust(2, None, 1)], entries())) == ["knockout-second-without-primary"]


def test_3_2_the_last_player_in_cannot_be_knocked_out():
    """3.2/3.7: a block that would leave nobody in is refused; one left is the champion."""
    assert codes(knockout_problems([Bust(1), Bust(2)], entries(count=2))) == ["knockout-nobody-left"]
    assert knockout_problems([Bust(1, 2)], entries(count=2)) == []


def test_3_2_a_level_beyond_the_structure_s_levels_is_refused():
    """3.2: the level of a knockout is one of the structure's levels (breaks counted, as the clock numbers them)."""
    assert knockout_problems([Bust(2, 1)], entries(), level=5, level_count=5) == []
    [problem] = knockout_problems([Bust(2, 1)], entries(), level=6, level_count=5)
    assert (problem.code, problem.message) == (
        "knockout-bad-level",
        "level 6: the tournament's blind structure has 5 levels",
    )
    [problem] = knockout_problems([Bust(2, 1)], entries(), level=1, level_count=0)
    assert problem.message == "level 1: the tournament's blind structure has no levels"
    assert codes(knockout_problems([Bust(2, 1)], entries(), level=0, level_count=5)) == ["knockout-bad-level"]


def test_3_2_a_bust_without_killer_is_accepted():
    """SP-6: a dead stack busts with no killer."""
    assert knockout_problems([Bust(2)], entries()) == []


def test_3_2_credit_is_one_for_a_single_killer_and_a_half_for_the_primary_of_two():
    """3.2: one record, 0.5 for the primary killer; the second killer gets nothing."""
    assert credit_halves(Bust(2, 1)) == 2
    assert credit_halves(Bust(2, 1, 3)) == 1
    assert credit_halves(Bust(2)) == 2


def test_3_2_credits_are_summed_over_a_players_entries_exactly():
    """3.2/3.7: 1 + 1 + 0.5 over two entries of one player is exactly 5/2."""
    player_of = {1: 7, 2: 7, 3: 8}
    records = [(1, 2), (2, 2), (2, 1), (3, 1), (None, 2)]
    halves = credit_halves_by_player(records, player_of)
    assert {p: as_credit(h) for p, h in halves.items()} == {7: Fraction(5, 2), 8: Fraction(1, 2)}


def test_3_2_bust_numbers_are_sequential_and_a_group_shares_its_number():
    """3.2: the next bust is max + 1; simultaneous busts share one number."""
    assert bust_number([]) == 1
    assert bust_number([1, 2, 2, 3]) == 4
    assert bust_number([1, 2, 3], group_number=3) == 3


def test_3_2_a_group_is_joined_only_while_it_is_the_latest_bust():
    assert group_problems("h12", 3, [1, 2, 3]) == []
    assert group_problems("h12", None, [1, 2, 3]) == []
    assert codes(group_problems("h12", 2, [1, 2, 3])) == ["knockout-group-closed"]


def state(recorded_at, **kw) -> KnockoutState:
    return KnockoutState(
        knockout_id=kw.get("knockout_id", 1),
        recorded_at=recorded_at,
        voided=kw.get("voided", False),
        busted_reentered=kw.get("reentered", False),
        drawn=kw.get("drawn", False),
    )


@pytest.mark.parametrize(
    "age, allowed",
    [
        (timedelta(minutes=5) - timedelta(seconds=1), True),
        (timedelta(minutes=5), True),
        (timedelta(minutes=5, seconds=1), False),
    ],
)
def test_sp_5_a_knockout_is_voidable_up_to_five_minutes_and_not_a_second_later(age, allowed):
    """SP-5: the window is 5 minutes from recording; the deadline itself is inside."""
    problems = void_problems(state(NOW - age), NOW, DEFAULT_VOID_WINDOW)
    assert codes(problems) == ([] if allowed else ["void-window-closed"])


def test_sp_5_the_window_is_configurable_per_tournament():
    """SP-5: a 10-minute window accepts a void after 7 minutes."""
    assert void_problems(state(NOW - timedelta(minutes=7)), NOW, timedelta(minutes=10)) == []


def test_3_2_a_void_is_refused_after_a_reentry_or_a_draw_and_twice():
    """3.2/3.3: voiding is prohibited once the busted player re-entered or a bounty was drawn."""
    assert codes(void_problems(state(NOW, reentered=True), NOW, DEFAULT_VOID_WINDOW)) == ["void-after-reentry"]
    assert codes(void_problems(state(NOW, drawn=True), NOW, DEFAULT_VOID_WINDOW)) == ["void-after-draw"]
    assert codes(void_problems(state(NOW, voided=True), NOW, DEFAULT_VOID_WINDOW)) == ["void-already-voided"]


def draw(**kw):
    args = dict(enabled=True, knockout_voided=False, killer_entry_id=4, already_drawn=False, description=None)
    args.update(kw)
    return codes(draw_problems(**args))


def test_3_3_a_draw_is_accepted_with_or_without_a_description():
    assert draw() == []
    assert draw(description="Dinner for 2") == []


def test_3_3_a_draw_is_refused_with_the_feature_off():
    """3.3: the feature is enabled by a tournament setting."""
    assert draw(enabled=False) == ["mystery-off"]


def test_3_3_a_second_draw_by_the_same_killer_entry_is_refused():
    """3.3: one draw per killer entry for the whole tournament."""
    assert draw(already_drawn=True) == ["mystery-already-drawn"]


def test_3_3_a_draw_needs_a_live_knockout_with_a_killer():
    assert draw(knockout_voided=True) == ["mystery-knockout-voided"]
    assert draw(killer_entry_id=None) == ["mystery-no-killer"]


@pytest.mark.parametrize("description", ["1000 руб.", "$50", "5 000 р", "денежный приз", "cash"])
def test_sp_4_a_mystery_description_naming_money_is_refused(description):
    """SP-4: mystery-bounty descriptions are held to the same check."""
    assert draw(description=description) == ["money-wording"]


def test_sp_4_a_mystery_description_of_501_characters_is_refused():
    assert draw(description="x" * 500) == []
    assert draw(description="x" * 501) == ["mystery-description-too-long"]


@pytest.mark.parametrize("halves, shown", [(0, "0"), (1, "0.5"), (2, "1"), (5, "2.5"), (6, "3")])
def test_3_7_credits_are_shown_as_the_floor_writes_them(halves, shown):
    """3.7: a fractional knockout figure such as 2.5."""
    from domain.poker.rules.knockouts import credit_text

    assert credit_text(halves) == shown
