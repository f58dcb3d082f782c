"""The CLI's start: a whole `tourney` process, two ways side by side, median of 7 alternating runs.

- eager: every module the commands use imported before `main()` runs (the services, SQLAlchemy,
  psycopg, Rich, Babel, Typer's Rich help), as the CLI did when each module imported its services at
  the top, and the whole command tree built for every command line;
- lazy: the `tourney` console script as it is (flows/cli/lazy.py: a command loads what it touches;
  only the group the command line names is built).

For `tourney poker --help` (no database) and `tourney --json poker list` (one query); and a test's
command in this process (tests/support/cli.run) beside the same command as a process."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

from bench.harness import Report

ROOT = Path(__file__).resolve().parents[1]
TOURNEY = str(Path(sys.executable).with_name("tourney"))
ALSO_EAGER = (
    "sqlalchemy.orm",
    "psycopg",
    "rich.console",
    "rich.table",
    "babel.numbers",
    "babel.dates",
    "typer.rich_utils",
    "pycountry",
    "apscheduler.triggers.cron",
    "httpx",
)


def _eager_script() -> str:
    lazies = sorted(
        {m for f in (ROOT / "flows" / "cli").glob("*.py") for m in re.findall(r'lazy\("([\w.]+)"\)', f.read_text())}
    )
    imports = "; ".join(f"importlib.import_module({m!r})" for m in (*lazies, *ALSO_EAGER))
    whole_tree = "import flows.cli.app as cli; cli._group_of = lambda args: None"
    return f"import importlib, sys; {imports}; {whole_tree}; cli.main(sys.argv[1:])"


def _process(argv: list[str]) -> None:
    subprocess.run(argv, check=False, capture_output=True)


def run(report: Report) -> None:
    eager = [sys.executable, "-c", _eager_script()]
    for args in (["poker", "--help"], ["--json", "poker", "list"]):
        name = "tourney " + " ".join(args)
        report.compare(
            f"start: {name}",
            ("eager imports", lambda: _process([*eager, *args])),
            ("lazy (tourney)", lambda: _process([TOURNEY, *args])),
            repeat=7,
        )

    from tests.support.cli import run as in_process

    in_process("--json", "poker", "list")  # the first call imports what the command touches
    report.compare(
        "a test's command: tourney --json poker list",
        ("a process", lambda: _process([TOURNEY, "--json", "poker", "list"])),
        ("in the test's process", lambda: in_process("--json", "poker", "list")),
        repeat=7,
    )
