"""The desk (docs/desk.md#speed): 50 desks acting at once on one running tournament through `/api/v1`,
against a real uvicorn process served as `tourney web` serves it, on the bench's database. First, in
this process, each action's SQL statements and CPU ms for one request (tests/support/desk_budget.py:
the budget the tests pin): the desk state as the first desk after a change asks for it (its build) and
as another desk asks next (the build reused). Then one desk alone, and DESKS at once two ways side by
side, alternating: now (the desk state built once per change, `flows.web.api.desk.DeskStates`) and the
way before (every ask builds it, a second server with `DeskStates.get` patched to build). Each action's
time four ways: the SERVER's time inside the handler (`Api.run`: identify, CSRF, locate, allow, the use
case, the audit row, the commit; the target), the handler's own CPU (its worker thread's), the app's
(from the request entering the app to its answer starting: waiting for a worker thread included), all
sent back by the bench's server in a `Server-Timing` header, and the client's (request sent to answer
read, on localhost: the client's own event loop and queue included). The same desks then act at a
person's pace (BENCH_DESK_PACE): the target's measure (50 desks in use at once, each a person's steps).
Past one process (issue 41): each round of the burst also runs on 2 of the bench's servers listening on
one port with SO_REUSEPORT (each binds its own socket, as `tourney web --workers 2` does; the kernel
spreads the desks' connections over them), and the client's time of every step, 1 process beside 2, is
reported with their ratio and the target (every step's client p95 ≤ 100 ms) met or not.
Then a change reaching another desk: from a step's answer to the next message of the tournament's event
stream `/t/{id}/events` that a listening desk reads, both desks on one process, then the listening desk
on another process (its own port): the change reaches it by the commit's NOTIFY (flows/web/live.py);
target p95 ≤ 250 ms. And the desk page's weight (the shell, its scripts and the style sheet). Figures
only: no timed assertion anywhere."""

from __future__ import annotations

import asyncio
import os
import random
import statistics
import subprocess
import time
from datetime import UTC, datetime, timedelta

import httpx

from bench.harness import REUSEPORT, Report, end, serve, serve_together
from domain.store.db import unit_of_work
from flows import bootstrap
from tests.support import world
from tests.support.desk_budget import BUDGET, counted, seated_field
from tests.support.net import free_port
from tests.support.web_server import Server
from tests.support.world import access_world

DESKS = int(os.environ.get("BENCH_DESK_DESKS") or 50)
ROUNDS = int(os.environ.get("BENCH_DESK_ROUNDS") or 3)
FIELD = 30  # players seated before the desks start (the world's two make 32)
THREADS = os.environ.get("BENCH_DESK_THREADS") or ""  # the server's worker threads; "": anyio's default (40)
# at the floor's pace: a person's pause before each step, uniform in 0..2×PACE seconds (seeded)
PACE = float(os.environ.get("BENCH_DESK_PACE") or 5)
# The bench's server: the app as `tourney web` serves it (`flows.cli.web.server`), with each request's time in the handler and in
# the app, and the handler's own CPU, sent back as `Server-Timing: app;dur=…, handler;dur=…, cpu;dur=…` (ms); bound to
# its own SO_REUSEPORT socket (bench/harness.py REUSEPORT), so that two of it can serve one port.
SERVER = (
    REUSEPORT
    + """
import contextvars, sys, time, anyio
from flows.cli.web import server
from flows.web.api.core import Api

SPENT = contextvars.ContextVar("spent")  # the request's list of handler times (the worker thread sees it)
run = Api.run

def timed(self, *args, **kwargs):
    start, cpu = time.perf_counter(), time.thread_time()
    try:
        return run(self, *args, **kwargs)
    finally:
        spent = SPENT.get(None)
        if spent is not None:  # the handler's wall time, and its own CPU (its worker thread's)
            spent.append((time.perf_counter() - start, time.thread_time() - cpu))

Api.run = timed
if len(sys.argv) > 3 and sys.argv[3] == "every":  # the way before: every desk's ask builds its state
    from flows.web.api.desk import DeskStates
    DeskStates.get = lambda self, tournament_id, key, now, build: build()

def timing(app):
    async def asgi(scope, receive, send):
        if scope["type"] != "http":
            return await app(scope, receive, send)
        if len(sys.argv) > 2 and sys.argv[2]:
            anyio.to_thread.current_default_thread_limiter().total_tokens = int(sys.argv[2])
        spent, start = [], time.perf_counter()
        SPENT.set(spent)

        async def answer(message):
            if message["type"] == "http.response.start":
                total = 1000 * (time.perf_counter() - start)
                handler, cpu = (1000 * sum(x) for x in zip(*spent)) if spent else (0.0, 0.0)
                header = f"app;dur={total:.2f}, handler;dur={handler:.2f}, cpu;dur={cpu:.2f}".encode()
                message = message | {"headers": [*message.get("headers", []), (b"server-timing", header)]}
            await send(message)

        await app(scope, receive, answer)
    return asgi

port = int(sys.argv[1])
server("127.0.0.1", port, lambda app: pid_header(timing(app))).run(sockets=[reuseport_socket(port)])
"""
)
WAYS = ("handler", "cpu", "app", "client")


def _loadavg() -> str:
    with open("/proc/loadavg") as f:
        return " ".join(f.read().split()[:3])


def _serve(way: str = "once") -> tuple[subprocess.Popen, str]:
    """The bench's server; `way` "every": each desk state asked for is built (the way before the one
    build per change of `flows.web.api.desk.DeskStates`)."""
    process, port = serve(SERVER, THREADS, way)
    return process, f"http://127.0.0.1:{port}"


def _serve_two() -> tuple[list[subprocess.Popen], str]:
    """Two of the bench's servers on one port, as `tourney web --workers 2` serves it: each binds its
    own socket with SO_REUSEPORT and the kernel spreads the desks' connections over them."""
    processes, port = serve_together(SERVER, 2, THREADS, "once")
    return processes, f"http://127.0.0.1:{port}"


def _p(values: list[float], q: float) -> float:
    values = sorted(values)
    return values[int(q * (len(values) - 1))]


def _server_timing(response: httpx.Response) -> dict[str, float]:
    parts = (p.strip().split(";dur=") for p in response.headers["server-timing"].split(","))
    return {name: float(ms) / 1000 for name, ms in parts}


async def _desk(client, w, t: int, n: int, timings: dict[str, dict[str, list[float]]], pause=None) -> None:
    """One desk's round: read the state, a walk-in arrives, read again, the cashier settles them;
    `pause()`: the seconds a person takes before each step (None: none, the burst)."""
    floor, cashier = w.headers("floor"), w.headers("cashier")

    async def timed(action, method, path, headers, body=None):
        if pause is not None:
            await asyncio.sleep(pause())
        start = time.perf_counter()
        r = await client.request(method, "/api/v1" + path, json=body, headers=headers)
        spent = _server_timing(r) | {"client": time.perf_counter() - start}
        for way in WAYS:
            timings.setdefault(action, {}).setdefault(way, []).append(spent[way])
        assert r.status_code == 200, r.text
        return r.json()

    await timed("desk.state", "GET", f"/desk/tournaments/{t}", floor)
    body = {"name": f"Desk Player {n}", "handle": f"desk{n}", "birth_date": "1990-01-01"}
    made = await timed("desk.arrive", "POST", f"/desk/tournaments/{t}/arrivals", body=body, headers=floor)
    await timed("desk.state", "GET", f"/desk/tournaments/{t}", cashier)
    amount = made["owed"]["input"]
    await timed(
        "desk.settle",
        "POST",
        f"/desk/tournaments/{t}/settlements",
        cashier,
        {"player": str(made["player_id"]), "amount": amount},
    )


async def _round(url, w, t, desks: int, first: int, pause=None) -> tuple[float, dict[str, dict[str, list[float]]]]:
    timings: dict[str, dict[str, list[float]]] = {}
    limits = httpx.Limits(max_connections=desks + 4)
    async with httpx.AsyncClient(base_url=url, limits=limits, timeout=60) as client:
        start = time.perf_counter()
        await asyncio.gather(*(_desk(client, w, t, first + i, timings, pause) for i in range(desks)))
        return time.perf_counter() - start, timings


def _in_process(report: Report, engine, w, t: int, repeat: int = 5) -> None:
    """Each action's statements and CPU ms (the process's: the server's thread and the client's) for one
    request, served in this process on the bench's engine; the median of `repeat` requests."""
    from flows.web.app import create_app

    name = "desk: one request in process (statements / CPU ms, median of 5)"
    with Server(create_app(engine), free_port()) as server, httpx.Client(base_url=server.url, timeout=60) as http:

        def call(who, method, path, body=None):
            r = http.request(method, "/api/v1" + path, json=body, headers=w.headers(who))
            assert r.status_code == 200, r.text
            return r.json()

        state = f"/desk/tournaments/{t}"
        for who in ("floor", "cashier"):
            call(who, "GET", state)  # warm: imports, compiled statements, each token's last-use write
        runs: dict[str, list[tuple[int, float]]] = {}
        for n in range(repeat):
            # the floor's desk asks first after the last step's change (the build), the counter's next
            for label, who in (("desk.state", "floor"), ("desk.state (another desk, no change)", "cashier")):
                _, statements, cpu = counted(engine, lambda who=who: call(who, "GET", state))
                runs.setdefault(label, []).append((statements, cpu))
            walk_in = {"name": f"Counted Player {n}", "handle": f"counted{n}", "birth_date": "1990-01-01"}
            made, statements, cpu = counted(engine, lambda: call("floor", "POST", f"{state}/arrivals", walk_in))
            runs.setdefault("desk.arrive", []).append((statements, cpu))
            settle = {"player": str(made["player_id"]), "amount": made["owed"]["input"]}
            _, statements, cpu = counted(engine, lambda: call("cashier", "POST", f"{state}/settlements", settle))
            runs.setdefault("desk.settle", []).append((statements, cpu))
        _encoders(report, engine, lambda: call("floor", "GET", state))
    for label, values in runs.items():
        statements = max(s for s, _ in values)
        cpu = statistics.median(c for _, c in values)
        report.note(name, f"{label}: statements (budget {BUDGET[label]}) / CPU ms", f"{statements} / {cpu:.1f}")


async def _propagation(
    url, w, t: int, changes: int, listen_url: str | None = None, handles: str = "late"
) -> list[float]:
    """A listening desk on the event stream (of `listen_url`'s process, else `url`'s); another desk's
    arrivals through `url`, one at a time: from each step's answer to the listener's first message
    after the step was sent (0 when that message was read before the answer)."""
    arrivals: list[float] = []
    got = asyncio.Event()

    async def listen():
        async with httpx.AsyncClient(base_url=listen_url or url, timeout=None) as client:
            async with client.stream("GET", f"/t/{t}/events", headers={"accept": "text/event-stream"}) as r:
                async for line in r.aiter_lines():
                    if line.startswith("data: "):
                        arrivals.append(time.perf_counter())
                        got.set()

    task = asyncio.create_task(listen())
    await asyncio.wait_for(got.wait(), 30)
    await asyncio.sleep(0.5)
    lags = []
    async with httpx.AsyncClient(base_url=url, timeout=60) as client:
        for n in range(changes):
            body = {"name": f"Late Player {handles} {n}", "handle": f"{handles}{n}", "birth_date": "1990-01-01"}
            sent = time.perf_counter()
            r = await client.post(f"/api/v1/desk/tournaments/{t}/arrivals", json=body, headers=w.headers("floor"))
            done = time.perf_counter()
            assert r.status_code == 200, r.text
            deadline = done + 10
            while time.perf_counter() < deadline and not any(a >= sent for a in arrivals):
                await asyncio.sleep(0.01)
            later = [a for a in arrivals if a >= sent]  # an event read before the answer was: 0
            lags.append(max(0.0, later[0] - done) if later else float("inf"))
            await asyncio.sleep(0.3)
    task.cancel()
    await asyncio.gather(task, return_exceptions=True)
    return lags


def _weight(url, w, t: int) -> dict[str, int]:
    with httpx.Client(base_url=url, timeout=30) as client:
        sized = {}
        page = client.get(f"/desk/t/{t}", headers=w.headers("floor"))
        sized["shell"] = len(page.content)
        for path in ("/static/desk.js", "/static/desk_keys.js", "/static/web.css"):
            sized[path] = len(client.get(path).content)
        state = client.get(f"/api/v1/desk/tournaments/{t}", headers=w.headers("floor"))
        sized["desk state (JSON)"] = len(state.content)
    return sized


def _encoders(report: Report, engine, read, repeat: int = 20) -> None:
    """The desk state's CPU ms two ways, alternating: the answer made JSON-able by FastAPI's
    `jsonable_encoder`, beside `plain` (flows/web/api/core.py, the same values) as the API does."""
    from fastapi.encoders import jsonable_encoder

    from flows.web.api import core

    fast, cpu = core.plain, {"jsonable_encoder": [], "plain": []}
    try:
        for _ in range(repeat):
            for name, encode in (("jsonable_encoder", jsonable_encoder), ("plain", fast)):
                core.plain = encode
                cpu[name].append(counted(engine, read)[2])
    finally:
        core.plain = fast
    before, now = (statistics.median(cpu[k]) for k in ("jsonable_encoder", "plain"))
    report.note(
        "desk: the answer made JSON-able (desk.state, CPU ms a request, median of 20 alternating)",
        "jsonable_encoder | plain | ratio",
        f"{before:.1f} | {now:.1f} | {before / now:.2f}x",
    )


def _fresh(engine, w) -> int:
    """Another running tournament of the desks' club, FIELD players seated: the paced desks' own, so its
    field is a club's (FIELD + 2 + DESKS players by its end), not the bursts' (hundreds)."""
    with unit_of_work(engine) as session:
        t = world.tournament(
            session, club_id=w.club_a, start=datetime.now(UTC) - timedelta(minutes=5), late_reg=timedelta(hours=1)
        )
        world.enter(session, t, name="Paced Player")
        tournament_id = t.id
    seated_field(engine, tournament_id, FIELD + 1, handles="paced")
    return tournament_id


def _paced(report: Report, url: str, w, t: int, first: int) -> None:
    """The same DESKS desks at a person's pace (a pause of 0..2×PACE s before each step, so the
    server sees about DESKS / PACE steps a second), beside the burst above: the same steps, each
    action's time the same three ways. The burst asks the interpreter for all of a round's CPU at
    once, so its queue is the round's CPU time (Little's law) whatever the handler costs; a pace shows
    what a desk waits while 50 people work."""
    rng = random.Random(29)
    wall, got = asyncio.run(_round(url, w, t, DESKS, first, pause=lambda: rng.uniform(0, 2 * PACE)))
    name = f"desk: {DESKS} desks at a person's pace (a step every {PACE:g} s a desk on average)"
    for action in sorted(got):
        for way in WAYS:
            m = got[action][way]
            target = " (target p95 ≤ 50)" if way == "handler" else ""
            report.note(
                name,
                f"{action}: {way} p50 / p95 ms{target}",
                f"{1000 * statistics.median(m):.1f} / {1000 * _p(m, 0.95):.1f}",
            )
    report.note(name, "steps a second, on average", round(4 * DESKS / wall, 1))


def _two_processes(report: Report, one, two, walls) -> None:
    """The burst on 1 process beside 2 (SO_REUSEPORT): the client's time (the target's measure, ≤ 100 ms
    at p95) and the handler's, p50 / p95, and 1 / 2 of the p95s."""
    name = f"desk: {DESKS} desks at once, 1 process beside 2 on one port (SO_REUSEPORT)"
    for action in sorted(two):
        for way in ("client", "handler"):
            a, b = one[action][way], two[action][way]
            report.note(
                name,
                f"{action}: {way} p50 / p95 ms, 1 process | 2 processes | p95 1 / 2",
                f"{1000 * statistics.median(a):.1f} / {1000 * _p(a, 0.95):.1f} | "
                f"{1000 * statistics.median(b):.1f} / {1000 * _p(b, 0.95):.1f} | {_p(a, 0.95) / _p(b, 0.95):.2f}x",
            )
    every = {n: [v for action in got.values() for v in action["client"]] for n, got in (("1", one), ("2", two))}
    report.note(
        name,
        "every step: client p50 / p95 ms, 1 process | 2 processes | p95 1 / 2",
        " | ".join(f"{1000 * statistics.median(v):.1f} / {1000 * _p(v, 0.95):.1f}" for v in every.values())
        + f" | {_p(every['1'], 0.95) / _p(every['2'], 0.95):.2f}x",
    )
    for n, values in every.items():
        met = "met" if _p(values, 0.95) <= 0.1 else "not met"
        report.note(name, f"target: every step's client p95 ≤ 100 ms, {n} process{'es' * (n == '2')}", met)
    one_wall, two_wall = (statistics.median(walls[k]) for k in ("now", "2 processes"))
    report.note(
        name,
        "a round of the desks (4 steps each), median wall s, 1 process | 2 processes | 1 / 2",
        f"{one_wall:.2f} | {two_wall:.2f} | {one_wall / two_wall:.2f}x",
    )


def _lags(report: Report, name: str, lags: list[float], target_ms: int) -> None:
    p95 = _p(lags, 0.95)
    report.note(
        name,
        f"p50 / p95 / max, ms (target p95 ≤ {target_ms}: {'met' if p95 <= target_ms / 1000 else 'not met'})",
        f"{1000 * statistics.median(lags):.0f} / {1000 * p95:.0f} / {1000 * max(lags):.0f}",
    )


def run(report: Report) -> None:
    engine = bootstrap.engine()
    w = access_world(engine)
    t = w.tournament_a
    seated_field(engine, t, FIELD)
    report.note("desk: the machine", "load average at the start (1, 5, 15 min)", _loadavg())
    report.note("desk: the machine", "the server's worker threads", THREADS or "40 (anyio's default)")
    _in_process(report, engine, w, t)
    process, url = _serve()
    before, before_url = _serve("every")
    pair, pair_url = _serve_two()
    other, other_url = _serve()  # the listening desk's own process (its own port) for the change crossing over
    name = f"desk: {DESKS} desks at once on one running tournament"
    try:
        alone: dict[str, dict[str, list[float]]] = {}
        together: dict[str, dict[str, list[float]]] = {}
        every: dict[str, dict[str, list[float]]] = {}
        two: dict[str, dict[str, list[float]]] = {}
        walls: dict[str, list[float]] = {"now": [], "before": [], "2 processes": []}
        for r in range(ROUNDS):  # alternate, so the machine's noise hits each way
            _, one = asyncio.run(_round(url, w, t, 1, 10_000 + r))
            wall, many = asyncio.run(_round(url, w, t, DESKS, 1 + 3 * r * DESKS))
            walls["now"].append(wall)
            wall, paired = asyncio.run(_round(pair_url, w, t, DESKS, 1 + (3 * r + 2) * DESKS))
            walls["2 processes"].append(wall)
            wall, old = asyncio.run(_round(before_url, w, t, DESKS, 1 + (3 * r + 1) * DESKS))
            walls["before"].append(wall)
            for into, got in ((alone, one), (together, many), (every, old), (two, paired)):
                for action, ways in got.items():
                    for way, values in ways.items():
                        into.setdefault(action, {}).setdefault(way, []).extend(values)
        for action in sorted(together):
            for way in WAYS:
                a, m, b = alone[action][way], together[action][way], every[action][way]
                target = " (target p95 ≤ 50 at once)" if way == "handler" else ""
                report.note(
                    name,
                    f"{action}: {way} p50 / p95 ms, alone | {DESKS} at once{target} | {DESKS} at once, "
                    "every ask built (before)",
                    " | ".join(f"{1000 * statistics.median(v):.1f} / {1000 * _p(v, 0.95):.1f}" for v in (a, m, b)),
                )
        for way in ("now", "before"):
            report.note(
                name,
                f"{DESKS} desks' round (4 steps each), median wall, s: {way}",
                round(statistics.median(walls[way]), 2),
            )
        _two_processes(report, together, two, walls)
        _paced(report, url, w, _fresh(engine, w), first=1 + 3 * ROUNDS * DESKS)
        _lags(
            report,
            "desk: a change reaching another desk (event stream), both on one process",
            asyncio.run(_propagation(url, w, t, 20)),
            1000,
        )
        _lags(
            report,
            "desk: a change reaching another desk on another process (its NOTIFY; two ports)",
            asyncio.run(_propagation(url, w, t, 20, listen_url=other_url, handles="across")),
            250,
        )
        sizes = _weight(url, w, t)
        for part, size in sizes.items():
            report.note("desk: the page's weight", f"{part}, KB", round(size / 1024, 1))
        total = sum(v for k, v in sizes.items() if not k.startswith("desk state"))
        report.note(
            "desk: the page's weight", "shell + scripts + style sheet, KB (target ≤ 150)", round(total / 1024, 1)
        )
        report.note("desk: the machine", "load average at the end (1, 5, 15 min)", _loadavg())
    finally:
        end([process, before, other, *pair])
