"""Documents: 200 certificates rendered the naive way (one WeasyPrint document per certificate,
nothing reused) beside the project's way (pages batched into one render per chunk, with the font
configuration, stylesheet and templates reused; in one process, then spread over a pool of worker
processes, one per core), same template and same output pages; peak memory for 1,000 certificates;
the median time of a 1,000-player results sheet."""

from __future__ import annotations

import os
import statistics
import time
from collections import deque
from contextlib import contextmanager
from datetime import date
from decimal import Decimal

from bench.harness import Report, peak_memory
from domain.documents.rules.model import Certificate, PokerPlace, PokerSheet, serial
from infra.render import Renderer, certificate_alone

KEY = b"bench-key-of-at-least-thirty-two-bytes"  # DOC-2: keys of 32 bytes or more


def _certificates(n: int) -> list[Certificate]:
    return [
        Certificate(
            serial=serial("poker", 7, i),
            source="poker",
            tournament_id=7,
            tournament="Осенний кубок клуба",
            club="Клуб «Туз»",
            held_on=date(2026, 11, 28),
            player=f"Игрок Номер {i} (Player {i})",
            place=i,
            prize=f"Freeroll ×{i % 5 + 1}",
            title="Prize winner",
        )
        for i in range(1, n + 1)
    ]


def _sheet(players: int) -> PokerSheet:
    places = tuple(
        PokerPlace(i, f"Игрок Номер {i} (Player {i})", Decimal(i % 4) / 2, f"Freeroll ×{i}" if i <= 150 else None)
        for i in range(1, players + 1)
    )
    return PokerSheet(7, "Осенний кубок клуба", "Клуб «Туз»", date(2026, 11, 28), players + 80, 80, 120, 150, places)


def _peak_rss_mib(pid: int) -> float:
    for line in open(f"/proc/{pid}/status"):
        if line.startswith("VmHWM:"):
            return round(int(line.split()[1]) / 1024, 1)
    raise RuntimeError(f"no VmHWM for process {pid}")


def _drain(iterator) -> None:
    deque(iterator, maxlen=0)


@contextmanager
def _fonttools_subsetting():
    """WeasyPrint's fallback when libharfbuzz-subset is missing: fontTools subsets each embedded font
    (what DESIGN measured: 0.3-0.4 s a small document). A bench-only switch of its module global."""
    from weasyprint.pdf import fonts

    saved, fonts.harfbuzz_subset = fonts.harfbuzz_subset, None
    try:
        yield
    finally:
        fonts.harfbuzz_subset = saved


def run(report: Report) -> None:
    renderer = Renderer(KEY)
    workers = os.cpu_count() or 1
    pooled = Renderer(KEY, workers=workers)
    certs = _certificates(200)
    _drain(renderer.certificates(certs[:2]))  # warm the Jinja cache and WeasyPrint's imports once
    start = time.perf_counter()
    _drain(pooled.certificates(certs[:4], chunk=2))  # start the pool: forkserver, workers, renderers
    report.note("certificate worker pool", f"start-up of {workers} workers (s, once per renderer)",
                round(time.perf_counter() - start, 2))
    naive = ("one document per certificate", lambda: [certificate_alone(KEY, c) for c in certs])
    batched = ("batched pages, reused fonts and CSS", lambda: _drain(renderer.certificates(certs)))
    parallel = (f"batched, {workers} worker processes", lambda: _drain(pooled.certificates(certs)))
    report.compare("200 certificates (HarfBuzz subsetting)", naive, batched, repeat=3)
    report.compare(f"200 certificates, {workers} cores (HarfBuzz subsetting)", naive, parallel, repeat=3)
    with _fonttools_subsetting():
        report.compare("200 certificates (fontTools subsetting fallback)", naive, batched, repeat=1)
    thousand = _certificates(1000)
    for n in (100, 1000):
        peak = peak_memory(lambda: _drain(renderer.certificates(thousand[:n])))
        report.note("certificates peak memory", f"{n} certificates, one process (MiB)", round(peak / 2**20, 1))
    for n in (200, 1000):
        peak = peak_memory(lambda: _drain(pooled.certificates(thousand[:n])))
        report.note("certificates peak memory", f"{n} certificates, parent of the pool (MiB)", round(peak / 2**20, 1))
    # the workers' own high-water marks of resident memory, read before the pool stops
    worker_peaks = [_peak_rss_mib(pid) for pid in pooled._pool._processes]  # noqa: SLF001 (bench only)
    pooled.close()
    report.note("certificates peak memory", "largest worker process, resident (MiB)", max(worker_peaks))
    sheet = _sheet(1000)
    times = []
    for _ in range(5):
        start = time.perf_counter()
        renderer.poker_sheet(sheet)
        times.append(time.perf_counter() - start)
    report.note("1,000-player results sheet", "median s (of 5)", round(statistics.median(times), 3))
