"""Races on the real PostgreSQL, two connections at once (SP-2, Sport Poker 3.4)."""

from __future__ import annotations

import threading
from datetime import timedelta

import pytest
from sqlalchemy import func, select

from domain.errors import DomainError
from domain.poker.services import entries as poker_entries
from domain.poker.services import fees as poker_fees
from domain.poker.services import players as poker_players
from domain.poker.services import tournaments as poker_tournaments
from domain.poker.tables.tournaments import Player, Registration, Settlement
from domain.store.db import unit_of_work
from tests.support.world import (
    NOW,
    START,
    checked_in,
    club,
    player,
    tournament_through_services,
)


def both_at_once(engine, first, second) -> list[object]:
    """Run two callables, each in its own unit of work on its own connection, released together."""
    barrier = threading.Barrier(2)
    results: list[object] = [None, None]

    def run(i, fn):
        try:
            with unit_of_work(engine) as session:
                barrier.wait(timeout=10)
                results[i] = fn(session)
        except DomainError as exc:
            results[i] = exc.code

    threads = [threading.Thread(target=run, args=(i, fn)) for i, fn in enumerate((first, second))]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=30)
    return results


def test_sp_2_two_overlapping_registrations_at_once_end_with_one(committed):
    with unit_of_work(committed) as session:
        c = club(session, fresh=True, at=NOW)
        a = tournament_through_services(session, c.id)
        b = tournament_through_services(session, c.id, start=START + timedelta(minutes=30))
        pid = player(session).id
    results = both_at_once(
        committed,
        lambda s: poker_entries.register(s, a, pid, NOW).id,
        lambda s: poker_entries.register(s, b, pid, NOW).id,
    )
    assert sorted(results, key=str).count("registration-overlaps") == 1
    with unit_of_work(committed) as session:
        assert (
            session.scalar(select(func.count()).where(Registration.player_id == pid, Registration.status == "active"))
            == 1
        )


@pytest.mark.parametrize("batch", [False, True], ids=["two-counters", "counter-and-batch"])
def test_3_4_two_settlements_at_once_for_one_player_write_one_record(committed, batch):
    with unit_of_work(committed) as session:
        tid, pid = tournament_through_services(session), player(session).id
        checked_in(session, tid, pid)
    other = (
        (lambda s: poker_fees.settle_all(s, tid, "card", "Igor", NOW))
        if batch
        else (lambda s: poker_fees.settle(s, tid, pid, "card", "Igor", NOW))
    )
    results = both_at_once(committed, lambda s: poker_fees.settle(s, tid, pid, "cash", "Olga", NOW), other)
    assert results.count(None) + results.count([]) == 1
    with unit_of_work(committed) as session:
        rows = session.scalars(select(Settlement).where(Settlement.player_id == pid)).all()
        assert [(s.amount, s.voided_at) for s in rows] == [(150000, None)]
        assert poker_fees.debts(session, tid) == []


def test_1_6_the_same_handle_added_twice_at_once_gives_one_player_and_a_plain_refusal(committed):
    """Two counters add the same handle (in another case) at once: one player, the other told plainly."""
    born = NOW.date().replace(year=NOW.year - 30)
    results = both_at_once(
        committed,
        lambda s: poker_players.add_player(s, "Ivan Petrov", "ivan_p", born, NOW).id,
        lambda s: poker_players.add_player(s, "Ivan Petrov", "Ivan_P", born, NOW).id,
    )
    assert sorted(results, key=str).count("handle-taken") == 1
    with unit_of_work(committed) as session:
        assert session.scalars(select(Player.handle).where(func.lower(Player.handle) == "ivan_p")).all() in (
            ["ivan_p"],
            ["Ivan_P"],
        )


def _first_holds_then_second(engine, first, second) -> list[object]:
    """`first` runs in an open transaction; `second` starts on another connection meanwhile; then
    `first` commits. Returns both outcomes (a result or the refusal's code)."""
    outcomes: list[object] = [None, None]

    def run_second():
        try:
            with unit_of_work(engine) as session:
                outcomes[1] = second(session)
        except DomainError as exc:
            outcomes[1] = exc.code

    with unit_of_work(engine) as session:
        outcomes[0] = first(session)
        waiting = threading.Thread(target=run_second)
        waiting.start()
        waiting.join(timeout=1)  # the second waits for the first's locks
        assert waiting.is_alive(), "the second did not wait for the first"
    waiting.join(timeout=30)
    return outcomes


@pytest.mark.parametrize("edit_first", [False, True], ids=["sign-up-first", "edit-first"])
def test_sp_2_an_edit_and_a_registrants_sign_up_elsewhere_at_once_never_leave_an_overlap(committed, edit_first):
    with unit_of_work(committed) as session:
        c = club(session, fresh=True, at=NOW)
        a, b = (
            tournament_through_services(session, c.id),
            tournament_through_services(session, c.id, start=START + timedelta(hours=3)),
        )
        pid = player(session).id
        poker_entries.register(session, a, pid, NOW)
    move = {"scheduled_start": START + timedelta(hours=3), "late_reg_deadline": START + timedelta(hours=4)}
    edit = lambda s: poker_tournaments.edit_tournament(s, a, move, NOW).id  # noqa: E731
    sign_up = lambda s: poker_entries.register(s, b, pid, NOW).id  # noqa: E731
    if edit_first:
        assert _first_holds_then_second(committed, edit, sign_up)[1] == "registration-overlaps"
    else:
        assert _first_holds_then_second(committed, sign_up, edit)[1] == "edit-creates-overlap"
