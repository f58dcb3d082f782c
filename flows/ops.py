"""Operations on Prefect itself: the same deployments `tourney serve` serves, registered to a process
work pool so that workers on several machines (sharing one PostgreSQL and one Prefect server) run
them, and the automation that hands a run whose worker died to another worker.

- Deployments are registered with a module-path entrypoint (`flows.jobs.series.materialize_series`): a
  worker imports the flow from the installed `tourney` package, so there is no Docker image and no
  remote code store; a worker machine needs the project installed and the same environment.
- Every deployment carries its concurrency limit (ENQUEUE; flows/deployments.py), on one runner or
  across workers; a run that finds every slot taken waits for one. Two runs of one job never work on
  the same tournament at once whatever the limit (the services' row locks).
- A run whose process dies with its machine stops sending heartbeats (`PREFECT_FLOWS_HEARTBEAT_FREQUENCY`,
  30 s here). The automation `tourney: requeue runs whose worker died` moves such a run back to
  Scheduled (`AwaitingRetry`) after `within` seconds of silence; any worker of the pool then picks it
  up. Leaving Running releases its deployment concurrency slot. Every job is idempotent, so a run
  that was in fact still alive somewhere and is run again changes nothing twice.
- A worker may also die between claiming a run (Pending) and its flow process starting it (Running).
  A second automation, `tourney: requeue runs claimed and never started`, watches from the
  `Pending` event, which `Running` (or an end) must follow within `pending_within`; a run left
  Pending is requeued the same way. Its window is its own and longer (default 5 minutes): a busy
  machine may take tens of seconds to start a run's process, and a run requeued while its process is
  still starting would run twice.
"""

from __future__ import annotations

from datetime import timedelta
from typing import Any

AUTOMATION = "tourney: requeue runs whose worker died"
AUTOMATION_PENDING = "tourney: requeue runs claimed and never started"
REQUEUE_AFTER = timedelta(seconds=90)  # `tourney deploy --requeue-after`'s default, and `tourney serve`'s
REQUEUE_PENDING_AFTER = timedelta(seconds=300)


def ensure_pool(name: str, limit: int | None) -> str:
    """Create the process work pool when it does not exist; returns what was done."""
    from prefect import get_client
    from prefect.client.schemas.actions import WorkPoolCreate, WorkPoolUpdate
    from prefect.exceptions import ObjectNotFound
    from prefect.workers.process import ProcessWorker

    with get_client(sync_client=True) as client:
        try:
            client.read_work_pool(name)
        except ObjectNotFound:
            client.create_work_pool(
                WorkPoolCreate(
                    name=name,
                    type="process",
                    base_job_template=ProcessWorker.get_default_base_job_template(),
                    concurrency_limit=limit,
                )
            )
            return f"created the process work pool '{name}'"
        client.update_work_pool(name, WorkPoolUpdate(concurrency_limit=limit))
        return f"reused the work pool '{name}'"


def ensure_requeue_automation(within: timedelta, pending_within: timedelta, replace: bool = True) -> list[str]:
    """The two automations that requeue a tourney run whose worker died (created or, when `replace`,
    replaced; `tourney serve` only creates a missing one, so `tourney deploy`'s windows stay): one for
    a run Running without heartbeats for `within`, one for a run left Pending for `pending_within`.
    Returns the names of those created."""
    if not replace:
        from prefect.automations import Automation
        from prefect.exceptions import ObjectNotFound

        missing = []
        for name in (AUTOMATION, AUTOMATION_PENDING):
            try:
                Automation.read(name=name)
            except (ObjectNotFound, ValueError):
                missing.append(name)
        if not missing:
            return []
    else:
        missing = [AUTOMATION, AUTOMATION_PENDING]
    # the server's own Running event opens the heartbeat watch too: a run killed before its first
    # heartbeat reached the server would otherwise never be noticed
    if AUTOMATION in missing:
        _requeue_automation(AUTOMATION, "stopped sending heartbeats", {"Running", "heartbeat"}, {"heartbeat"}, within)
    if AUTOMATION_PENDING in missing:
        _requeue_automation(
            AUTOMATION_PENDING,
            "was claimed (Pending) and never started",
            {"Pending"},
            {"Running", "heartbeat"},
            pending_within,
        )
    return missing


def _requeue_automation(name: str, what: str, after: set[str], expect: set[str], within: timedelta) -> None:
    from prefect.automations import Automation
    from prefect.client.schemas.objects import StateType
    from prefect.events.actions import ChangeFlowRunState
    from prefect.events.schemas.automations import EventTrigger, Posture
    from prefect.events.schemas.events import ResourceSpecification
    from prefect.exceptions import ObjectNotFound

    try:
        Automation.read(name=name).delete()
    except (ObjectNotFound, ValueError):
        pass
    ended = {"Completed", "Failed", "Cancelled", "Crashed"}
    Automation(
        name=name,
        description=f"A tourney flow run that {what} (its worker or machine died) goes back to Scheduled, "
        "so another worker of the pool runs it again.",
        trigger=EventTrigger(
            after={f"prefect.flow-run.{e}" for e in after},
            expect={f"prefect.flow-run.{e}" for e in expect | ended},
            match=ResourceSpecification({"prefect.resource.id": "prefect.flow-run.*"}),
            match_related=ResourceSpecification(
                {"prefect.resource.role": "tag", "prefect.resource.id": "prefect.tag.tourney"}
            ),
            for_each={"prefect.resource.id"},
            posture=Posture.Proactive,
            threshold=1,
            within=within,
        ),
        actions=[
            ChangeFlowRunState(
                state=StateType.SCHEDULED,
                name="AwaitingRetry",
                message=f"it {what}: its worker died; requeued for another worker",
                force=True,
            )
        ],
    ).create()


def register(
    pool: str, pool_limit: int | None, within: timedelta, pending_within: timedelta, jobs: Any = None
) -> list[dict[str, Any]]:
    """`tourney deploy`: the pool, the requeue automation, then every job's deployment in the pool."""
    from flows.deployments import JOBS, deployment

    ensure_pool(pool, pool_limit)
    ensure_requeue_automation(within, pending_within)
    rows = []
    for job in JOBS if jobs is None else jobs:
        deployment_id = deployment(job, module_path=True).apply(work_pool_name=pool)
        rows.append({"job": job.name, "deployment_id": str(deployment_id), "pool": pool, "schedule": job.schedule})
    return rows
