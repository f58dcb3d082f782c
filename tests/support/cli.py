"""The one CLI runner of the tests: `tourney` as an operator runs it, a real process, real exit codes."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

TOURNEY = str(Path(sys.executable).with_name("tourney"))


def run(*args: str, env: dict[str, str] | None = None, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    """`tourney ARGS` with the test session's environment (its database), plus `env`."""
    return subprocess.run(
        [TOURNEY, *args], capture_output=True, text=True, env={**os.environ, **(env or {})}, timeout=timeout
    )


def embedded_env(home: Path) -> dict[str, str]:
    """The environment of a `tourney` on the embedded cluster of data folder `home`."""
    env = {k: v for k, v in os.environ.items() if k not in ("DATABASE_URL", "TOURNEY_PG_PORT")}
    env["TOURNEY_HOME"] = str(home)
    return env


def run_at(home: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """`tourney ARGS` on the embedded cluster of data folder `home` (whatever DATABASE_URL says)."""
    return subprocess.run([TOURNEY, *args], capture_output=True, text=True, env=embedded_env(home), timeout=120)
