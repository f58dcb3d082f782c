"""Web: N server-sent-event clients (default 500, BENCH_WEB_CLIENTS) on one tournament's screen
stream, served by a real uvicorn process; two ways side by side: one shared poller per tournament
(what the app does) and one poller per client (the naive way).

Measured for each way: the server process's CPU per client while nothing changes (from
/proc/<pid>/stat over an idle window), and the change-to-arrival latency — a level change made
through the clock service at instant t, each client's first message after t carrying the new level,
p50/p95/max over every client and change."""

from __future__ import annotations

import asyncio
import json
import os
import statistics
import time

from bench.harness import Report, serve
from flows import bootstrap
from tests.support import world

CLIENTS = int(os.environ.get("BENCH_WEB_CLIENTS") or 500)
IDLE_S = float(os.environ.get("BENCH_WEB_IDLE_S") or 10)
CHANGES = int(os.environ.get("BENCH_WEB_CHANGES") or 5)
MODES = (os.environ.get("BENCH_WEB_MODES") or "per-client,shared").split(",")
TICK = os.sysconf("SC_CLK_TCK")

SERVER = """
import sys, uvicorn
from flows.web.app import create_app
uvicorn.run(create_app(shared_poller=sys.argv[2] == "shared"), host="127.0.0.1", port=int(sys.argv[1]),
            log_level="warning", access_log=False)
"""


def _cpu_s(pid: int) -> float:
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICK  # utime + stime


class Client:
    def __init__(self) -> None:
        self.levels: list[tuple[float, int]] = []  # (arrival, level)
        self.ready = asyncio.Event()

    async def run(self, port: int, path: str) -> None:
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        writer.write(f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: text/event-stream\r\n\r\n".encode())
        await writer.drain()
        try:
            while True:
                line = await reader.readline()
                if not line:
                    return
                if line.startswith(b"data: "):
                    state = json.loads(line[6:])
                    self.levels.append((time.perf_counter(), state["clock"]["level"]))
                    self.ready.set()
        finally:
            writer.close()


async def _measure(port: int, pid: int, tournament_id: int, engine) -> dict:
    clients = [Client() for _ in range(CLIENTS)]
    tasks = []
    for i, c in enumerate(clients):
        tasks.append(asyncio.create_task(c.run(port, f"/t/{tournament_id}/events")))
        if i % 50 == 49:
            await asyncio.sleep(0.05)
    await asyncio.wait_for(asyncio.gather(*(c.ready.wait() for c in clients)), 120)
    await asyncio.sleep(1.0)
    cpu0, t0 = _cpu_s(pid), time.perf_counter()
    await asyncio.sleep(IDLE_S)
    idle_cpu = (_cpu_s(pid) - cpu0) / (time.perf_counter() - t0)
    latencies: list[float] = []
    level = 1
    for n in range(CHANGES):
        action = "next" if n % 2 == 0 else "prev"
        changed_at = time.perf_counter()
        await asyncio.to_thread(world.clock, engine, tournament_id, action)
        level += 1 if action == "next" else -1
        deadline = time.perf_counter() + 15
        while time.perf_counter() < deadline:
            if all(any(at >= changed_at and lv == level for at, lv in c.levels) for c in clients):
                break
            await asyncio.sleep(0.02)
        for c in clients:
            arrivals = [at for at, lv in c.levels if at >= changed_at and lv == level]
            latencies.append((arrivals[0] - changed_at) if arrivals else float("inf"))
        await asyncio.sleep(1.0)
    for t in tasks:
        t.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)
    latencies.sort()
    return {
        "idle_cpu_share": idle_cpu,
        "p50": statistics.median(latencies),
        "p95": latencies[int(0.95 * (len(latencies) - 1))],
        "max": latencies[-1],
        "lost": sum(1 for x in latencies if x == float("inf")),
    }


def run(report: Report) -> None:
    engine = bootstrap.engine()
    name = f"web: {CLIENTS} SSE clients on one tournament's screen"
    results = {}
    for mode in MODES:
        t = world.running_poker(engine, players=30, handles=f"{mode}-{{n}}")  # handles unique per database
        process, port = serve(SERVER, mode)
        try:
            results[mode] = asyncio.run(_measure(port, process.pid, t["id"], engine))
        finally:
            process.terminate()
            process.wait(10)
    for mode, r in results.items():
        report.note(name, f"{mode} poller: server CPU while idle, % of a core", round(100 * r["idle_cpu_share"], 1))
        report.note(
            name,
            f"{mode} poller: server CPU while idle per client, ms per s",
            round(1000 * r["idle_cpu_share"] / CLIENTS, 3),
        )
        report.note(
            name,
            f"{mode} poller: change-to-arrival p50 / p95 / max, ms",
            f"{1000 * r['p50']:.0f} / {1000 * r['p95']:.0f} / {1000 * r['max']:.0f}",
        )
        report.note(name, f"{mode} poller: arrivals lost (no message within 15 s)", r["lost"])
