"""The sweeps, started when something is due: the active timekeeper (flows/jobs/timekeeper.py)
calls `Sweeps.check` every `EVERY` seconds (10; `TOURNEY_SWEEPS_EVERY` in its environment).

One transaction counts the work each job would pick up now (PENDING_WORK,
domain/ops/services/status.py, in one query; `publish-results`' own `due_work`,
domain/documents/services/publish.py, which counts a pending delivery only when SMTP_URL is set:
without it the mail stays in the outbox and a run would have nothing to do); a job with nothing due
costs nothing more, makes no run and asks the Prefect API nothing. For a job with work due, its deployment's latest run that was due by now is read: when it is still live
(scheduled, pending, running) or was due less than the job's `when_due` ago, nothing is started (so
work that stays due, a club the registry keeps refusing, is swept at most that often); else a run of
the served deployment is started at once (`run_now`), named by what is due: `verify-clubs (2 due)`.

The timekeeper's own moments (clocks, no-shows, finalize) are not started here: the timekeeper does
them at their instants. Their sweeps, and every sweep's hourly schedule, are the safety net."""

from __future__ import annotations

import logging
import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta

# seconds between two counts of the pending work (TOURNEY_SWEEPS_EVERY: a test's idle system counts every second)
EVERY = float(os.environ.get("TOURNEY_SWEEPS_EVERY", "10"))


def wall_now() -> datetime:
    return datetime.now(UTC)


def _smtp_configured() -> bool:
    from flows import bootstrap

    return bool(bootstrap.settings().smtp_url)


@dataclass
class Sweeps:
    """`check()` starts the run of every job whose work is due; `jobs` default: every job of
    flows/deployments.py with a `when_due`."""

    jobs: Sequence = ()
    now: Callable[[], datetime] = wall_now
    deliverable: Callable[[], bool] = _smtp_configured  # whether a delivery can be attempted now
    log: logging.Logger | logging.LoggerAdapter = field(default_factory=lambda: logging.getLogger("tourney.sweeps"))

    def __post_init__(self) -> None:
        if not self.jobs:
            from flows.deployments import JOBS

            self.jobs = tuple(j for j in JOBS if j.when_due)

    def due(self) -> dict[str, int]:
        """Each job's work due now: one query for the jobs' counts, and `publish-results`' own (a
        delivery is due only when it can be sent), in one transaction."""
        from domain.documents.services.publish import due_work
        from domain.ops.services.status import due_counts
        from flows import bootstrap

        names = [j.name for j in self.jobs]
        with bootstrap.unit_of_work() as session:
            counts = due_counts(session, [n for n in names if n != "publish-results"])
            if "publish-results" in names:
                counts["publish-results"] = int(session.scalar(due_work(deliverable=self.deliverable())) or 0)
        return {n: counts[n] for n in names if n in counts}

    def check(self) -> dict[str, str]:
        """Start a run of each job with work due and none live or recent; returns what was said of
        each job with work due (started, or why not)."""
        counts = {name: n for name, n in self.due().items() if n > 0}
        if not counts:
            return {}
        from prefect.client.orchestration import get_client

        from flows.runs import run_now

        now = self.now()
        said: dict[str, str] = {}
        with get_client(sync_client=True) as client:
            for j in self.jobs:
                if j.name not in counts:
                    continue
                why = self._waiting(client, j, now)
                if why:
                    said[j.name] = why
                    continue
                said[j.name] = run_now(
                    j.name,
                    idempotency_key=f"{j.name}:due:{now:%Y-%m-%dT%H:%M:%S}",
                    run_name=f"{j.name} ({counts[j.name]} due)",
                )
                self.log.info("%s: %s due; %s", j.name, counts[j.name], said[j.name])
        return said

    @staticmethod
    def _waiting(client, j, now: datetime) -> str | None:
        """Why no run of `j` is started now (its latest run due by now is live, or recent), or None."""
        from prefect.client.schemas.filters import (
            DeploymentFilter,
            DeploymentFilterName,
            FlowRunFilter,
            FlowRunFilterExpectedStartTime,
        )
        from prefect.client.schemas.objects import StateType
        from prefect.client.schemas.sorting import FlowRunSort

        latest = client.read_flow_runs(
            deployment_filter=DeploymentFilter(name=DeploymentFilterName(any_=[j.name])),
            flow_run_filter=FlowRunFilter(expected_start_time=FlowRunFilterExpectedStartTime(before_=now)),
            sort=FlowRunSort.EXPECTED_START_TIME_DESC,
            limit=1,
        )
        if not latest:
            return None
        run = latest[0]
        if run.state_type in (StateType.SCHEDULED, StateType.PENDING, StateType.RUNNING, StateType.PAUSED):
            return f"its run {run.name} is {run.state_name}"
        due_at = run.expected_start_time or run.created
        if due_at is not None and now - due_at < (j.when_due or timedelta(0)):
            return f"its last run {run.name} was due {int((now - due_at).total_seconds())} s ago"
        return None
