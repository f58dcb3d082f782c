"""Operations on Prefect itself: the same deployments `tourney serve` serves, registered to a process
work pool so that workers on several machines (sharing one PostgreSQL and one Prefect server) run
them, and the requeue that hands a run whose worker died to another worker.

- Deployments are registered with a module-path entrypoint (`flows.jobs.series.materialize_series`): a
  worker imports the flow from the installed `tourney` package, so there is no Docker image and no
  remote code store; a worker machine needs the project installed and the same environment.
- Every deployment carries its concurrency limit (ENQUEUE; flows/deployments.py), on one runner or
  across workers; a run that finds every slot taken waits for one. Two runs of one job never work on
  the same tournament at once whatever the limit (the services' row locks).
- The requeue (`requeue_dead_runs`): the active timekeeper looks every `REQUEUE_EVERY` seconds at the
  `tourney` runs Running for longer than `after` or Pending (claimed, never started) for longer than
  `pending_after` (the windows `tourney deploy` records, `WINDOWS`), and puts back to Scheduled
  (`AwaitingRetry`, which releases the deployment's concurrency slot) only a run whose worker is
  really gone: still in the state it was judged in, no heartbeat of it within the window
  (`PREFECT_FLOWS_HEARTBEAT_FREQUENCY`, 30 s here), its process not alive on this machine and its
  worker not alive anywhere (the process's and its worker's pids, which every job's run records on
  itself as labels when it starts, `label_process`; the `tourney serve` a machine runs, by its mark
  in the database, flows/jobs/timekeeper.py's `Serving`; a process worker, by its heartbeats). A
  live worker reports its own run's end, a crash included: a run is never requeued while its
  worker lives. Every job is idempotent, so a run that was alive behind a network split and runs
  again changes nothing twice. The timekeeper's own runs are left to `ensure_runs`.
- Before, two Prefect automations did it from the server's events: a run's heartbeat reaching the
  server after its end opened a new watch, and 90 s later the run, Completed, was forced back to
  Scheduled, ran again, and so on (`deliver-webhooks safety net`, 13 runs in 20 minutes).
  `ensure_requeue_automation` deletes them where an older version made them.
"""

from __future__ import annotations

import logging
import os
import socket
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any
from uuid import UUID

# the Prefect automations of older versions (deleted: see above)
AUTOMATION = "tourney: requeue runs whose worker died"
AUTOMATION_PENDING = "tourney: requeue runs claimed and never started"
REQUEUE_AFTER = timedelta(seconds=90)  # `tourney deploy --requeue-after`'s default, and `tourney serve`'s
REQUEUE_PENDING_AFTER = timedelta(seconds=300)
WINDOWS = "tourney_requeue"  # the Prefect variable holding them: {"after": 90, "pending_after": 300}
REQUEUE_EVERY = 30.0  # seconds between two looks of the active timekeeper
# labels a job's run puts on itself when it starts (`label_process`)
HOST, MACHINE, PID, WORKER_PID = "tourney.host", "tourney.machine", "tourney.pid", "tourney.worker-pid"

log = logging.getLogger("tourney.requeue")


def ensure_pool(name: str, limit: int | None) -> str:
    """Create the process work pool when it does not exist; returns what was done."""
    from prefect import get_client
    from prefect.client.schemas.actions import WorkPoolCreate, WorkPoolUpdate
    from prefect.exceptions import ObjectAlreadyExists, ObjectNotFound
    from prefect.workers.process import ProcessWorker

    with get_client(sync_client=True) as client:
        try:
            client.read_work_pool(name)
        except ObjectNotFound:
            try:
                client.create_work_pool(
                    WorkPoolCreate(
                        name=name,
                        type="process",
                        base_job_template=ProcessWorker.get_default_base_job_template(),
                        concurrency_limit=limit,
                    )
                )
                return f"created the process work pool '{name}'"
            except ObjectAlreadyExists:  # another machine's `tourney serve`, started at the same time
                pass
        client.update_work_pool(name, WorkPoolUpdate(concurrency_limit=limit))
        return f"reused the work pool '{name}'"


def ensure_requeue_automation(within: timedelta, pending_within: timedelta, replace: bool = True) -> list[str]:
    """The requeue's windows, recorded in the Prefect variable `WINDOWS` for the active timekeeper,
    which requeues (`requeue_dead_runs`): a run Running without heartbeats for `within`, a run left
    Pending for `pending_within`, each only when its worker is gone. `replace`: set them (`tourney
    deploy`); else only when none are recorded (`tourney serve`: `tourney deploy`'s stay). The
    Prefect automations an older version made are deleted. Returns what was done."""
    from prefect import get_client
    from prefect.automations import Automation
    from prefect.client.schemas.actions import VariableCreate, VariableUpdate
    from prefect.exceptions import ObjectAlreadyExists, ObjectNotFound

    done = []
    for name in (AUTOMATION, AUTOMATION_PENDING):
        try:
            Automation.read(name=name).delete()
            done.append(f"deleted the automation '{name}'")
        except (ObjectNotFound, ValueError):
            pass
    value = {"after": int(within.total_seconds()), "pending_after": int(pending_within.total_seconds())}
    with get_client(sync_client=True) as client:
        recorded = client.read_variable_by_name(WINDOWS)
        if recorded is None:
            try:
                client.create_variable(VariableCreate(name=WINDOWS, value=value))
            except ObjectAlreadyExists:  # another machine recorded them meanwhile (two serves started at once)
                recorded = client.read_variable_by_name(WINDOWS)
        if recorded is not None:
            if not replace or recorded.value == value:
                return done
            client.update_variable(VariableUpdate(name=WINDOWS, value=value))
    done.append(f"requeue windows: {value['after']} s Running without a heartbeat, {value['pending_after']} s Pending")
    return done


def windows(client) -> tuple[timedelta, timedelta]:
    """The requeue's windows (`WINDOWS`), else the defaults."""
    recorded = client.read_variable_by_name(WINDOWS)
    value = recorded.value if recorded is not None and isinstance(recorded.value, dict) else {}
    return (
        timedelta(seconds=float(value.get("after", REQUEUE_AFTER.total_seconds()))),
        timedelta(seconds=float(value.get("pending_after", REQUEUE_PENDING_AFTER.total_seconds()))),
    )


def _stamp(pid: int) -> str:
    """A process as `<pid>@<start time>`: a pid the kernel later gives another process is not it."""
    from infra.processes import start_time

    return f"{pid}@{start_time(pid)}"


def _lives(stamp: str | None) -> bool:
    """Whether the process of a `_stamp` (on this machine) still runs."""
    from infra.processes import start_time

    pid, _, started = (stamp or "").partition("@")
    return pid.isdigit() and started != "None" and start_time(int(pid)) == started


def label_process() -> None:
    """Record on this flow run where it runs (every job's run does it when it starts, flows/tags.py's
    `inherited`): its host and machine, its process, and the worker (runner) that started it, when
    one did (a runner or worker gives its run's process the run's id in PREFECT__FLOW_RUN_ID); a
    flow called in a command's own process has no worker. Nothing when the API does not answer."""
    from prefect import get_client
    from prefect.runtime import flow_run

    run_id = flow_run.id
    if not run_id:
        return
    labels: dict[str, str] = {HOST: socket.gethostname(), PID: _stamp(os.getpid())}
    try:
        from flows import bootstrap

        labels[MACHINE] = bootstrap.settings().machine()
    except Exception:  # a bad TOURNEY_MACHINE is the serve's refusal, not this run's
        pass
    if os.environ.get("PREFECT__FLOW_RUN_ID") == str(run_id):
        labels[WORKER_PID] = _stamp(os.getppid())
    try:
        with get_client(sync_client=True) as client:
            client.update_flow_run_labels(UUID(str(run_id)), labels)
    except Exception as exc:  # its heartbeats still tell it lives
        log.debug("could not label flow run %s with its process: %s", run_id, exc)


@dataclass(frozen=True)
class Seen:
    """What the requeue knows besides a run itself: this host, the runs that sent a heartbeat within
    the window, the `tourney serve` processes serving (machine, pid), the process workers' last
    heartbeats and intervals (pool, name)."""

    host: str
    heartbeats: frozenset[UUID]
    serving: frozenset[tuple[str, int]]
    workers: dict[tuple[str, str], tuple[datetime, float | None]]


def alive(run, seen: Seen, now: datetime, within: timedelta, pending_within: timedelta) -> str | None:
    """Why `run` (Running or Pending) is alive, or may be, so is not requeued; None when its worker
    is gone."""
    labels = run.labels or {}
    window = pending_within if run.state_type.value == "PENDING" else within
    since = run.state.timestamp if run.state is not None else None
    if since is None or now - since < window:
        return f"{run.state_name} for less than {int(window.total_seconds())} s"
    if run.id in seen.heartbeats:
        return f"a heartbeat within {int(within.total_seconds())} s"
    if labels.get(HOST) == seen.host:
        if _lives(labels.get(PID)):
            return f"its process {labels[PID]} lives"
        if _lives(labels.get(WORKER_PID)):
            return f"its worker {labels[WORKER_PID]} lives (it reports its run's end)"
    worker = (labels.get("prefect.work-pool.name"), labels.get("prefect.worker.name"))
    last, every = seen.workers.get(worker, (None, None))  # type: ignore[arg-type]
    # a process worker is gone after 3 heartbeats missed (Prefect's own rule for its status), or `within`
    if last is not None and now - last < max(within, 3 * timedelta(seconds=every or 30)):
        return f"its worker {worker[1]} sent a heartbeat {int((now - last).total_seconds())} s ago"
    machine, pid = labels.get(MACHINE), (labels.get(WORKER_PID) or "").partition("@")[0]
    if machine and pid.isdigit() and (machine, int(pid)) in seen.serving:
        return f"its worker, `tourney serve` pid {pid} on machine {machine}, serves"
    return None


def requeue_dead_runs(
    within: timedelta | None = None,
    pending_within: timedelta | None = None,
    now: datetime | None = None,
    host: str | None = None,
    tag: str = "tourney",
) -> list[dict]:
    """Put back to Scheduled (`AwaitingRetry`) every run tagged `tag` (every job's run is `tourney`)
    Running (or Pending) past its window whose worker is gone (`alive`), so that any runner or worker
    of its deployment runs it again; the timekeeper's runs are left to `ensure_runs`. Windows default
    to `WINDOWS`. Returns one row per run looked at: its name, its state, and `requeued` or why not."""
    from prefect import get_client
    from prefect.client.schemas.filters import (
        FlowFilter,
        FlowFilterName,
        FlowRunFilter,
        FlowRunFilterState,
        FlowRunFilterStateType,
        FlowRunFilterTags,
    )
    from prefect.client.schemas.objects import StateType
    from prefect.client.schemas.responses import SetStateStatus
    from prefect.states import AwaitingRetry

    from flows.jobs.timekeeper import NAME as TIMEKEEPER

    now = now or datetime.now(UTC)
    rows: list[dict] = []
    with get_client(sync_client=True) as client:
        if within is None or pending_within is None:
            recorded = windows(client)
            within, pending_within = within or recorded[0], pending_within or recorded[1]
        runs = client.read_flow_runs(
            flow_run_filter=FlowRunFilter(
                state=FlowRunFilterState(type=FlowRunFilterStateType(any_=[StateType.RUNNING, StateType.PENDING])),
                tags=FlowRunFilterTags(all_=[tag]),
            )
        )
        if not runs:
            return rows
        keepers = {f.id for f in client.read_flows(flow_filter=FlowFilter(name=FlowFilterName(any_=[TIMEKEEPER])))}
        runs = [r for r in runs if r.flow_id not in keepers]
        if not runs:
            return rows
        seen = Seen(
            host=host or socket.gethostname(),
            heartbeats=_heartbeats(client, [r.id for r in runs], now - within),
            serving=frozenset(_serving()),
            workers=_workers(client, {r.labels.get("prefect.work-pool.name") for r in runs if r.labels}),
        )
        for run in runs:
            why = alive(run, seen, now, within, pending_within)
            row = {"run": run.name, "id": str(run.id), "state": run.state_name}
            if why is None:
                current = client.read_flow_run(run.id)
                if current.state is None or run.state is None or current.state.id != run.state.id:
                    why = f"its state changed ({current.state_name})"
            if why is not None:
                rows.append({**row, "requeued": False, "why": why})
                continue
            pending = run.state_type == StateType.PENDING
            what = "was claimed (Pending) and never started" if pending else "stopped sending heartbeats"
            result = client.set_flow_run_state(
                run.id,
                AwaitingRetry(
                    scheduled_time=now,
                    message=f"requeued: it {what} and its worker is gone; another worker runs it again",
                ),
            )
            done = result.status == SetStateStatus.ACCEPT
            rows.append({**row, "requeued": done, "why": what if done else f"refused: {result.details}"})
            if done:
                log.warning("%s (%s): %s, its worker is gone: requeued", run.name, run.id, what)
    return rows


def _heartbeats(client, ids: list[UUID], since: datetime) -> frozenset[UUID]:
    """The runs among `ids` that sent a heartbeat since `since` (the server's events)."""
    from prefect.events.filters import EventFilter, EventNameFilter, EventOccurredFilter, EventResourceFilter

    page = client.read_events(
        filter=EventFilter(
            occurred=EventOccurredFilter(since=since, until=datetime.now(UTC) + timedelta(minutes=5)),
            event=EventNameFilter(name=["prefect.flow-run.heartbeat"]),
            resource=EventResourceFilter(id=[f"prefect.flow-run.{i}" for i in ids], distinct=True),
        ),
        limit=max(len(ids), 1),
    )
    return frozenset(UUID(e.resource.id.removeprefix("prefect.flow-run.")) for e in page.events)


def _serving() -> set[tuple[str, int]]:
    from flows import bootstrap
    from flows.jobs.timekeeper import serving_processes

    return serving_processes(bootstrap.engine())


def _workers(client, pools: set[str | None]) -> dict[tuple[str, str], tuple[datetime, float | None]]:
    """Each process worker's last heartbeat and heartbeat interval, by (pool, name), in the pools named."""
    from prefect.exceptions import ObjectNotFound

    found: dict[tuple[str, str], tuple[datetime, float | None]] = {}
    for pool in filter(None, pools):
        try:
            workers = client.read_workers_for_work_pool(pool)
        except ObjectNotFound:
            continue
        for w in workers:
            if w.last_heartbeat_time is not None:
                found[(pool, w.name)] = (w.last_heartbeat_time, w.heartbeat_interval_seconds)
    return found


def register(
    pool: str, pool_limit: int | None, within: timedelta, pending_within: timedelta, jobs: Any = None
) -> list[dict[str, Any]]:
    """`tourney deploy`: the pool, the requeue's windows, then every job's deployment in the pool."""
    from flows.deployments import JOBS, deployment

    ensure_pool(pool, pool_limit)
    ensure_requeue_automation(within, pending_within)
    rows = []
    for job in JOBS if jobs is None else jobs:
        deployment_id = deployment(job, module_path=True).apply(work_pool_name=pool)
        rows.append({"job": job.name, "deployment_id": str(deployment_id), "pool": pool, "schedule": job.schedule})
    return rows
