"""The benchmark harness. A benchmark module has `def run(report: Report) -> None` and calls
`report.compare(...)` with a baseline and a candidate, plus `report.note(...)` for other measures
(SQL statements, peak memory, rates). Runs of the two ways alternate, so machine noise hits both."""

from __future__ import annotations

import gc
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import tracemalloc
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any


@dataclass
class Report:
    results: list[dict[str, Any]] = field(default_factory=list)

    def compare(
        self,
        name: str,
        baseline: tuple[str, Callable[[], Any]],
        candidate: tuple[str, Callable[[], Any]],
        repeat: int = 5,
        before_each: Callable[[], Any] | None = None,
        unit: str = "s",
    ) -> dict[str, Any]:
        """Median seconds of each way over `repeat` alternating runs, and baseline/candidate."""
        times: dict[str, list[float]] = {baseline[0]: [], candidate[0]: []}
        for _ in range(repeat):
            for label, fn in (baseline, candidate):
                if before_each:
                    before_each()
                gc.collect()
                start = time.perf_counter()
                fn()
                times[label].append(time.perf_counter() - start)
        return self.compared(name, (baseline[0], times[baseline[0]]), (candidate[0], times[candidate[0]]))

    def compared(
        self, name: str, baseline: tuple[str, list[float]], candidate: tuple[str, list[float]]
    ) -> dict[str, Any]:
        """A comparison of two ways' times (seconds) measured by the caller: their medians and baseline/candidate."""
        base, cand = statistics.median(baseline[1]), statistics.median(candidate[1])
        row = {
            "benchmark": name,
            "baseline": baseline[0],
            "baseline_median_s": base,
            "candidate": candidate[0],
            "candidate_median_s": cand,
            "ratio": base / cand if cand else float("inf"),
            "repeat": len(candidate[1]),
        }
        self.results.append(row)
        print(
            f"{name}: {baseline[0]} {_fmt(base)} | {candidate[0]} {_fmt(cand)} | "
            f"ratio {row['ratio']:.2f}x (median of {len(candidate[1])})",
            flush=True,
        )
        return row

    def note(self, name: str, measure: str, value: Any) -> None:
        self.results.append({"benchmark": name, "measure": measure, "value": value})
        print(f"{name}: {measure} = {value}", flush=True)


def peak_memory(fn: Callable[[], Any]) -> int:
    """Peak bytes Python allocated while `fn` ran (tracemalloc)."""
    gc.collect()
    tracemalloc.start()
    try:
        fn()
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def _fmt(seconds: float) -> str:
    if seconds < 1e-3:
        return f"{seconds * 1e6:.1f} µs"
    if seconds < 1:
        return f"{seconds * 1e3:.1f} ms"
    return f"{seconds:.2f} s"


@contextmanager
def runner(script: str, *args: str, env: dict[str, str], cwd: Path) -> Iterator[subprocess.Popen]:
    """A Prefect runner serving what `script` (a Python program's text) serves, in a session of its
    own, quiet; ended (SIGTERM, then SIGKILL after 30 s) on the way out."""
    path = Path(tempfile.mkdtemp()) / "serve_bench.py"
    path.write_text(script)
    process = subprocess.Popen(
        [sys.executable, str(path), *args],
        env=env,
        cwd=cwd,
        start_new_session=True,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        yield process
    finally:
        process.terminate()
        try:
            process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            process.kill()


def serve(script: str, *args: str) -> tuple[subprocess.Popen, int]:
    """A web server of the bench's own (`python -c script PORT ARGS...`) on a free loopback port, once
    it answers `/`."""
    import httpx

    from tests.support.net import free_port

    port = free_port()
    process = subprocess.Popen([sys.executable, "-c", script, str(port), *args], env=os.environ.copy())
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        try:
            httpx.get(f"http://127.0.0.1:{port}/", timeout=1)
            return process, port
        except httpx.HTTPError:
            time.sleep(0.2)
    process.kill()
    raise RuntimeError("the web server did not start")


# What a bench's server script binds when it serves beside others on one port, as `tourney web --workers N`
# does (`serve_workers` in flows/cli/web.py): its own socket, SO_REUSEPORT, so the kernel spreads the
# connections over the processes. The script gives it to `uvicorn.Server.run(sockets=[...])` and sends
# its process id in an `x-bench-pid` header, so `serve_together` knows every process answers.
# The socket is made with its protocol named (IPPROTO_TCP): asyncio sets TCP_NODELAY only on connections
# accepted from a socket whose `proto` is IPPROTO_TCP, and `socket.socket(AF_INET, SOCK_STREAM)` has 0, so
# its kept-alive connections wait on Nagle and the client's delayed ACK, about 40 ms a request after a
# connection's first (measured 2026-12-07: 41-52 ms beside 0.5-1.2 ms). BENCH_REUSEPORT_PROTO=0 binds as
# `serve_workers` and bench_public bind today (proto 0), to see that cost.
REUSEPORT = """
import os, socket

def reuseport_socket(port):
    listening = socket.socket(socket.AF_INET, socket.SOCK_STREAM, __PROTO__)
    listening.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    listening.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)
    listening.bind(("127.0.0.1", port))
    listening.listen(2048)
    return listening

def pid_header(app):
    pid = str(os.getpid()).encode()

    async def asgi(scope, receive, send):
        async def sending(message):
            if message["type"] == "http.response.start":
                message = {**message, "headers": [*message.get("headers", []), (b"x-bench-pid", pid)]}
            await send(message)

        await app(scope, receive, sending)
    return asgi
""".replace("__PROTO__", str(int(os.environ.get("BENCH_REUSEPORT_PROTO", socket.IPPROTO_TCP))))


def serve_together(script: str, count: int, *args: str, path: str = "/") -> tuple[list[subprocess.Popen], int]:
    """`count` web servers of the bench's own (`python -c script PORT ARGS...`, each binding one loopback
    port with SO_REUSEPORT: REUSEPORT above) on one free port, once each has answered `path` (its
    `x-bench-pid`); end them with `end`."""
    import httpx

    from tests.support.net import free_port

    port = free_port()
    processes = [
        subprocess.Popen([sys.executable, "-c", script, str(port), *args], env=os.environ.copy()) for _ in range(count)
    ]
    pids, seen = {str(p.pid) for p in processes}, set()
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and seen != pids:
        try:  # a new connection each time: the kernel picks a process for each
            seen.add(httpx.get(f"http://127.0.0.1:{port}{path}", timeout=1).headers.get("x-bench-pid"))
            time.sleep(0.05)
        except httpx.HTTPError:
            time.sleep(0.2)
    if seen != pids:
        end(processes)
        raise RuntimeError(f"{len(seen & pids)} of {count} web servers answered")
    return processes, port


def end(processes: list[subprocess.Popen]) -> None:
    for process in processes:
        process.terminate()
    for process in processes:
        try:
            process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            process.kill()
