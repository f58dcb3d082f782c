"""The complete-rounds flow on a real Prefect API and the real database (PD-8, PD-9)."""

from __future__ import annotations

import asyncio
import json

from prefect.client.orchestration import get_client

from domain.store.db import unit_of_work
from flows.pusoy import complete_rounds
from tests.integration.pusoy_helpers import filled, play
from tests.unit.pusoy_cases import TWO_FOR_ONE, WORKED_EXAMPLE


def artifact(key: str):
    async def read():
        async with get_client() as client:
            return [a for a in await client.read_latest_artifacts() if a.key == key]

    return asyncio.run(read())


def test_complete_rounds_advances_ready_rounds_once_and_publishes_each_rounds_standings(prefect_api, committed):
    """PD-8, PD-9: one run completes both ready tournaments (one advances, one opens a playoff);
    a second run finds nothing to do."""
    with unit_of_work(committed) as s:
        plain = filled(s, 8, games=2)
        tied = filled(s, 8, games=2)
        roles = play(s, plain, 1, WORKED_EXAMPLE)
        play(s, tied, 1, TWO_FOR_ONE)
        codes = plain.code, tied.code
    result = complete_rounds()
    outcomes = {(c["code"], c["round"], c["outcome"]) for c in result["completed"]}
    assert outcomes == {(codes[0], 1, "advanced"), (codes[1], 1, "playoff")}
    assert complete_rounds() == {"completed": []}
    (published,) = artifact(f"pusoy-{codes[0].lower()}-round-1")
    assert published.type == "table"
    assert [row["player"] for row in json.loads(published.data)][:4] == [roles[r] for r in "BEAG"]
    assert artifact(f"pusoy-{codes[1].lower()}-round-1")[0].description.startswith(
        f"Pusoy Dos {codes[1]}, round 1: playoff opened"
    )
