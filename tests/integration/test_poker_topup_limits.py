"""Top-up limits on the real database (RULES SP-12): windows and per-player limits, each refusal
naming its limit and writing nothing."""

from __future__ import annotations

from datetime import timedelta

import pytest

from domain.errors import DomainError
from domain.poker.services import entries as poker_entries
from tests.support.db import refused_call
from tests.support.world import (
    START,
    S,
    bust,
    checked_in,
    player,
    tournament_through_services,
)

pytestmark = pytest.mark.integration


def test_sp12_rebuy_limit_counts_every_entry_of_the_player(session):
    """SP-12"""
    tid = tournament_through_services(
        session, status="running", rebuy_amount=100000, rebuy_limit=2, late_reg_deadline=START + timedelta(hours=3)
    )
    pid = player(session).id
    first = checked_in(session, tid, pid, START)
    poker_entries.rebuy(session, tid, pid, START + S)
    bust(session, first.id, START + timedelta(minutes=10))
    poker_entries.reenter(session, tid, pid, START + timedelta(minutes=11))
    poker_entries.rebuy(session, tid, pid, START + timedelta(minutes=12))
    err = refused_call(
        session, "rebuy-limit-reached", poker_entries.rebuy, session, tid, pid, START + timedelta(minutes=13)
    )
    assert "rebuy_limit" in err.message


def test_sp12_rebuy_until_and_level_windows(session):
    """SP-12"""
    tid = tournament_through_services(
        session, status="running", rebuy_amount=100000, rebuy_until=START + timedelta(hours=1)
    )
    pid = player(session).id
    checked_in(session, tid, pid, START)
    poker_entries.rebuy(session, tid, pid, START + timedelta(minutes=59))
    refused_call(session, "rebuy-window-closed", poker_entries.rebuy, session, tid, pid, START + timedelta(hours=1))

    tid2 = tournament_through_services(
        session, status="running", rebuy_amount=100000, rebuy_until_level=2, start=START + timedelta(days=2)
    )
    pid2 = player(session).id
    checked_in(session, tid2, pid2, START + timedelta(days=2))
    poker_entries.rebuy(session, tid2, pid2, START + timedelta(days=2), level=2)
    err = refused_call(
        session, "rebuy-window-closed", poker_entries.rebuy, session, tid2, pid2, START + timedelta(days=2), level=3
    )
    assert "level 2" in err.message


def test_sp12_reentry_limit(session):
    """SP-12"""
    tid = tournament_through_services(
        session, status="running", reentry_amount=120000, reentry_limit=1, reentry_deadline=START + timedelta(hours=2)
    )
    pid = player(session).id
    first = checked_in(session, tid, pid, START)
    bust(session, first.id, START + timedelta(minutes=5))
    second = poker_entries.reenter(session, tid, pid, START + timedelta(minutes=6))
    bust(session, second.id, START + timedelta(minutes=7))
    err = refused_call(
        session, "reentry-limit-reached", poker_entries.reenter, session, tid, pid, START + timedelta(minutes=8)
    )
    assert "reentry_limit" in err.message


def test_sp12_bad_limits_are_refused_at_creation(session):
    """SP-12"""
    with pytest.raises(DomainError) as caught:
        tournament_through_services(session, rebuy_amount=1, rebuy_until=START + S, rebuy_until_level=2)
    assert caught.value.code == "rebuy-window-twice"


def test_sp12_stepping_the_clock_back_does_not_reopen_the_level_window(session):
    """SP-12: `rebuy_until_level` 2 closes when level 2 ends; after `clock next` to level 3 the floor's
    `clock prev` shows level 2 again, but the window stays closed (the furthest level reached counts)."""
    from domain.poker.services import clock, desk

    tid = tournament_through_services(session, status="running", rebuy_amount=100000, rebuy_until_level=2)
    pid = player(session).id
    checked_in(session, tid, pid, START)
    clock.act(session, tid, "start", START + S)
    clock.act(session, tid, "next", START + 2 * S)
    desk.rebuy(session, tid, pid, START + 3 * S)  # level 2: open
    clock.act(session, tid, "next", START + 4 * S)
    clock.act(session, tid, "prev", START + 5 * S)
    assert clock.status(session, tid, START + 6 * S)["level"] == 2
    err = refused_call(session, "rebuy-window-closed", desk.rebuy, session, tid, pid, START + 6 * S)
    assert err.message == (
        "the rebuy window closed when level 2 ended; the clock has reached level 3 (rebuy_until_level, SP-12)"
    )
