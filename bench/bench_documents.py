"""Documents: 200 certificates rendered the naive way (one WeasyPrint document per certificate,
nothing reused) beside the project's way (pages batched into one render per chunk, with the font
configuration, stylesheet and templates reused), same template and same output pages; peak memory
for 1,000 certificates; the median time of a 1,000-player results sheet."""

from __future__ import annotations

import statistics
import time
from collections import deque
from contextlib import contextmanager
from datetime import date
from decimal import Decimal

from bench.harness import Report, peak_memory
from documents.render import Renderer, certificate_alone
from domain.documents.model import Certificate, PokerPlace, PokerSheet, serial

KEY = b"bench-key"


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
    certs = _certificates(200)
    _drain(renderer.certificates(certs[:2]))  # warm the Jinja cache and WeasyPrint's imports once
    naive = ("one document per certificate", lambda: [certificate_alone(KEY, c) for c in certs])
    batched = ("batched pages, reused fonts and CSS", lambda: _drain(renderer.certificates(certs)))
    report.compare("200 certificates (HarfBuzz subsetting)", naive, batched, repeat=3)
    with _fonttools_subsetting():
        report.compare("200 certificates (fontTools subsetting fallback)", naive, batched, repeat=1)
    thousand = _certificates(1000)
    for n in (100, 1000):
        peak = peak_memory(lambda: _drain(renderer.certificates(thousand[:n])))
        report.note("certificates peak memory", f"{n} certificates (MiB)", round(peak / 2**20, 1))
    sheet = _sheet(1000)
    times = []
    for _ in range(5):
        start = time.perf_counter()
        renderer.poker_sheet(sheet)
        times.append(time.perf_counter() - start)
    report.note("1,000-player results sheet", "median s (of 5)", round(statistics.median(times), 3))
