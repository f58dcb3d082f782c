"""No-shows and dead stacks on the real database (3.8, SP-6): processed once at the exact close of
late registration, charges once per level start, busting at 0 with no killer, arrival."""

from __future__ import annotations

import threading
from datetime import timedelta

import pytest
from sqlalchemy import select, text
from sqlalchemy.orm import Session

from domain.errors import DomainError
from domain.poker.services import clock as clock_service
from domain.poker.services.noshow import arrive, process_no_shows
from domain.poker.tables.clock_seating import DeadStack, DeadStackCharge, Seat
from domain.poker.tables.knockouts_places import Knockout
from domain.poker.tables.tournaments import AuditEvent, Entry, Registration
from tests.support.world import T0, register, tournament, with_no_shows

CLOSE = T0 + timedelta(hours=1)  # late registration closes 19:00
SECOND = timedelta(seconds=1)


def test_3_8_drop_cancels_no_shows_exactly_at_the_close_and_only_once(session):
    """3.8: one second before the close nothing happens; at the close the registrations drop."""
    t, absent = with_no_shows(session, "drop")
    assert process_no_shows(session, CLOSE - SECOND) == []
    assert process_no_shows(session, CLOSE) == [
        {"tournament_id": t.id, "policy": "drop", "dropped": 2, "dead_stacks": 0}
    ]
    session.expire_all()
    assert {session.get(Registration, r.id).status for r in absent} == {"dropped"}
    trail = session.execute(
        select(AuditEvent.kind, AuditEvent.player_id).where(AuditEvent.tournament_id == t.id).order_by(AuditEvent.id)
    ).all()
    assert [tuple(x) for x in trail] == [("no-show-dropped", r.player_id) for r in absent]
    assert process_no_shows(session, CLOSE + SECOND) == []


def test_3_8_the_floor_may_process_no_shows_before_the_close(session):
    """3.8: the handler does not check the window; the jobs keep the hold by when they run."""
    t, absent = with_no_shows(session, "drop")
    early = T0 + timedelta(minutes=5)
    assert process_no_shows(session, early, t.id) == []
    assert process_no_shows(session, early, t.id, at_close_only=False)[0]["dropped"] == 2
    assert process_no_shows(session, early, t.id, at_close_only=False) == []


def test_sp_6_absent_mode_seats_dead_stacks_that_pay_each_level_start_once(session):
    """SP-6: at 19:15 level 4 (400/800, ante 100, 20 min = 10 hands) at a table of 5:
    10 × 100 + 10/5 × (400 + 800) = 3400."""
    t, absent = with_no_shows(session, "absent_mode")
    assert process_no_shows(session, CLOSE)[0]["dead_stacks"] == 2
    stacks = session.execute(select(DeadStack).where(DeadStack.tournament_id == t.id)).scalars().all()
    assert len(stacks) == 2 and all(session.get(Seat, d.entry_id).table_no == 1 for d in stacks)
    clock_service.advance_clocks(session, CLOSE)  # L2, break, L3 began before the stacks sat: no charge
    assert session.execute(select(DeadStackCharge)).scalars().all() == []
    clock_service.advance_clocks(session, T0 + timedelta(minutes=75))
    clock_service.advance_clocks(session, T0 + timedelta(minutes=75))
    session.expire_all()
    assert [d.chips for d in stacks] == [6600, 6600]
    assert len(session.execute(select(DeadStackCharge)).scalars().all()) == 2


def test_sp_6_a_dead_stack_busts_at_zero_with_no_killer_and_frees_its_seat(session):
    """SP-6"""
    t, _ = with_no_shows(session, "absent_mode", stack=3000)
    process_no_shows(session, CLOSE)
    clock_service.advance_clocks(session, T0 + timedelta(minutes=75))
    session.expire_all()
    stacks = session.execute(select(DeadStack).where(DeadStack.tournament_id == t.id)).scalars().all()
    assert [(d.chips, d.busted_at) for d in stacks] == [(0, T0 + timedelta(minutes=75))] * 2
    for d in stacks:
        entry = session.get(Entry, d.entry_id)
        assert (entry.state, entry.busted_at) == ("busted", T0 + timedelta(minutes=75))
        assert session.get(Seat, d.entry_id) is None
    knockouts = session.execute(
        select(Knockout.busted_entry_id, Knockout.killer_entry_id, Knockout.bust_number, Knockout.level)
        .where(Knockout.tournament_id == t.id)
        .order_by(Knockout.busted_entry_id)
    ).all()
    assert [tuple(k) for k in knockouts] == [(d.entry_id, None, 1, 5) for d in sorted(stacks, key=lambda d: d.entry_id)]


def test_an_arrived_player_stops_paying_and_bad_arrivals_are_refused(session):
    t, absent = with_no_shows(session, "absent_mode")
    process_no_shows(session, CLOSE)
    done = arrive(session, t.id, absent[0].player_id, CLOSE + timedelta(minutes=5))
    assert done["chips"] == 10000
    clock_service.advance_clocks(session, T0 + timedelta(minutes=75))
    session.expire_all()
    chips = {d.registration_id: d.chips for d in session.execute(select(DeadStack)).scalars()}
    assert chips == {absent[0].id: 10000, absent[1].id: 6600}
    stranger = register(session, tournament(session)).player_id
    checked_in = session.execute(
        select(Entry.player_id).where(Entry.tournament_id == t.id).order_by(Entry.id).limit(1)
    ).scalar_one()
    for player_id, code in (
        (stranger, "arrive-not-registered"),
        (absent[0].player_id, "arrive-already-arrived"),
        (checked_in, "arrive-no-dead-stack"),
    ):
        with pytest.raises(DomainError) as err:
            arrive(session, t.id, player_id, CLOSE + timedelta(minutes=6))
        assert err.value.code == code


def test_3_8_concurrent_no_show_runs_process_each_tournament_once(committed):
    """3.8, SP-8: two workers at once."""
    with Session(committed) as s, s.begin():
        for _ in range(5):
            with_no_shows(s, "absent_mode")
    barrier = threading.Barrier(2)
    results: list[list[dict]] = []

    def worker() -> None:
        with Session(committed) as s, s.begin():
            barrier.wait()
            results.append(process_no_shows(s, CLOSE))

    threads = [threading.Thread(target=worker) for _ in range(2)]
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    assert sum(len(r) for r in results) == 5
    with committed.connect() as conn:
        assert conn.execute(text("SELECT count(*) FROM poker_dead_stacks")).scalar_one() == 10
        assert conn.execute(text("SELECT count(*) FROM poker_seats")).scalar_one() == 25
