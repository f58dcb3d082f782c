"""`tourney serve` on two "machines" (two processes with their own TOURNEY_MACHINE and data folder)
against the test session's Prefect API: each machine's timekeeper deployment holds one of the two
runs (the standby is on the other machine than the active one), the requeue's windows are recorded
and no Prefect automation requeues, an idle system makes no sweep run, a machine that dies leaves
the lock to the other's standby, and a clean stop (`tourney stop`'s way) leaves no Crashed run and
no run waiting for the next start."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import tempfile
import time
from dataclasses import replace
from pathlib import Path

import pytest
from prefect.automations import Automation
from prefect.client.orchestration import get_client
from prefect.client.schemas.objects import StateType
from prefect.exceptions import ObjectNotFound
from prefect.settings import PREFECT_API_URL

from flows import bootstrap
from flows.jobs.timekeeper import LIVE, deployment_name
from flows.jobs.timekeeper_loop import active_run
from flows.ops import AUTOMATION, AUTOMATION_PENDING, REQUEUE_AFTER, REQUEUE_PENDING_AFTER, windows
from infra import processes
from infra.config import load_settings

ROOT = Path(__file__).resolve().parents[2]


def _serve(machine: str) -> tuple[subprocess.Popen, Path]:
    home = Path(tempfile.mkdtemp(prefix=f"serve-{machine}-"))
    env = {
        **os.environ,
        "TOURNEY_HOME": str(home),
        "TOURNEY_MACHINE": machine,
        "PREFECT_API_URL": PREFECT_API_URL.value(),
        "PREFECT_RUNNER_POLL_FREQUENCY": "1",  # the runner looks for its runs every second, not every 10
        "TOURNEY_SWEEPS_EVERY": "1",  # the active run counts the pending work every second, not every 10
        "PYTHONPATH": os.pathsep.join(filter(None, (str(ROOT), os.environ.get("PYTHONPATH")))),
    }
    log = (home / "serve.log").open("wb")
    process = subprocess.Popen(
        [sys.executable, "-c", "from flows.cli.app import main; main()", "serve", "--limit", "2"],
        cwd=ROOT,
        env=env,
        stdout=log,
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )
    return process, home


def _with_log(said: str, home: Path, lines: int = 60) -> str:
    """What the stop said and the last lines of the machine's `tourney serve` log: a failure shows why."""
    tail = (home / "serve.log").read_text(errors="replace").splitlines()[-lines:]
    return "\n".join([said, "-- the last lines of serve.log:", *tail])


def _wait(what, timeout: float = 240, every: float = 1.0):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        found = what()
        if found:
            return found
        time.sleep(every)
    raise AssertionError(f"not within {timeout} s: {what.__doc__}")


def test_two_machines_each_hold_one_timekeeper_run_no_sweep_runs_idle_and_a_clean_stop_crashes_none(
    prefect_api, committed
):
    machines = {m: _serve(m) for m in ("alpha", "beta")}
    names = {m: deployment_name(m) for m in machines}
    try:
        with get_client(sync_client=True) as client:

            def placed():
                """one live timekeeper run on each machine's deployment, one of them holding the lock"""
                ids = {}
                for m, name in names.items():
                    try:
                        ids[m] = client.read_deployment_by_name(f"timekeeper/{name}").id
                    except Exception:
                        return None
                live = [r for r in client.read_flow_runs() if r.deployment_id in ids.values() and r.state_type in LIVE]
                per = {m: [r for r in live if r.deployment_id == d] for m, d in ids.items()}
                holder = active_run(bootstrap.engine())
                running = all(len(rs) == 1 and rs[0].state_type == StateType.RUNNING for rs in per.values())
                return per if running and holder in {r.id for r in live} else None

            per = _wait(placed)
            holder = active_run(bootstrap.engine())
            [active_machine] = [m for m, rs in per.items() if rs[0].id == holder]
            for old in (AUTOMATION, AUTOMATION_PENDING):  # the requeue is the active timekeeper's
                with pytest.raises((ObjectNotFound, ValueError)):
                    Automation.read(name=old)
            assert windows(client) == (REQUEUE_AFTER, REQUEUE_PENDING_AFTER)

            time.sleep(3.5)  # more than two counts of the pending work (every second here) by the active run
            timekeepers = {client.read_deployment_by_name(f"timekeeper/{n}").id for n in names.values()}
            made = [r for r in client.read_flow_runs() if not r.auto_scheduled and r.deployment_id not in timekeepers]
            assert [r.name for r in made if r.created and r.created > per[active_machine][0].created] == []

            # the active machine dies: the other machine's standby holds the lock within 10 s (its poll is
            # 1 s; 0.4-0.9 s measured here)
            dead, _ = machines[active_machine]
            os.killpg(dead.pid, signal.SIGKILL)
            [other] = [m for m in machines if m != active_machine]
            _wait(lambda: active_run(bootstrap.engine()) == per[other][0].id, timeout=10, every=0.2)
            dead.wait(timeout=30)

            # a clean stop of the other machine: its runs end Cancelled or Completed, none Crashed
            said = processes.stop(replace(load_settings(), home=machines[other][1]), "serve")
            assert said.startswith("serve: stopped") and "killed" not in said, _with_log(said, machines[other][1])
            mine = client.read_deployment_by_name(f"timekeeper/{names[other]}").id
            ended = [r for r in client.read_flow_runs() if r.deployment_id == mine]
            assert ended and {r.state_type for r in ended} <= {StateType.CANCELLED, StateType.COMPLETED}, [
                (r.name, r.state_name, r.state.message) for r in ended
            ]
    finally:
        for process, _ in machines.values():
            if process.poll() is None:
                os.killpg(process.pid, signal.SIGKILL)
                process.wait(timeout=30)
        with get_client(sync_client=True) as client:  # not alive machines for the session's other tests
            for name in names.values():
                try:
                    client.delete_deployment(client.read_deployment_by_name(f"timekeeper/{name}").id)
                except Exception:
                    pass


def test_a_clean_stop_leaves_no_timekeeper_run_waiting_for_the_next_start(prefect_api, committed):
    """`tourney stop` on the one machine: its runner cancels both timekeeper runs, one after the other.
    The standby takes the lock when the active run ends, and used to make a new standby at once, which
    no runner would ever start: a run Late until the next `make run`. Now none is made, and every run
    of the machine's deployment ends Cancelled (or Completed)."""
    process, home = _serve("gamma")
    name = deployment_name("gamma")
    try:
        with get_client(sync_client=True) as client:

            def paired():
                """both timekeeper runs of the machine Running, one of them holding the lock"""
                try:
                    mine = client.read_deployment_by_name(f"timekeeper/{name}").id
                except Exception:
                    return None
                live = [r for r in client.read_flow_runs() if r.deployment_id == mine and r.state_type in LIVE]
                running = len(live) == 2 and all(r.state_type == StateType.RUNNING for r in live)
                return mine if running and active_run(bootstrap.engine()) in {r.id for r in live} else None

            mine = _wait(paired)
            said = processes.stop(replace(load_settings(), home=home), "serve")
            assert said.startswith("serve: stopped") and "killed" not in said, _with_log(said, home)
            time.sleep(3)  # what the API still had to hear from the stopped processes
            runs = [r for r in client.read_flow_runs() if r.deployment_id == mine]
            assert len(runs) >= 2 and {r.state_type for r in runs} <= {StateType.CANCELLED, StateType.COMPLETED}, [
                (r.name, r.state_name, r.state.message) for r in runs
            ]
    finally:
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait(timeout=30)
        with get_client(sync_client=True) as client:
            try:
                client.delete_deployment(client.read_deployment_by_name(f"timekeeper/{name}").id)
            except Exception:
                pass
