"""Operations on Prefect itself: the same deployments `tourney serve` serves, registered to a process
work pool so that workers on several machines (sharing one PostgreSQL and one Prefect server) run
them, and the automation that hands a run whose worker died to another worker.

- Deployments are registered with a module-path entrypoint (`flows.series.materialize_series`): a
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
- A worker may also die between claiming a run (Pending) and its flow process starting it (Running):
  the same automation watches from the `Pending` event, which `Running` (or an end) must follow
  within `within` seconds; a run left Pending is requeued the same way. `within` therefore also
  bounds how long a worker may take to start a claimed run (a process worker: seconds).
"""

from __future__ import annotations

from datetime import timedelta
from typing import Any

AUTOMATION = "tourney: requeue runs whose worker died"
HEARTBEAT_SECONDS = 30
DEFAULT_POOL = "tourney"


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


def ensure_requeue_automation(within: timedelta) -> None:
    """The automation that requeues a tourney run silent for `within`, Running without heartbeats or
    left Pending by its worker (created or replaced)."""
    from prefect.automations import Automation
    from prefect.client.schemas.objects import StateType
    from prefect.events.actions import ChangeFlowRunState
    from prefect.events.schemas.automations import EventTrigger, Posture
    from prefect.events.schemas.events import ResourceSpecification
    from prefect.exceptions import ObjectNotFound

    try:
        Automation.read(name=AUTOMATION).delete()
    except (ObjectNotFound, ValueError):
        pass
    Automation(
        name=AUTOMATION,
        description="A tourney flow run that stopped sending heartbeats, or was claimed (Pending) and "
        "never started (its worker or machine died), goes back to Scheduled, so another worker of the "
        "pool runs it again.",
        trigger=EventTrigger(
            # the server's own Running event opens the watch too: a run killed before its first
            # heartbeat reached the server would otherwise never be noticed; Pending opens it for a
            # worker that dies after claiming a run, before the run's process starts it
            after={"prefect.flow-run.Pending", "prefect.flow-run.Running", "prefect.flow-run.heartbeat"},
            expect={
                "prefect.flow-run.Running",
                "prefect.flow-run.heartbeat",
                "prefect.flow-run.Completed",
                "prefect.flow-run.Failed",
                "prefect.flow-run.Cancelled",
                "prefect.flow-run.Crashed",
            },
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
                message="no heartbeat, or claimed and never started: its worker died; requeued",
                force=True,
            )
        ],
    ).create()


def register(pool: str, pool_limit: int | None, within: timedelta, jobs: Any = None) -> list[dict[str, Any]]:
    """`tourney deploy`: the pool, the requeue automation, then every job's deployment in the pool."""
    from flows.deployments import JOBS, deployment

    ensure_pool(pool, pool_limit)
    ensure_requeue_automation(within)
    rows = []
    for job in JOBS if jobs is None else jobs:
        deployment_id = deployment(job, module_path=True).apply(work_pool_name=pool)
        rows.append({"job": job.name, "deployment_id": str(deployment_id), "pool": pool, "schedule": job.schedule})
    return rows
