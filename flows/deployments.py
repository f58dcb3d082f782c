"""Every deployment the project serves, in one list: name, flow, schedule, tags, concurrency.

Every deployment is tagged `tourney` plus its job's tags (the admin filters by them in the UI; the
requeue automation of flows/ops.py matches the `tourney` tag) and carries a Prefect deployment
concurrency limit, `concurrency` runs at once (default 1) with the ENQUEUE strategy: two runs of the
same job never overlap, whether served by `tourney serve` or by workers on several machines, so two
runs on the same tournament never overlap either."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import timedelta

from prefect import Flow

from domain.errors import DomainError
from flows.status_report import status_report

# area imports, one block each:

# area: clubs

# area: pusoy

# area: poker

# area: documents

# area: series
from flows.series import materialize_series


@dataclass(frozen=True)
class Job:
    name: str
    flow: Flow
    description: str
    interval: timedelta | None = None
    cron: str | None = None
    tags: tuple[str, ...] = field(default=())
    concurrency: int = 1  # runs of this job at once, across every runner and worker

    @property
    def schedule(self) -> str:
        if self.cron:
            return f"cron {self.cron}"
        if self.interval:
            return f"every {int(self.interval.total_seconds())} s"
        return "on demand"


JOBS: tuple[Job, ...] = (
    Job(
        "status-report",
        status_report,
        "checks the database and the migration head; counts pending work",
        interval=timedelta(minutes=5),
        tags=("ops",),
    ),
    # area: clubs

    # area: pusoy

    # area: poker

    # area: documents

    # area: series
    Job(
        "materialize-series",
        materialize_series,
        "plans every series' tournaments within its horizon, opens registration when due",
        interval=timedelta(hours=1),
        tags=("series",),
    ),
)


def job(name: str) -> Job:
    for candidate in JOBS:
        if candidate.name == name:
            return candidate
    known = ", ".join(j.name for j in JOBS)
    raise DomainError("unknown-job", f"unknown job '{name}'; known jobs: {known}")


def deployment(j: Job, module_path: bool = False):
    """The RunnerDeployment of one job. `module_path`: the entrypoint names the installed module
    (`flows.series.materialize_series`), for workers that import it (`tourney deploy`)."""
    from prefect.client.schemas.objects import ConcurrencyLimitConfig, ConcurrencyLimitStrategy
    from prefect.deployments.runner import EntrypointType

    return j.flow.to_deployment(
        name=j.name,
        description=j.description,
        interval=j.interval,
        cron=j.cron,
        tags=["tourney", *j.tags],
        concurrency_limit=ConcurrencyLimitConfig(
            limit=j.concurrency, collision_strategy=ConcurrencyLimitStrategy.ENQUEUE
        ),
        entrypoint_type=EntrypointType.MODULE_PATH if module_path else EntrypointType.FILE_PATH,
    )


def deployments() -> list:
    """The RunnerDeployments `tourney serve` serves."""
    return [deployment(j) for j in JOBS]
