"""`finalize-tournaments` on a real Prefect API and the real database (3.7, SP-7)."""

from __future__ import annotations

import asyncio
import json
from datetime import timedelta

from prefect.client.orchestration import get_client

from domain.poker.rules.knockouts import Bust
from domain.poker.services.knockouts import record_knockouts
from domain.poker.services.results import set_prizes
from domain.poker.tables.tournaments import Tournament
from domain.store.db import unit_of_work
from flows.jobs.poker_finalize import finalize_tournaments_flow
from tests.support import world as w
from tests.support.world import EVENING


def test_finalize_publishes_the_final_table_marks_finished_and_is_idempotent(prefect_api, committed):
    """3.7: one player left, the void window closed → places with prizes, finished, an artifact."""
    with unit_of_work(committed) as s:
        t = w.tournament(s, **w.BOUNTY, name="Sunday Deep")
        e = {n: x.id for n, x in w.field(s, t, "ABC").items()}
        tid = t.id
        set_prizes(s, tid, ["Cup", "Medal"])
        record_knockouts(s, tid, [Bust(e["A"], e["C"])], now=EVENING, actor="floor")
        record_knockouts(s, tid, [Bust(e["B"], e["C"])], now=EVENING, actor="floor")

    assert finalize_tournaments_flow(now=EVENING + timedelta(minutes=4)) == {"finished": []}
    assert finalize_tournaments_flow(now=EVENING + timedelta(minutes=5)) == {"finished": [tid]}
    assert finalize_tournaments_flow(now=EVENING + timedelta(minutes=6)) == {"finished": []}

    with unit_of_work(committed) as s:
        assert s.get(Tournament, tid).status == "finished"

    async def artifact():
        async with get_client() as client:
            return {a.key: a for a in await client.read_latest_artifacts()}

    latest = asyncio.run(artifact())
    assert json.loads(latest["finalize-tournaments"].data) == [{"result": "no tournament was down to one player"}]
    final = latest[f"poker-final-table-{tid}"]
    assert [(row["place"], row["player"], row["prize"]) for row in json.loads(final.data)] == [
        (1, "C", "Cup"),
        (2, "B", "Medal"),
        (3, "A", None),
    ]
