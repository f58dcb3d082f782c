"""`/api/v1` as a contract (issue 38), over a real uvicorn server on loopback and PostgreSQL, each pair
alternating in one run:

- a read answered whole beside the same read revalidated by its ETag (`If-None-Match` → 304, no body):
  a club's tournaments, 60 of them;
- a write beside the same write replayed by its `Idempotency-Key` (the answer recalled in one indexed
  read, nothing done twice): a registration of a player;
- the edge's look at every string (NUL, lone surrogates) on a game server's-sized body: the report's
  JSON walked, beside json.loads alone (the floor of any check of a body)."""

from __future__ import annotations

import json
import time
from datetime import UTC, datetime, timedelta

import httpx

from bench.harness import Report
from domain.store.db import unit_of_work
from flows import bootstrap
from flows.web.api.edge import _walk
from tests.support.net import free_port
from tests.support.web_server import Server
from tests.support.world import access_world, player, tournament

ROUNDS = 200


def run(report: Report) -> None:
    from flows.web.app import create_app

    engine = bootstrap.engine()
    world = access_world(engine)
    now = datetime.now(UTC)
    with unit_of_work(engine) as session:
        for n in range(60):
            tournament(session, club_id=world.club_a, status="registration_open", start=now + timedelta(hours=n + 1))
        players = [player(session, f"Bench Player {n}", handle=f"bench{n}").handle for n in range(ROUNDS * 2)]
    with Server(create_app(engine), free_port()) as server, httpx.Client(base_url=server.url) as client:
        owner, floor = world.headers("owner"), world.headers("floor")
        url = f"/api/v1/clubs/{world.club_a}/tournaments?limit=100"
        tag = client.get(url, headers=owner).headers["etag"]
        whole, revalidated = [], []
        for _ in range(ROUNDS):
            for times, headers in ((whole, owner), (revalidated, owner | {"if-none-match": tag})):
                start = time.perf_counter()
                client.get(url, headers=headers)
                times.append(time.perf_counter() - start)
        report.compared(
            "api: a read of 60 tournaments, whole beside 304 by its ETag", ("200", whole), ("304", revalidated)
        )

        register = f"/api/v1/tournaments/{world.tournament_a}/registrations"
        first, replayed = [], []
        for n in range(ROUNDS):
            key = {"idempotency-key": f"bench-{n}"}
            body = {"player": players[n]}
            start = time.perf_counter()
            assert client.post(register, json=body, headers=floor | key).status_code == 200
            first.append(time.perf_counter() - start)
            start = time.perf_counter()
            again = client.post(register, json=body, headers=floor | key)
            replayed.append(time.perf_counter() - start)
            assert again.headers["idempotent-replayed"] == "true"
        report.compared(
            "api: a registration, done beside replayed by its Idempotency-Key", ("done", first), ("replayed", replayed)
        )

    report_body = json.dumps({"round": 1, "table": 2, "game": 1, "finishes": ["ann", "bob", "cid", "dee"]}).encode()
    report.compare(
        "api: the edge's look at a report's body, json.loads alone beside loads and every string walked",
        ("json.loads", lambda: [json.loads(report_body) for _ in range(10_000)]),
        ("loads + walk", lambda: [_walk(json.loads(report_body), ("body",)) for _ in range(10_000)]),
        repeat=5,
    )
