"""Foundation: reading the status (schema heads, pending work) with a fresh engine per call beside
the process-wide pooled engine every service uses."""

from __future__ import annotations

from bench.harness import Report
from domain.ops.services.status import read_status
from domain.store.db import make_engine
from flows import bootstrap


def run(report: Report) -> None:
    url = bootstrap.database_url()
    pooled = bootstrap.engine()

    def fresh() -> None:
        engine = make_engine(url)
        read_status(engine)
        engine.dispose()

    report.compare(
        "status read",
        ("fresh engine per call", fresh),
        ("pooled engine", lambda: read_status(pooled)),
        repeat=15,
    )
