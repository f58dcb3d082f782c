"""No-shows (Sport Poker 3.8) and the dead stack's forced bets (SP-6)."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from domain.poker.rules import noshow as n
from domain.poker.rules.noshow import Charge, NoShow, Registration

REGS = (Registration(3, 30, False), Registration(1, 10, True), Registration(2, 20, False))


def test_drop_cancels_every_registered_player_not_checked_in():
    assert n.no_shows("drop", REGS) == (NoShow(2, 20, "cancel"), NoShow(3, 30, "cancel"))


def test_absent_mode_seats_a_dead_stack_for_every_registered_player_not_checked_in():
    """SP-6"""
    assert n.no_shows("absent_mode", REGS) == (NoShow(2, 20, "dead-stack"), NoShow(3, 30, "dead-stack"))


@pytest.mark.parametrize(
    ("ante_type", "table_size", "expected"),
    [
        # 20 minutes at 30 hands an hour = 10 hands; 10/9 orbits of SB 200 + BB 400
        ("classic", 9, 500 + 666),  # 10 × ante 50 + 666.67 rounded down
        ("bb_ante", 9, 722),  # 10/9 orbits × (200 + 400 + a BB ante of 50) = 722.2
        ("none", 9, 666),
        ("classic", 2, 500 + 3000),  # heads-up: 5 orbits
        ("none", 1, 3000),  # a table of one counts as two
    ],
)
def test_sp_6_a_dead_stack_pays_the_forced_bets_of_the_levels_estimated_hands(ante_type, table_size, expected):
    """SP-6: hands = minutes × hands_per_hour / 60; ante per hand (classic); SB + BB once per orbit."""
    assert n.level_cost(200, 400, 50, 20 * 60, ante_type, table_size, 30) == expected


def test_sp_6_a_bb_ante_is_one_ante_per_orbit():
    """SP-6: 10/9 orbits × (200 + 400 + 400) = 1111.1"""
    assert n.level_cost(200, 400, 400, 20 * 60, "bb_ante", 9, 30) == 1111


def test_sp_6_the_stack_busts_at_zero_and_never_goes_below():
    """SP-6"""
    assert n.charge(1000, 300) == Charge(300, 700, False)
    assert n.charge(300, 300) == Charge(300, 0, True)
    assert n.charge(200, 300) == Charge(200, 0, True)


@given(st.integers(0, 10**7), st.integers(0, 10**6))
def test_sp_6_a_charge_pays_at_most_the_stack(stack, cost):
    """SP-6"""
    result = n.charge(stack, cost)
    assert result.paid + result.stack == stack
    assert result.stack >= 0 and result.busted == (result.stack == 0)
