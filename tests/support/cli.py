"""The one CLI runner of the tests: `tourney` as an operator runs it, a real process, real exit codes."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
from pathlib import Path

TOURNEY = str(Path(sys.executable).with_name("tourney"))


def run(*args: str, env: dict[str, str] | None = None, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    """`tourney ARGS` with the test session's environment (its database), plus `env`."""
    return subprocess.run(
        [TOURNEY, *args], capture_output=True, text=True, env={**os.environ, **(env or {})}, timeout=timeout
    )


_PORTS: dict[Path, str] = {}


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


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
