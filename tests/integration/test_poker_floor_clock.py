"""The clock's services on the real database (SP-8, SP-6): transitions with their events,
advance-clocks late, twice and concurrently, dead-stack charges once per level start."""

from __future__ import annotations

import threading
from datetime import timedelta

import pytest
from sqlalchemy import func, select, text
from sqlalchemy.orm import Session

from domain.errors import DomainError
from domain.poker.services import clock as svc
from domain.poker.tables.clock_seating import Clock as ClockRow
from domain.poker.tables.clock_seating import ClockEvent
from tests.support.world import T0, tournament


def events(session, tid) -> list[tuple[str, int, str]]:
    rows = session.execute(
        select(ClockEvent.kind, ClockEvent.level, ClockEvent.at)
        .where(ClockEvent.tournament_id == tid)
        .order_by(ClockEvent.at, ClockEvent.id)
    ).all()
    return [(k, lv, at.strftime("%H:%M")) for k, lv, at in rows]


def test_sp_8_starting_and_pausing_records_the_events_and_the_next_change(session):
    """SP-8"""
    t = tournament(session)
    started = svc.act(session, t.id, "start", T0)
    assert (started["level"], started["time_left_s"], started["level_ends_at"]) == (
        1,
        1200,
        T0 + timedelta(minutes=20),
    )
    svc.act(session, t.id, "pause", T0 + timedelta(minutes=10))
    row = session.get(ClockRow, t.id)
    assert row.next_change_at is None
    resumed = svc.act(session, t.id, "resume", T0 + timedelta(minutes=15))
    assert resumed["level_ends_at"] == T0 + timedelta(minutes=25)
    assert session.get(ClockRow, t.id).next_change_at == T0 + timedelta(minutes=25)
    assert events(session, t.id) == [
        ("level-started", 1, "18:00"),
        ("paused", 1, "18:10"),
        ("resumed", 1, "18:15"),
    ]


def test_sp_8_advance_clocks_run_late_records_each_missed_change_once(session):
    """SP-8: run 50 minutes late, then again: L2 18:20, break 18:40, nothing twice."""
    t = tournament(session)
    svc.act(session, t.id, "start", T0)
    late = T0 + timedelta(minutes=50)
    first = svc.advance_clocks(session, late)
    assert first == [
        {
            "tournament_id": t.id,
            "events": 3,
            "levels_started": [2, 3],
            "next_change_at": T0 + timedelta(minutes=55),
        }
    ]
    assert svc.advance_clocks(session, late) == []  # no longer due
    assert svc.advance_clocks(session, late, tournament_id=t.id) == []
    assert events(session, t.id) == [
        ("level-started", 1, "18:00"),
        ("level-started", 2, "18:20"),
        ("level-started", 3, "18:40"),
        ("break-started", 3, "18:40"),
    ]


def test_sp_8_a_manual_move_after_a_missed_change_records_both_once(session):
    """SP-8"""
    t = tournament(session)
    svc.act(session, t.id, "start", T0)
    out = svc.act(session, t.id, "next", T0 + timedelta(minutes=25))  # L2 began 18:20 unrecorded
    assert out["level"] == 3
    assert [e["kind"] for e in out["events"]] == ["level-started", "break-started"]
    assert events(session, t.id)[1:] == [
        ("level-started", 2, "18:20"),
        ("level-started", 3, "18:25"),
        ("break-started", 3, "18:25"),
    ]
    assert svc.advance_clocks(session, T0 + timedelta(minutes=39)) == []


@pytest.mark.parametrize(
    ("action", "kwargs", "code"),
    [
        ("pause", {}, "clock-already-paused"),
        ("override", {"small": 500, "big": 400, "ante": 0}, "clock-bad-blinds"),
    ],
)
def test_bad_clock_requests_change_nothing(session, action, kwargs, code):
    t = tournament(session)
    svc.act(session, t.id, "start", T0)
    svc.act(session, t.id, "pause", T0 + timedelta(minutes=1))
    before = (dict(session.get(ClockRow, t.id).__dict__.items()), events(session, t.id))
    with pytest.raises(DomainError) as err:
        with session.begin_nested():
            svc.act(session, t.id, action, T0 + timedelta(minutes=2), **kwargs)
    assert err.value.code == code
    session.expire_all()
    assert events(session, t.id) == before[1]
    assert session.get(ClockRow, t.id).pauses == before[0]["pauses"]


def test_advancing_past_the_last_level_is_refused_and_writes_nothing(session):
    t = tournament(session)
    svc.act(session, t.id, "start", T0)
    for minute in (1, 2, 3, 4):
        svc.act(session, t.id, "next", T0 + timedelta(minutes=minute))
    count = session.execute(select(func.count()).select_from(ClockEvent)).scalar_one()
    with pytest.raises(DomainError) as err:
        svc.act(session, t.id, "next", T0 + timedelta(minutes=5))
    assert err.value.code == "clock-last-level"
    assert session.execute(select(func.count()).select_from(ClockEvent)).scalar_one() == count


def test_the_clock_of_a_tournament_not_running_cannot_start(session):
    t = tournament(session, status="registration_open")
    with pytest.raises(DomainError) as err:
        svc.act(session, t.id, "start", T0)
    assert err.value.code == "clock-tournament-not-running"
    assert session.get(ClockRow, t.id) is None


def test_the_add_on_gate_reads_the_break_count(session):
    t = tournament(session)
    svc.act(session, t.id, "start", T0)
    assert svc.breaks_reached(session, t.id, T0 + timedelta(minutes=39)) == 0
    assert svc.breaks_reached(session, t.id, T0 + timedelta(minutes=40)) == 1


def test_sp_8_concurrent_advance_clock_runs_record_every_change_once(committed):
    """SP-8: two workers at once over 20 due tournaments: each event once."""
    with Session(committed) as s, s.begin():
        ids = []
        for _ in range(20):
            t = tournament(s)
            svc.act(s, t.id, "start", T0)
            ids.append(t.id)
    later = T0 + timedelta(minutes=45)
    barrier = threading.Barrier(2)
    results: list[list[dict]] = []

    def worker() -> None:
        with Session(committed) as s, s.begin():
            barrier.wait()
            results.append(svc.advance_clocks(s, later))

    threads = [threading.Thread(target=worker) for _ in range(2)]
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    handled = sorted(r["tournament_id"] for run in results for r in run)
    assert handled == sorted(ids)  # each tournament by exactly one of the two
    with committed.connect() as conn:
        per = conn.execute(text("SELECT tournament_id, count(*) FROM poker_clock_events GROUP BY tournament_id")).all()
    assert {n for _, n in per} == {4}  # L1, L2, L3 and its break start


@pytest.mark.parametrize(
    "finish, level, left",
    [(20 * 60 - 1, 1, 1), (20 * 60, 2, 20 * 60), (20 * 60 + 1, 2, 20 * 60 - 1)],
    ids=["a second before level 1 ends", "exactly as it ends", "a second after"],
)
@pytest.mark.parametrize("ended", ["finished", "cancelled"])
def test_sp_8_a_finished_or_cancelled_tournament_s_clock_stops_at_that_instant(session, ended, finish, level, left):
    """SP-8, 3.9 (issue 40): the clock of a finished (or cancelled) tournament is read as it stood at
    its finish instant, stopped: at the finish, two hours and a day after, the same level and time left,
    no level's end or break ahead (the clock exactly at a level's end has begun the next level)."""
    t = tournament(session)
    svc.act(session, t.id, "start", T0)
    stop = T0 + timedelta(seconds=finish)
    t.status = ended
    setattr(t, f"{ended}_at", stop)
    session.flush()
    for at in (stop, stop + timedelta(hours=2), stop + timedelta(days=1)):
        got = svc.status(session, t.id, at)
        assert (got["status"], got["level"], got["time_left_s"], got["level_ends_at"], got["next_break_at"]) == (
            ended,
            level,
            left,
            None,
            None,
        ), at
        reading, upcoming = svc.status_and_upcoming(session, t.id, at)
        assert (reading["level"], upcoming["level"]) == (level, level + 1 + (level == 2))  # the break skipped
