"""When poker's timed moments are due: one definition a kind of moment, read by the service that does
the work (its batch picks what is due at `now`), the status report (what is due at the database's
now()) and the timekeeper (the earliest instant still to come, and what is due at it).

- `advance-clocks`: a running tournament's clock at its next automatic level change
  (`poker_clock.next_change_at`, NULL while paused or exhausted);
- `process-no-shows`: a running tournament whose no-shows are not processed yet, at its
  late-registration close (the deadline, or the scheduled start when there is none) — or at its
  start, when it started after that close;
- `finalize-tournaments`: a running tournament down to one player, when the void window of its
  last live knockout closes (SP-5, SP-7): the final places, the prizes, `finished`.

A moment the timekeeper ran and whose service refused it (a DomainError) is recorded in
`poker_moment_failures` with the reason, and the timekeeper does not take it again: only a change of
its instant (the floor moves the clock) makes it due again. The sweeps still try it.

The services that start, pause, resume or move a clock, or start a tournament or move its deadlines,
`notify` the timekeeper (PostgreSQL NOTIFY, delivered when their transaction commits)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import text
from sqlalchemy.orm import Session

from domain.poker.rules.knockouts import DEFAULT_VOID_WINDOW

CHANNEL = "tourney_timekeeper"


@dataclass(frozen=True)
class Kind:
    job: str  # the job whose service does the work
    source: str  # FROM ... (the tournament's alias is t)
    tournament: str  # the tournament id's column
    instant: str  # the SQL expression of the instant the moment is due
    pending: str  # the condition of a moment still to do, whatever the time

    def due(self, now: str) -> str:
        """The condition of a moment due at `now` (an SQL expression: a bind parameter or now())."""
        return f"{self.pending} AND {self.instant} <= {now}"

    def count_due_sql(self) -> str:
        """How many moments are due now (the status report)."""
        return f"SELECT count(*) FROM {self.source} WHERE {self.due('now()')}"

    def _not_failed(self) -> str:
        return (
            "NOT EXISTS (SELECT 1 FROM poker_moment_failures f WHERE f.job = :job "
            f"AND f.tournament_id = {self.tournament} AND f.due_at = {self.instant})"
        )

    def next_sql(self) -> str:
        """The earliest instant of a moment still to do (the timekeeper; past instants included)."""
        return f"SELECT min({self.instant}) FROM {self.source} WHERE {self.pending} AND {self._not_failed()}"

    def at_sql(self) -> str:
        """The tournaments whose moment is due at :at, each with its instant (the timekeeper)."""
        return (
            f"SELECT {self.tournament} AS tournament_id, {self.instant} AS due_at FROM {self.source} "
            f"WHERE {self.due(':at')} AND {self._not_failed()} ORDER BY 1"
        )


CLOCKS = Kind(
    job="advance-clocks",
    source="poker_clock c JOIN poker_tournaments t ON t.id = c.tournament_id",
    tournament="c.tournament_id",
    instant="c.next_change_at",
    pending="t.status = 'running' AND c.next_change_at IS NOT NULL",
)
NO_SHOWS = Kind(
    job="process-no-shows",
    source="poker_tournaments t",
    tournament="t.id",
    # indexed: ix_poker_tournaments_no_show_due (migration 0410), the same expression
    instant="greatest(coalesce(t.late_reg_deadline, t.scheduled_start), t.started_at)",
    pending="t.status = 'running' AND NOT EXISTS (SELECT 1 FROM poker_no_show_runs r WHERE r.tournament_id = t.id)",
)
_VOID_WINDOW = int(DEFAULT_VOID_WINDOW.total_seconds())
FINALIZE = Kind(
    job="finalize-tournaments",
    source="poker_tournaments t",
    tournament="t.id",
    # NULL (never due) while no knockout stands; the knockout service notifies on every knockout and void
    instant=(
        "((SELECT max(k.recorded_at) FROM poker_knockouts k WHERE k.tournament_id = t.id AND k.voided_at IS NULL)"
        " + make_interval(secs => coalesce((SELECT s.void_window_seconds FROM poker_knockout_settings s"
        f" WHERE s.tournament_id = t.id), {_VOID_WINDOW})))"
    ),
    pending=(
        "t.status = 'running' AND (SELECT count(*) FROM poker_entries e"
        " WHERE e.tournament_id = t.id AND e.state = 'active') = 1"
    ),
)
KINDS: tuple[Kind, ...] = (CLOCKS, NO_SHOWS, FINALIZE)


def due_at(session: Session, kind: Kind, at: datetime) -> list[tuple[int, datetime]]:
    rows = session.execute(text(kind.at_sql()), {"job": kind.job, "at": at}).all()
    return [(r.tournament_id, r.due_at) for r in rows]


def record_failure(
    session: Session, kind: Kind, tournament_id: int, due: datetime, code: str, reason: str, now: datetime
) -> None:
    """The moment was refused: kept with its reason; the timekeeper does not take it again."""
    session.execute(
        text(
            "INSERT INTO poker_moment_failures (job, tournament_id, due_at, code, reason, failed_at) "
            "VALUES (:job, :tid, :due, :code, :reason, :now) ON CONFLICT DO NOTHING"
        ),
        {"job": kind.job, "tid": tournament_id, "due": due, "code": code, "reason": reason, "now": now},
    )


def failures(session: Session) -> list[dict]:
    rows = session.execute(
        text("SELECT job, tournament_id, due_at, code, reason, failed_at FROM poker_moment_failures ORDER BY failed_at")
    ).all()
    return [dict(r._mapping) for r in rows]


def notify(session: Session, what: str, tournament_ids: Sequence[int] | int) -> None:
    """Wake the timekeeper when this transaction commits: a clock or a deadline of these
    tournaments changed (it reads the instants again; the payload is for the log)."""
    ids = [tournament_ids] if isinstance(tournament_ids, int) else list(tournament_ids)
    session.execute(
        text("SELECT pg_notify(:channel, :payload)"),
        {"channel": CHANNEL, "payload": f"{what}:{','.join(map(str, ids))}"},
    )
