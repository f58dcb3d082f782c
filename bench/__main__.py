"""Run every benchmark module (bench/bench_*.py), each on a fresh scratch database of its own (so no
module sees another's rows); print and save JSON.

`python -m bench` runs all; `python -m bench clubs pusoy` runs the modules whose names contain those
words."""

from __future__ import annotations

import importlib
import json
import os
import pkgutil
import sys
from pathlib import Path

import bench
from bench.harness import Report
from domain.store.migrate import upgrade
from domain.store.scratch import scratch_database
from flows import bootstrap

OUT = Path(__file__).with_name("results.json")


def main(argv: list[str]) -> int:
    names = sorted(m.name for m in pkgutil.iter_modules(bench.__path__) if m.name.startswith("bench_"))
    chosen = [n for n in names if not argv or any(word in n for word in argv)]
    report = Report()
    server = bootstrap.server_url()
    for name in chosen:
        print(f"== {name}", flush=True)
        with scratch_database(server, "bench") as url:
            os.environ["DATABASE_URL"] = url
            try:
                upgrade(bootstrap.engine())
                importlib.import_module(f"bench.{name}").run(report)
            finally:
                bootstrap.dispose()
    OUT.write_text(json.dumps(report.results, indent=2, default=str))
    print(f"results written to {OUT}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
