"""The status-report flow on a real Prefect API and the real database."""

from __future__ import annotations

import asyncio

from prefect.client.orchestration import get_client

from flows.jobs.status_report import status_report


def test_status_report_finds_the_schema_at_head_and_publishes_a_table(prefect_api, engine):
    result = status_report()
    assert result["at_head"] is True
    assert result["database"] == engine.url.database

    async def artifact():
        async with get_client() as client:
            return await client.read_latest_artifacts()

    keys = {a.key for a in asyncio.run(artifact())}
    assert "status-report" in keys
