"""Pusoy Dos past one process (issue 41): game servers' reports answered at once, and the round completed
by the event consumer (flows/jobs/events.py) followed by the cup's public page (`/p/<code>`).

C cups of 16 (default 48, BENCH_PUSOY_CUPS; 4 tables, one game a round), a game server's token bound to
all of them, served as `tourney web` serves it (`server` of flows/cli/web.py) on 1 process beside 2 (two
servers binding one loopback port with SO_REUSEPORT, as `tourney web --workers 2` does), with the bare
event consumer running in a process of its own (`python -m flows.jobs.events`, what `tourney serve`
runs in a thread). For each cup, a viewer of its public page listens on `/p/<code>/events` (as
`static/live.js` does); the game server reports round 1's four tables one after another through
`POST /api/v1/pusoy/{code}/reports`, the cups started GAP s apart (0.1, BENCH_PUSOY_GAP_S: about 40
reports a second). Measured:

- a report's time: the client's (request sent to answer read, on loopback) and the server's (the
  app's, from the request read to the answer's start: a `server-timing` header of the bench's server),
  p50 / p95 / max over every report; target p95 ≤ 50 ms;
- last report to the next round on the page: from the answer to a cup's last report of round 1 to the
  viewer's fetch of the page's body (`/p/<code>?fragment=1`, what the page swaps in at an event) that
  shows round 2, fetched at each event the viewer reads: the consumer's wake-up (the report's NOTIFY),
  its completing the round, that commit's NOTIFY to the web process the viewer is on, the event and
  the page's render; p50 / p95 / max over the cups; target p95 ≤ 1 s.

Figures only: no timed assertion."""

from __future__ import annotations

import asyncio
import os
import statistics
import subprocess
import sys
import time
from datetime import UTC, datetime

import httpx

from bench.harness import REUSEPORT, Report, end, serve_together
from domain.access.services import accounts, signin
from domain.pusoy.services import setup as pusoy_setup
from flows import bootstrap
from tests.support.world import seating

CUPS = int(os.environ.get("BENCH_PUSOY_CUPS") or 48)
GAP_S = float(os.environ.get("BENCH_PUSOY_GAP_S") or 0.1)
PROCESSES = [int(n) for n in (os.environ.get("BENCH_PUSOY_PROCESSES") or "1,2").split(",")]
CAPACITY = 16

SERVER = (
    REUSEPORT
    + """
import sys, time
from flows.cli.web import server


def timed(app):  # the app's time of every request, from its request read to its answer's start
    async def asgi(scope, receive, send):
        if scope["type"] != "http":
            return await app(scope, receive, send)
        start = time.perf_counter()

        async def sending(message):
            if message["type"] == "http.response.start":
                took = f"app;dur={1000 * (time.perf_counter() - start):.2f}".encode()
                message = {**message, "headers": [*message.get("headers", []), (b"server-timing", took)]}
            await send(message)

        await app(scope, receive, sending)

    return asgi


port = int(sys.argv[1])
# one viewer address looks at every cup: the join codes' guessing limit (10 codes a minute) raised, as bench_players does
server("127.0.0.1", port, lambda app: pid_header(timed(app)), join_limit=100_000).run(sockets=[reuseport_socket(port)])
"""
)


def _loadavg() -> str:
    with open("/proc/loadavg") as f:
        return " ".join(f.read().split()[:3])


def _world(label: str) -> tuple[list[tuple[str, dict[int, list[str]]]], str]:
    """CUPS filled cups (round 1 seated) and a game server's token bound to them all."""
    now = datetime.now(UTC)
    cups = []
    with bootstrap.unit_of_work() as session:
        for c in range(CUPS):
            t = pusoy_setup.create(
                session, name=f"{label} {c}", capacity=CAPACITY, games_per_round=1, now=now, organizer="bench"
            )
            for n in range(CAPACITY):
                pusoy_setup.join(session, t.code, f"{label}c{c}p{n}", now)
            cups.append((t.code, seating(session, t.id, 1)))
        server = accounts.add(session, f"server-{label}@bench.example", now)
        _, token = signin.create_token(session, server, "bench", [f"cup:{code}" for code, _ in cups], now)
    return cups, token


def _rounds_shown(page: str) -> int:
    return page.count("<h2>")


async def _cup(viewer, gs, code: str, tables, delay: float, out: dict) -> None:
    await asyncio.sleep(delay)
    async with viewer.stream("GET", f"/p/{code}/events", headers={"accept": "text/event-stream"}) as stream:
        lines = stream.aiter_lines()
        async for line in lines:  # the page's first state
            if line.startswith("data: "):
                break
        shown = _rounds_shown((await viewer.get(f"/p/{code}?fragment=1")).text)
        last = 0.0
        for table, players in sorted(tables.items()):
            body = {"round": 1, "table": table, "game": 1, "finishes": players}
            start = time.perf_counter()
            r = await gs.post(f"/api/v1/pusoy/{code}/reports", json=body)
            last = time.perf_counter()
            assert r.status_code == 200, r.text
            out["client"].append(last - start)
            out["server"].append(float(r.headers["server-timing"].split("app;dur=")[1].split(",")[0]) / 1000)
        assert r.json()["round_ready"] is True, r.text
        deadline = last + 15
        async for line in lines:
            if line.startswith("data: ") and time.perf_counter() >= last:
                page = await viewer.get(f"/p/{code}?fragment=1")
                if _rounds_shown(page.text) > shown:
                    out["page"].append(time.perf_counter() - last)
                    return
            if time.perf_counter() > deadline:
                break
        out["lost"] += 1


async def _wave(url: str, token: str, cups) -> dict:
    """Every cup's viewer (one client, a connection each) and the game server (one client: its own pool of
    kept connections, as a game server keeps them), after a warm-up: every process has answered the token
    and rendered a page."""
    out: dict = {"client": [], "server": [], "page": [], "lost": 0}
    limits = httpx.Limits(max_connections=2 * len(cups) + 8)
    headers = {"authorization": f"Bearer {token}"}
    async with (
        httpx.AsyncClient(base_url=url, timeout=30, limits=limits) as viewer,
        httpx.AsyncClient(base_url=url, timeout=30, limits=limits, headers=headers) as gs,
    ):
        for _ in range(10):  # new connections: the kernel picks a process for each
            async with httpx.AsyncClient(base_url=url, timeout=30) as warm:
                for path, sent in (("/api/v1/pusoy", headers), (f"/p/{cups[0][0]}?fragment=1", {})):
                    r = await warm.get(path, headers=sent)
                    assert r.status_code == 200, (path, r.status_code)
        await asyncio.gather(*(_cup(viewer, gs, code, tables, n * GAP_S, out) for n, (code, tables) in enumerate(cups)))
    return out


def _ms(values: list[float]) -> str:
    values = sorted(values)
    if not values:
        return "-"
    p95 = values[int(0.95 * (len(values) - 1))]
    return f"{1000 * statistics.median(values):.1f} / {1000 * p95:.1f} / {1000 * values[-1]:.1f}"


def _p95(values: list[float]) -> float:
    values = sorted(values)
    return values[int(0.95 * (len(values) - 1))] if values else float("inf")


def run(report: Report) -> None:
    name = f"pusoy: {CUPS} cups' reports and rounds, the event consumer running"
    report.note(name, "load average at the start (1, 5, 15 min)", _loadavg())
    consumer = subprocess.Popen(
        [sys.executable, "-m", "flows.jobs.events"],
        env={**os.environ, "TOURNEY_EVENTS_LOG": "WARNING", "TOURNEY_EVENTS_POLL": "0.2"},
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    results = {}
    try:
        for processes in PROCESSES:
            cups, token = _world(f"w{processes}")
            servers, port = serve_together(SERVER, processes, path="/static/web.css")
            try:
                results[processes] = asyncio.run(_wave(f"http://127.0.0.1:{port}", token, cups))
            finally:
                end(servers)
    finally:
        end([consumer])
    for processes, r in results.items():
        way = f"{processes} process{'es' if processes > 1 else ''}"
        met = "met" if _p95(r["client"]) <= 0.05 else "not met"
        report.note(name, f"{way}: a report, client p50 / p95 / max ms (target p95 ≤ 50: {met})", _ms(r["client"]))
        report.note(name, f"{way}: a report, server (app) p50 / p95 / max ms", _ms(r["server"]))
        met = "met" if _p95(r["page"]) <= 1.0 else "not met"
        report.note(
            name,
            f"{way}: last report to the page showing round 2, p50 / p95 / max ms (target p95 ≤ 1000: {met})",
            _ms(r["page"]),
        )
        report.note(name, f"{way}: cups whose page did not show round 2 within 15 s", r["lost"])
    if 1 in results and 2 in results:
        for what in ("client", "page"):
            report.note(
                name,
                f"{what}: p95 1 process / 2 processes",
                f"{_p95(results[1][what]) / _p95(results[2][what]):.2f}x",
            )
    report.note(name, "load average at the end (1, 5, 15 min)", _loadavg())
