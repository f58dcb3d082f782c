"""The one event path (issue 41): the outbox is the bus, and the event consumer (flows/jobs/events.py)
reacts to each event once: a round's last report emits `round.ready` and the consumer completes the
round (PD-5) in the transaction that records its reaction; a finished tournament's `publish-results`
waits while the Prefect API does not answer, and rounds are still completed meanwhile. Real
PostgreSQL, real commits; the Prefect API is a closed port here (tests/flows/test_events_prefect.py
has the real one)."""

from __future__ import annotations

import socket
import threading
from datetime import timedelta

import pytest
from sqlalchemy import func, select, text

from domain.pusoy.services import rounds
from domain.pusoy.tables import PusoyRound, PusoyStanding
from domain.store.db import unit_of_work
from domain.webhooks.rules.endpoints import ROUND_READY, TOURNAMENT_FINISHED
from domain.webhooks.services import outbox
from domain.webhooks.tables import Event
from flows.jobs import events
from tests.support import world

NOW = world.PUSOY_NOW


def _closed_port() -> str:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return f"http://127.0.0.1:{s.getsockname()[1]}/api"  # nobody listens once it is closed


def _consumer(**kw) -> events.Consumer:
    kw.setdefault("prefect_api", _closed_port())
    return events.Consumer(now=lambda: NOW + timedelta(minutes=1), **kw)


def _events(engine, kind: str | None = None) -> list[Event]:
    with unit_of_work(engine) as s:
        stmt = select(Event).order_by(Event.created_at, Event.id)
        return list(s.scalars(stmt.where(Event.kind == kind) if kind else stmt))


def _round_one_reported(engine):
    """An 8-player cup of 1 game a round, every round-1 game reported: the last report's outcome."""
    with unit_of_work(engine) as s:
        t = world.filled(s, 8)
        last = world.in_order(s, t, 1)
        return t.id, t.code, last


def _locked(engine, tid: int, number: int) -> bool:
    with unit_of_work(engine) as s:
        return s.get(PusoyRound, (tid, number)).status == "locked"


def test_pd_5_a_last_report_emits_round_ready_and_the_consumer_completes_the_round_once(committed):
    """PD-5 / issue 41: the report answers `round_ready` and completes nothing; the consumer's reaction
    completes the round and records itself on the event; a second consumer pass does nothing twice."""
    tid, code, last = _round_one_reported(committed)
    assert last.round_ready
    assert not _locked(committed, tid, 1)
    [ready] = _events(committed, ROUND_READY)
    assert ready.payload == {"source": "pusoy", "tournament_id": tid, "round": 1, "playoff": 0}
    assert ready.reacted_at is None and ready.club_id is None and ready.organizer is None

    consumer = _consumer()
    try:
        consumer.drain()
        assert _locked(committed, tid, 1)
        [ready] = _events(committed, ROUND_READY)
        assert ready.reaction == "round 1: locked, 4 advance"
        assert ready.reacted_at == NOW + timedelta(minutes=1)
        with unit_of_work(committed) as s:
            standings = s.scalar(
                select(func.count()).select_from(PusoyStanding).where(PusoyStanding.tournament_id == tid)
            )
            assert standings == 8
            assert s.get(PusoyRound, (tid, 2)).status == "playing"
        assert [(e.kind, e.reaction) for e in _events(committed)] == [
            (ROUND_READY, "round 1: locked, 4 advance"),
            ("round.completed", "nothing to do"),  # no endpoint hears it: no delivery to start
        ]
        consumer.drain()  # a rerun: nothing left to do
        assert consumer.reacted == 2
        with unit_of_work(committed) as s:
            assert (
                s.scalar(select(func.count()).select_from(PusoyStanding).where(PusoyStanding.tournament_id == tid)) == 8
            )
    finally:
        consumer.engine.dispose()


def test_issue_41_a_crash_between_the_effect_and_its_record_keeps_neither(committed):
    """The completion and the event's record commit together: a reaction that dies after completing the
    round (before its record) leaves the round open and the event to do; the next pass completes it once."""
    tid, _, _ = _round_one_reported(committed)
    consumer = _consumer()
    try:
        with pytest.raises(RuntimeError):
            with unit_of_work(committed) as session:  # the reaction's transaction, as react_next has it
                event = outbox.next_to_react(session)
                assert events.react(session, event, NOW, consumer._start) == "round 1: locked, 4 advance"
                raise RuntimeError("killed between the effect and its record")
        assert not _locked(committed, tid, 1)
        assert [e.reacted_at for e in _events(committed, ROUND_READY)] == [None]
        consumer.drain()
        assert _locked(committed, tid, 1)
        assert [e.reaction for e in _events(committed, ROUND_READY)] == ["round 1: locked, 4 advance"]
    finally:
        consumer.engine.dispose()


def test_issue_41_a_round_another_transaction_holds_is_completed_once_it_is_released(committed):
    """A round held (`FOR UPDATE`, as a report holds it) is not recorded as done: the consumer passes it,
    and completes it at its next read once the holder commits."""
    tid, _, _ = _round_one_reported(committed)
    consumer = _consumer()
    try:
        with committed.connect() as holder:
            holder.execute(text("SELECT 1 FROM pusoy_rounds WHERE tournament_id = :t FOR UPDATE"), {"t": tid})
            assert consumer.drain() == [] and consumer.next_read == events.RETRY_HELD
            assert not _locked(committed, tid, 1)
            assert [e.reacted_at for e in _events(committed, ROUND_READY)] == [None]
            holder.rollback()
        consumer.drain()
        assert _locked(committed, tid, 1)
        assert [e.reaction for e in _events(committed, ROUND_READY)] == ["round 1: locked, 4 advance"]
    finally:
        consumer.engine.dispose()


def test_issue_41_with_prefect_away_a_finished_cup_waits_and_rounds_still_complete(committed):
    """Prefect's API a closed port: the final's completion crowns the champion (its `round.ready` needs
    no run) and emits `tournament.finished`, whose `publish-results` stays to do; another cup's round is
    completed meanwhile. Nothing is recorded for the waiting event."""
    with unit_of_work(committed) as s:
        t, _, _ = world.complete_pusoy(s, crown=False)
        tid = t.id
    consumer = _consumer()
    try:
        consumer.drain()
        with unit_of_work(committed) as s:
            assert s.get(PusoyRound, (tid, 2)).status == "locked"
        [finished] = [e for e in _events(committed, TOURNAMENT_FINISHED)]
        assert finished.reacted_at is None
        other, _, _ = _round_one_reported(committed)
        consumer.drain()  # Prefect still away: the other cup's round is completed all the same
        assert _locked(committed, other, 1)
        assert _events(committed, TOURNAMENT_FINISHED)[0].reacted_at is None
    finally:
        consumer.engine.dispose()


def test_issue_41_two_consumers_at_once_one_holds_and_each_event_is_reacted_to_once(committed):
    """Two consumers started at once: one holds the lock (active), the other waits (standby); the events
    of three cups' last reports are each reacted to once, every round completed once."""
    a, b = _consumer(poll=0.1, catch_up=0.2), _consumer(poll=0.1, catch_up=0.2)
    threads = [threading.Thread(target=c.run, daemon=True) for c in (a, b)]
    for th in threads:
        th.start()
    try:
        assert _wait(lambda: sorted((a.state, b.state)) == ["active", "standby"])
        cups = [_round_one_reported(committed)[0] for _ in range(3)]
        assert _wait(lambda: all(e.reacted_at for e in _events(committed, ROUND_READY)))
        assert all(_locked(committed, tid, 1) for tid in cups)
        assert a.reacted + b.reacted == 6 and 0 in (a.reacted, b.reacted)  # 3 round.ready, 3 round.completed
        with unit_of_work(committed) as s:
            assert [rounds.ready_rounds(s, tid) for tid in cups] == [[], [], []]
    finally:
        for c in (a, b):
            c.stop()
        for th in threads:
            th.join(10)
    assert (a.state, b.state) == ("stopped", "stopped")


def _wait(condition, seconds: float = 20.0) -> bool:
    import time

    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(0.05)
    return condition()
