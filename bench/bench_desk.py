"""The desk (docs/desk.md): 50 desks acting at once on one tournament through `/api/v1`, against a real
uvicorn process on the bench's database. Two ways side by side: one desk alone, then DESKS at once
(medians and their ratio), for each action's time as the desk sees it (request sent to answer read,
on localhost: the server's time plus a loopback round trip) — p50 and p95 per action. Then a change
reaching another desk: from a step's answer to the next message of the tournament's event stream
`/t/{id}/events` that a listening desk reads (p50/p95), and the desk page's weight (the shell, its
scripts and the style sheet). Figures only: no timed assertion anywhere."""

from __future__ import annotations

import asyncio
import os
import statistics
import subprocess
import time

import httpx

from bench.harness import Report, serve
from flows import bootstrap
from tests.support.world import access_world

DESKS = int(os.environ.get("BENCH_DESK_DESKS") or 50)
ROUNDS = int(os.environ.get("BENCH_DESK_ROUNDS") or 4)
SERVER = """
import sys, uvicorn
from flows.web.app import create_app
uvicorn.run(create_app(), host="127.0.0.1", port=int(sys.argv[1]), log_level="warning", access_log=False)
"""


def _serve() -> tuple[subprocess.Popen, str]:
    process, port = serve(SERVER)
    return process, f"http://127.0.0.1:{port}"


def _p(values: list[float], q: float) -> float:
    values = sorted(values)
    return values[int(q * (len(values) - 1))]


async def _desk(client, w, t: int, n: int, timings: dict[str, list[float]]) -> None:
    """One desk's round: read the state, a walk-in arrives, read again, the cashier settles them."""
    floor, cashier = w.headers("floor"), w.headers("cashier")

    async def timed(action, method, path, headers, body=None):
        start = time.perf_counter()
        r = await client.request(method, "/api/v1" + path, json=body, headers=headers)
        timings.setdefault(action, []).append(time.perf_counter() - start)
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


async def _round(url, w, t, desks: int, first: int) -> tuple[float, dict[str, list[float]]]:
    timings: dict[str, list[float]] = {}
    limits = httpx.Limits(max_connections=desks + 4)
    async with httpx.AsyncClient(base_url=url, limits=limits, timeout=60) as client:
        start = time.perf_counter()
        await asyncio.gather(*(_desk(client, w, t, first + i, timings) for i in range(desks)))
        return time.perf_counter() - start, timings


async def _propagation(url, w, t: int, changes: int) -> list[float]:
    """A listening desk on the event stream; another desk's arrivals, one at a time."""
    arrivals: list[float] = []
    got = asyncio.Event()

    async def listen():
        async with httpx.AsyncClient(base_url=url, timeout=None) as client:
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
            body = {"name": f"Late Player {n}", "handle": f"late{n}", "birth_date": "1990-01-01"}
            r = await client.post(f"/api/v1/desk/tournaments/{t}/arrivals", json=body, headers=w.headers("floor"))
            done = time.perf_counter()
            assert r.status_code == 200, r.text
            deadline = done + 10
            while time.perf_counter() < deadline and not any(a >= done for a in arrivals):
                await asyncio.sleep(0.01)
            later = [a for a in arrivals if a >= done]
            lags.append(later[0] - done if later else float("inf"))
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


def run(report: Report) -> None:
    engine = bootstrap.engine()
    w = access_world(engine)
    t = w.tournament_a
    process, url = _serve()
    name = f"desk: {DESKS} desks at once on one tournament"
    try:
        alone: dict[str, list[float]] = {}
        together: dict[str, list[float]] = {}
        walls = []
        for r in range(ROUNDS):  # alternate, so the machine's noise hits both
            _, one = asyncio.run(_round(url, w, t, 1, 10_000 + r))
            wall, many = asyncio.run(_round(url, w, t, DESKS, 1 + r * DESKS))
            walls.append(wall)
            for action, values in one.items():
                alone.setdefault(action, []).extend(values)
            for action, values in many.items():
                together.setdefault(action, []).extend(values)
        for action in sorted(together):
            a, m = statistics.median(alone[action]), statistics.median(together[action])
            report.note(
                name,
                f"{action}: median alone / {DESKS} at once, ms (ratio)",
                f"{1000 * a:.1f} / {1000 * m:.1f} ({m / a:.1f}x)",
            )
            report.note(
                name,
                f"{action}: p95 alone / {DESKS} at once, ms (target ≤ 50)",
                f"{1000 * _p(alone[action], 0.95):.1f} / {1000 * _p(together[action], 0.95):.1f}",
            )
        report.note(name, f"{DESKS} desks' round (4 steps each), median wall, s", round(statistics.median(walls), 2))
        lags = asyncio.run(_propagation(url, w, t, 20))
        report.note(
            "desk: a change reaching another desk (event stream)",
            "p50 / p95 / max, ms (target p95 ≤ 1000)",
            f"{1000 * statistics.median(lags):.0f} / {1000 * _p(lags, 0.95):.0f} / {1000 * max(lags):.0f}",
        )
        sizes = _weight(url, w, t)
        for part, size in sizes.items():
            report.note("desk: the page's weight", f"{part}, KB", round(size / 1024, 1))
        total = sum(v for k, v in sizes.items() if not k.startswith("desk state"))
        report.note(
            "desk: the page's weight", "shell + scripts + style sheet, KB (target ≤ 150)", round(total / 1024, 1)
        )
    finally:
        process.terminate()
        process.wait(10)
