"""The one way tests run the `tourney` command: a real process, real exit codes, the test
session's database (DATABASE_URL), and a fingerprint of every table to prove a refusal wrote nothing."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

from sqlalchemy import Engine, text

from tests.support.net import free_port

TOURNEY = str(Path(sys.executable).with_name("tourney"))


def run(*args: str, env: dict[str, str] | None = None, stdin: str | None = None,
        timeout: float = 120) -> subprocess.CompletedProcess[str]:
    """`tourney ARGS` as an operator runs it, with the test session's environment (its database) plus
    `env` (stdin is not a terminal: nothing is asked)."""
    return subprocess.run(
        [TOURNEY, *args], capture_output=True, text=True, env={**os.environ, **(env or {})}, timeout=timeout,
        input=stdin if stdin is not None else "",
    )


def j(*args: str) -> Any:
    """`tourney --json ARGS`, which must succeed: its JSON."""
    result = run("--json", *args)
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout)


def fingerprint(engine: Engine) -> dict[str, tuple[int, str | None]]:
    """Every table's row count and a digest of its rows: equal before and after = nothing written."""
    from domain.tables import metadata

    with engine.connect() as conn:
        return {
            t.name: tuple(conn.execute(text(
                f'SELECT count(*), md5(string_agg(x::text, \',\' ORDER BY x::text)) FROM "{t.name}" x'
            )).one())
            for t in metadata.sorted_tables
        }


def refused(engine: Engine, *args: str) -> str:
    """`tourney ARGS` must be refused: exit 2, one line `error: ...` on stderr, nothing on stdout,
    no traceback, nothing written. Returns the line."""
    before = fingerprint(engine)
    result = run(*args)
    assert result.returncode == 2, (args, result.returncode, result.stdout, result.stderr)
    assert result.stdout == "", (args, result.stdout)
    assert result.stderr.startswith("error: ") and result.stderr.count("\n") == 1, (args, result.stderr)
    assert "Traceback" not in result.stderr
    assert fingerprint(engine) == before, args
    return result.stderr.strip()


_PORTS: dict[Path, str] = {}


def embedded_env(home: Path) -> dict[str, str]:
    """The environment of a `tourney` on the embedded cluster of data folder `home`, on a port free
    when first asked for (the port derived from the path may be another checkout's on a busy machine)."""
    env = {k: v for k, v in os.environ.items() if k != "DATABASE_URL"}
    env["TOURNEY_HOME"] = str(home)
    env["TOURNEY_PG_PORT"] = _PORTS.setdefault(home, str(free_port()))
    return env


def run_at(home: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """`tourney ARGS` on the embedded cluster of data folder `home` (whatever DATABASE_URL says)."""
    return subprocess.run([TOURNEY, *args], capture_output=True, text=True, env=embedded_env(home), timeout=120)
