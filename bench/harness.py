"""The benchmark harness. A benchmark module has `def run(report: Report) -> None` and calls
`report.compare(...)` with a baseline and a candidate, plus `report.note(...)` for other measures
(SQL statements, peak memory, rates). Runs of the two ways alternate, so machine noise hits both."""

from __future__ import annotations

import gc
import os
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
