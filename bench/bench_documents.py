"""Documents: certificates the naive way (one WeasyPrint document per certificate, nothing reused)
beside the project's way (stamped into a layout made once, `infra.stamp`), in one process and over
2 worker processes, for 200 and 1,000 certificates: runs of the three alternate, medians and
ratios; CPU per certificate; peak resident memory (VmHWM, reset before each measured run) of the
process and of each worker; a 1,000-player results sheet: its time, and its PDF written tagged (as
the documents are) beside untagged, from one layout (CPU, bytes).

Knobs: BENCH_DOCUMENTS_SIZES (`200,1000`), BENCH_DOCUMENTS_REPEAT (3)."""

from __future__ import annotations

import gc
import os
import statistics
import time
from collections import deque
from datetime import date
from decimal import Decimal

import segno
from weasyprint import CSS, HTML
from weasyprint.text.fonts import FontConfiguration

from bench.harness import Report
from domain.documents.rules.model import Certificate, PokerPlace, PokerSheet, serial
from infra import pdf
from infra.config import DEFAULT_PUBLIC_URL
from infra.render import STYLESHEET, TEMPLATES, Renderer, certificate_order, environment, write_sealed

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


def certificate_alone(key: bytes, cert: Certificate) -> bytes:
    """The naive way: one WeasyPrint document per certificate, nothing reused (a new environment,
    font configuration and stylesheet each time), written tagged, signed and sealed as the results
    sheets are; the same template and the same page as the project's stamped certificate."""
    env = environment(TEMPLATES, cert.locale)
    font_config = FontConfiguration()
    css = CSS(filename=str(TEMPLATES / STYLESHEET), font_config=font_config)
    order = certificate_order(cert, key)
    qr = segno.make(order.url, error="m", mask=0).png_data_uri(scale=1, border=0)
    html = env.get_template("certificates.html").render(
        certificates=[{"lines": order.lines, "qr": qr}], logo=None, public_url=DEFAULT_PUBLIC_URL
    )
    document = HTML(string=html, base_url=str(TEMPLATES)).render(stylesheets=[css], font_config=font_config)
    return write_sealed(key, document, order.embedded, order.title)


def _rss_mib(pid: int, field: str) -> float:
    """VmHWM (the resident high-water mark) or VmRSS (resident now) of a process, in MiB."""
    for line in open(f"/proc/{pid}/status"):
        if line.startswith(field + ":"):
            return round(int(line.split()[1]) / 1024, 1)
    raise RuntimeError(f"no {field} for process {pid}")


def _reset_peak_rss(pid: int) -> None:
    """Linux: writing 5 to clear_refs sets the process's VmHWM back to its current resident size."""
    with open(f"/proc/{pid}/clear_refs", "w") as f:
        f.write("5")


def _drain(iterator) -> None:
    deque(iterator, maxlen=0)


def _timed(fn) -> tuple[float, float]:
    gc.collect()
    wall, cpu = time.perf_counter(), time.process_time()
    fn()
    return time.perf_counter() - wall, time.process_time() - cpu


def run(report: Report) -> None:
    sizes = [int(n) for n in os.environ.get("BENCH_DOCUMENTS_SIZES", "200,1000").split(",")]
    repeat = int(os.environ.get("BENCH_DOCUMENTS_REPEAT", "3"))
    renderer = Renderer(KEY)
    pooled = Renderer(KEY, workers=2)
    every = _certificates(max(sizes))
    _drain(renderer.certificates(every[:2]))  # warm: Jinja cache, WeasyPrint imports, the templates
    start = time.perf_counter()
    _drain(pooled.certificates(every[:4], chunk=2))  # start the pool: forkserver, workers, renderers
    report.note(
        "certificate worker pool", "start-up of 2 workers (s, once per renderer)", round(time.perf_counter() - start, 2)
    )
    workers = list(pooled._pool._processes)  # noqa: SLF001 (bench only: the workers' memory)
    naive_label, one_label, two_label = "one document per certificate", "stamped, one process", "stamped, 2 workers"
    for n in sizes:
        certs = every[:n]
        ways = {
            naive_label: lambda: [certificate_alone(KEY, c) for c in certs],
            one_label: lambda: _drain(renderer.certificates(certs)),
            two_label: lambda: _drain(pooled.certificates(certs)),
        }
        times = {label: [] for label in ways}
        cpu = {label: [] for label in ways}
        peaks = {label: [] for label in ways}
        for _ in range(repeat):
            for label, fn in ways.items():
                pids = (os.getpid(), *workers)
                for pid in pids:
                    _reset_peak_rss(pid)
                start_rss = [_rss_mib(pid, "VmRSS") for pid in pids]
                wall, spent = _timed(fn)
                times[label].append(wall)
                cpu[label].append(spent)
                # (peak, growth of the peak over the resident size the run started from) per process
                peaks[label].append(
                    [
                        (peak, round(peak - rss, 1))
                        for peak, rss in zip((_rss_mib(pid, "VmHWM") for pid in pids), start_rss)
                    ]
                )
        naive = statistics.median(times[naive_label])
        for label in (one_label, two_label):
            mine = statistics.median(times[label])
            row = {
                "benchmark": f"{n} certificates",
                "baseline": naive_label,
                "baseline_median_s": naive,
                "candidate": label,
                "candidate_median_s": mine,
                "ratio": naive / mine,
                "repeat": repeat,
            }
            report.results.append(row)
            print(
                f"{n} certificates: {naive_label} {naive:.2f} s | {label} {mine:.3f} s | "
                f"ratio {naive / mine:.1f}x (median of {repeat})",
                flush=True,
            )
        for label in (naive_label, one_label):
            report.note(
                f"{n} certificates",
                f"{label}: CPU per certificate (ms, this process)",
                round(statistics.median(cpu[label]) / n * 1000, 2),
            )
        for label in (naive_label, one_label, two_label):
            parent = max(run[0] for run in peaks[label])
            worker = max(max(run[1:]) for run in peaks[label])
            report.note(
                f"{n} certificates",
                f"{label}: peak resident MiB (growth during the run): this process / largest worker",
                f"{parent[0]} ({parent[1]:+}) / {worker[0]} ({worker[1]:+})",
            )
    pooled.close()
    sheet = _sheet(1000)
    times = []
    for _ in range(5):
        start = time.perf_counter()
        renderer.poker_sheet(sheet)
        times.append(time.perf_counter() - start)
    report.note("1,000-player results sheet", "median s (of 5)", round(statistics.median(times), 3))
    _tagged_beside_untagged(report, renderer, sheet)


def _tagged_beside_untagged(report: Report, renderer: Renderer, sheet: PokerSheet) -> None:
    """The sheet's PDF written from one layout tagged (structure tree, as the documents are) and
    untagged, alternating, medians of 5: what the tagging costs."""
    html = (
        renderer.envs[sheet.locale]
        .get_template("poker_sheet.html")
        .render(public_url=DEFAULT_PUBLIC_URL, s=sheet, logo=None)
    )
    start = time.process_time()
    document = HTML(string=html, base_url=str(TEMPLATES)).render(
        stylesheets=[renderer.css], font_config=renderer.font_config
    )
    layout = time.process_time() - start
    embedded = pdf.signed(KEY, sheet)
    spent: dict[bool, list[float]] = {True: [], False: []}
    size: dict[bool, int] = {}
    for _ in range(5):
        for tagged in (False, True):
            start = time.process_time()
            size[tagged] = len(write_sealed(KEY, document, embedded, tagged=tagged))
            spent[tagged].append(time.process_time() - start)
    report.note("1,000-player results sheet", "layout (CPU s, once)", round(layout, 3))
    for tagged, label in ((False, "untagged"), (True, "tagged")):
        report.note(
            "1,000-player results sheet",
            f"written {label}: CPU s (median of 5), bytes",
            f"{statistics.median(spent[tagged]):.3f}, {size[tagged]:,}",
        )
