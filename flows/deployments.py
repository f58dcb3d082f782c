"""Every deployment the project serves, in one list: name, flow, schedule."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import timedelta

from prefect import Flow

from domain.errors import DomainError
from flows.status_report import status_report

# area imports, one block each:

# area: clubs
from flows.clubs import reverify_clubs, verify_clubs

# area: pusoy
from flows.pusoy import complete_rounds

# area: poker
from flows.poker_floor import advance_clocks, process_no_shows  # noqa: E402
from flows.poker_results import finalize_tournaments_flow  # noqa: E402

# area: documents
from flows.documents import publish_results  # noqa: E402

# area: series


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
    Job(
        "verify-clubs",
        verify_clubs,
        "checks every pending club application against the state registry (or queues it for moderators)",
        interval=timedelta(minutes=10),
        tags=("clubs",),
    ),
    Job(
        "reverify-clubs",
        reverify_clubs,
        "re-checks verified clubs whose last check is 30 days old; revokes those no longer active",
        cron="30 2 * * *",
        tags=("clubs",),
    ),

    # area: pusoy
    Job(
        "complete-rounds",
        complete_rounds,
        "Pusoy Dos: completes every round whose games are all reported (advance, playoff, champion)",
        interval=timedelta(minutes=1),
        tags=("pusoy",),
    ),

    # area: poker
    Job(
        "process-no-shows",
        process_no_shows,
        "applies the no-show policy at each late-registration close; schedules the exact runs",
        interval=timedelta(minutes=5),
        tags=("poker",),
    ),
    Job(
        "advance-clocks",
        advance_clocks,
        "records level changes and break events, charges dead stacks; schedules the next change",
        interval=timedelta(minutes=1),
        tags=("poker",),
    ),
    Job(
        "finalize-tournaments",
        finalize_tournaments_flow,
        "places, prizes and finished for every live tournament down to one player",
        interval=timedelta(minutes=1),
        tags=("poker",),
    ),

    # area: documents
    Job(
        "publish-results",
        publish_results,
        "renders, stores and e-mails results sheets and certificates of finished tournaments",
        interval=timedelta(minutes=5),
        tags=("documents",),
    ),

    # area: series

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
