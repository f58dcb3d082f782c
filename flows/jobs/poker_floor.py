"""`process-no-shows` and `advance-clocks` (Sport Poker 3.5, 3.8; SP-6, SP-8).

Each runs two ways: as a periodic sweep over every tournament that is due (no parameters), and as
an exact scheduled run for one tournament (`tournament_id`), created by the sweep on the
deployment with an idempotency key:
- `process-no-shows` at each tournament's late-registration close, one run per tournament (key
  `process-no-shows:<id>`), moved when the close moves before the start;
- `advance-clocks` at each running tournament's next level change (key
  `advance-clocks:<id>:<instant>`), scheduled again after every change.
Both are idempotent and safe to run twice, late or concurrently (the services record everything by
natural keys and skip rows another run holds); both publish a table artifact of what they did.
Tags (flows/tags.py): an exact run is created with its tournament's tags; a sweep adds the tags of
the tournaments it handled to its own run.
"""

from __future__ import annotations

from datetime import UTC, datetime

from prefect import flow, get_run_logger, task
from prefect.artifacts import create_table_artifact
from prefect.client.orchestration import get_client
from prefect.exceptions import ObjectNotFound
from prefect.states import Scheduled

from domain.poker.services import clock as clock_service
from domain.poker.services import noshow as noshow_service
from domain.store.db import unit_of_work
from flows.retrying import unless_refused
from flows.tags import inherited, merged, of_poker, tag_this_run

NO_SHOWS = "process-no-shows"
ADVANCE = "advance-clocks"


@task(name="schedule-exact-runs", retries=2, retry_delay_seconds=[2, 10], retry_condition_fn=unless_refused)
def schedule_exact_runs(
    job: str, moments: list[tuple[int, datetime]], move: bool, tags: dict[int, tuple[str, ...]]
) -> list[tuple[int, datetime]]:
    """One scheduled run of the job's deployment per (tournament, instant), by idempotency key,
    tagged with the tournament's `tags`. With `move`, the key is the tournament's alone and an
    existing scheduled run is moved to the instant. Without a served deployment nothing is
    scheduled: the sweep does the work."""
    if not moments:
        return []
    with get_client(sync_client=True) as client:
        try:
            deployment = client.read_deployment_by_name(f"{job}/{job}")
        except ObjectNotFound:
            get_run_logger().info("no %s deployment is served: the sweep alone handles the work", job)
            return []
        done = []
        for tid, at in moments:
            run = client.create_flow_run_from_deployment(
                deployment.id,
                parameters={"tournament_id": tid},
                state=Scheduled(scheduled_time=at),
                idempotency_key=f"{job}:{tid}" if move else f"{job}:{tid}:{at.isoformat()}",
                name=f"{job} poker-{tid}" if move else f"{job} poker-{tid} {at:%H:%M} UTC",
                tags=list(tags.get(tid, ())),
            )
            planned = run.state.state_details.scheduled_time if run.state else None
            if (
                move
                and run.state
                and run.state.is_scheduled()
                and planned
                and planned.timestamp() != at.timestamp()
            ):
                client.set_flow_run_state(run.id, Scheduled(scheduled_time=at), force=True)
            done.append((tid, at))
        return done


def _artifact(key: str, rows: list[dict], description: str) -> None:
    table = [{k: (v.isoformat() if isinstance(v, datetime) else v) for k, v in r.items()} for r in rows]
    create_table_artifact(key=key, table=table or [{"result": "nothing was due"}], description=description)


@flow(name=NO_SHOWS, log_prints=True)
def process_no_shows(tournament_id: int | None = None, now: datetime | None = None) -> dict:
    """Apply the no-show policy of every tournament whose late registration has closed (or one)."""
    now = now or datetime.now(UTC)
    with inherited():
        with unit_of_work() as session:
            done = noshow_service.process_no_shows(session, now, tournament_id)
            upcoming = noshow_service.upcoming_closes(session, now) if tournament_id is None else []
        scheduled = schedule_exact_runs(NO_SHOWS, upcoming, move=True, tags=of_poker(t for t, _ in upcoming))
        _artifact(NO_SHOWS, done, f"No-shows processed at {now.isoformat()}")
        tag_this_run(merged(of_poker(r["tournament_id"] for r in done)))
    return {"processed": done, "scheduled": [{"tournament_id": t, "at": at} for t, at in scheduled]}


@flow(name=ADVANCE, log_prints=True)
def advance_clocks(tournament_id: int | None = None, now: datetime | None = None) -> dict:
    """Record the due level changes and break events of every running tournament (or one), charge
    dead stacks, and schedule an exact run at each clock's next level change."""
    now = now or datetime.now(UTC)
    with inherited():
        with unit_of_work() as session:
            done = clock_service.advance_clocks(session, now, tournament_id)
            upcoming = clock_service.unscheduled_changes(session, now)
        scheduled = schedule_exact_runs(ADVANCE, upcoming, move=False, tags=of_poker(t for t, _ in upcoming))
        if scheduled:
            with unit_of_work() as session:
                clock_service.mark_scheduled(session, scheduled)
        _artifact(ADVANCE, done, f"Level changes recorded at {now.isoformat()}")
        tag_this_run(merged(of_poker(r["tournament_id"] for r in done)))
    return {"advanced": done, "scheduled": [{"tournament_id": t, "at": at} for t, at in scheduled]}
