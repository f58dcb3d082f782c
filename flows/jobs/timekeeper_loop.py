"""The timekeeper's loop, without Prefect (flows/jobs/timekeeper.py runs it as a Prefect deployment; tests
and `python -m flows.jobs.timekeeper_loop` run it bare).

    standby: hold a connection, poll the advisory lock until it is ours (one active across machines)
    active:  read the next due instant of every kind (domain/poker/services/due.py, one query a kind)
             next_step (domain/poker/rules/timekeeping.py): sleep until the earliest, woken early by NOTIFY,
             or run every kind due at that instant, passing the instant
    lost the database: back to standby, reconnecting every second; the instants missed meanwhile
             are still due and are run at once, each with its own instant, in order

A kind's moments at an instant are done by its set-based service in one transaction; when that
raises a DomainError, each tournament's moment is done in its own transaction instead, and the ones
refused are recorded with their reason (due.record_failure) so the others still happen. Each moment
handled is handed to `on_moment` (the Prefect flow shows it as an event). A tournament another
run holds (the sweep, the floor) is skipped by the service and taken again a moment later."""

from __future__ import annotations

import logging
import os
import re
import signal
import socket
import threading
from collections.abc import Callable, Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from uuid import UUID

from sqlalchemy import Engine, select, text
from sqlalchemy.orm import Session, sessionmaker

from domain.access.services import audit
from domain.errors import DomainError
from domain.poker.rules.timekeeping import Run, next_step
from domain.poker.services import clock as clock_service
from domain.poker.services import due as poker_due
from domain.poker.services import noshow as noshow_service
from domain.poker.services import results as results_service
from domain.poker.services.due import Kind
from domain.store.leader import Leader
from flows import bootstrap
from flows.jobs.leading import LeaderLoop, connection_trouble, first_line

LOCK = (7411800, 0)  # the timekeeper's session advisory lock
HOLDER_SQL = """
SELECT a.application_name FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid
WHERE l.locktype = 'advisory' AND l.classid = :k1 AND l.objid = :k2 AND l.granted
  AND l.database = (SELECT oid FROM pg_database WHERE datname = current_database())
"""
# a timekeeper flow run names its connections `tourney-timekeeper pid <pid> <run id, 32 hex digits>`
# (63 characters at most, PostgreSQL's limit): which runs are alive, on any machine
CONNECTED_SQL = """
SELECT DISTINCT substring(application_name FROM '^tourney-timekeeper pid [0-9]+ ([0-9a-f]{32})$')
FROM pg_stat_activity WHERE datname = current_database() AND application_name LIKE 'tourney-timekeeper pid %'
"""
LONGEST_SLEEP = timedelta(seconds=60)  # the safety net under the notifications
RETRY_HELD = 0.05  # seconds before taking again a tournament another run held


@dataclass(frozen=True)
class Job:
    kind: Kind
    work: Callable[[Session, datetime, list[int]], list[dict]]  # the set-based service
    did: Callable[[dict], bool]  # whether a tournament's summary changed anything

    @property
    def name(self) -> str:
        return self.kind.job


JOBS: tuple[Job, ...] = (
    Job(poker_due.CLOCKS, clock_service.advance_clocks, lambda r: r["events"] > 0),
    Job(poker_due.NO_SHOWS, noshow_service.process_no_shows, lambda r: True),
    Job(poker_due.FINALIZE, results_service.finalize_moments, lambda r: True),
)


@dataclass(frozen=True)
class Moment:
    """One tournament's moment handled: `outcome` is done (it changed something), nothing (done
    already, by another run) or refused (`code`, `reason`)."""

    job: str
    tournament_id: int
    due_at: datetime
    started: datetime
    finished: datetime
    outcome: str
    summary: dict | None = None
    code: str | None = None
    reason: str | None = None


def wall_now() -> datetime:
    return datetime.now(UTC)


@dataclass
class Timekeeper(LeaderLoop):
    ROLE, LOCK, CHANNEL = "timekeeper", LOCK, poker_due.CHANNEL
    jobs: Sequence[Job] = JOBS
    on_moment: Callable[[Moment], None] | None = None
    now: Callable[[], datetime] = wall_now
    longest: timedelta = LONGEST_SLEEP
    poll: float = 1.0  # a standby asks for the lock this often
    name: str = field(default_factory=lambda: f"tourney-timekeeper pid {os.getpid()} {socket.gethostname()}")
    log: logging.Logger | logging.LoggerAdapter = field(default_factory=lambda: logging.getLogger("tourney.timekeeper"))
    url: str = field(default_factory=bootstrap.database_url)
    stopping: threading.Event = field(default_factory=threading.Event)
    state: str = "starting"
    moments: int = 0

    def __post_init__(self) -> None:
        # its own engine and session factory, made once: each moment costs no settings lookup, no
        # new session class and no pre-ping (a broken connection raises, and the loop reconnects)
        self.engine: Engine = bootstrap.own_engine(self.url, pool_size=2, max_overflow=2, pool_pre_ping=False)
        self._sessions = sessionmaker(bind=self.engine, expire_on_commit=False)
        self._instants = select(*(j.kind.next_instant().scalar_subquery() for j in self.jobs))  # built once

    def _transaction(self) -> AbstractContextManager[Session]:
        return self._sessions.begin()

    # -- the loop --------------------------------------------------------------------------------

    def _lead(self, leader: Leader) -> None:
        """Read the instants; run what is due, or sleep until it. The instants are read again after
        running, after a notification and after the longest sleep; a sleep that ended at its instant
        with no notification changed nothing, and its moments are run without reading them again."""
        by_name = {j.name: j for j in self.jobs}
        instants = self.next_instants()
        while not self.stopping.is_set():
            leader.check()
            step = next_step(instants, self.now(), self.longest)
            if isinstance(step, Run):
                held = [self.run_moments(by_name[name], step.at) for name in step.jobs]
                if any(held):
                    leader.wait(RETRY_HELD)
                instants = self.next_instants()
            elif leader.wait(step.seconds) or step.seconds >= self.longest.total_seconds():
                instants = self.next_instants()

    def next_instants(self) -> dict[str, datetime | None]:
        """One query: every kind's earliest instant still to do."""
        with self.engine.connect() as conn:
            row = conn.execute(self._instants).one()
        return {j.name: at for j, at in zip(self.jobs, row, strict=True)}

    # -- one instant of one kind -----------------------------------------------------------------

    def _audit(self, session: Session, job: Job, at: datetime, done: list[dict]) -> None:
        """AC-3: the moments' changes, as the timekeeper's deployment, in their own transaction."""
        audit.record_if_written(
            session, audit.system("job:timekeeper"), job.name, at, poker=[r["tournament_id"] for r in done]
        )

    def run_moments(self, job: Job, at: datetime) -> bool:
        """Do every moment of `job` due at `at`; True when some tournament was held by another run
        (it is still due: taken again shortly)."""
        started = self.now()
        due: list[tuple[int, datetime]] = []
        refused: dict[int, tuple[str, str]] = {}
        try:
            with self._transaction() as session:  # which are due, and their work, in one transaction
                due = poker_due.due_at(session, job.kind, at)
                if not due:
                    return False
                done = job.work(session, at, [tid for tid, _ in due])
                self._audit(session, job, at, done)
        except Exception as exc:
            if connection_trouble(exc) or not due:
                raise
            done = []
            for tid, _ in due:  # one at a time, so one refusal does not stop the others
                try:
                    with self._transaction() as session:
                        one = job.work(session, at, [tid])
                        self._audit(session, job, at, one)
                        done += one
                except Exception as one:
                    if connection_trouble(one):
                        raise
                    if not isinstance(one, DomainError):
                        self.log.exception("%s poker-%s at %s failed", job.name, tid, at.isoformat())
                    refused[tid] = (
                        (one.code, one.message)
                        if isinstance(one, DomainError)
                        else ("internal-error", f"{one.__class__.__name__}: {first_line(one)}")
                    )
            with self._transaction() as session:
                for tid, (code, reason) in refused.items():
                    poker_due.record_failure(session, job.kind, tid, dict(due)[tid], code, reason, self.now())
        finished = self.now()
        by_tid = {r["tournament_id"]: r for r in done}
        missing = [tid for tid, _ in due if tid not in by_tid and tid not in refused]
        held: set[int] = set()
        if missing:
            with self._transaction() as session:
                held = {tid for tid, _ in poker_due.due_at(session, job.kind, at)} & set(missing)
        for tid, due_instant in due:
            if tid in held:
                continue
            summary = by_tid.get(tid)
            if tid in refused:
                code, reason = refused[tid]
                moment = Moment(job.name, tid, due_instant, started, finished, "refused", code=code, reason=reason)
                self.log.warning("%s poker-%s at %s refused: %s", job.name, tid, due_instant.isoformat(), reason)
            else:
                outcome = "done" if summary is not None and job.did(summary) else "nothing"
                moment = Moment(job.name, tid, due_instant, started, finished, outcome, summary)
            self.moments += 1
            if self.on_moment:
                self.on_moment(moment)
        return bool(held)


def active_pid(engine: Engine) -> int | None:
    """The process id of the active timekeeper (from its lock connection's application name:
    `tourney-timekeeper pid <pid> <host, or its flow run's id>`), or None when no timekeeper holds the lock."""
    with engine.connect() as conn:
        name = conn.execute(text(HOLDER_SQL), {"k1": LOCK[0], "k2": LOCK[1]}).scalar()
    found = re.search(r"pid (\d+)", name or "")
    return int(found.group(1)) if found else None


def active_run(engine: Engine) -> UUID | None:
    """The flow run id of the active timekeeper (from its lock connection's name), or None."""
    with engine.connect() as conn:
        name = conn.execute(text(HOLDER_SQL), {"k1": LOCK[0], "k2": LOCK[1]}).scalar()
    found = re.search(r"pid \d+ ([0-9a-f]{32})$", name or "")
    return UUID(found.group(1)) if found else None


def connection_name(run_id: UUID) -> str:
    """A timekeeper flow run's name for its connections (`connected_runs`, `active_pid`)."""
    return f"tourney-timekeeper pid {os.getpid()} {run_id.hex}"


def connected_runs(engine: Engine) -> set[UUID]:
    """The ids of the timekeeper flow runs connected to the database now (alive, on any machine)."""
    with engine.connect() as conn:
        return {UUID(hex_id) for hex_id in conn.execute(text(CONNECTED_SQL)).scalars() if hex_id}


def main() -> None:
    """`python -m flows.jobs.timekeeper_loop`: the bare loop (DATABASE_URL), until SIGTERM or SIGINT."""
    logging.basicConfig(
        level=os.environ.get("TOURNEY_TIMEKEEPER_LOG", "INFO"), format="%(asctime)s %(levelname)s %(message)s"
    )
    keeper = Timekeeper(poll=float(os.environ.get("TOURNEY_TIMEKEEPER_POLL", "1")))
    for sig in (signal.SIGTERM, signal.SIGINT):
        signal.signal(sig, lambda *_: keeper.stop())
    keeper.run()


if __name__ == "__main__":
    main()
