"""The timekeeper's tests: running tournaments (built by tests/support/world) whose clocks
start at the real now (or a little after) with levels of a few seconds, a timekeeper running in a
thread, and what the database recorded. Instants are relative to the real now: nothing depends on
the calendar."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime, timedelta

from sqlalchemy import Engine, func, literal_column, select, text
from sqlalchemy.orm import Session

from domain.poker.services import clock as clock_service
from domain.poker.services import due
from domain.poker.services import seating as seating_service
from flows.jobs.timekeeper_loop import Moment, Timekeeper
from tests.support.world import enter, register, structure, tournament


def now() -> datetime:
    return datetime.now(UTC)


def quick_structure(session: Session, seconds: int | list[int], count: int = 30) -> int:
    """A structure of `count` levels of `seconds` each (or of the durations listed)."""
    durations = seconds if isinstance(seconds, list) else [seconds] * count
    return structure(session, levels=[(100 * n, 200 * n, 0, d, False) for n, d in enumerate(durations, 1)]).id


def running(
    session: Session,
    structure_id: int,
    start: datetime,
    *,
    late_reg: timedelta = timedelta(hours=1),
    policy: str = "drop",
    absent: int = 0,
    clock: bool = True,
) -> int:
    """A running tournament started at `start` (its clock too, unless `clock` is False), with two
    players in and `absent` registered players not checked in."""
    t = tournament(session, structure_id=structure_id, no_show_policy=policy, start=start, late_reg=late_reg)
    for _ in range(2):
        enter(session, t)
    for _ in range(absent):
        register(session, t, checked_in=False)
    session.flush()
    if absent and policy == "absent_mode":  # dead stacks are seated at the drawn tables
        seating_service.draw_initial(session, t.id, start, seed="timekeeper")
    if clock:
        clock_service.act(session, t.id, "start", start)
    return t.id


def level_starts(engine: Engine, tournament_id: int | None = None) -> list[tuple[int, int, datetime, datetime]]:
    """(tournament, level, at, recorded_at) of every level start recorded, in order."""
    with engine.connect() as conn:
        rows = conn.execute(
            text(
                "SELECT tournament_id, level, at, recorded_at FROM poker_clock_events WHERE kind = 'level-started' "
                "AND (CAST(:tid AS bigint) IS NULL OR tournament_id = :tid) ORDER BY tournament_id, at, level"
            ),
            {"tid": tournament_id},
        ).all()
    return [tuple(r) for r in rows]


def nothing_due(engine: Engine, overdue_s: float = 0) -> bool:
    """No moment of any kind is due (the status report's count, domain/poker/services/due.py); with
    `overdue_s`, none due for longer than that (a timekeeper that keeps up with moments every 1/6 s)."""
    at = func.now() - literal_column("interval '1 second'") * float(overdue_s)
    with engine.connect() as conn:
        return all(
            conn.execute(select(func.count()).select_from(k.source).where(k.due(at))).scalar_one() == 0
            for k in due.KINDS
        )


def wait_for(condition, timeout: float, every: float = 0.05) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(every)
    return condition()


@contextmanager
def keeping_time(**options) -> Iterator[tuple[Timekeeper, list[Moment]]]:
    """A timekeeper in a thread of this process, active before the block starts; stopped after it."""
    seen: list[Moment] = []
    keeper = Timekeeper(on_moment=seen.append, poll=0.1, **options)
    thread = threading.Thread(target=keeper.run, name="test-timekeeper", daemon=True)
    thread.start()
    try:
        assert wait_for(lambda: keeper.state == "active", 30), keeper.state
        yield keeper, seen
    finally:
        keeper.stop()
        thread.join(30)
        assert not thread.is_alive()
