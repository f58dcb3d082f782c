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
from typing import Any

from sqlalchemy import ColumnElement, FromClause, Select, and_, exists, func, literal_column, select, text
from sqlalchemy.orm import Session

from domain.poker.rules.knockouts import DEFAULT_VOID_WINDOW
from domain.poker.tables.clock_seating import Clock, NoShowRun
from domain.poker.tables.knockouts_places import Knockout, KnockoutSettings
from domain.poker.tables.moments import MomentFailure
from domain.poker.tables.tournaments import Entry, Tournament

CHANNEL = "tourney_timekeeper"
# 'running' written into the statement, not bound: the partial indexes' predicate (status = 'running')
# is then provably implied for every plan, the generic ones of prepared statements too
RUNNING = literal_column("'running'")


@dataclass(frozen=True)
class Kind:
    job: str  # the job whose service does the work
    source: FromClause  # the tournament (joined to what the moment reads)
    tournament: ColumnElement[int]  # the tournament id's column
    instant: ColumnElement[datetime]  # the instant the moment is due
    pending: ColumnElement[bool]  # the condition of a moment still to do, whatever the time

    def due(self, now: ColumnElement[datetime] | datetime) -> ColumnElement[bool]:
        """The condition of a moment due at `now` (an instant, or the database's func.now())."""
        return and_(self.pending, self.instant <= now)

    def count_due(self) -> Select:
        """How many moments are due now (the status report)."""
        return select(func.count()).select_from(self.source).where(self.due(func.now()))

    def batch(
        self,
        *columns: ColumnElement[Any],
        where: ColumnElement[bool],
        ids: Sequence[int] | None = None,
        source: FromClause | None = None,
    ) -> Select:
        """What a run of the job takes: `columns` of the rows matching `where` (of the tournaments
        `ids`, when given), in tournament order, each row of the moment's table locked; a row another
        run holds is skipped (that run does it). `source`: the moment's joined to more."""
        taken = (
            select(*columns)
            .select_from(self.source if source is None else source)
            .where(where)
            .order_by(self.tournament)
            .with_for_update(of=self.tournament.class_, skip_locked=True)
        )
        return taken if ids is None else taken.where(self.tournament.in_(ids))

    def _not_failed(self) -> ColumnElement[bool]:
        f = MomentFailure
        return ~exists().where(f.job == self.job, f.tournament_id == self.tournament, f.due_at == self.instant)

    def next_instant(self) -> Select:
        """The earliest instant of a moment still to do (the timekeeper; past instants included)."""
        return select(func.min(self.instant)).select_from(self.source).where(self.pending, self._not_failed())

    def at(self, at: datetime) -> Select:
        """The tournaments whose moment is due at `at`, each with its instant (the timekeeper)."""
        return (
            select(self.tournament.label("tournament_id"), self.instant.label("due_at"))
            .select_from(self.source)
            .where(self.due(at), self._not_failed())
            .order_by(self.tournament)
        )


T = Tournament
CLOCKS = Kind(
    job="advance-clocks",
    source=Clock.__table__.join(T.__table__, T.id == Clock.tournament_id),
    tournament=Clock.tournament_id,
    instant=Clock.next_change_at,
    pending=and_(T.status == RUNNING, Clock.next_change_at.is_not(None)),
)
NO_SHOWS = Kind(
    job="process-no-shows",
    source=T.__table__,
    tournament=T.id,
    # indexed: ix_poker_tournaments_no_show_due (domain/poker/tables/moments.py), the same expression
    instant=func.greatest(func.coalesce(T.late_reg_deadline, T.scheduled_start), T.started_at),
    pending=and_(T.status == RUNNING, ~exists().where(NoShowRun.tournament_id == T.id)),
)
_last_knockout = (
    select(func.max(Knockout.recorded_at))
    .where(Knockout.tournament_id == T.id, Knockout.voided_at.is_(None))
    .correlate(T)
    .scalar_subquery()
)
_void_window = func.coalesce(
    select(KnockoutSettings.void_window_seconds)
    .where(KnockoutSettings.tournament_id == T.id)
    .correlate(T)
    .scalar_subquery(),
    literal_column(str(int(DEFAULT_VOID_WINDOW.total_seconds()))),
)
_active = (
    select(func.count())
    .select_from(Entry)
    .where(Entry.tournament_id == T.id, Entry.state == "active")
    .correlate(T)
    .scalar_subquery()
)
FINALIZE = Kind(
    job="finalize-tournaments",
    source=T.__table__,
    tournament=T.id,
    # NULL (never due) while no knockout stands; the knockout service notifies on every knockout and void
    instant=_last_knockout + literal_column("interval '1 second'") * _void_window,
    pending=and_(T.status == RUNNING, _active == 1),
)
KINDS: tuple[Kind, ...] = (CLOCKS, NO_SHOWS, FINALIZE)


def due_at(session: Session, kind: Kind, at: datetime) -> list[tuple[int, datetime]]:
    return [(r.tournament_id, r.due_at) for r in session.execute(kind.at(at))]


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
