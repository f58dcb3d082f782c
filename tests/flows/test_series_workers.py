"""Scale-out on Prefect itself: the deployments of `tourney deploy` in a process work pool, served by
two `prefect worker` processes on this machine against the test session's Prefect API.

The requeue of a run whose worker died (flows/ops.py, the active timekeeper's; here a thread does
it, `requeuing`): `make test` proves it on runs born as a dead worker leaves them
(tests/flows/test_requeue.py); `make soak` kills real workers, mid-run and between claiming a run
and starting it, and the other worker runs the run."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import timedelta
from pathlib import Path

import pytest
from prefect import get_client
from prefect.client.schemas.filters import FlowRunFilter, FlowRunFilterId
from prefect.deployments import run_deployment
from prefect.settings import PREFECT_API_URL

from flows.deployments import JOBS, Job, deployment
from flows.ops import REQUEUE_AFTER, REQUEUE_PENDING_AFTER, ensure_pool, ensure_requeue_automation, requeue_dead_runs
from tests.flows.worker_jobs import hold, record
from tests.support.cli import run as tourney

ROOT = Path(__file__).resolve().parents[2]


class Workers:
    def __init__(self, pool: str):
        self.pool = pool
        self.processes: list[subprocess.Popen] = []
        self.logs = Path(tempfile.mkdtemp(prefix="workers-"))

    def start(self, name: str) -> subprocess.Popen:
        env = {
            **os.environ,
            "PREFECT_API_URL": PREFECT_API_URL.value(),
            "PREFECT_WORKER_QUERY_SECONDS": "1",
            "PREFECT_WORKER_PREFETCH_SECONDS": "2",
            "PREFECT_FLOWS_HEARTBEAT_FREQUENCY": "30",
            # the test flows live in tests/, not in the installed package
            "PYTHONPATH": os.pathsep.join(filter(None, (str(ROOT), os.environ.get("PYTHONPATH")))),
        }
        process = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "prefect",
                "worker",
                "start",
                "--pool",
                self.pool,
                "--type",
                "process",
                "--name",
                name,
                "--limit",
                "4",
            ],
            cwd=ROOT,
            env=env,
            start_new_session=True,
            stdout=(self.logs / f"{name}.log").open("wb"),
            stderr=subprocess.STDOUT,
        )
        self.processes.append(process)
        return process

    def stop(self) -> None:
        for process in self.processes:
            if process.poll() is None:
                os.killpg(process.pid, signal.SIGTERM)
        for process in self.processes:
            try:
                process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                os.killpg(process.pid, signal.SIGKILL)
                process.wait()


@pytest.fixture
def workers(prefect_api, engine) -> Iterator[Callable[[str], Workers]]:
    made: list[Workers] = []

    def make(pool: str) -> Workers:
        made.append(Workers(pool))
        return made[-1]

    yield make
    for w in made:
        w.stop()


@contextmanager
def requeuing(every: float = 2) -> Iterator[None]:
    """What the active timekeeper does every 30 s, every `every` seconds: requeue the runs whose
    worker is gone, with the windows recorded (`tourney deploy`'s)."""
    stop = threading.Event()

    def work() -> None:
        while not stop.wait(every):
            requeue_dead_runs()

    thread = threading.Thread(target=work, daemon=True)
    thread.start()
    try:
        yield
    finally:
        stop.set()
        thread.join(30)


def wait_until(condition: Callable[[], bool], timeout: float, what: str) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if condition():
            return
        time.sleep(0.5)
    raise AssertionError(f"timed out after {timeout} s waiting for {what}")


def read_runs(ids: list) -> list:
    with get_client(sync_client=True) as client:
        return client.read_flow_runs(flow_run_filter=FlowRunFilter(id=FlowRunFilterId(any_=ids)))


def kill_together(worker_pid: int, run_pid: int) -> None:
    """The worker and the process it started die together, as with their machine."""
    os.killpg(worker_pid, signal.SIGKILL)
    try:
        os.kill(run_pid, signal.SIGKILL)
    except ProcessLookupError:
        pass


def wait_final(run_id, seconds: int, what: str, logs) -> None:
    """Wait for the run's final state; on time-out, fail with its state history and the logs' place."""
    try:
        wait_until(lambda: read_runs([run_id])[0].state.is_final(), seconds, what)
    except AssertionError:
        with get_client(sync_client=True) as client:
            history = [(s.timestamp, s.name) for s in client.read_flow_run_states(run_id)]
        raise AssertionError(f"states: {history}; worker logs in {logs}") from None


def deployed_pool(pool: str) -> None:
    """Every job of `tourney deploy` in `pool`, with the default requeue window (a run starting on a
    loaded machine is not taken for dead), and the test flows beside them."""
    deployed = tourney(
        "--json", "deploy", "--pool", pool, "--requeue-after", "90", env={"PREFECT_API_URL": PREFECT_API_URL.value()}
    )
    assert deployed.returncode == 0, deployed.stderr
    assert {r["job"] for r in json.loads(deployed.stdout)} == {j.name for j in JOBS}
    for job in (
        Job("record-execution", record, "test", tags=("test",), concurrency=4),
        Job("hold-until-released", hold, "test", tags=("test",)),
    ):
        deployment(job, module_path=True).apply(work_pool_name=pool)


def test_two_process_workers_run_every_due_run_once(workers, committed, tmp_path):
    pool = "tourney-test"
    deployed_pool(pool)
    records = tmp_path / "records"
    records.mkdir()
    group = workers(pool)
    for name in ("worker-a", "worker-b"):
        group.start(name)
    runs = [
        run_deployment("record-execution/record-execution", parameters={"marker_dir": str(records)}, timeout=0)
        for _ in range(4)
    ]
    runs.append(run_deployment("materialize-series/materialize-series", timeout=0))
    ids = [r.id for r in runs]
    wait_until(
        lambda: all(r.state.is_final() for r in read_runs(ids)), 420, "every run to finish"
    )  # a bound, not a measure: a loaded machine is slow
    finished = read_runs(ids)
    assert {r.state.type.value for r in finished} == {"COMPLETED"}
    assert {r.run_count for r in finished} == {1}
    executions = [p.name.split(".")[0] for p in records.iterdir()]
    assert sorted(executions) == sorted(str(r.id) for r in runs[:4])  # each exactly once


@pytest.mark.soak
@pytest.mark.timeout(900)
def test_the_run_of_a_worker_killed_while_running_it_is_retried_by_the_other_worker(workers, committed, tmp_path):
    """The worker running a job dies with its machine: after the requeue window (90 s without a
    heartbeat, from the run and from its worker) the run is requeued and the other worker runs it
    again. `make soak`: it waits out the window; `make test` proves the same requeue on runs born as
    a dead worker leaves them (tests/flows/test_requeue.py)."""
    pool = "tourney-test"
    deployed_pool(pool)
    holds = tmp_path / "holds"
    holds.mkdir()
    group = workers(pool)
    by_pid = {group.start(name).pid: name for name in ("worker-a", "worker-b")}
    run = run_deployment("hold-until-released/hold-until-released", parameters={"marker_dir": str(holds)}, timeout=0)
    wait_until(lambda: any(p.name.startswith("started.") for p in holds.iterdir()), 120, "the run to start")
    [started] = [p for p in holds.iterdir() if p.name.startswith("started.")]
    run_pid, worker_pid = (int(x) for x in started.name.split(".")[1:])
    assert worker_pid in by_pid
    kill_together(worker_pid, run_pid)
    (holds / "release").touch()
    with requeuing():
        wait_final(run.id, 360, "the run to be retried and finish", group.logs)
    [after] = read_runs([run.id])
    assert after.state.type.value == "COMPLETED"
    [done] = [p for p in holds.iterdir() if p.name.startswith("done.")]
    assert int(done.name.split(".")[1]) != run_pid
    with get_client(sync_client=True) as client:
        assert "AwaitingRetry" in [s.name for s in client.read_flow_run_states(run.id)]


@pytest.mark.soak
@pytest.mark.timeout(900)
def test_a_run_whose_worker_died_between_claiming_it_and_starting_it_is_run_by_the_other_worker(workers, tmp_path):
    """The run's process waits (before the flow engine starts, so the run stays Pending) until the
    test has killed the worker that claimed it; the run left Pending is requeued once its window has
    passed and its worker's heartbeats have stopped (3 missed)."""
    pool = "tourney-test-pending"
    ensure_pool(pool, None)
    ensure_requeue_automation(timedelta(seconds=40), pending_within=timedelta(seconds=30))
    marks = tmp_path / "marks"
    marks.mkdir()
    # the claimed run's process: leaves `claimed.<its worker>.<itself>`, waits for `go`, then starts the flow
    command = (
        f"bash -c 'touch {marks}/claimed.$PPID.$$; until [ -e {marks}/go ]; do sleep 0.2; done; "
        f"exec {sys.executable} -m prefect.engine'"
    )
    deployment(Job("record-execution", record, "test", tags=("test",), concurrency=4), module_path=True).apply(
        work_pool_name=pool
    )
    group = workers(pool)
    started = {group.start(name).pid for name in ("pending-a", "pending-b")}
    run = run_deployment(
        "record-execution/record-execution",
        parameters={"marker_dir": str(tmp_path)},
        timeout=0,
        job_variables={"command": command},
    )
    wait_until(lambda: any(p.name.startswith("claimed.") for p in marks.iterdir()), 120, "a worker to claim the run")
    [claimed] = [p for p in marks.iterdir() if p.name.startswith("claimed.")]
    assert read_runs([run.id])[0].state.type.value == "PENDING"
    killed, process = (int(x) for x in claimed.name.split(".")[1:])
    assert killed in started
    kill_together(killed, process)
    (marks / "go").touch()
    try:
        with requeuing():
            wait_final(run.id, 420, "the run to be requeued and finish", group.logs)
    finally:  # the session's later tests: the default windows
        ensure_requeue_automation(REQUEUE_AFTER, pending_within=REQUEUE_PENDING_AFTER)
    assert read_runs([run.id])[0].state.type.value == "COMPLETED"
    assert [p.name.split(".")[0] for p in tmp_path.iterdir() if p.name.startswith(str(run.id))] == [str(run.id)]
    with get_client(sync_client=True) as client:
        names = [s.name for s in client.read_flow_run_states(run.id)]
    assert names.index("AwaitingRetry") < names.index("Running")  # requeued before it ever ran
