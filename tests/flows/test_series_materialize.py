"""The materialize-series flow on a real Prefect API and the real database."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime

from prefect.client.orchestration import get_client
from sqlalchemy import text

from domain.series.services.series import SeriesSpec, add_series
from domain.store.db import unit_of_work
from flows.jobs.series import materialize_series
from tests.support.world import club as world_club

UTC = UTC


def test_materialize_series_plans_opens_and_publishes_what_it_did(prefect_api, committed):
    now = datetime(2026, 10, 20, 12, tzinfo=UTC)
    with unit_of_work(committed) as session:
        club = world_club(session, fresh=True, timezone="Europe/Berlin").id
        add_series(
            session,
            SeriesSpec(club, "Nightly", "pusoy", "0 19 * * *", "UTC", {"organizer": "royal", "capacity": 8}, 14, 60),
            now,
        )
        session.execute(text("DELETE FROM series_occurrence"))
    assert materialize_series(now=datetime(2026, 10, 20, 18, tzinfo=UTC)) == {
        "planned": 14,
        "opened": 1,
        "missed": 0,
        "scheduled": 0,
    }
    assert materialize_series(now=datetime(2026, 10, 20, 18, tzinfo=UTC)) == {
        "planned": 0,
        "opened": 0,
        "missed": 0,
        "scheduled": 0,
    }

    async def artifact():
        async with get_client() as client:
            return await client.read_latest_artifacts()

    assert "materialize-series" in {a.key for a in asyncio.run(artifact())}


def test_materialize_series_schedules_an_exact_run_at_each_opening_before_the_next_sweep(prefect_api, committed):
    from flows.deployments import JOBS, deployment

    [job] = [j for j in JOBS if j.name == "materialize-series"]
    deployment(job).apply()
    now = datetime(2026, 10, 20, 17, 30, tzinfo=UTC)
    with unit_of_work(committed) as session:
        club = world_club(session, fresh=True, timezone="Europe/Berlin").id
        add_series(
            session,
            SeriesSpec(club, "Nightly", "pusoy", "0 19 * * *", "UTC", {"organizer": "royal", "capacity": 8}, 14, 60),
            now,
        )
    assert materialize_series(now=now)["scheduled"] == 1  # 18:00 today; tomorrow's is beyond 70 minutes
    assert materialize_series(now=now)["scheduled"] == 1  # the same run again (idempotency key)

    async def runs():
        async with get_client() as client:
            return await client.read_flow_runs()

    exact = [r for r in asyncio.run(runs()) if r.idempotency_key == "materialize-series:2026-10-20T18:00:00+00:00"]
    assert len(exact) == 1
    assert exact[0].state.state_details.scheduled_time == datetime(2026, 10, 20, 18, tzinfo=UTC)
