"""What the database holds and how much work each job will pick up next (the status report)."""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy import Engine, text

from domain.store.migrate import database_heads, script_heads

# job name -> SQL counting the rows that job will pick up on its next run.
# Each area adds its job's line here when the job lands.
PENDING_WORK: dict[str, str] = {
    # area: clubs

    # area: pusoy

    # area: poker

    # area: documents

    # area: series
    "materialize-series": "SELECT count(*) FROM series_occurrence WHERE status = 'planned' AND opens_at <= now()",

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
    applied = database_heads(engine)
    with engine.connect() as conn:
        version = conn.execute(text("SHOW server_version")).scalar_one()
        database = conn.execute(text("SELECT current_database()")).scalar_one()
        pending = tuple((job, conn.execute(text(sql)).scalar_one()) for job, sql in PENDING_WORK.items())
    return Status(
        server_version=version,
        database=database,
        migrations_applied=tuple(sorted(applied)),
        migrations_expected=tuple(sorted(script_heads())),
        pending=pending,
    )
