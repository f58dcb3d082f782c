"""Every deployment the project serves, in one list: name, flow, schedule, tags, concurrency.

Every deployment is tagged `tourney` plus its job's tags (the admin filters by them in the UI; the
requeue automation of flows/ops.py matches the `tourney` tag) and, but the timekeeper's, carries a
Prefect deployment concurrency limit, `concurrency` runs at once (default 1) with the ENQUEUE strategy,
whether served by `tourney serve` or by workers on several machines.

Two runs of the same job never work on the same tournament at once: that is the services' guarantee,
not the limit's. Each takes its tournament's row (`advance-clocks`: the clock row; `process-no-shows`,
`finalize-tournaments`: the tournament row; `complete-rounds`: the round row) `FOR UPDATE SKIP LOCKED`
in the transaction that does the work, so a second run skips a tournament the first one holds and
finds it done afterwards. One sweep at a time is all a job needs (limit 1). The `timekeeper` has no
limit: it has no schedule, it is started by `tourney serve`, and its active run keeps exactly two runs
(itself and a standby) under an advisory lock (`ensure_runs`, flows/jobs/timekeeper.py), cancelling an
extra one. A limit would give each of its runs a Prefect concurrency lease to renew for as long as it
lives, days; a lease the server no longer has (410 Gone) makes Prefect end the run Crashed ("slots are
no longer reserved"), and a standby so ended, seen a year ahead under load, left no run to take over
from a dead active one.

A sweep runs when something is due, not on a clock: the active timekeeper counts each job's pending
work (PENDING_WORK, domain/ops/services/status.py) every few seconds and starts a run of a job whose
count is above 0, at most once per its `when_due` (flows/jobs/sweeps.py), named by what is due
(`verify-clubs (2 due)`). A sweep's schedule is only its safety net, hourly, each job at its own
minute (`minute`, so no two of them fall within 5 minutes of each other), and its runs are named
`<job> safety net`; the timekeeper's own moments (clocks, no-shows, finalize) are done by the
timekeeper itself, their sweeps are that safety net alone."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta

from prefect import Flow

from domain.errors import DomainError

# area imports, one block each:
# area: clubs
from flows.jobs.clubs import reverify_clubs, verify_clubs

# area: documents
from flows.jobs.documents import publish_results  # noqa: E402
from flows.jobs.poker_finalize import finalize_tournaments_flow  # noqa: E402

# area: poker
from flows.jobs.poker_moments import advance_clocks, process_no_shows  # noqa: E402

# area: pusoy
from flows.jobs.pusoy import complete_rounds

# area: series
from flows.jobs.series import materialize_series
from flows.jobs.status_report import status_report
from flows.jobs.timekeeper import timekeeper  # noqa: E402

# area: webhooks
from flows.jobs.webhooks import deliver_webhooks  # noqa: E402


@dataclass(frozen=True)
class Job:
    name: str
    flow: Flow
    description: str
    interval: timedelta | None = None  # its schedule: the safety net of a sweep
    cron: str | None = None
    tags: tuple[str, ...] = field(default=())
    concurrency: int | None = 1  # runs of this job at once, across every runner and worker (None: no limit)
    when_due: timedelta | None = None  # started by the timekeeper when its work is due, at most this often
    minute: int = 0  # the interval's offset in minutes past the hour (so the safety nets never bunch)
    label: str = "safety net"  # what its scheduled runs are (their names: `<job> safety net`, flows/runs.py)

    @property
    def schedule(self) -> str:
        due = f"when due (at most every {int(self.when_due.total_seconds())} s)" if self.when_due else ""
        if self.cron:
            clock = f"cron {self.cron}"
        elif self.interval:
            clock = f"every {int(self.interval.total_seconds())} s from :{self.minute:02d}"
        else:
            clock = ""
        if due and clock:
            return f"{due}; {self.label} {clock}"
        return due or clock or "on demand"

    @property
    def anchor(self) -> datetime:
        return datetime(2020, 1, 1, 0, self.minute, tzinfo=UTC)


HOURLY = timedelta(hours=1)

JOBS: tuple[Job, ...] = (
    Job(
        "status-report",
        status_report,
        "checks the database and the migration head; counts pending work",
        interval=HOURLY,
        minute=0,
        label="hourly",
        tags=("ops",),
    ),
    # area: clubs
    Job(
        "verify-clubs",
        verify_clubs,
        "checks every pending club application against the state registry (or queues it for moderators)",
        interval=HOURLY,
        minute=5,
        when_due=timedelta(minutes=10),
        tags=("clubs",),
    ),
    Job(
        "reverify-clubs",
        reverify_clubs,
        "re-checks verified clubs whose last check is 30 days old; revokes those no longer active",
        cron="30 2 * * *",
        when_due=timedelta(days=1),
        tags=("clubs",),
    ),
    # area: pusoy
    Job(
        "complete-rounds",
        complete_rounds,
        "Pusoy Dos: completes every round whose games are all reported (advance, playoff, champion)",
        interval=HOURLY,
        minute=10,
        when_due=timedelta(minutes=1),
        tags=("pusoy",),
    ),
    # area: poker
    Job(
        "timekeeper",
        timekeeper,
        "long-lived: runs every clock's level change, every late-registration close and every finalize "
        "at its instant (one active across machines, one standby)",
        tags=("poker",),
        concurrency=None,
    ),
    Job(
        "process-no-shows",
        process_no_shows,
        "safety net behind the timekeeper: applies the no-show policy of every closed late registration",
        interval=HOURLY,
        minute=15,
        tags=("poker",),
    ),
    Job(
        "advance-clocks",
        advance_clocks,
        "safety net behind the timekeeper: records due level changes and break events, charges dead stacks",
        interval=HOURLY,
        minute=20,
        tags=("poker",),
    ),
    Job(
        "finalize-tournaments",
        finalize_tournaments_flow,
        "safety net behind the timekeeper: places, prizes and finished for every tournament down to one player",
        interval=HOURLY,
        minute=40,
        tags=("poker",),
    ),
    # area: documents
    Job(
        "publish-results",
        publish_results,
        "renders, stores and e-mails results sheets and certificates of finished tournaments",
        interval=HOURLY,
        minute=45,
        when_due=timedelta(minutes=1),
        tags=("documents",),
    ),
    # area: webhooks
    Job(
        "deliver-webhooks",
        deliver_webhooks,
        "POSTs every due webhook delivery, signed; retries with back-off (10 s ... 6 h, for 24 h)",
        interval=HOURLY,
        minute=50,
        when_due=timedelta(seconds=10),  # the back-off decides when a delivery is due again
        tags=("webhooks",),
    ),
    # area: series
    Job(
        "materialize-series",
        materialize_series,
        "plans every series' tournaments within its horizon, opens registration when due",
        interval=HOURLY,
        minute=55,
        when_due=timedelta(minutes=5),
        label="hourly",
        tags=("series",),
    ),
)


def job(name: str) -> Job:
    for candidate in JOBS:
        if candidate.name == name:
            return candidate
    known = ", ".join(j.name for j in JOBS)
    raise DomainError("unknown-job", f"unknown job '{name}'; known jobs: {known}")


def deployment(j: Job, module_path: bool = False, machine: str | None = None):
    """The RunnerDeployment of one job. `module_path`: the entrypoint names the installed module
    (`flows.jobs.series.materialize_series`), for workers that import it (`tourney deploy`).
    `machine`: the timekeeper's deployment is that machine's own, `timekeeper-<machine>`, tagged
    `machine:<machine>` (flows/jobs/timekeeper.py places its standby on another machine)."""
    from prefect.client.schemas.objects import (
        ConcurrencyLimitConfig,
        ConcurrencyLimitStrategy,
    )
    from prefect.deployments.runner import EntrypointType
    from prefect.schedules import Cron, Interval

    from flows.jobs.timekeeper import deployment_name

    if j.cron:
        schedules = [Cron(j.cron, timezone="UTC", slug=j.label.replace(" ", "-"))]
    elif j.interval:
        schedules = [Interval(j.interval, anchor_date=j.anchor, slug=j.label.replace(" ", "-"))]
    else:
        schedules = []
    own = j.flow is timekeeper and machine is not None
    return j.flow.to_deployment(
        name=deployment_name(machine) if own else j.name,
        description=j.description + (f" (machine {machine})" if own else ""),
        schedules=schedules,
        tags=["tourney", *j.tags, *([f"machine:{machine}"] if own else [])],
        concurrency_limit=None
        if j.concurrency is None
        else ConcurrencyLimitConfig(limit=j.concurrency, collision_strategy=ConcurrencyLimitStrategy.ENQUEUE),
        entrypoint_type=EntrypointType.MODULE_PATH if module_path else EntrypointType.FILE_PATH,
        _sync=True,  # Prefect's async_dispatch would answer a coroutine wherever an event loop runs
    )


def deployments(skip: Iterable[str] = (), machine: str | None = None) -> list:
    """The RunnerDeployments `tourney serve` serves: every job but the `skip` ones (the timekeeper's
    as `machine`'s own, when given)."""
    skipped = {job(name).name for name in skip}
    return [deployment(j, machine=machine) for j in JOBS if j.name not in skipped]
