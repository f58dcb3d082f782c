"""Players online: F players (default 1,000, BENCH_PLAYERS_FOLLOWERS) signed in, each following their own
cup's event stream (`/play/<code>/events`) on C live cups of 32 (default 32, BENCH_PLAYERS_CUPS), served
by a real uvicorn process; two ways side by side: one shared poller per cup (what the app does) and one
poller per follower (the naive way).

Measured for each way, with every follower connected:
- a join's time: each follower joins its cup through `POST /api/v1/pusoy/{code}/entries` (8 at a time),
  timed from the client on loopback, so the figure is the server's time plus the loopback round trip
  (an upper bound of the server time). The join that takes a cup's last seat also draws its seats.
- report to page: a game server reports one table's game on every cup at once (W waves, default 3,
  BENCH_PLAYERS_WAVES); for each follower, the time from its cup's report being sent to the first event
  of its stream with the cup's new version; then what the page does next, `GET /play/<code>?fragment=1`,
  timed for a sample of 100 followers. The page shows the change at about the sum of the two.
p50/p95/max over every follower and wave; no targets are asserted."""

from __future__ import annotations

import asyncio
import json
import os
import statistics
import time
from datetime import UTC, datetime

import httpx

from bench.harness import Report, serve
from domain.access.services import accounts, signin
from domain.pusoy.services import setup as pusoy_setup
from domain.pusoy.tables import PusoyTournament
from flows import bootstrap
from flows.web.auth import COOKIE, CSRF_HEADER
from tests.support import world
from tests.support.world import seating, web_auth

FOLLOWERS = int(os.environ.get("BENCH_PLAYERS_FOLLOWERS") or 1000)
CUPS = int(os.environ.get("BENCH_PLAYERS_CUPS") or 32)
WAVES = int(os.environ.get("BENCH_PLAYERS_WAVES") or 3)
MODES = (os.environ.get("BENCH_PLAYERS_MODES") or "per-client,shared").split(",")
CAPACITY = 32

SERVER = """
import sys, uvicorn
from flows.web.app import create_app
uvicorn.run(create_app(shared_poller=sys.argv[2] == "shared", join_limit=1000), host="127.0.0.1",
            port=int(sys.argv[1]), log_level="warning", access_log=False, limit_concurrency=None)
"""


def _world(engine, mode: str) -> tuple[list[str], list[tuple[str, str, str]], str]:
    """C cups filling; F followers (handle, session secret, their cup); a game server's token on every cup."""
    now = datetime.now(UTC)
    with bootstrap.unit_of_work() as session:
        codes = [
            pusoy_setup.create(
                session, name=f"{mode} {c}", capacity=CAPACITY, games_per_round=1, now=now, organizer="bench"
            ).code
            for c in range(CUPS)
        ]
        followers = []
        for i in range(FOLLOWERS):
            handle = f"{mode[:2]}f{i:04d}"
            player = world.player(session, handle.upper(), handle=handle)
            account = accounts.add(session, f"{handle}@bench.example", now, player_id=player.id)
            secret = signin.start_session(session, account.id, now, address="127.0.0.1", agent="bench")
            followers.append((handle, secret, codes[i % CUPS]))
        server = accounts.add(session, f"server-{mode}@bench.example", now)
        _, token = signin.create_token(session, server, "bench", [f"cup:{c}" for c in codes], now)
    return codes, followers, token


class Follower:
    def __init__(self, handle: str, secret: str, code: str) -> None:
        self.handle, self.secret, self.code = handle, secret, code
        self.versions: list[tuple[float, str]] = []
        self.ready = asyncio.Event()

    async def run(self, port: int, cookie: str) -> None:
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        writer.write(
            f"GET /play/{self.code}/events HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: text/event-stream\r\n"
            f"Cookie: {COOKIE}={cookie}\r\n\r\n".encode()
        )
        await writer.drain()
        try:
            while True:
                line = await reader.readline()
                if not line:
                    return
                if line.startswith(b"data: "):
                    self.versions.append((time.perf_counter(), json.loads(line[6:])["version"]))
                    self.ready.set()
        finally:
            writer.close()


def _pct(values: list[float]) -> tuple[float, float, float]:
    values = sorted(values)
    return statistics.median(values), values[int(0.95 * (len(values) - 1))], values[-1]


async def _measure(port: int, codes, followers, token) -> dict:
    auth = web_auth()
    flock = [Follower(*f) for f in followers]
    tasks = []
    for i, f in enumerate(flock):
        tasks.append(asyncio.create_task(f.run(port, auth.cookie(f.secret))))
        if i % 50 == 49:
            await asyncio.sleep(0.05)
    await asyncio.wait_for(asyncio.gather(*(f.ready.wait() for f in flock)), 300)
    base = f"http://127.0.0.1:{port}"
    limits = httpx.Limits(max_connections=8)
    joins: list[float] = []
    async with httpx.AsyncClient(base_url=base, timeout=60, limits=limits) as client:
        gate = asyncio.Semaphore(8)

        async def join(f: Follower) -> None:
            headers = {"cookie": f"{COOKIE}={auth.cookie(f.secret)}", CSRF_HEADER: auth.csrf(f.secret)}
            async with gate:
                start = time.perf_counter()
                r = await client.post(f"/api/v1/pusoy/{f.code}/entries", headers=headers)
                joins.append(time.perf_counter() - start)
            assert r.status_code == 200, r.text

        await asyncio.gather(*(join(f) for f in flock))
    await asyncio.to_thread(_fill, codes)  # the seats no follower holds: the cups start
    await asyncio.sleep(2.0)
    latencies: list[float] = []
    lost = 0
    tables = await asyncio.to_thread(_tables, codes)
    server = {"authorization": f"Bearer {token}"}
    async with httpx.AsyncClient(base_url=base, timeout=60, headers=server) as client:
        for wave in range(1, WAVES + 1):
            sent: dict[str, float] = {}

            async def report(code: str) -> None:
                players = tables[code][wave]
                body = {"round": 1, "table": wave, "game": 1, "finishes": players}
                sent[code] = time.perf_counter()
                r = await client.post(f"/api/v1/pusoy/{code}/reports", json=body)
                assert r.status_code == 200, r.text

            await asyncio.gather(*(report(c) for c in codes))
            deadline = time.perf_counter() + 15
            while time.perf_counter() < deadline:
                if all(any(at >= sent[f.code] for at, _ in f.versions) for f in flock):
                    break
                await asyncio.sleep(0.02)
            for f in flock:
                arrivals = [at for at, _ in f.versions if at >= sent[f.code]]
                if arrivals:
                    latencies.append(arrivals[0] - sent[f.code])
                else:
                    lost += 1
            await asyncio.sleep(1.0)
    fragments: list[float] = []
    async with httpx.AsyncClient(base_url=base, timeout=60) as client:
        for f in flock[:: max(1, len(flock) // 100)]:
            start = time.perf_counter()
            r = await client.get(f"/play/{f.code}?fragment=1", headers={"cookie": f"{COOKIE}={auth.cookie(f.secret)}"})
            fragments.append(time.perf_counter() - start)
            assert r.status_code == 200, r.text
    for t in tasks:
        t.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)
    return {"joins": joins, "latencies": latencies, "lost": lost, "fragments": fragments}


def _fill(codes) -> None:
    now = datetime.now(UTC)
    with bootstrap.unit_of_work() as session:
        for code in codes:
            n = 0
            while session.query(PusoyTournament.status).filter_by(code=code).scalar() == "setup":
                pusoy_setup.join(session, code, f"bot{code}{n}", now)
                n += 1


def _tables(codes) -> dict[str, dict[int, list[str]]]:
    with bootstrap.unit_of_work() as session:
        ids = dict(session.query(PusoyTournament.code, PusoyTournament.id).filter(PusoyTournament.code.in_(codes)))
        return {code: seating(session, ids[code], 1) for code in codes}


def run(report: Report) -> None:
    engine = bootstrap.engine()
    name = f"players: {FOLLOWERS} followers of {CUPS} live cups"
    results = {}
    for mode in MODES:
        codes, followers, token = _world(engine, mode)
        process, port = serve(SERVER, mode)
        try:
            results[mode] = asyncio.run(_measure(port, codes, followers, token))
        finally:
            process.terminate()
            process.wait(10)
    for mode, r in results.items():
        p50, p95, worst = _pct(r["latencies"]) if r["latencies"] else (float("inf"),) * 3
        report.note(
            name,
            f"{mode} poller: report-to-event p50 / p95 / max, ms (target p95 <= 1000)",
            f"{1000 * p50:.0f} / {1000 * p95:.0f} / {1000 * worst:.0f}",
        )
        report.note(name, f"{mode} poller: events lost (none within 15 s)", r["lost"])
        f50, f95, fmax = _pct(r["fragments"])
        report.note(
            name,
            f"{mode} poller: the page's fetch after the event, p50 / p95 / max, ms",
            f"{1000 * f50:.0f} / {1000 * f95:.0f} / {1000 * fmax:.0f}",
        )
        j50, j95, jmax = _pct(r["joins"])
        report.note(
            name,
            f"{mode} poller: a join, client-observed on loopback, p50 / p95 / max, ms (target p95 <= 20)",
            f"{1000 * j50:.1f} / {1000 * j95:.1f} / {1000 * jmax:.1f}",
        )
    if {"per-client", "shared"} <= set(results):
        for what, key in (("report to event", "latencies"), ("a join", "joins")):
            base = statistics.median(results["per-client"][key])
            cand = statistics.median(results["shared"][key])
            row = {
                "benchmark": f"{name}: {what}",
                "baseline": "a poller per follower",
                "baseline_median_s": base,
                "candidate": "one shared poller per cup",
                "candidate_median_s": cand,
                "ratio": base / cand if cand else float("inf"),
                "repeat": len(results["shared"][key]),
            }
            report.results.append(row)
            print(
                f"{row['benchmark']}: {row['baseline']} {1000 * base:.1f} ms | {row['candidate']} {1000 * cand:.1f} ms | ratio {row['ratio']:.2f}x (medians)",
                flush=True,
            )
