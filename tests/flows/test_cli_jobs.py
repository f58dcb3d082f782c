"""`tourney jobs run` and `tourney serve`'s deployments against a real Prefect API."""

from __future__ import annotations

import json

from prefect.settings import PREFECT_API_URL

from flows.deployments import JOBS, deployments
from tests.support.cli import run_process


def test_jobs_run_runs_the_flow_now_and_reports_to_the_configured_api(prefect_api, engine):
    result = run_process(
        "--json", "jobs", "run", "status-report", env={"PREFECT_API_URL": PREFECT_API_URL.value()}, timeout=180
    )
    assert result.returncode == 0, result.stderr
    payload = json.loads(result.stdout[result.stdout.index("{") :])
    assert payload["job"] == "status-report"
    assert payload["result"]["at_head"] is True


def test_jobs_run_with_no_prefect_api_says_how_to_start_one_and_exits_2():
    result = run_process("jobs", "run", "status-report", env={"PREFECT_API_URL": "http://127.0.0.1:9/api"}, timeout=180)
    assert result.returncode == 2
    assert result.stderr.strip() == (
        "error: the Prefect API at http://127.0.0.1:9/api does not answer: start it with `make run` "
        "(or `tourney server up`), or set PREFECT_API_URL"
    )


def test_every_job_is_served_as_a_deployment_with_its_schedule():
    served = {d.name: d for d in deployments()}
    assert set(served) == {j.name for j in JOBS}
    status = served["status-report"]
    assert len(status.schedules) == 1
    assert status.schedules[0].schedule.interval.total_seconds() == 3600


def test_a_runner_can_leave_a_job_to_a_work_pool_and_never_the_timekeeper():
    """Two machines: `tourney serve --skip publish-results` here, `tourney deploy --job publish-results`
    for the documents workers; an unknown job, or the timekeeper, is refused before anything starts."""
    served = {d.name for d in deployments(skip=["publish-results"])}
    assert served == {j.name for j in JOBS} - {"publish-results"}
    env = {"PREFECT_API_URL": "http://127.0.0.1:9/api"}
    for skip, line in (
        ("timekeeper", "error: the timekeeper runs where `tourney serve` runs: it cannot be skipped"),
        ("publish", "error: unknown job 'publish'; known jobs: " + ", ".join(j.name for j in JOBS)),
    ):
        result = run_process("serve", "--skip", skip, env=env)
        assert (result.returncode, result.stderr.strip(), result.stdout) == (2, line, "")


def test_deploy_registers_only_the_jobs_named_to_their_pool(prefect_api):
    result = run_process(
        "--json",
        "deploy",
        "--pool",
        "documents",
        "--job",
        "publish-results",
        env={"PREFECT_API_URL": PREFECT_API_URL.value()},
        timeout=180,
    )
    assert result.returncode == 0, result.stderr
    [row] = json.loads(result.stdout)
    assert (row["job"], row["pool"]) == ("publish-results", "documents")
