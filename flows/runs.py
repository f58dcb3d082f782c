"""Starting a job's run at the moment of an event, so that it shows in the Prefect UI under the job's
deployment and the tags of what it is for (flows/tags.py), whichever process triggered it:

- `run_now`: a run of the served deployment, at once, executed by whoever serves it (`tourney serve`,
  a worker of its work pool): the heavy jobs (documents), and jobs the CLI must not wait for;
  `start_run` the same, raising when the run is not made (the event consumer's, flows/jobs/events.py).

Every run created for a tournament (or a club) is named by it, `publish-results poker-2`,
`verify-clubs club-3` (`named_for`, flows/tags.py), whichever of these made it or when a flow is
called in this process under its tags (`scheduled_name`): the UI lists none of a tournament's runs
under a name Prefect drew.

When the Prefect API does not answer, `run_now` starts nothing: the job's sweep does the work later.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

from prefect.settings import PREFECT_API_URL

from flows.tags import named_for
from infra.prefect_server import healthy


def api_answers() -> bool:
    """Whether the configured Prefect API answers its health check now (the one check, for the jobs
    and the commands that talk to it)."""
    api = PREFECT_API_URL.value()
    return bool(api) and healthy(api)


def run_now(name: str, idempotency_key: str, tags: Iterable[str] = (), run_name: str | None = None) -> str:
    """Start a run of the served deployment `name` at once (one run per idempotency key), tagged
    with `tags` besides the deployment's and named `run_name`, else by the tournament (or club) the
    tags name (`<name> poker-2`), else Prefect draws a name. When the Prefect API or the deployment
    is not there, the job's own schedule does the work later."""
    if not api_answers():
        return f"{name} not started now (the Prefect API does not answer); its next scheduled run does it"
    try:
        return start_run(name, idempotency_key, tags, run_name)
    except Exception as exc:  # deployment not served, API gone meanwhile: the schedule covers it
        return f"{name} not started now ({exc.__class__.__name__}); its next scheduled run does it"


def start_run(name: str, idempotency_key: str, tags: Iterable[str] = (), run_name: str | None = None) -> str:
    """`run_now`, raising when the run is not made (the API does not answer, the deployment is not
    there): for the event consumer, whose reaction then stays to do. The same key again is the same
    run, so a reaction retried after a crash makes none twice."""
    from prefect.deployments import run_deployment

    tags = list(tags)
    run = run_deployment(
        f"{name}/{name}",
        timeout=0,
        as_subflow=False,
        idempotency_key=idempotency_key,
        tags=tags,
        flow_run_name=named_for(name, tags, run_name),
        _sync=True,  # sync even where an event loop runs in this thread (a web request's, a browser's)
    )
    return f"{name} run {run.name} started"


def scheduled_name(job: str, label: str = "safety net") -> Callable[[], str]:
    """A job's `flow_run_name`: a run its deployment's schedule made is `<job> <label>` (`verify-clubs
    safety net`, `status-report hourly`); a run created for a tournament (or club), its tags say,
    is named by it when its name does not (`<job> poker-2`: a flow called in this process under the
    tournament's tags, a run made without a name); a flow called in this process for nobody is
    `<job>`; any other run keeps the name it was given (`publish-results poker-2`, `verify-clubs (1
    due)`) or drew."""

    def name() -> str:
        from prefect.context import FlowRunContext

        context = FlowRunContext.get()
        run = context.flow_run if context else None
        if run is None:
            return job
        if run.auto_scheduled:
            return f"{job} {label}"
        given = run.name if run.deployment_id is not None else None  # a flow called here has a drawn one
        return named_for(job, run.tags or (), given) or given or job

    return name
