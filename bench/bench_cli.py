"""The CLI's start: a whole `tourney` process, two ways side by side, median of 7 alternating runs.

- eager: every module the commands use imported before `main()` runs (the services, SQLAlchemy,
  psycopg, Rich, Babel, Typer's Rich help), as the CLI did when each module imported its services at
  the top, and the whole command tree built for every command line;
- lazy: the `tourney` console script as it is (flows/cli/lazy.py: a command loads what it touches;
  only the group the command line names is built).

For `tourney poker --help` (no database) and `tourney --json poker list` (one query); a test's
command in this process (tests/support/cli.run) beside the same command as a process; and
`tourney --json poker list` in its own process (TOURNEY_WARM=0) beside the warm start (a warm
server of the bench's own already up: flows/cli/warm.py). Every process but the warm one runs with
TOURNEY_WARM=0, so each row measures what it names."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import time
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


def _process(argv: list[str], env: dict[str, str] | None = None) -> None:
    """`argv` as a process: in `env`, by default this one with TOURNEY_WARM=0 (no warm start)."""
    subprocess.run(argv, check=False, capture_output=True, env=env or {**os.environ, "TOURNEY_WARM": "0"})


def _warm_server(env: dict[str, str]) -> dict:
    """The warm server of `env`, started by a first command and waited for until it listens."""
    from flows.cli import warm

    _process([TOURNEY, "--json", "poker", "list"], env)
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        answer = warm.status(env)
        if answer and answer["listening"]:
            return answer
        time.sleep(0.1)
    raise RuntimeError("the warm server did not start")


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

    from flows.cli import warm

    warm_env = {**os.environ, "TOURNEY_WARM_TAG": "bench", "TOURNEY_WARM_IDLE": "300"}
    listed = [TOURNEY, "--json", "poker", "list"]
    served = _warm_server(warm_env)["served"]
    try:
        report.compare(
            "start: tourney --json poker list, warm start",
            ("its own process (TOURNEY_WARM=0)", lambda: _process(listed, {**warm_env, "TOURNEY_WARM": "0"})),
            ("warm (a server up)", lambda: _process(listed, warm_env)),
            repeat=7,
        )
        report.note("warm start", "commands the warm server ran (of 7)", warm.status(warm_env)["served"] - served)
    finally:
        warm.stop(warm_env)
