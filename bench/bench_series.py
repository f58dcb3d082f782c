"""Series: `materialize-series` for 1,000 series over a 14-day horizon, set-based beside one series
at a time; and how late exact-time runs start under a serving runner (100 runs due within a minute).

The lateness part starts its own Prefect test server (SQLite) and a runner subprocess that serves
one trivial deployment the way `tourney serve` does (`prefect.serve(..., limit=N)`), with a
deployment concurrency limit (ENQUEUE) as flows/deployments.py gives the jobs: 1 (every job before
per-tournament exclusion) and 4 (`advance-clocks`, `process-no-shows` now); it measures
`start_time - expected_start_time` of every run. TOURNEY_BENCH_LATENESS_RUNS changes the 100;
TOURNEY_BENCH_DEPLOYMENT_LIMITS the limits (default "1,4"; "none" for no limit);
TOURNEY_BENCH_POLL_SECONDS (default "10", the runner's default poll; e.g. "10,1") the runner polls."""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import tempfile
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

from sqlalchemy import text

from bench.harness import Report
from domain.series.services.series import materialize
from domain.store.db import StatementCounter, unit_of_work
from flows import bootstrap

UTC = UTC
NOW = datetime(2026, 10, 20, 12, tzinfo=UTC)
SERIES = 1000
ZONES = ("Europe/Moscow", "Europe/Berlin", "America/New_York", "Asia/Manila")


def _seed(engine) -> list[int]:
    with engine.begin() as conn:
        club = conn.execute(
            text(
                "INSERT INTO clubs (name, legal_form, inn, ogrn, contact_email, timezone, created_at, updated_at)"
                " VALUES ('Bench', 'legal_entity', '7707083893', '1027700132195', 'b@bench.example',"
                " 'Europe/Moscow', now(), now()) RETURNING id"
            )
        ).scalar_one()
        return list(
            conn.execute(
                text(
                    "INSERT INTO series (club_id, name, kind, cron, timezone, horizon_days, opens_before_minutes,"
                    " template, status, created_at, updated_at)"
                    " SELECT :club, 'series ' || n, 'pusoy', (n % 60) || ' ' || (10 + n % 12) || ' * * *',"
                    " (CAST(:zones AS text[]))[1 + n % 4], 14, 0, CAST(:template AS jsonb), 'active',"
                    " now(), now()"
                    " FROM generate_series(1, :n) AS n RETURNING id"
                ),
                {"club": club, "zones": list(ZONES), "n": SERIES, "template": '{"organizer": "bench", "capacity": 16}'},
            ).scalars()
        )


def _clear(engine) -> None:
    with engine.begin() as conn:
        conn.execute(text("DELETE FROM series_occurrence"))


def bench_materialize(report: Report) -> None:
    engine = bootstrap.engine()
    ids = _seed(engine)

    def set_based() -> None:
        with unit_of_work(engine) as session:
            assert materialize(session, NOW).planned == SERIES * 14

    def one_at_a_time() -> None:
        with unit_of_work(engine) as session:
            for series_id in ids:
                materialize(session, NOW, [series_id])

    report.compare(
        f"materialize-series, {SERIES} series x 14 days",
        ("one series at a time", one_at_a_time),
        ("set-based, one run", set_based),
        repeat=3,
        before_each=lambda: _clear(engine),
    )
    for label, fn in (("one series at a time", one_at_a_time), ("set-based, one run", set_based)):
        _clear(engine)
        with StatementCounter(engine) as counter:
            fn()
        report.note(f"materialize-series, {SERIES} series x 14 days", f"SQL statements, {label}", counter.count)
    _clear(engine)
    with StatementCounter(engine) as counter:
        set_based()
        with unit_of_work(engine) as session:
            again = materialize(session, NOW)
    report.note(f"materialize-series, {SERIES} series x 14 days", "second run: occurrences written", again.planned)


SERVE = """
import sys
from prefect import flow, serve
from prefect.client.schemas.objects import ConcurrencyLimitConfig, ConcurrencyLimitStrategy

@flow(name="bench-noop")
def noop() -> None:
    pass

if __name__ == "__main__":  # the runner's flow process imports this file to find `noop`
    name, limit, deployment_limit = sys.argv[1], int(sys.argv[2]), sys.argv[3]
    concurrency = None if deployment_limit == "none" else ConcurrencyLimitConfig(
        limit=int(deployment_limit), collision_strategy=ConcurrencyLimitStrategy.ENQUEUE)
    serve(noop.to_deployment(name=name, concurrency_limit=concurrency), limit=limit)
"""


def _lateness(runs: int, poll_seconds: int, limit: int, deployment_limit: str) -> tuple[list[float], int]:
    """Every run's lateness in seconds, sorted, and how many runs started by the deadline."""
    from prefect import get_client
    from prefect.client.schemas.filters import (
        DeploymentFilter,
        DeploymentFilterName,
        FlowRunFilter,
        FlowRunFilterId,
    )
    from prefect.settings import PREFECT_API_URL
    from prefect.states import Scheduled

    script = Path(tempfile.mkdtemp()) / "serve_bench.py"
    script.write_text(SERVE)
    env = {**os.environ, "PREFECT_API_URL": PREFECT_API_URL.value(), "PREFECT_RUNNER_POLL_FREQUENCY": str(poll_seconds)}
    name = f"bench-noop-{deployment_limit}-{poll_seconds}"  # one deployment (and limit) per measure
    runner = subprocess.Popen(
        [sys.executable, str(script), name, str(limit), deployment_limit],
        env=env,
        start_new_session=True,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        with get_client(sync_client=True) as client:
            deadline = time.monotonic() + 120
            found = []
            while not found and time.monotonic() < deadline:
                found = client.read_deployments(
                    deployment_filter=DeploymentFilter(name=DeploymentFilterName(any_=[name]))
                )
                time.sleep(0.5)
            start = datetime.now(UTC) + timedelta(seconds=30)
            ids = [
                client.create_flow_run_from_deployment(
                    found[0].id, state=Scheduled(scheduled_time=start + timedelta(seconds=60 * i / runs))
                ).id
                for i in range(runs)
            ]
            deadline = time.monotonic() + 60 + 30 + runs * 10
            while time.monotonic() < deadline:
                done = client.read_flow_runs(flow_run_filter=FlowRunFilter(id=FlowRunFilterId(any_=ids)))
                if len(done) == runs and all(r.state.is_final() for r in done):
                    break
                time.sleep(2)
            # a run not started by the deadline counts as late as it was then (a lower bound)
            end = datetime.now(UTC)
            late = sorted(((r.start_time or end) - r.expected_start_time).total_seconds() for r in done)
            return late, sum(1 for r in done if r.start_time is not None)
    finally:
        runner.terminate()
        runner.wait(timeout=30)


def bench_lateness(report: Report) -> None:
    from prefect.testing.utilities import prefect_test_harness

    os.environ.setdefault("PREFECT_SERVER_ANALYTICS_ENABLED", "false")  # there is no network
    runs = int(os.environ.get("TOURNEY_BENCH_LATENESS_RUNS", "100"))
    name = f"scheduling lateness, {runs} runs due within a minute (serve --limit 4)"
    with prefect_test_harness(server_startup_timeout=120):
        for deployment_limit in os.environ.get("TOURNEY_BENCH_DEPLOYMENT_LIMITS", "1,4").split(","):
            for poll in [int(p) for p in os.environ.get("TOURNEY_BENCH_POLL_SECONDS", "10").split(",")]:
                late, started = _lateness(runs, poll, limit=4, deployment_limit=deployment_limit)
                q = statistics.quantiles(late, n=20) if len(late) > 1 else late * 19
                how = f"deployment limit {deployment_limit}, runner poll {poll} s"
                report.note(name, f"{how}: runs started", started)
                report.note(name, f"{how}: p50 s", round(statistics.median(late), 2))
                report.note(name, f"{how}: p95 s", round(q[18], 2))


def run(report: Report) -> None:
    bench_materialize(report)
    bench_lateness(report)
