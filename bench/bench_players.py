"""Players online: F players (default 1,000, BENCH_PLAYERS_FOLLOWERS) signed in, each following their own
cup's event stream (`/play/<code>/events`) on C live cups of 32 (default 32, BENCH_PLAYERS_CUPS), served
by a real uvicorn process configured as `tourney web` configures it (`flows/cli/web.server`: its pool,
its protocol; one process: the streams are async generators on its event loop, no thread is held by a
follower).

First, in process (the app over httpx's ASGI transport): a join (one cup joined one at a time, another
8 at a time): its SQL statements (`before_cursor_execute`), the process's CPU ms, and where its time goes
around the cup's row lock: the wait of the `UPDATE` that takes it, and how long it is held (that
statement's end to the commit's end); a cup's event, built once per change for all its followers
(`read_cup` and `CupParts`, what the stream's build does): statements, CPU, the bytes a follower gets;
and a follower's page fetch (`GET /play/<code>`, what the page did at each event before): statements, CPU.

Then, with every follower connected to the server:
- a join's time: each follower joins its cup through `POST /api/v1/pusoy/{code}/entries`, two ways side
  by side: half 8 at a time back to back (a closed loop that keeps the server busy: its time there is
  the queue's, 8 × the server's CPU per join), the other half as players come, at JOIN_RATE a second
  (default 25, BENCH_PLAYERS_JOIN_RATE: seeded exponential gaps, each join sent at its time whether or
  not the ones before are answered: 500 players in about 20 s). The SERVER time is measured inside the server (a `server-timing` header the bench's server adds: the
  app's time from the request read to the answer's start, thread-pool and lock waits included), and
  beside it the join's own CPU there (`cpu`: its handler's worker thread, `time.thread_time` across the
  API operation); the client's time (loopback and the client's own event loop, shared with 1,000
  streams) beside it, and the server process's CPU per join (its cup's event, built and sent to the cup's followers, included). The
  join that takes a cup's last seat also draws its seats.
- report to page: a game server reports one table's game on every cup at once (W waves, default 3,
  BENCH_PLAYERS_WAVES); for each follower, the time from its cup's report being sent to the first event
  of its stream with the cup's new version and the page's parts (the standings, my table): what the page
  swaps in, with no fetch (a report through the API wakes its cup's stream at once). Then the two ways
  side by side on P cups (default 8, BENCH_PLAYERS_PAGE_CUPS: 250 followers), alternating, R times each
  (default 2, BENCH_PLAYERS_PAGE_ROUNDS): the event alone (now), and the old way as the baseline, each
  follower fetching its page (`GET /play/<code>`) at its event as `static/live.js` did; the server
  process's CPU seconds per wave of each.
p50/p95/max over every follower and wave; no targets are asserted. `BENCH_PLAYERS_MODES=per-client,shared`
adds the naive way (a poller per follower) beside the shared poller (bench_web compares the two too)."""

from __future__ import annotations

import asyncio
import json
import math
import os
import random
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
PAGE_ROUNDS = int(os.environ.get("BENCH_PLAYERS_PAGE_ROUNDS") or 2)
MODES = (os.environ.get("BENCH_PLAYERS_MODES") or "shared").split(",")
JOIN_RATE = float(os.environ.get("BENCH_PLAYERS_JOIN_RATE") or 25)  # the second half's joins a second
CAPACITY = 32

SERVER = """
import contextvars, sys, time
from flows.cli.web import server
from flows.web.api import core

SPENT = contextvars.ContextVar("spent")  # the request's own holder, seen by its worker thread too
handled = core.Api.run


def run(self, *args, **kwargs):
    # the handler's own CPU (its worker thread's, `time.thread_time`), across the API operation
    start = time.thread_time()
    try:
        return handled(self, *args, **kwargs)
    finally:
        SPENT.get({})["cpu"] = time.thread_time() - start


def timed(app):
    # the app's own time of every request, from its request read to its answer's start, and the
    # handler's CPU: `server-timing: app;dur=…, cpu;dur=…`
    async def asgi(scope, receive, send):
        if scope["type"] != "http":
            return await app(scope, receive, send)
        start, spent = time.perf_counter(), {}
        SPENT.set(spent)

        async def sending(message):
            if message["type"] == "http.response.start":
                took = f"app;dur={1000 * (time.perf_counter() - start):.2f}"
                if "cpu" in spent:
                    took += f", cpu;dur={1000 * spent['cpu']:.2f}"
                message = {**message, "headers": [*message.get("headers", []), (b"server-timing", took.encode())]}
            await send(message)

        await app(scope, receive, sending)

    return asgi


core.Api.run = run
server("127.0.0.1", int(sys.argv[1]), timed, shared_poller=sys.argv[2] == "shared", join_limit=1000).run()
"""


def _server_ms(response: httpx.Response, what: str = "app") -> float:
    """A time of the bench's server's `server-timing` header, in seconds: `app` (the request's wall time
    inside the server) or `cpu` (its handler's CPU)."""
    timings = dict(t.strip().split(";dur=") for t in response.headers["server-timing"].split(","))
    return float(timings[what]) / 1000


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
    """One cup joined one at a time (statements, CPU and wall per join), another 8 at a time (the lock);
    the first cup's first game reported, a follower's page fetch and the cup's event build."""
    from flows.web.app import create_app

    codes, players, token = await asyncio.to_thread(_world, "in-process", 2, 2 * CAPACITY)
    auth = web_auth()
    app = create_app(engine, join_limit=1000)
    out: dict = {"statements": [], "cpu": [], "wall": [], "start_statements": 0}
    async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://bench") as client:

        async def join(handle: str, secret: str, code: str) -> httpx.Response:
            headers = {"cookie": f"{COOKIE}={auth.cookie(secret)}", CSRF_HEADER: auth.csrf(secret)}
            r = await client.post(f"/api/v1/pusoy/{code}/entries", headers=headers)
            assert r.status_code == 200, r.text
            return r

        parts = _parts()
        out["join_build"], out["join_build_statements"] = [], 0
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
            statements, took, _ = await asyncio.to_thread(_built, engine, parts, codes[0])  # the join's event
            out["join_build"].append(took)
            out["join_build_statements"] = max(out["join_build_statements"], statements)
        tables = await asyncio.to_thread(_tables, codes[:1])
        body = {"round": 1, "table": 1, "game": 1, "finishes": tables[codes[0]][1]}
        server = {"authorization": f"Bearer {token}"}
        assert (await client.post(f"/api/v1/pusoy/{codes[0]}/reports", json=body, headers=server)).status_code == 200
        out["page_statements"], out["page_cpu"] = [], []
        for handle, secret, code in [p for p in players if p[2] == codes[0]][:10]:  # round 1 running: my page
            with StatementCounter(engine) as counted:
                cpu = time.process_time()
                r = await client.get(f"/play/{code}", headers={"cookie": f"{COOKIE}={auth.cookie(secret)}"})
                cpu = time.process_time() - cpu
            assert r.status_code == 200, r.text
            out["page_statements"].append(counted.count)
            out["page_cpu"].append(cpu)
        out["build"] = await asyncio.to_thread(_build, engine, codes[0])
        gate = asyncio.Semaphore(8)

        async def gated(player) -> None:
            async with gate:
                await join(*player)

        with LockClock(engine) as lock:
            await asyncio.gather(*(gated(p) for p in players if p[2] == codes[1]))
    out["waits"], out["held"] = lock.waits, lock.held
    return out


def _built(engine, parts, code: str) -> tuple[int, float, dict]:
    """One build of the cup's stream (`cup_events`' build: the version, `read_cup`, `CupParts`): its
    statements, CPU seconds and state."""
    from domain.public.services import views
    from domain.pusoy.services import views as cup_views

    with StatementCounter(engine) as counted:
        start = time.process_time()
        with bootstrap.unit_of_work() as session:
            state = {"version": views.pusoy_version(session, code), "at": datetime.now(UTC)}
            read = cup_views.read_cup(session, code)
        state |= parts(read)
        return counted.count, time.process_time() - start, state


def _parts():
    from flows.web.play import CupParts
    from flows.web.site import environment

    return CupParts(environment("ru", bootstrap.settings().public_url()))


def _build(engine, code: str) -> dict:
    """What the cup's stream builds once per change for all its followers: its statements; its CPU
    seconds the first time (every part rendered) and after each of 4 games reported at other tables
    (only the parts that changed); the bytes of the event one follower gets (`Topic.message`)."""
    from domain.pusoy.services import reports
    from flows.web.live import PARTS, Topic, encode

    parts, tables, cpu = _parts(), _tables([code])[code], []
    for table in range(1, 6):
        if table > 1:  # the next change: a game reported at another table
            with bootstrap.unit_of_work() as session:
                finishes = [(p, n) for n, p in enumerate(tables[table], start=1)]
                now = datetime.now(UTC)
                reports.report(
                    session, code, round_no=1, table=table, game=1, finishes=finishes, two_of_diamonds=None, now=now
                )
        statements, took, state = _built(engine, parts, code)
        cpu.append(took)
    topic = Topic(code, lambda: None, lambda now: {})
    topic.parts, topic.shared = state.pop(PARTS), encode(state)
    one = topic.message(next(p for p in topic.parts if p))
    return {"statements": statements, "cold": cpu[0], "warm": cpu[1:], "bytes": len(one)}


class Follower:
    def __init__(self, handle: str, secret: str, code: str) -> None:
        self.handle, self.secret, self.code = handle, secret, code
        self.events: list[tuple[float, str, bool]] = []  # arrival, version, whether it carries my page's parts
        self.ready = asyncio.Event()
        self.waiting: tuple[str, asyncio.Future] | None = None

    def expect(self) -> asyncio.Future:
        """The next event of another version than the last one come (its arrival, version, parts)."""
        future = asyncio.get_running_loop().create_future()
        self.waiting = (self.events[-1][1], future)
        return future

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
                    data = json.loads(line[6:])  # what the page does first with an event
                    self.events.append((time.perf_counter(), data["version"], "standings" in data.get("cup", {})))
                    self.ready.set()
                    if self.waiting and self.waiting[0] != data["version"] and not self.waiting[1].done():
                        self.waiting[1].set_result(self.events[-1])
        finally:
            writer.close()


def _cpu(pid: int) -> float:
    """The process's CPU seconds so far (user and system, /proc/<pid>/stat)."""
    stat = open(f"/proc/{pid}/stat").read()
    fields = stat[stat.rindex(")") + 2 :].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _pct(values: list[float]) -> tuple[float, float, float]:
    values = sorted(values)
    return statistics.median(values), values[max(0, math.ceil(0.95 * len(values)) - 1)], values[-1]


async def _measure(port: int, pid: int, codes, followers, token) -> dict:
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
    limits = httpx.Limits(max_connections=64)
    joins: dict[str, list[float]] = {"burst": [], "paced": []}
    served: dict[str, list[float]] = {"burst": [], "paced": []}
    handled: dict[str, list[float]] = {"burst": [], "paced": []}
    half = len(flock) // 2
    async with httpx.AsyncClient(base_url=base, timeout=60, limits=limits) as client:
        gate = asyncio.Semaphore(8)

        async def join(f: Follower, way: str) -> None:
            headers = {"cookie": f"{COOKIE}={auth.cookie(f.secret)}", CSRF_HEADER: auth.csrf(f.secret)}
            start = time.perf_counter()
            r = await client.post(f"/api/v1/pusoy/{f.code}/entries", headers=headers)
            joins[way].append(time.perf_counter() - start)
            assert r.status_code == 200, r.text
            served[way].append(_server_ms(r))
            handled[way].append(_server_ms(r, "cpu"))

        async def gated(f: Follower) -> None:
            async with gate:
                await join(f, "burst")

        started, cpu = time.perf_counter(), _cpu(pid)
        await asyncio.gather(*(gated(f) for f in flock[:half]))  # 8 at a time, back to back: the server saturated
        join_cpu = (_cpu(pid) - cpu) / half
        print(f"  {half} joins 8 at a time in {time.perf_counter() - started:.1f} s", flush=True)
        # the others as players come: arrivals at JOIN_RATE a second (seeded exponential gaps, open loop:
        # a join starts at its time whether or not the ones before it are answered)
        rng, at, arrivals = random.Random(29), 0.0, []
        started = time.perf_counter()
        for f in flock[half:]:
            at += rng.expovariate(JOIN_RATE)
            await asyncio.sleep(max(0.0, started + at - time.perf_counter()))
            arrivals.append(asyncio.create_task(join(f, "paced")))
        await asyncio.gather(*arrivals)
        print(
            f"  {len(flock) - half} joins at {JOIN_RATE:g} a second in {time.perf_counter() - started:.1f} s",
            flush=True,
        )
    await asyncio.to_thread(_fill, codes)  # the seats no follower holds: the cups start
    await asyncio.sleep(2.0)
    tables = await asyncio.to_thread(_tables, codes)
    assert WAVES + 2 * PAGE_ROUNDS <= CAPACITY // 4, "one table of round 1 a wave, and no more tables"
    out: dict = {"connected": connected, "joins": joins, "served": served, "handled": handled, "join_cpu": join_cpu}
    out |= {"reported": [], "lost": 0, "partless": 0}
    server = {"authorization": f"Bearer {token}"}
    # a connection idle since the last wave is dropped here before the server drops it (uvicorn: 5 s)
    pages_of = httpx.Limits(max_connections=len(flock), max_keepalive_connections=len(flock), keepalive_expiry=2.0)
    async with (
        httpx.AsyncClient(base_url=base, timeout=60, headers=server) as game_server,
        httpx.AsyncClient(base_url=base, timeout=120, limits=pages_of) as browsers,
    ):
        waves = iter(range(1, CAPACITY // 4 + 1))

        async def wave(cups: list[str], fetch: bool) -> tuple[list[float], list[float], float]:
            """One table's game reported on each of `cups` at once; each of their followers' report to
            page (the event with the new version; `fetch`: then its page fetched, as the old live.js did),
            that fetch alone, and the server's CPU seconds for the wave."""
            table, sent = next(waves), {}
            watched = {f: f.expect() for f in flock if f.code in cups}
            pages: list[float] = []
            fetches: list[float] = []
            cpu = _cpu(pid)

            async def report(code: str) -> None:
                body = {"round": 1, "table": table, "game": 1, "finishes": tables[code][table]}
                sent[code] = time.perf_counter()
                r = await game_server.post(f"/api/v1/pusoy/{code}/reports", json=body)
                assert r.status_code == 200, r.text
                if not fetch:
                    out["reported"].append(_server_ms(r))

            async def page(f: Follower) -> None:
                try:
                    at, _, parts = await asyncio.wait_for(watched[f], 15 if not fetch else 150)
                except TimeoutError:
                    out["lost"] += 1
                    return
                out["partless"] += not parts
                if fetch:
                    start = time.perf_counter()
                    cookie = {"cookie": f"{COOKIE}={auth.cookie(f.secret)}"}
                    r = await browsers.get(f"/play/{f.code}", headers=cookie)
                    assert r.status_code == 200, r.text
                    fetches.append(time.perf_counter() - start)
                    at = time.perf_counter()
                pages.append(at - sent[f.code])

            await asyncio.gather(*(report(c) for c in cups), *(page(f) for f in watched))
            await asyncio.sleep(1.0)
            return pages, fetches, _cpu(pid) - cpu

        out["now"], out["now_cpu"] = [], []
        for _ in range(WAVES):  # every cup at once, the page as it is now: the event alone
            pages, _, cpu = await wave(codes, fetch=False)
            out["now"] += pages
            out["now_cpu"].append(cpu)
        print(f"  {WAVES} waves of {len(codes)} reports: every follower's event", flush=True)
        paged = codes[:PAGE_CUPS]
        out |= {"paged": [], "paged_cpu": [], "old": [], "old_cpu": [], "fetches": []}
        for _ in range(PAGE_ROUNDS):  # P cups, the two ways alternating: now, then the old way
            pages, _, cpu = await wave(paged, fetch=False)
            out["paged"] += pages
            out["paged_cpu"].append(cpu)
            started = time.perf_counter()
            pages, fetches, cpu = await wave(paged, fetch=True)
            out["old"] += pages
            out["old_cpu"].append(cpu)
            out["fetches"] += fetches
            print(f"  the old way: every page fetched in {time.perf_counter() - started:.1f} s", flush=True)
    for t in tasks:
        t.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)
    return out


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


def _s(values: list[float]) -> str:
    return ", ".join(f"{v:.2f}" for v in values)


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
        name,
        "the join's event, built once for the cup's followers: SQL statements; CPU ms p50 / p95 / max",
        f"{here['join_build_statements']}; {_ms(here['join_build'], 1)}",
    )
    name = "players: a cup's event, in process (round 1 running, a game reported; 32 entrants)"
    build = here["build"]
    report.note(name, "built once per change for every follower: SQL statements", build["statements"])
    report.note(name, "built once: CPU ms the first time (every part rendered)", f"{1000 * build['cold']:.1f}")
    report.note(name, "built once: CPU ms after a game at another table, p50 / p95 / max", _ms(build["warm"], 1))
    report.note(name, "the event a follower gets, bytes", build["bytes"])
    report.note(
        name, "the old way, a follower's page fetch at each event: SQL statements", max(here["page_statements"])
    )
    report.note(name, "the old way, a follower's page fetch: CPU ms p50 / p95 / max", _ms(here["page_cpu"], 1))
    name = f"players: {FOLLOWERS} followers of {CUPS} live cups"
    results = {}
    for mode in MODES:
        codes, followers, token = _world(mode)
        process, port = serve(SERVER, mode)
        try:
            results[mode] = asyncio.run(_measure(port, process.pid, codes, followers, token))
        finally:
            process.terminate()
            process.wait(10)
    paged = FOLLOWERS * PAGE_CUPS // CUPS
    for mode, r in results.items():
        report.note(
            name, f"{mode} poller: every follower connected (stream open, first event), s", f"{r['connected']:.1f}"
        )
        for way, said in (("paced", f"arriving at {JOIN_RATE:g} a second"), ("burst", "8 at a time, back to back")):
            report.note(
                name,
                f"{mode} poller: a join's SERVER time, {said}, p50 / p95 / max, ms (target p95 <= 20)",
                _ms(r["served"][way], 1),
            )
            report.note(
                name,
                f"{mode} poller: a join's CPU in the server (its handler's thread), {said}, p50 / p95 / max, ms",
                _ms(r["handled"][way], 1),
            )
            report.note(
                name, f"{mode} poller: a join, client-observed, {said}, p50 / p95 / max, ms", _ms(r["joins"][way], 1)
            )
        report.note(
            name,
            f"{mode} poller: the server's CPU ms per join, 8 at a time (its cup's event built and sent included)",
            f"{1000 * r['join_cpu']:.1f}",
        )
        report.note(
            name,
            f"{mode} poller: report to PAGE, {CUPS} cups at once, {FOLLOWERS} followers (the event carrying the"
            " page's parts, no fetch), p50 / p95 / max, ms (target p95 <= 1000)",
            _ms(r["now"]),
        )
        report.note(
            name, f"{mode} poller: a report's server time ({CUPS} at once) p50 / p95 / max, ms", _ms(r["reported"])
        )
        report.note(name, f"{mode} poller: the server's CPU s per wave of {CUPS} reports", _s(r["now_cpu"]))
        report.note(
            name,
            f"{mode} poller: report to PAGE, {PAGE_CUPS} cups, {paged} followers, now (the event alone),"
            " p50 / p95 / max, ms",
            _ms(r["paged"]),
        )
        report.note(
            name,
            f"{mode} poller: report to PAGE, {PAGE_CUPS} cups, {paged} followers, the old way (each follower"
            " fetching its page at its event), p50 / p95 / max, ms",
            _ms(r["old"]),
        )
        report.note(name, f"{mode} poller: the old way's page fetch alone, p50 / p95 / max, ms", _ms(r["fetches"]))
        report.note(
            name,
            f"{mode} poller: the server's CPU s per wave of {PAGE_CUPS} reports, now / the old way",
            f"{_s(r['paged_cpu'])} / {_s(r['old_cpu'])}",
        )
        report.note(
            name,
            f"{mode} poller: events lost (none within 15 s) / without the page's parts",
            f"{r['lost']} / {r['partless']}",
        )
        report.compared(
            f"{name}: {mode} poller: report to page, {PAGE_CUPS} cups",
            ("each follower fetching its page at its event (the old live.js)", r["old"]),
            ("the event carries the page's parts", r["paged"]),
        )
    report.note(
        name,
        "load average before / after (1, 5, 15 min)",
        f"{' '.join(load)} / {' '.join(open('/proc/loadavg').read().split()[:3])}",
    )
    if {"per-client", "shared"} <= set(results):
        for what, pick in (
            ("report to page", lambda r: r["now"]),
            ("a join's server time, 8 at a time", lambda r: r["served"]["burst"]),
        ):
            report.compared(
                f"{name}: {what}",
                ("a poller per follower", pick(results["per-client"])),
                ("one shared poller per cup", pick(results["shared"])),
            )
