"""The requeue of a run whose worker died (flows/ops.py, run by the active timekeeper): a run is put
back to Scheduled (`AwaitingRetry`) only when its worker really is gone, never while it lives.

Before, two Prefect automations did it from the server's events, and a heartbeat reaching the server
after its run's end reopened the watch: 90 s later the Completed run was forced back to Scheduled, ran
again, and so on (`deliver-webhooks safety net` 13 times in 20 minutes). The runs here are born in
their state through the API, as a worker's claim and a flow's start make them, labelled as a job's
run labels itself (`label_process`), with windows of a second or two."""

from __future__ import annotations

import os
import socket
import subprocess
import time
from datetime import UTC, datetime, timedelta

import pytest
from prefect import get_client
from prefect.automations import Automation
from prefect.events import emit_event
from prefect.events.worker import EventsWorker
from prefect.exceptions import ObjectNotFound
from prefect.states import Completed, Pending, Running

from flows.deployments import Job, deployment
from flows.ops import (
    AUTOMATION,
    AUTOMATION_PENDING,
    REQUEUE_AFTER,
    REQUEUE_PENDING_AFTER,
    ensure_pool,
    ensure_requeue_automation,
)
from tests.flows.worker_jobs import record

TAG = "requeue-test"  # the runs of these tests, apart from the session's others
SECOND = timedelta(seconds=1)


@pytest.fixture
def made(prefect_api, tmp_path):
    """`made(state, labels)`: a run of a test deployment in `state`, with `labels`; its id."""
    ensure_pool("tourney-requeue-test", None)
    deployment_id = deployment(Job("record-execution", record, "test", tags=(TAG,), concurrency=10), module_path=True)
    deployment_id = deployment_id.apply(work_pool_name="tourney-requeue-test")

    def make(state, labels: dict | None = None):
        with get_client(sync_client=True) as client:
            run = client.create_flow_run_from_deployment(
                deployment_id, parameters={"marker_dir": str(tmp_path)}, state=state
            )
            if labels:
                client.update_flow_run_labels(run.id, labels)
        return run.id

    yield make
    with get_client(sync_client=True) as client:
        for run in client.read_flow_runs():
            if TAG in run.tags and not run.state.is_final():
                client.delete_flow_run(run.id)


def states(run_id) -> list[tuple[str, str]]:
    with get_client(sync_client=True) as client:
        return [(s.type.value, s.name) for s in client.read_flow_run_states(run_id)]


def looked(rows: list[dict], run_id) -> dict:
    [row] = [r for r in rows if r["id"] == str(run_id)]
    return row


def test_runs_whose_worker_died_pending_or_running_are_requeued_for_another_worker(made):
    """A run claimed (Pending) whose process never started, and one Running whose process stopped
    sending heartbeats, no worker alive for either: each goes back to Scheduled (`AwaitingRetry`),
    where any worker of the pool picks it up, once past its window, not before."""
    from flows.ops import requeue_dead_runs

    left = {"Pending": made(Pending()), "Running": made(Running())}
    early = requeue_dead_runs(within=timedelta(minutes=5), pending_within=timedelta(minutes=5), tag=TAG)
    assert {looked(early, i)["requeued"] for i in left.values()} == {False}
    time.sleep(2.5)

    rows = requeue_dead_runs(within=2 * SECOND, pending_within=2 * SECOND, tag=TAG)

    why = {"Pending": "was claimed (Pending) and never started", "Running": "stopped sending heartbeats"}
    with get_client(sync_client=True) as client:
        for born, run_id in left.items():
            assert looked(rows, run_id) == {**looked(rows, run_id), "requeued": True, "why": why[born]}
            history = client.read_flow_run_states(run_id)
            assert [(s.type.value, s.name) for s in history] == [(born.upper(), born), ("SCHEDULED", "AwaitingRetry")]
            assert (
                history[-1].message == f"requeued: it {why[born]} and its worker is gone; another worker runs it again"
            )


def test_a_run_whose_heartbeat_reached_the_server_after_its_end_is_not_requeued(made):
    """The loop that was seen: a quick run's heartbeat reaches the server after its Completed state.
    With the product's requeue set up as `tourney serve` sets it (10 s windows here), nothing brings
    the Completed run back, past its window and a look of the requeue after it."""
    ensure_requeue_automation(10 * SECOND, 10 * SECOND)
    try:
        run_id = made(Running())
        with get_client(sync_client=True) as client:
            client.set_flow_run_state(run_id, Completed(), force=True)
        time.sleep(1)
        emit_event(
            event="prefect.flow-run.heartbeat",
            resource={"prefect.resource.id": f"prefect.flow-run.{run_id}"},
            related=[{"prefect.resource.id": "prefect.tag.tourney", "prefect.resource.role": "tag"}],
        )
        EventsWorker.drain_all()
        time.sleep(25)  # the old automation's window, and the server's handling, over
        assert states(run_id) == [("RUNNING", "Running"), ("COMPLETED", "Completed")]  # (before: AwaitingRetry)

        from flows.ops import requeue_dead_runs

        assert str(run_id) not in {r["id"] for r in requeue_dead_runs(tag=TAG)}  # a finished run is never seen
        assert states(run_id) == [("RUNNING", "Running"), ("COMPLETED", "Completed")]
    finally:
        ensure_requeue_automation(REQUEUE_AFTER, REQUEUE_PENDING_AFTER)


def test_a_run_is_never_requeued_while_its_process_or_its_worker_lives(made):
    """Silent past the window (no heartbeat: its events lost, its process busy), a run stays while
    anything that runs it lives: its process on this machine, its worker (the runner that started
    it) on this machine, the `tourney serve` of its machine elsewhere (its mark in the database), a
    process worker sending heartbeats. Once that is gone, it is requeued."""
    from flows.jobs.timekeeper import Serving
    from flows.ops import HOST, MACHINE, PID, WORKER_PID, _stamp, requeue_dead_runs

    here = socket.gethostname()
    process, worker = (subprocess.Popen(["sleep", "120"]) for _ in range(2))
    serving = Serving("requeue-b")
    try:
        serving.hold()
        own = {HOST: here, PID: _stamp(process.pid), WORKER_PID: _stamp(worker.pid)}
        runs = {
            "its process lives": made(Running(), own),
            "its worker lives": made(Running(), {**own, PID: "1@0"}),
            "its machine's serve lives": made(
                Running(), {HOST: "elsewhere", MACHINE: "requeue-b", WORKER_PID: f"{os.getpid()}@x"}
            ),
            "its process worker lives": made(
                Running(), {"prefect.work-pool.name": "tourney-requeue-test", "prefect.worker.name": "w-alive"}
            ),
        }
        with get_client(sync_client=True) as client:
            client.send_worker_heartbeat("tourney-requeue-test", "w-alive", heartbeat_interval_seconds=30)
        time.sleep(2.5)
        rows = requeue_dead_runs(within=2 * SECOND, pending_within=2 * SECOND, tag=TAG)
        for what, run_id in runs.items():
            assert looked(rows, run_id)["requeued"] is False, (what, looked(rows, run_id))
            assert states(run_id) == [("RUNNING", "Running")], what
        assert "its process" in looked(rows, runs["its process lives"])["why"]
        assert "its worker" in looked(rows, runs["its worker lives"])["why"]
        assert "serves" in looked(rows, runs["its machine's serve lives"])["why"]
        assert "w-alive" in looked(rows, runs["its process worker lives"])["why"]

        process.kill()
        process.wait()
        rows = requeue_dead_runs(within=2 * SECOND, pending_within=2 * SECOND, tag=TAG)
        assert looked(rows, runs["its process lives"])["requeued"] is False  # its worker still lives
        worker.kill()
        worker.wait()
        serving.release()
        rows = requeue_dead_runs(
            within=2 * SECOND, pending_within=2 * SECOND, tag=TAG, now=datetime.now(UTC) + timedelta(minutes=2)
        )  # the process worker's last heartbeat 2 minutes old by then
        assert {what: looked(rows, run_id)["requeued"] for what, run_id in runs.items()} == dict.fromkeys(runs, True)
    finally:
        for p in (process, worker):
            if p.poll() is None:
                p.kill()
        serving.release()


def test_the_requeue_is_the_timekeepers_and_no_prefect_automation_does_it(prefect_api):
    """`tourney serve` and `tourney deploy` record the requeue's windows and delete the Prefect
    automations an older version made (the server requeued a finished run from a late event)."""
    from prefect.automations import EventTrigger

    from flows.ops import windows

    Automation(name=AUTOMATION, trigger=EventTrigger(expect={"prefect.flow-run.heartbeat"}), actions=[]).create()
    ensure_requeue_automation(REQUEUE_AFTER, REQUEUE_PENDING_AFTER, replace=False)
    for name in (AUTOMATION, AUTOMATION_PENDING):
        with pytest.raises((ObjectNotFound, ValueError)):
            Automation.read(name=name)
    with get_client(sync_client=True) as client:
        assert windows(client) == (REQUEUE_AFTER, REQUEUE_PENDING_AFTER)
        ensure_requeue_automation(30 * SECOND, 40 * SECOND, replace=False)  # serve keeps deploy's
        assert windows(client) == (REQUEUE_AFTER, REQUEUE_PENDING_AFTER)
        ensure_requeue_automation(30 * SECOND, 40 * SECOND)  # deploy sets them
        assert windows(client) == (30 * SECOND, 40 * SECOND)
        ensure_requeue_automation(REQUEUE_AFTER, REQUEUE_PENDING_AFTER)


def test_two_machines_starting_at_once_both_record_the_windows_and_the_pool_without_a_conflict(prefect_api):
    """Two `tourney serve` started together (a two-host deployment's start) both find no windows and no
    pool, and both create them: the one second to create takes the other's, not a 409 traceback."""
    from concurrent.futures import ThreadPoolExecutor

    from flows.ops import WINDOWS, windows

    pool = f"tourney-race-{os.getpid()}"
    with get_client(sync_client=True) as client:
        client.delete_variable_by_name(WINDOWS)

        def start(_n: int) -> tuple[list[str], str]:
            return ensure_requeue_automation(REQUEUE_AFTER, REQUEUE_PENDING_AFTER, replace=False), ensure_pool(pool, 2)

        try:
            with ThreadPoolExecutor(8) as threads:
                said = list(threads.map(start, range(8)))
            assert windows(client) == (REQUEUE_AFTER, REQUEUE_PENDING_AFTER)
            assert client.read_work_pool(pool).concurrency_limit == 2
            created = [p for _, p in said if p.startswith("created")]
            assert len(created) <= 1 and len(said) == 8
        finally:
            client.delete_work_pool(pool)
