"""Clubs: 1,000 pending applications verified against a local registry server that answers in
20 ms (like a remote API), with concurrency 8 beside one lookup at a time, both under the same
rate limit; the rate the server saw is measured in every one-second window. Then two workers share
one limit of 50 requests a second through the database."""

from __future__ import annotations

import threading
import time
from datetime import UTC, datetime

from sqlalchemy import create_engine, insert

from bench.harness import Report
from domain.clubs.tables import Club
from domain.store.db import StatementCounter
from flows import bootstrap
from flows.jobs.clubs import run_checks
from infra.registry_http import HttpPartyProvider
from infra.registry_rate import SharedRateLimiter
from tests.clubs_registry_data import inn10, ogrn13, party
from tests.clubs_registry_server import RegistryServer, most_in_one_second
from tests.support.db import empty_tables

APPLICATIONS = 1000
RATE = 250.0  # requests per second allowed by the provider
LATENCY = 0.02
NOW = datetime(2026, 11, 29, 12, 0, tzinfo=UTC)


def _reset(engine, count: int = APPLICATIONS) -> None:
    """`count` fresh pending applications, nothing else."""
    with engine.begin() as conn:
        empty_tables(conn, "club_decisions, clubs")
        conn.execute(
            insert(Club),
            [
                dict(
                    name=f"Club {n}",
                    legal_form="legal_entity",
                    inn=inn10(n),
                    ogrn=ogrn13(n),
                    contact_email="r@club.example",
                    timezone="Europe/Moscow",
                    verification_status="pending",
                    application_no=1,
                    applied_at=NOW,
                    created_at=NOW,
                    updated_at=NOW,
                )
                for n in range(count)
            ],
        )


def run(report: Report) -> None:
    engine = bootstrap.engine()
    with RegistryServer(latency=LATENCY) as server:
        for n in range(APPLICATIONS):
            server.add(party(inn10(n), ogrn13(n)))
        provider = HttpPartyProvider(
            server.url, server.token, limiter=SharedRateLimiter(engine, "bench", RATE), timeout=5.0
        )
        peaks: dict[int, list[int]] = {1: [], 8: []}
        statements: dict[int, int] = {}

        def verify(concurrency: int):
            def go() -> None:
                server.seen.clear()
                with StatementCounter(engine) as counter:
                    rows = run_checks(engine, provider, lambda: NOW, concurrency=concurrency)
                assert [r["outcome"] for r in rows] == ["verify"] * APPLICATIONS
                peaks[concurrency].append(server.max_in_any_second())
                statements[concurrency] = counter.count

            return go

        with provider:
            row = report.compare(
                f"verify {APPLICATIONS} applications (limit {RATE:g} req/s, {LATENCY * 1000:g} ms answers)",
                ("one at a time", verify(1)),
                ("concurrency 8", verify(8)),
                repeat=2,
                before_each=lambda: _reset(engine),
            )
        name = "clubs verification"
        report.note(name, "applications/s one at a time", round(APPLICATIONS / row["baseline_median_s"], 1))
        report.note(name, "applications/s concurrency 8", round(APPLICATIONS / row["candidate_median_s"], 1))
        report.note(name, "configured limit, requests/s", RATE)
        report.note(name, "most requests the server saw in any 1 s, one at a time", max(peaks[1]))
        report.note(name, "most requests the server saw in any 1 s, concurrency 8", max(peaks[8]))
        report.note(name, "SQL statements per run of 1,000 (batches of 100)", statements[8])
        _two_workers(report, engine, server)


def _two_workers(report: Report, engine, server: RegistryServer) -> None:
    """The limit binding, across workers: two workers (each its own limiter and connections, as two
    machines would have), 8 threads each, could send several times more than 50 requests a second."""
    tight, count = 50.0, 300
    _reset(engine, count)
    server.seen.clear()
    sent: list[float] = []
    engines = [create_engine(engine.url) for _ in range(2)]
    workers = [
        HttpPartyProvider(server.url, server.token, limiter=SharedRateLimiter(e, "bench-tight", tight), timeout=5.0)
        for e in engines
    ]
    for worker in workers:
        worker.client.event_hooks["request"] = [lambda request: sent.append(time.monotonic())]
    started = time.monotonic()
    threads = [
        threading.Thread(target=run_checks, args=(e, w, lambda: NOW), kwargs={"concurrency": 8})
        for e, w in zip(engines, workers, strict=True)
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    elapsed = time.monotonic() - started
    for e, w in zip(engines, workers, strict=True):
        w.close()
        e.dispose()
    name = f"{count} applications, 2 workers x concurrency 8, one limit of {tight:g} req/s"
    report.note(name, "requests/s over the run", round(len(sent) / elapsed, 1))
    report.note(name, "most requests sent in any 1 s", most_in_one_second(sent))
    report.note(name, "most requests the server saw arrive in any 1 s", server.max_in_any_second())
