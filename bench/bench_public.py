"""The public results page under load (issue 41; flows/web/cached.py, docs/web.md#caching): a running
tournament's `/t/<id>` served as `tourney web` serves it, on 1 process beside 2, the load from a separate
process (wrk, Debian's package: infra/setup-system.sh), keep-alive connections asking for gzip as a
browser does; requests a second and p95 of each. Two processes listen on one port with SO_REUSEPORT
(two `tourney web` servers, `server` of flows/cli/web.py, each binding the port itself; the kernel
spreads the connections). The same load on the page rendered for every request (a request with a
session cookie is: its header names the person) shows what rendering costs, and one client's requests
back to back, rendered beside kept, what one request costs. Target (issue 41): ≥ 1,000 requests a
second at p95 ≤ 50 ms on 2 processes.

Knobs: `BENCH_PUBLIC_SECONDS` (10, each load run), `BENCH_PUBLIC_CONNECTIONS` (16)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from contextlib import ExitStack, contextmanager
from datetime import UTC, datetime
from pathlib import Path

import httpx

from bench.harness import Report
from domain.access.services import accounts, signin
from domain.store.db import unit_of_work
from flows import bootstrap
from tests.support.net import free_port
from tests.support.world import knock_out, running_poker, web_auth

SECONDS = float(os.environ.get("BENCH_PUBLIC_SECONDS", "10"))
CONNECTIONS = int(os.environ.get("BENCH_PUBLIC_CONNECTIONS", "16"))
PLAYERS = 60
BUSTS = 20
SERVER = """
import socket, sys
from flows.cli.web import server

port = int(sys.argv[1])
listening = socket.socket(socket.AF_INET, socket.SOCK_STREAM, socket.IPPROTO_TCP)  # TCP_NODELAY by asyncio
listening.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
listening.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)  # the other process binds it too
listening.bind(("127.0.0.1", port))
server("127.0.0.1", port).run(sockets=[listening])
"""
# wrk's summary as one JSON line: requests, seconds, latency percentiles (µs), errors
REPORT_LUA = """
done = function(summary, latency, requests)
  local e = summary.errors
  io.write(string.format('{"requests": %d, "seconds": %.3f, "p50_us": %d, "p95_us": %d, "errors": %d}\\n',
    summary.requests, summary.duration / 1e6, latency:percentile(50), latency:percentile(95),
    e.connect + e.read + e.write + e.timeout + e.status))
end
"""


def _world(engine) -> tuple[int, str]:
    """A running tournament of 60 entries with 20 busts (its page: places, knockouts, prizes), and a
    session's cookie (an account of no role)."""
    t = running_poker(engine, players=PLAYERS)
    for n in range(BUSTS):
        knock_out(engine, t["id"], t["entries"][PLAYERS - 1 - n], t["entries"][0])
    now = datetime.now(UTC)
    with unit_of_work(engine) as session:
        account = accounts.add(session, "reader@bench.example", now)
        secret = signin.start_session(session, account.id, now, address="127.0.0.1", agent="bench")
    return t["id"], f"tourney_session={web_auth().cookie(secret)}"


@contextmanager
def _servers(count: int):
    """`count` web servers on one loopback port, once each answers."""
    port = free_port()
    with ExitStack() as stack:
        for _ in range(count):
            process = subprocess.Popen(
                [sys.executable, "-c", SERVER, str(port)],
                env=os.environ.copy(),
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
            )
            stack.callback(_end, process)
            _wait(port)
        yield port


def _wait(port: int) -> None:
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        try:
            httpx.get(f"http://127.0.0.1:{port}/static/web.css", timeout=1)
            return
        except httpx.HTTPError:
            time.sleep(0.2)
    raise RuntimeError("the web server did not start")


def _end(process: subprocess.Popen) -> None:
    process.terminate()
    try:
        process.wait(timeout=20)
    except subprocess.TimeoutExpired:
        process.kill()


def _load(url: str, headers: dict[str, str], seconds: float) -> dict:
    """wrk against `url` (one thread, CONNECTIONS keep-alive connections) for `seconds`."""
    script = Path(tempfile.mkdtemp()) / "report.lua"
    script.write_text(REPORT_LUA)
    args = ["wrk", "-t1", f"-c{CONNECTIONS}", f"-d{seconds:g}s", "-s", str(script)]
    for name, value in headers.items():
        args += ["-H", f"{name}: {value}"]
    out = subprocess.run([*args, url], capture_output=True, text=True, check=True).stdout
    found = json.loads(out.strip().splitlines()[-1])
    return {
        "rate": round(found["requests"] / found["seconds"]),
        "p50_ms": round(found["p50_us"] / 1e3, 1),
        "p95_ms": round(found["p95_us"] / 1e3, 1),
        "errors": found["errors"],
    }


def run(report: Report) -> None:
    if shutil.which("wrk") is None:
        raise RuntimeError("wrk is missing: run infra/setup-system.sh (apt-get install wrk)")
    tid, cookie = _world(bootstrap.engine())
    path = f"/t/{tid}"
    browser = {"accept-encoding": "gzip, deflate, br", "accept-language": "ru"}
    name = "public results page"

    with _servers(1) as port:
        url = f"http://127.0.0.1:{port}{path}"
        with httpx.Client() as client:  # one client back to back: a request's own cost
            assert client.get(url).status_code == 200 and client.get(url, headers={"cookie": cookie}).status_code == 200
            kept: list[float] = []
            rendered: list[float] = []
            for _ in range(200):
                for times, headers in ((rendered, {"cookie": cookie}), (kept, {})):
                    start = time.perf_counter()
                    client.get(url, headers=headers)
                    times.append(time.perf_counter() - start)
        report.compared(f"{name}: one request back to back", ("rendered each time", rendered), ("kept", kept))

    figures = {}
    for processes in (1, 2):
        with _servers(processes) as port:
            url = f"http://127.0.0.1:{port}{path}"
            _load(url, browser, 2)  # warm: every process has rendered its page
            figures[("kept", processes)] = _load(url, browser, SECONDS)
            figures[("rendered", processes)] = _load(url, {**browser, "cookie": cookie}, SECONDS)
    for (way, processes), found in figures.items():
        for measure, value in found.items():
            report.note(name, f"{way}, {processes} process{'es' if processes > 1 else ''}: {measure}", value)
    one, two = figures[("kept", 1)], figures[("kept", 2)]
    report.note(name, "kept, 2 processes / 1: requests a second", round(two["rate"] / one["rate"], 2))
    report.note(
        name,
        "kept beside rendered, 2 processes: requests a second",
        round(two["rate"] / figures[("rendered", 2)]["rate"], 1),
    )
    met = two["rate"] >= 1000 and two["p95_ms"] <= 50
    report.note(name, "target ≥ 1,000 a second at p95 ≤ 50 ms on 2 processes", "met" if met else "not met")
