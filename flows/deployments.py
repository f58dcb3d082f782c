"""Every deployment the project serves, in one list: name, flow, schedule."""

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


def deployments() -> list:
    """The RunnerDeployments `tourney serve` serves."""
    return [
        j.flow.to_deployment(
            name=j.name,
            description=j.description,
            interval=j.interval,
            cron=j.cron,
            tags=list(j.tags),
        )
        for j in JOBS
    ]
