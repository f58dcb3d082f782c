"""Opening registration and starting the clock start their job at once (Sport Poker 3.8, SP-8): the
run they start schedules the exact run at the late-registration close / the next level change, so
no one waits for the periodic sweep."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from datetime import UTC, datetime, timedelta
from pathlib import Path

from prefect.client.orchestration import get_client
from prefect.client.schemas.filters import DeploymentFilter, DeploymentFilterName
from prefect.settings import PREFECT_API_URL
from sqlalchemy.orm import Session

from flows.deployments import job
from tests.integration.poker_helpers import tournament

TOURNEY = str(Path(sys.executable).with_name("tourney"))


def draft(session: Session) -> int:
    """A draft starting in two hours: `tourney poker open` opens it at the real now."""
    now = datetime.now(UTC)
    return tournament(session, start=now + timedelta(hours=2), status="draft", now=now)


def runs_of(name: str) -> list[str]:
    with get_client(sync_client=True) as client:
        runs = client.read_flow_runs(deployment_filter=DeploymentFilter(name=DeploymentFilterName(any_=[name])))
    return [r.name for r in runs]


def test_3_8_opening_registration_starts_a_process_no_shows_run_at_once(prefect_api, committed):
    """3.8"""
    chosen = job("process-no-shows")
    chosen.flow.to_deployment(name=chosen.name).apply()
    with Session(committed) as s, s.begin():
        tid = draft(s)
    env = {**os.environ, "PREFECT_API_URL": PREFECT_API_URL.value()}
    result = subprocess.run(
        [TOURNEY, "--json", "poker", "open", str(tid)], capture_output=True, text=True, env=env, timeout=180
    )
    assert result.returncode == 0, result.stderr
    view = json.loads(result.stdout)
    assert view["status"] == "registration_open"
    assert view["no_show_run"].startswith("process-no-shows run ")
    assert view["no_show_run"].split()[2] in runs_of("process-no-shows")


def test_3_8_with_no_prefect_api_opening_still_opens_and_says_the_sweep_will_schedule(committed):
    """3.8"""
    with Session(committed) as s, s.begin():
        tid = draft(s)
    env = {**os.environ, "PREFECT_API_URL": "http://127.0.0.1:9/api"}
    result = subprocess.run(
        [TOURNEY, "--json", "poker", "open", str(tid)], capture_output=True, text=True, env=env, timeout=180
    )
    assert result.returncode == 0, result.stderr
    view = json.loads(result.stdout)
    assert view["status"] == "registration_open"
    assert view["no_show_run"] == (
        "process-no-shows not started now (the Prefect API does not answer); its next scheduled run does it"
    )
