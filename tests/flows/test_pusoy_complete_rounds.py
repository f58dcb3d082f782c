"""The complete-rounds flow on a real Prefect API and the real database (PD-8, PD-9)."""

from __future__ import annotations

import asyncio
import json

from prefect.client.orchestration import get_client
from prefect.settings import PREFECT_API_URL

from domain.pusoy.services import reports as pusoy_reports
from domain.pusoy.tables import PusoyRound
from domain.store.db import unit_of_work
from flows.jobs.pusoy import complete_rounds
from tests.support.cli import run
from tests.support.events import consuming, wait_for
from tests.support.world import PUSOY_NOW as NOW
from tests.support.world import complete_pusoy, filled, play, seating
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
        ids = plain.id, tied.id
    result = complete_rounds()
    outcomes = {(c["code"], c["round"], c["outcome"]) for c in result["completed"]}
    assert outcomes == {(codes[0], 1, "advanced"), (codes[1], 1, "playoff")}
    assert complete_rounds() == {"completed": []}
    (summary,) = artifact("complete-rounds")
    assert json.loads(summary.data) == [{"result": "no round had all its games reported"}]
    (published,) = artifact(f"pusoy-{ids[0]}-round-1")  # the id: never the (private) join code
    assert published.type == "table"
    table = json.loads(published.data)
    assert [(row["player"], row["result"]) for row in table][:5] == [
        (roles["B"], "advanced"),
        (roles["E"], "advanced"),
        (roles["A"], "advanced"),
        (roles["G"], "advanced"),
        (roles["H"], "eliminated"),
    ]
    assert table[2]["decided_by"] == "first-places-on-2d"
    (playoff,) = artifact(f"pusoy-{ids[1]}-round-1")
    assert playoff.description.startswith(f"Pusoy Dos tournament {ids[1]}, round 1: playoff opened")
    assert not any(code in a.description + a.data for code in codes for a in (summary, published, playoff))


def test_the_report_of_a_rounds_last_game_answers_at_once_and_the_event_consumer_completes_it(prefect_api, committed):
    """PD-5, PD-8, issue 41: `tourney pusoy report` of the last game answers `round_ready` and starts
    nothing (the round is still open when it returns); the event consumer then completes the round."""
    with unit_of_work(committed) as s:
        t = filled(s, 8)
        tables = seating(s, t.id, 1)
        pusoy_reports.report(
            s,
            t.code,
            round_no=1,
            table=1,
            game=1,
            two_of_diamonds=None,
            now=NOW,
            finishes=[(p, i) for i, p in enumerate(tables[1], start=1)],
        )
        code, tid = t.code, t.id
    result = run(
        "--json",
        "pusoy",
        "report",
        code,
        "--round",
        "1",
        "--table",
        "2",
        *[f"{p}={i}" for i, p in enumerate(tables[2], start=1)],
        env={"PREFECT_API_URL": PREFECT_API_URL.value()},
    )
    assert result.returncode == 0, result.stderr
    payload = json.loads(result.stdout[result.stdout.index("{") :])
    assert payload["round_ready"] is True and "completed" not in payload
    with unit_of_work(committed) as s:
        assert s.get(PusoyRound, (tid, 1)).status == "playing"
    with consuming():
        assert wait_for(lambda: _status(committed, tid, 1) == "locked")
    assert _status(committed, tid, 2) == "playing"


def _status(engine, tid: int, number: int) -> str | None:
    with unit_of_work(engine) as s:
        found = s.get(PusoyRound, (tid, number))
        return found.status if found else None


def test_the_round_that_crowns_the_champion_starts_the_cups_documents_by_its_event(prefect_api, committed):
    """PD-11, DOC-1, issue 41: the completion that crowns the champion (here the sweep's) starts no run
    itself; its `tournament.finished` has the event consumer create the cup's `publish-results` run at
    once (named and tagged by the cup, one per cup); a runner or worker takes it within seconds."""
    from flows.deployments import deployment, job

    deployment_id = deployment(job("publish-results")).apply()
    with unit_of_work(committed) as s:
        t, _, _ = complete_pusoy(s, crown=False)
        tid = t.id
    result = complete_rounds(tid)
    assert [c["outcome"] for c in result["completed"]] == ["champion"]
    complete_rounds(tid)  # nothing left to complete

    def runs():
        with get_client(sync_client=True) as client:
            return [
                r
                for r in client.read_flow_runs()
                if r.deployment_id == deployment_id and r.name == f"publish-results pusoy-{tid}"
            ]

    earlier = {r.id for r in runs()}  # the session's server keeps earlier tests' runs (ids are reused)
    with consuming() as consumer:
        assert wait_for(lambda: len(runs()) > len(earlier))
        consumer.drain()  # again: nothing twice
    [run] = [r for r in runs() if r.id not in earlier]
    assert {"kind:pusoy", f"tournament:pusoy-{tid}"} <= set(run.tags)
