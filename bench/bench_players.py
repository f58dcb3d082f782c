"""Players online: F players (default 1,000, BENCH_PLAYERS_FOLLOWERS) signed in, each following their own
cup's event stream (`/play/<code>/events`) on C live cups of 32 (default 32, BENCH_PLAYERS_CUPS), served
by a real uvicorn process (one process: the streams are async generators on its event loop, no thread
is held by a follower).

First, a join in process (the app over httpx's ASGI transport, one cup joined one at a time, another
8 at a time): its SQL statements (`before_cursor_execute`), the process's CPU ms, and where its time goes
around the cup's row lock: the wait of the `UPDATE` that takes it, and how long it is held (that
statement's end to the commit's end).

Then, with every follower connected to the server:
- a join's time: each follower joins its cup through `POST /api/v1/pusoy/{code}/entries` (8 at a time).
  The SERVER time is measured inside the server (a `server-timing` header the bench's server adds: the
  app's time from the request read to the answer's start, thread-pool and lock waits included); the
  client's time (loopback and the client's own event loop, shared with 1,000 streams) beside it. The
  join that takes a cup's last seat also draws its seats.
- report to page: a game server reports one table's game on every cup at once (W waves, default 3,
  BENCH_PLAYERS_WAVES); for each follower, the time from its cup's report being sent to the first event
  of its stream with the cup's new version (a report through the API wakes its cup's stream at once);
  then a last wave as the pages live it: P cups report (default 8, BENCH_PLAYERS_PAGE_CUPS: 250 followers;
  all 32 would be 1,000 pages at once) and each of their followers fetches `GET /play/<code>?fragment=1` at
  its event, as `static/live.js` does: report to page, and that fetch alone.
p50/p95/max over every follower and wave; no targets are asserted. `BENCH_PLAYERS_MODES=per-client,shared`
adds the naive way (a poller per follower) beside the shared poller (bench_web compares the two too)."""

from __future__ import annotations

import asyncio
import json
import math
import os
import statistics
import threading
import time
from datetime import UTC, datetime

import httpx
from sqlalchemy import event
from sqlalchemy.orm import Session

from bench.harness import Report, serve
from domain.access.services import accounts, signin
from domain.pusoy.services import setup as pusoy_setup
from domain.pusoy.tables import PusoyTournament
from domain.store.db import StatementCounter
from flows import bootstrap
from flows.web.auth import COOKIE, CSRF_HEADER
from tests.support import world
from tests.support.world import seating, web_auth

FOLLOWERS = int(os.environ.get("BENCH_PLAYERS_FOLLOWERS") or 1000)
CUPS = int(os.environ.get("BENCH_PLAYERS_CUPS") or 32)
WAVES = int(os.environ.get("BENCH_PLAYERS_WAVES") or 3)
PAGE_CUPS = int(os.environ.get("BENCH_PLAYERS_PAGE_CUPS") or 8)
MODES = (os.environ.get("BENCH_PLAYERS_MODES") or "shared").split(",")
CAPACITY = 32

SERVER = """
import sys, time, uvicorn
from flows.web.app import create_app


def timed(app):
    # the app's own time of every request, from its request read to its answer's start: `server-timing`
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


app = create_app(shared_poller=sys.argv[2] == "shared", join_limit=1000)
uvicorn.run(timed(app), host="127.0.0.1", port=int(sys.argv[1]), log_level="warning", access_log=False,
            limit_concurrency=None, backlog=4096)
"""


def _server_ms(response: httpx.Response) -> float:
    return float(response.headers["server-timing"].partition("dur=")[2]) / 1000


def _world(mode: str, cups: int = CUPS, players: int = FOLLOWERS) -> tuple[list[str], list[tuple[str, str, str]], str]:
    """Cups filling; players (handle, session secret, their cup); a game server's token on every cup."""
    now = datetime.now(UTC)
    with bootstrap.unit_of_work() as session:
        codes = [
            pusoy_setup.create(
                session, name=f"{mode} {c}", capacity=CAPACITY, games_per_round=1, now=now, organizer="bench"
            ).code
            for c in range(cups)
        ]
        followers = []
        for i in range(players):
            handle = f"{mode[:2]}f{i:04d}"
            player = world.player(session, handle.upper(), handle=handle)
            account = accounts.add(session, f"{handle}@bench.example", now, player_id=player.id)
            secret = signin.start_session(session, account.id, now, address="127.0.0.1", agent="bench")
            followers.append((handle, secret, codes[i % cups]))
        server = accounts.add(session, f"server-{mode}@bench.example", now)
        _, token = signin.create_token(session, server, "bench", [f"cup:{c}" for c in codes], now)
    return codes, followers, token


class LockClock:
    """Around the cup's row lock, per worker thread: the wait of the `UPDATE pusoy_tournaments` that
    takes it (the statement's own time, mostly waiting when another join holds the row) and how long
    it is held (that statement's end to the transaction's commit)."""

    def __init__(self, engine) -> None:
        self.engine, self.local = engine, threading.local()
        self.waits: list[float] = []
        self.held: list[float] = []

    def _before(self, conn, cursor, statement, *args) -> None:
        self.local.started = time.perf_counter()

    def _after(self, conn, cursor, statement, *args) -> None:
        if statement.lstrip().startswith("UPDATE pusoy_tournaments"):
            self.local.locked = time.perf_counter()
            self.waits.append(self.local.locked - self.local.started)

    def _committed(self, session) -> None:
        locked = getattr(self.local, "locked", None)
        if locked is not None:
            self.held.append(time.perf_counter() - locked)
            self.local.locked = None

    def __enter__(self) -> LockClock:
        event.listen(self.engine, "before_cursor_execute", self._before)
        event.listen(self.engine, "after_cursor_execute", self._after)
        event.listen(Session, "after_commit", self._committed)
        return self

    def __exit__(self, *exc) -> None:
        event.remove(self.engine, "before_cursor_execute", self._before)
        event.remove(self.engine, "after_cursor_execute", self._after)
        event.remove(Session, "after_commit", self._committed)


async def _in_process(engine) -> dict:
    """One cup joined one at a time (statements, CPU and wall per join), another 8 at a time (the lock)."""
    from flows.web.app import create_app

    codes, players, _ = await asyncio.to_thread(_world, "in-process", 2, 2 * CAPACITY)
    auth = web_auth()
    app = create_app(engine, join_limit=1000)
    out: dict = {"statements": [], "cpu": [], "wall": [], "start_statements": 0}
    async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://bench") as client:

        async def join(handle: str, secret: str, code: str) -> httpx.Response:
            headers = {"cookie": f"{COOKIE}={auth.cookie(secret)}", CSRF_HEADER: auth.csrf(secret)}
            r = await client.post(f"/api/v1/pusoy/{code}/entries", headers=headers)
            assert r.status_code == 200, r.text
            return r

        for player in [p for p in players if p[2] == codes[0]]:
            with StatementCounter(engine) as counted:
                cpu, wall = time.process_time(), time.perf_counter()
                r = await join(*player)
                cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
            if r.json()["started"]:
                out["start_statements"] = counted.count
                continue
            out["statements"].append(counted.count)
            out["cpu"].append(cpu)
            out["wall"].append(wall)
        out["page_statements"], out["page_cpu"] = [], []
        for handle, secret, code in [p for p in players if p[2] == codes[0]][:10]:  # the cup started: my page
            with StatementCounter(engine) as counted:
                cpu = time.process_time()
                r = await client.get(f"/play/{code}?fragment=1", headers={"cookie": f"{COOKIE}={auth.cookie(secret)}"})
                cpu = time.process_time() - cpu
            assert r.status_code == 200, r.text
            out["page_statements"].append(counted.count)
            out["page_cpu"].append(cpu)
        gate = asyncio.Semaphore(8)

        async def gated(player) -> None:
            async with gate:
                await join(*player)

        with LockClock(engine) as lock:
            await asyncio.gather(*(gated(p) for p in players if p[2] == codes[1]))
    out["waits"], out["held"] = lock.waits, lock.held
    return out


class Follower:
    def __init__(self, handle: str, secret: str, code: str) -> None:
        self.handle, self.secret, self.code = handle, secret, code
        self.versions: list[tuple[float, str]] = []
        self.ready = asyncio.Event()
        self.changed = asyncio.Event()  # an event came (what live.js answers by fetching the page)

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
                    self.changed.set()
        finally:
            writer.close()


def _pct(values: list[float]) -> tuple[float, float, float]:
    values = sorted(values)
    return statistics.median(values), values[max(0, math.ceil(0.95 * len(values)) - 1)], values[-1]


async def _measure(port: int, codes, followers, token) -> dict:
    auth = web_auth()
    flock = [Follower(*f) for f in followers]
    tasks = []
    for i, f in enumerate(flock):
        tasks.append(asyncio.create_task(f.run(port, auth.cookie(f.secret))))
        if i % 50 == 49:
            await asyncio.sleep(0.05)
    started = time.perf_counter()
    await asyncio.wait_for(asyncio.gather(*(f.ready.wait() for f in flock)), 300)
    connected = time.perf_counter() - started
    print(f"  {len(flock)} followers connected in {connected:.1f} s", flush=True)
    base = f"http://127.0.0.1:{port}"
    limits = httpx.Limits(max_connections=8)
    joins: list[float] = []
    served: list[float] = []
    async with httpx.AsyncClient(base_url=base, timeout=60, limits=limits) as client:
        gate = asyncio.Semaphore(8)

        async def join(f: Follower) -> None:
            headers = {"cookie": f"{COOKIE}={auth.cookie(f.secret)}", CSRF_HEADER: auth.csrf(f.secret)}
            async with gate:
                start = time.perf_counter()
                r = await client.post(f"/api/v1/pusoy/{f.code}/entries", headers=headers)
                joins.append(time.perf_counter() - start)
            assert r.status_code == 200, r.text
            served.append(_server_ms(r))

        started = time.perf_counter()
        await asyncio.gather(*(join(f) for f in flock))
        print(f"  {len(flock)} joins in {time.perf_counter() - started:.1f} s", flush=True)
    await asyncio.to_thread(_fill, codes)  # the seats no follower holds: the cups start
    await asyncio.sleep(2.0)
    latencies: list[float] = []
    reported: list[float] = []
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
                reported.append(_server_ms(r))

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
    # the last wave as the pages live it: P cups report, and each of their followers, at its event,
    # fetches its page (what live.js does), all at once
    fragments: list[float] = []
    pages: list[float] = []
    wave = WAVES + 1
    pages_of = httpx.Limits(max_connections=len(flock), max_keepalive_connections=len(flock))
    async with (
        httpx.AsyncClient(base_url=base, timeout=120, limits=pages_of) as browsers,
        httpx.AsyncClient(base_url=base, timeout=60, headers=server) as game_server,
    ):
        sent = {}

        async def page(f: Follower) -> None:
            await f.changed.wait()
            start = time.perf_counter()
            cookie = {"cookie": f"{COOKIE}={auth.cookie(f.secret)}"}
            r = await browsers.get(f"/play/{f.code}?fragment=1", headers=cookie)
            assert r.status_code == 200, r.text
            fragments.append(time.perf_counter() - start)
            pages.append(time.perf_counter() - sent[f.code])

        async def report(code: str) -> None:
            body = {"round": 1, "table": wave, "game": 1, "finishes": tables[code][wave]}
            sent[code] = time.perf_counter()
            r = await game_server.post(f"/api/v1/pusoy/{code}/reports", json=body)
            assert r.status_code == 200, r.text

        paged = codes[:PAGE_CUPS]
        for f in flock:
            f.changed.clear()
        fetching = [asyncio.create_task(page(f)) for f in flock if f.code in paged]
        started = time.perf_counter()
        await asyncio.gather(*(report(c) for c in paged))
        await asyncio.wait_for(asyncio.gather(*fetching), 150)
        print(f"  every page fetched in {time.perf_counter() - started:.1f} s", flush=True)
    for t in tasks:
        t.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)
    return {
        "connected": connected,
        "joins": joins,
        "served": served,
        "latencies": latencies,
        "reported": reported,
        "lost": lost,
        "fragments": fragments,
        "pages": pages,
    }


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


def _ms(values: list[float], digits: int = 0) -> str:
    return " / ".join(f"{1000 * v:,.{digits}f}" for v in _pct(values)) if values else "none"


def run(report: Report) -> None:
    engine = bootstrap.engine()
    load = open("/proc/loadavg").read().split()[:3]
    here = asyncio.run(_in_process(engine))
    name = "players: a join in process (the app over ASGI, one cup of 32)"
    report.note(
        name, "SQL statements of a join, max (its budget in tests/web/test_players.py)", max(here["statements"])
    )
    report.note(name, "SQL statements of the join that takes the last seat and draws round 1", here["start_statements"])
    report.note(name, "CPU ms of a join (the process's, client included), p50 / p95 / max", _ms(here["cpu"], 1))
    report.note(name, "wall ms of a join, one at a time, p50 / p95 / max", _ms(here["wall"], 1))
    report.note(
        name, "8 at a time: the row lock's wait (the UPDATE taking it), p50 / p95 / max, ms", _ms(here["waits"], 2)
    )
    report.note(name, "8 at a time: the row lock held (UPDATE to commit), p50 / p95 / max, ms", _ms(here["held"], 2))
    report.note(
        name, "a follower's page fetch after an event (round 1 running): SQL statements", max(here["page_statements"])
    )
    report.note(name, "a follower's page fetch: CPU ms p50 / p95 / max", _ms(here["page_cpu"], 1))
    name = f"players: {FOLLOWERS} followers of {CUPS} live cups"
    results = {}
    for mode in MODES:
        codes, followers, token = _world(mode)
        process, port = serve(SERVER, mode)
        try:
            results[mode] = asyncio.run(_measure(port, codes, followers, token))
        finally:
            process.terminate()
            process.wait(10)
    for mode, r in results.items():
        report.note(
            name, f"{mode} poller: every follower connected (stream open, first event), s", f"{r['connected']:.1f}"
        )
        report.note(
            name, f"{mode} poller: report to event p50 / p95 / max, ms (target p95 <= 1000)", _ms(r["latencies"])
        )
        report.note(name, f"{mode} poller: events lost (none within 15 s)", r["lost"])
        report.note(name, f"{mode} poller: a report's server time p50 / p95 / max, ms", _ms(r["reported"]))
        report.note(
            name,
            f"{mode} poller: report to PAGE, {PAGE_CUPS} cups reporting, each follower fetching its page at its"
            " event, p50 / p95 / max, ms (target p95 <= 1000)",
            _ms(r["pages"]),
        )
        report.note(
            name, f"{mode} poller: that page fetch alone (all at once), p50 / p95 / max, ms", _ms(r["fragments"])
        )
        report.note(
            name, f"{mode} poller: a join's SERVER time p50 / p95 / max, ms (target p95 <= 20)", _ms(r["served"], 1)
        )
        report.note(name, f"{mode} poller: a join, client-observed, p50 / p95 / max, ms", _ms(r["joins"], 1))
    report.note(
        name,
        "load average before / after (1, 5, 15 min)",
        f"{' '.join(load)} / {' '.join(open('/proc/loadavg').read().split()[:3])}",
    )
    if {"per-client", "shared"} <= set(results):
        for what, key in (("report to event", "latencies"), ("a join's server time", "served")):
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
