"""What the database holds and how much work each job will pick up next (the status report)."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from sqlalchemy import Engine, Integer, SelectBase, TextualSelect, column, select, text
from sqlalchemy.orm import Session

from domain.documents.services.sources import pending_seasons
from domain.documents.tables import PENDING_SQL as documents_pending_sql
from domain.poker.services import due as poker_due
from domain.store.migrate import database_heads, script_heads


def _counted(sql: str) -> TextualSelect:
    return text(sql).columns(column("n", Integer))


# job name -> the statement counting the rows that job will pick up on its next run.
# Each area adds its job's line here when the job lands.
PENDING_WORK: dict[str, SelectBase] = {
    # area: clubs
    "verify-clubs": _counted("SELECT count(*) FROM clubs WHERE verification_status = 'pending' AND queued_at IS NULL"),
    "reverify-clubs": _counted(
        "SELECT count(*) FROM clubs WHERE verification_status = 'verified' AND listing_status <> 'terminated'"
        " AND (last_checked_at IS NULL OR last_checked_at <= now() - interval '30 days')"
    ),
    # area: pusoy
    "complete-rounds": _counted(
        "SELECT count(*) FROM pusoy_rounds r WHERE r.status <> 'locked' AND r.expected_games = "
        "(SELECT count(*) FROM pusoy_games g WHERE g.tournament_id = r.tournament_id"
        " AND g.round_no = r.number AND g.stage = r.stage)"
    ),
    # area: poker
    # the services' and the timekeeper's own definitions of what is due (domain/poker/services/due.py)
    "process-no-shows": poker_due.NO_SHOWS.count_due(),
    "advance-clocks": poker_due.CLOCKS.count_due(),
    "finalize-tournaments": poker_due.FINALIZE.count_due(),
    # area: documents
    # tournaments to publish, deliveries due, and seasons' standings after published tournaments (LG-3)
    "publish-results": select(_counted(documents_pending_sql).scalar_subquery() + pending_seasons().scalar_subquery()),
    # area: webhooks
    "deliver-webhooks": _counted(
        "SELECT count(*) FROM webhook_deliveries"
        " WHERE delivered_at IS NULL AND failed_at IS NULL AND next_attempt_at <= now()"
    ),
    # area: series
    "materialize-series": _counted(
        "SELECT count(*) FROM series_occurrence WHERE status = 'planned' AND opens_at <= now()"
    ),
}


@dataclass(frozen=True)
class Status:
    server_version: str
    database: str
    migrations_applied: tuple[str, ...]
    migrations_expected: tuple[str, ...]
    pending: tuple[tuple[str, int], ...]

    @property
    def at_head(self) -> bool:
        return set(self.migrations_applied) == set(self.migrations_expected)


def read_status(engine: Engine) -> Status:
    """Pending work is counted only on a schema at head: behind it, the tables may not exist yet."""
    applied = tuple(sorted(database_heads(engine)))
    expected = tuple(sorted(script_heads()))
    with engine.connect() as conn:
        version = conn.execute(text("SHOW server_version")).scalar_one()
        database = conn.execute(text("SELECT current_database()")).scalar_one()
        pending = (
            tuple((job, conn.execute(count).scalar_one()) for job, count in PENDING_WORK.items())
            if set(applied) == set(expected)
            else ()
        )
    return Status(
        server_version=version,
        database=database,
        migrations_applied=applied,
        migrations_expected=expected,
        pending=pending,
    )


def due_counts(session: Session, jobs: Iterable[str]) -> dict[str, int]:
    """How much work each of `jobs` would pick up now (PENDING_WORK), in one query: the timekeeper
    starts a job's run only when its count is above 0 (flows/jobs/sweeps.py)."""
    names = [job for job in jobs if job in PENDING_WORK]
    if not names:
        return {}
    row = session.execute(select(*(PENDING_WORK[job].scalar_subquery() for job in names))).one()
    return dict(zip(names, (int(n) for n in row), strict=True))
