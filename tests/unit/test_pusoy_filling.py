"""PD-4 filling as a pure rule: who may join or withdraw, and which join starts the tournament."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from domain.pusoy.rules.filling import join_problems, starts, withdraw_problems
from domain.pusoy.rules.status import Status


def codes(problems) -> list[str]:
    return [p.code for p in problems]


def test_pd4_a_filling_tournament_takes_a_new_player_and_refuses_a_second_seat():
    """PD-4"""
    assert join_problems(Status.SETUP, "ABC234", "ann", holds_seat=False) == []
    assert codes(join_problems(Status.SETUP, "ABC234", "ann", holds_seat=True)) == ["already-joined"]


@pytest.mark.parametrize(
    ("status", "code"),
    [
        (Status.ACTIVE, "tournament-full"),
        (Status.COMPLETE, "tournament-complete"),
        (Status.CANCELLED, "tournament-cancelled"),
    ],
)
def test_pd4_only_a_filling_tournament_takes_joins(status, code):
    """PD-4, PD-11"""
    assert codes(join_problems(status, "ABC234", "ann", holds_seat=False)) == [code]


@pytest.mark.parametrize(
    ("status", "code"),
    [
        (Status.ACTIVE, "withdraw-after-start"),
        (Status.COMPLETE, "withdraw-after-start"),
        (Status.CANCELLED, "tournament-cancelled"),
    ],
)
def test_pd4_withdrawal_only_while_filling(status, code):
    """PD-4: afterwards entries are locked."""
    assert codes(withdraw_problems(status, "ABC234", "ann", holds_seat=True)) == [code]
    assert codes(withdraw_problems(Status.SETUP, "ABC234", "ann", holds_seat=False)) == ["not-entered"]
    assert withdraw_problems(Status.SETUP, "ABC234", "ann", holds_seat=True) == []


@given(capacity=st.sampled_from([8, 16, 32]), entrants=st.integers(0, 40))
def test_pd4_exactly_the_join_reaching_capacity_starts_the_tournament(capacity, entrants):
    """PD-4: no manual force-start; one before capacity, no start; at capacity, start."""
    assert starts(entrants, capacity) is (entrants == capacity)
