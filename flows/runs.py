"""Starting a job's run at the moment of an event, so that it shows in the Prefect UI under the job's
deployment and the tags of what it is for (flows/tags.py), whichever process triggered it:

- `run_now`: a run of the served deployment, at once, executed by whoever serves it (`tourney serve`,
  a worker of its work pool): the heavy jobs (documents), and jobs the CLI must not wait for.
- `run_here`: a run of the deployment executed in this process, now: light work that must happen at
  the event (a Pusoy Dos round completed at its last report). The run is created from the deployment
  in Pending (a runner or worker only takes Scheduled runs), then this process runs the flow as that
  run; without the deployment (not served) it is a plain run of the flow, still tagged.

When the Prefect API does not answer, neither starts anything: the job's sweep does the work later.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from prefect import Flow, tags
from prefect.client.orchestration import get_client
from prefect.exceptions import ObjectNotFound
from prefect.settings import PREFECT_API_URL
from prefect.states import Pending

from infra.prefect_server import healthy


def api_answers() -> bool:
    """Whether the configured Prefect API answers its health check now (the one check, for the jobs
    and the commands that talk to it)."""
    api = PREFECT_API_URL.value()
    return bool(api) and healthy(api)


def run_now(name: str, idempotency_key: str, tags: Iterable[str] = (), run_name: str | None = None) -> str:
    """Start a run of the served deployment `name` at once (one run per idempotency key), tagged
    with `tags` besides the deployment's and named `run_name` (else Prefect draws a name). When the
    Prefect API or the deployment is not there, the job's own schedule does the work later."""
    from prefect.deployments import run_deployment

    if not api_answers():
        return f"{name} not started now (the Prefect API does not answer); its next scheduled run does it"
    try:
        run = run_deployment(
            f"{name}/{name}",
            timeout=0,
            as_subflow=False,
            idempotency_key=idempotency_key,
            tags=list(tags),
            flow_run_name=run_name,
            _sync=True,  # sync even where an event loop runs in this thread (a web request's, a browser's)
        )
    except Exception as exc:  # deployment not served, API gone meanwhile: the schedule covers it
        return f"{name} not started now ({exc.__class__.__name__}); its next scheduled run does it"
    return f"{name} run {run.name} started"


def run_here(job: Flow, parameters: dict[str, Any], run_tags: Iterable[str]) -> Any:
    """Run `job` in this process as a run of its deployment (same name as the flow), tagged; returns
    the flow's result."""
    from prefect.flow_engine import run_flow

    run_tags = list(run_tags)
    with get_client(sync_client=True) as client:
        try:
            deployment = client.read_deployment_by_name(f"{job.name}/{job.name}")
        except ObjectNotFound:
            deployment = None
        if deployment is None:
            with tags(*run_tags):
                return job(**parameters)
        run = client.create_flow_run_from_deployment(
            deployment.id, parameters=parameters, tags=run_tags, state=Pending()
        )
    return run_flow(job, flow_run=run, parameters=parameters)


def scheduled_name(job: str, label: str = "safety net") -> Callable[[], str]:
    """A job's `flow_run_name`: a run its deployment's schedule made is `<job> <label>` (`verify-clubs
    safety net`, `status-report hourly`); any other run keeps the name it was given (`publish-results
    poker-2`, `verify-clubs (1 due)`) or drew."""

    def name() -> str:
        from prefect.context import FlowRunContext

        context = FlowRunContext.get()
        run = context.flow_run if context else None
        if run is None:
            return job
        return f"{job} {label}" if run.auto_scheduled else run.name

    return name
