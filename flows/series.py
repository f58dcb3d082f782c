"""`materialize-series` (hourly): plans every active series' occurrences within its horizon, each
exactly once, opens registration of those due (creating their tournaments) and marks missed those
whose start passed. Fails loudly when the tournament rules refused an occurrence: retrying would not
help, the operator must fix the series (the others were opened and committed)."""

from __future__ import annotations

from datetime import datetime, timezone

from prefect import flow, task
from prefect.artifacts import create_table_artifact

from domain.series.service import Materialized, materialize
from domain.store.db import unit_of_work


@task(name="materialize-occurrences", retries=2, retry_delay_seconds=[5, 30])
def materialize_task(now: datetime) -> Materialized:
    # one transaction: a failed attempt rolls back whole, so a retry starts clean
    with unit_of_work() as session:
        return materialize(session, now)


@flow(name="materialize-series", log_prints=True)
def materialize_series(now: datetime | None = None) -> dict:
    now = now or datetime.now(timezone.utc)
    result = materialize_task(now)
    create_table_artifact(
        key="materialize-series",
        table=[
            {"what": "occurrences planned", "count": result.planned},
            {"what": "registrations opened", "count": result.opened},
            {"what": "occurrences missed", "count": result.missed},
        ]
        + [{"what": f"occurrence {occ} refused: {why}", "count": 1} for occ, why in result.failed],
        description=f"Series materialized at {now:%Y-%m-%d %H:%M:%S} UTC",
    )
    print(f"planned {result.planned}, opened {result.opened}, missed {result.missed}, failed {len(result.failed)}")
    if result.failed:
        raise RuntimeError(
            "the tournament rules refused occurrences (fix the series with `tourney series edit`): "
            + "; ".join(f"#{occ}: {why}" for occ, why in result.failed)
        )
    return {"planned": result.planned, "opened": result.opened, "missed": result.missed}
