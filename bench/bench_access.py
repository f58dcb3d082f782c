"""Access (RULES AC-4), over a real uvicorn server on loopback and PostgreSQL, two ways side by side:

- a request's cost of authentication: the same public call (`GET /api/v1/pusoy`) anonymous and with a
  bearer token (one more indexed lookup of the token, its account and roles), 400 requests each,
  alternating; p50 and p95 of each and the p95 difference (the budget: at most 2 ms);
- a sign-in beside one argon2id verify (a sign-in costs one hash and the throttle's queries), and the
  sign-in use case beside the whole HTTP call;
- the throttle: 60 wrong guesses at one account as fast as a client can send them, and how many the
  server actually tried (the rest are told to wait): at most 5 in 15 minutes, under 10 a minute."""

from __future__ import annotations

import statistics
import time
from datetime import UTC, datetime

import httpx

from bench.harness import Report
from domain.access.services import signin
from domain.store.db import unit_of_work
from flows import bootstrap
from tests.support.net import free_port
from tests.support.web_server import Server
from tests.support.world import PASSWORD, access_world

REQUESTS = 400


def _p95(values: list[float]) -> float:
    return statistics.quantiles(values, n=20)[18]


def run(report: Report) -> None:
    from flows.web.app import create_app

    engine = bootstrap.engine()
    hasher = bootstrap.password_hasher()
    world = access_world(engine, hasher, passwords=("floor", "player"))
    with Server(create_app(engine), free_port()) as server, httpx.Client(base_url=server.url) as client:
        anonymous, token = [], []
        bearer = world.headers("owner")
        for _ in range(20):  # warm: the pool's connections, the first-use imports
            client.get("/api/v1/pusoy")
            client.get("/api/v1/pusoy", headers=bearer)
        for _ in range(REQUESTS):
            for times, headers in ((anonymous, {}), (token, bearer)):
                start = time.perf_counter()
                assert client.get("/api/v1/pusoy", headers=headers).status_code == 200
                times.append(time.perf_counter() - start)
        name = "api: GET /api/v1/pusoy"
        report.note(name, "anonymous p50 ms", round(statistics.median(anonymous) * 1e3, 2))
        report.note(name, "bearer token p50 ms", round(statistics.median(token) * 1e3, 2))
        report.note(name, "anonymous p95 ms", round(_p95(anonymous) * 1e3, 2))
        report.note(name, "bearer token p95 ms", round(_p95(token) * 1e3, 2))
        report.note(name, "authentication's p95 cost ms (budget 2)", round((_p95(token) - _p95(anonymous)) * 1e3, 2))

        hashed = hasher.hash(PASSWORD)
        email = world.emails["floor"]

        def sign_in():
            with httpx.Client(base_url=server.url) as fresh:
                assert fresh.post("/api/v1/session", json={"email": email, "password": PASSWORD}).is_success

        def use_case():
            with unit_of_work(engine) as session:
                assert signin.sign_in(session, hasher, email, PASSWORD, datetime.now(UTC), address="b").secret

        report.compare(
            "sign-in: one argon2id verify beside the sign-in use case (throttle, verify, session)",
            ("argon2id verify", lambda: hasher.verify(hashed, PASSWORD)),
            ("signin.sign_in", use_case),
            repeat=7,
        )
        report.compare(
            "sign-in: the use case in process beside POST /api/v1/session over HTTP (a new connection)",
            ("signin.sign_in", use_case),
            ("POST /api/v1/session", sign_in),
            repeat=7,
        )

        tried = refused = 0
        start = time.perf_counter()
        for n in range(60):
            answer = client.post("/api/v1/session", json={"email": world.emails["player"], "password": f"guess {n}"})
            tried += answer.status_code == 401
            refused += answer.status_code == 429
        took = time.perf_counter() - start
        name = "throttle: 60 wrong guesses at one account"
        report.note(name, "guesses sent per minute", round(60 / took * 60))
        report.note(name, "guesses tried (the rest told to wait)", tried)
        report.note(name, "told to wait", refused)
