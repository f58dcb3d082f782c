"""Issue 41, the Prefect server away while clubs play: a desk's finish, a player's join and a game
server's reports all answer over `/api/v1` (no request talks to Prefect: flows.web imports nothing of
flows.jobs), the event consumer completes the round meanwhile, and the finished tournament's
`publish-results` run waits, to be made once, named by the tournament, when the API answers again.
The consumer is pointed at a closed port for "away", then at the session's real Prefect API."""

from __future__ import annotations

import socket
from datetime import timedelta

from prefect.client.orchestration import get_client
from prefect.client.schemas.filters import FlowRunFilter, FlowRunFilterName
from sqlalchemy import select

from domain.poker.tables.tournaments import Tournament
from domain.pusoy.services import setup as pusoy_setup
from domain.pusoy.services.rows import find
from domain.pusoy.tables import PusoyRound
from domain.store.db import unit_of_work
from domain.webhooks.tables import Event
from flows.deployments import deployment, job
from tests.support.events import consuming, wait_for
from tests.support.world import access_world, enter, now, player, seating, tournament


def _closed_port() -> str:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return f"http://127.0.0.1:{s.getsockname()[1]}/api"


def _runs_named(name: str) -> list:
    with get_client(sync_client=True) as client:
        return client.read_flow_runs(flow_run_filter=FlowRunFilter(name=FlowRunFilterName(any_=[name])))


def _finished_reacted(engine, tid: int):
    with unit_of_work(engine) as s:
        return s.scalars(
            select(Event.reaction).where(
                Event.kind == "tournament.finished", Event.payload["tournament_id"].as_integer() == tid
            )
        ).one()


def test_issue_41_with_prefect_away_desks_joins_and_reports_work_and_the_documents_run_comes_once_back(
    web, http, committed, prefect_api
):
    """A knockout and a finish at the desk, a join and a round's reports succeed with the consumer's Prefect API a
    closed port; the round is completed; once the API answers, one `publish-results poker-<id>` run."""
    deployment_id = deployment(job("publish-results")).apply(_sync=True)  # a browser's loop may run here
    w = access_world(committed)
    with unit_of_work(committed) as s:
        poker = tournament(s, club_id=w.club_a, start=now() - timedelta(hours=2), late_reg=timedelta(minutes=30))
        for handle in ("away1", "away2"):
            enter(s, poker, player_id=player(s, handle=handle).id)
        tid = poker.id
        cup = find(s, w.cup)
        for n in range(7):
            pusoy_setup.join(s, w.cup, f"p{n}", now())
        cup_id = cup.id
    name = f"publish-results poker-{tid}"
    earlier = {r.id for r in _runs_named(name)}  # the session's Prefect API keeps earlier tests' runs

    with consuming(prefect_api=_closed_port(), backoff=(0.2,), catch_up=0.2) as consumer:
        knocked = http.post(
            f"/api/v1/tournaments/{tid}/knockouts",
            json={"busted": ["away2"], "killer": "away1"},
            headers=w.headers("floor"),
        )
        assert knocked.status_code == 200, knocked.text
        finished = http.post(f"/api/v1/tournaments/{tid}/finish", headers=w.headers("floor"))
        assert finished.status_code == 200, finished.text
        assert finished.json()["status"] == "finished"
        joined = http.post(f"/api/v1/pusoy/{w.cup}/entries", headers=w.headers("player"))
        assert joined.status_code == 200, joined.text
        assert joined.json()["started"] is True  # the eighth player: the cup starts
        with unit_of_work(committed) as s:
            tables = seating(s, cup_id, 1)
        answers = [
            http.post(
                f"/api/v1/pusoy/{w.cup}/reports",
                json={"round": 1, "table": table, "game": 1, "finishes": players},
                headers=w.headers("server"),
            )
            for table, players in tables.items()
        ]
        assert [(a.status_code, a.json()["round_ready"]) for a in answers] == [(200, False), (200, True)]
        assert wait_for(lambda: _round(committed, cup_id) == "locked")  # the consumer, Prefect away
        assert _finished_reacted(committed, tid) is None  # its run waits for the API
        assert {r.id for r in _runs_named(name)} == earlier

        consumer.prefect_api = None  # the configured one: the session's real Prefect API answers
        assert wait_for(lambda: _finished_reacted(committed, tid))
        consumer.drain()  # and again: nothing twice
    [run] = [r for r in _runs_named(name) if r.id not in earlier]
    assert run.deployment_id == deployment_id and f"tournament:poker-{tid}" in run.tags
    assert _finished_reacted(committed, tid) == f"publish-results run {name} started"
    with unit_of_work(committed) as s:
        assert s.get(Tournament, tid).status == "finished"


def _round(engine, cup_id: int) -> str:
    with unit_of_work(engine) as s:
        return s.get(PusoyRound, (cup_id, 1)).status
