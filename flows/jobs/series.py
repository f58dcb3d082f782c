"""`materialize-series` (hourly): plans every active series' occurrences within its horizon, each
exactly once, opens registration of those due (creating their tournaments) and marks missed those
whose start passed. So that registration opens on time, not up to an hour late, each run also
schedules an exact run of its own deployment at every opening instant before the next hourly run
(idempotency key `materialize-series:<instant>`). Fails loudly when the tournament rules refused an occurrence: retrying would not
help, the operator must fix the series (the others were opened and committed)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from prefect import flow, get_run_logger, task
from prefect.artifacts import create_table_artifact
from prefect.client.orchestration import get_client
from prefect.exceptions import ObjectNotFound
from prefect.states import Scheduled

from domain.access.services import audit
from domain.series.services.series import Materialized, materialize, upcoming_openings
from flows import bootstrap
from flows.retrying import unless_refused
from flows.runs import scheduled_name
from flows.tags import inherited

JOB = "materialize-series"
LOOKAHEAD = timedelta(minutes=70)  # past the next hourly run


@task(name="schedule-openings", retries=2, retry_delay_seconds=[2, 10], retry_condition_fn=unless_refused)
def schedule_openings(instants: list[datetime]) -> list[datetime]:
    """One scheduled run of this job's deployment at each instant, by idempotency key. Without a
    deployment (run by hand) nothing is scheduled: the hourly sweep opens them."""
    if not instants:
        return []
    with get_client(sync_client=True) as client:
        try:
            deployment = client.read_deployment_by_name(f"{JOB}/{JOB}")
        except ObjectNotFound:
            get_run_logger().info("no %s deployment: the hourly sweep opens registrations", JOB)
            return []
        for at in instants:
            client.create_flow_run_from_deployment(
                deployment.id,
                state=Scheduled(scheduled_time=at),
                idempotency_key=f"{JOB}:{at.isoformat()}",
                name=f"{JOB} openings {at:%Y-%m-%d %H:%M} UTC",
            )
    return instants


@task(name="materialize-occurrences", retries=2, retry_delay_seconds=[5, 30], retry_condition_fn=unless_refused)
def materialize_task(now: datetime) -> Materialized:
    # one transaction: a failed attempt rolls back whole, so a retry starts clean
    with bootstrap.unit_of_work() as session:
        done = materialize(session, now)
        audit.record_if_written(
            session,
            audit.system(f"job:{JOB}"),
            "materialize",
            now,
            target=f"{done.planned} planned, {done.opened} opened, {done.missed} missed",
        )
        return done


@flow(name=JOB, log_prints=True, flow_run_name=scheduled_name(JOB, "hourly"))
def materialize_series(now: datetime | None = None) -> dict:
    now = now or datetime.now(UTC)
    with inherited():
        result = materialize_task(now)
        with bootstrap.unit_of_work() as session:
            openings = upcoming_openings(session, now, now + LOOKAHEAD)
        scheduled = schedule_openings(openings)
    create_table_artifact(
        key="materialize-series",
        table=[
            {"what": "occurrences planned", "count": result.planned},
            {"what": "registrations opened", "count": result.opened},
            {"what": "occurrences missed", "count": result.missed},
            {"what": "exact runs scheduled at openings", "count": len(scheduled)},
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
    return {"planned": result.planned, "opened": result.opened, "missed": result.missed, "scheduled": len(scheduled)}
