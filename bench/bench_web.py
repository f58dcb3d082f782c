"""Web: C club screens (default 5,000, BENCH_WEB_CLIENTS) following one running tournament's event stream
(`/t/<id>/events`), served as `tourney web` serves it (`server` of flows/cli/web.py: the hub shared per
tournament and woken by PostgreSQL's NOTIFY, flows/web/live.py), on 1 process beside 2 (two servers each
binding one loopback port with SO_REUSEPORT, as `tourney web --workers 2` does; the kernel spreads the
screens over them, and each process has its own LISTEN connection). Beside it, `default-gc`: the same
servers with Python's own garbage-collector thresholds and nothing frozen (the way before
`infra/web_server.collect_less`). BENCH_WEB_MODES=per-client adds the naive way (a topic and a poller
per screen: costly at thousands, so use few clients there).

How it is measured. The screens are not in the bench's process: K client processes (default 2,
BENCH_WEB_CLIENT_PROCESSES), each a lean asyncio client of raw sockets (an `asyncio.Protocol` per
connection: no HTTP library, no JSON parse, the clock's level read with a regular expression from each
message) holding C / K connections, connected at a pace (the server reads the tournament once for each
new stream). Once every screen has its first message the server processes' CPU (and the clients') is
read from /proc/<pid>/stat over an idle window (BENCH_WEB_IDLE_S, 5 s); then CHANGES level changes
(BENCH_WEB_CHANGES, 5) made through the clock service in the bench's process, GAP s apart (2), each
committing its NOTIFY. A change's time is from just before the service call (`time.monotonic`, the
same clock in every process) to a screen's arrival of the first message carrying the new level
(stamped when its bytes are read by the client process): p50 / p95 / max over every screen and change,
the commit and the client's own reading included. The clients' CPU during the changes is reported
beside the servers' (2 cores are shared by the servers, the clients and PostgreSQL, so it is part of
what is measured). Figures only: no timed assertion.

Knobs: BENCH_WEB_CLIENTS (5000), BENCH_WEB_CLIENT_PROCESSES (2), BENCH_WEB_IDLE_S (5), BENCH_WEB_CHANGES
(5), BENCH_WEB_GAP_S (2), BENCH_WEB_PROCESSES ("1,2": the server counts), BENCH_WEB_MODES ("shared,default-gc")."""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import time

from bench.harness import REUSEPORT, Report, end, serve_together
from flows import bootstrap
from tests.support import world

CLIENTS = int(os.environ.get("BENCH_WEB_CLIENTS") or 5000)
CLIENT_PROCESSES = int(os.environ.get("BENCH_WEB_CLIENT_PROCESSES") or 2)
IDLE_S = float(os.environ.get("BENCH_WEB_IDLE_S") or 5)
CHANGES = int(os.environ.get("BENCH_WEB_CHANGES") or 5)
GAP_S = float(os.environ.get("BENCH_WEB_GAP_S") or 2)
PROCESSES = [int(n) for n in (os.environ.get("BENCH_WEB_PROCESSES") or "1,2").split(",")]
MODES = (os.environ.get("BENCH_WEB_MODES") or "shared,default-gc").split(",")
TICK = os.sysconf("SC_CLK_TCK")

SERVER = (
    REUSEPORT
    + """
import sys
from flows.cli.web import server

port = int(sys.argv[1])
served = server("127.0.0.1", port, pid_header, shared_poller=sys.argv[2] != "per-client")
if sys.argv[2] == "default-gc":  # the way before: Python's own collector thresholds, nothing frozen
    import gc
    gc.unfreeze()
    gc.set_threshold(700, 10, 10)
served.run(sockets=[reuseport_socket(port)])
"""
)

# A client process: `python -c CLIENT PORT PATH COUNT`; prints "ready" once each of its COUNT screens has
# its first message, then, at a line on its stdin, one JSON line: every screen's arrivals (monotonic
# seconds, level) and how many screens each server process (its x-bench-pid) holds.
CLIENT = """
import asyncio, collections, json, re, sys, time

LEVEL, PID = re.compile(rb'"level":(\\d+)'), re.compile(rb"x-bench-pid: (\\d+)", re.I)
port, path, count = int(sys.argv[1]), sys.argv[2], int(sys.argv[3])


class Screen(asyncio.Protocol):
    def __init__(self, first):
        self.buffer, self.pid, self.got, self.first = b"", None, [], first

    def connection_made(self, transport):
        self.transport = transport
        transport.write(f"GET {path} HTTP/1.1\\r\\nHost: 127.0.0.1\\r\\nAccept: text/event-stream\\r\\n\\r\\n".encode())

    def data_received(self, data):
        now = time.monotonic()
        buffer = self.buffer + data
        if self.pid is None:
            if b"\\r\\n\\r\\n" not in buffer:
                self.buffer = buffer
                return
            head, _, buffer = buffer.partition(b"\\r\\n\\r\\n")
            found = PID.search(head)
            self.pid = found.group(1).decode() if found else "?"
        *events, self.buffer = buffer.split(b"\\n\\n")
        for event in events:
            at = event.find(b'"clock":')
            found = LEVEL.search(event, at) if at >= 0 else None
            if found:
                self.got.append((now, int(found.group(1))))
                if not self.first.done():
                    self.first.set_result(None)

    def connection_lost(self, exc):
        if not self.first.done():
            self.first.set_exception(ConnectionError("closed before its first message"))


async def main():
    loop = asyncio.get_running_loop()
    screens, firsts = [], []
    for n in range(count):
        first = loop.create_future()
        _, screen = await loop.create_connection(lambda: Screen(first), "127.0.0.1", port)
        screens.append(screen)
        firsts.append(first)
        if n % 25 == 24:
            await asyncio.sleep(0.03)
    await asyncio.wait_for(asyncio.gather(*firsts), 300)
    print("ready", flush=True)
    await loop.run_in_executor(None, sys.stdin.readline)
    split = collections.Counter(s.pid for s in screens)
    print(json.dumps({"arrivals": [s.got for s in screens], "split": split}), flush=True)
    for s in screens:
        s.transport.close()


asyncio.run(main())
"""


def _cpu_s(pid: int) -> float:
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICK  # utime + stime


def _loadavg() -> str:
    with open("/proc/loadavg") as f:
        return " ".join(f.read().split()[:3])


def _measure(engine, mode: str, processes: int) -> dict:
    t = world.running_poker(engine, players=30, handles=f"{mode}{processes}-{{n}}")  # handles unique per database
    path = f"/t/{t['id']}/events"
    servers, port = serve_together(SERVER, processes, mode, path="/static/web.css")
    counts = [
        CLIENTS // CLIENT_PROCESSES + (1 if n < CLIENTS % CLIENT_PROCESSES else 0) for n in range(CLIENT_PROCESSES)
    ]
    clients = [
        subprocess.Popen(
            [sys.executable, "-c", CLIENT, str(port), path, str(count)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )
        for count in counts
        if count
    ]
    try:
        start = time.monotonic()
        for c in clients:
            if c.stdout.readline().strip() != "ready":
                raise RuntimeError("a client process did not connect its screens")
        connected = time.monotonic() - start
        time.sleep(1.0)

        def cpu(ps) -> float:
            return sum(_cpu_s(p.pid) for p in ps)

        server0, client0, t0 = cpu(servers), cpu(clients), time.monotonic()
        time.sleep(IDLE_S)
        idle = time.monotonic() - t0
        idle_server, idle_client = (cpu(servers) - server0) / idle, (cpu(clients) - client0) / idle
        server0, client0 = cpu(servers), cpu(clients)
        changes: list[float] = []
        for n in range(CHANGES):
            changes.append(time.monotonic())
            world.clock(engine, t["id"], "next" if n % 2 == 0 else "prev")
            time.sleep(GAP_S)
        server_change, client_change = (cpu(servers) - server0) / CHANGES, (cpu(clients) - client0) / CHANGES
        dumps = []
        for c in clients:
            c.stdin.write("dump\n")
            c.stdin.flush()
            dumps.append(json.loads(c.stdout.readline()))
    finally:
        for c in clients:
            c.kill()
            c.wait()
        end(servers)
    screens = [arrivals for d in dumps for arrivals in d["arrivals"]]
    split: dict[str, int] = {}
    for d in dumps:
        for pid, n in d["split"].items():
            split[pid] = split.get(pid, 0) + n
    level = screens[0][0][1]
    latencies, each = [], []
    for n, changed_at in enumerate(changes):
        level += 1 if n % 2 == 0 else -1
        these = []
        for arrivals in screens:
            later = [at for at, lv in arrivals if at >= changed_at and lv == level]
            these.append(later[0] - changed_at if later else float("inf"))
        these.sort()
        each.append((these[0], these[int(0.95 * (len(these) - 1))]))
        latencies += these
    latencies.sort()
    return {
        "connected_s": connected,
        "idle_server": idle_server,
        "idle_client": idle_client,
        "server_change": server_change,
        "client_change": client_change,
        "p50": statistics.median(latencies),
        "p95": latencies[int(0.95 * (len(latencies) - 1))],
        "max": latencies[-1],
        "lost": sum(1 for x in latencies if x == float("inf")),
        "split": sorted(split.values(), reverse=True),
        "each": each,
    }


def run(report: Report) -> None:
    engine = bootstrap.engine()
    name = f"web: {CLIENTS} screens on one tournament's event stream ({CLIENT_PROCESSES} client processes)"
    report.note(name, "load average at the start (1, 5, 15 min)", _loadavg())
    results = {}
    for mode in MODES:
        for processes in PROCESSES:
            results[(mode, processes)] = r = _measure(engine, mode, processes)
            print(f"  {mode}, {processes} process(es): p95 {1000 * r['p95']:.0f} ms", flush=True)
    for (mode, processes), r in results.items():
        way = f"{mode}, {processes} process{'es' if processes > 1 else ''}"
        ms = f"{1000 * r['p50']:.0f} / {1000 * r['p95']:.0f} / {1000 * r['max']:.0f}"
        met = "met" if r["p95"] <= 0.25 else "not met"
        report.note(name, f"{way}: change-to-arrival p50 / p95 / max, ms (target p95 ≤ 250: {met})", ms)
        report.note(name, f"{way}: arrivals lost (none by the run's end)", r["lost"])
        report.note(
            name,
            f"{way}: each change's first arrival / p95, ms",
            ", ".join(f"{1000 * first:.0f} / {1000 * p95:.0f}" for first, p95 in r["each"]),
        )
        report.note(name, f"{way}: screens a server process holds", " + ".join(str(n) for n in r["split"]))
        report.note(name, f"{way}: all screens connected (first message each), s", round(r["connected_s"], 1))
        report.note(
            name,
            f"{way}: CPU while idle, % of a core, servers | clients",
            f"{100 * r['idle_server']:.1f} | {100 * r['idle_client']:.1f}",
        )
        report.note(
            name,
            f"{way}: CPU s per change, servers | clients",
            f"{r['server_change']:.2f} | {r['client_change']:.2f}",
        )
    for mode in MODES:
        if (mode, 1) in results and (mode, 2) in results:
            one, two = results[(mode, 1)], results[(mode, 2)]
            report.note(
                name,
                f"{mode}: change-to-arrival p95, 1 process / 2 processes",
                f"{one['p95'] / two['p95']:.2f}x" if two["p95"] else "-",
            )
    for processes in PROCESSES:
        if ("shared", processes) in results and ("default-gc", processes) in results:
            now, before = results[("shared", processes)], results[("default-gc", processes)]
            report.note(
                name,
                f"change-to-arrival p95, default-gc / shared, {processes} process{'es' * (processes > 1)}",
                f"{1000 * before['p95']:.0f} / {1000 * now['p95']:.0f} ms = {before['p95'] / now['p95']:.2f}x",
            )
    report.note(name, "load average at the end (1, 5, 15 min)", _loadavg())
