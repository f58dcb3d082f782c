"""The Prefect server `make run` starts: UI and API on TOURNEY_PREFECT_LISTEN (127.0.0.1:4200), its
database in the same PostgreSQL cluster (database `prefect`, asyncpg) when the cluster is the embedded
one. What it started is recorded in TOURNEY_HOME/prefect-server.pid (pid, start time, host, port):
`tourney server up` reuses only that server, and refuses anything else answering on its port."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from domain.errors import ConfigurationError
from infra.cluster import Cluster
from infra.config import Settings


def prefect_env(settings: Settings, server: bool = False) -> dict[str, str]:
    """Environment for Prefect processes: our API URL, its basic-auth string (the server requires
    it, made once when the server is started; clients send it: docs/operations.md), no telemetry
    (there is no network)."""
    auth = settings.prefect_auth(create=server)
    env = {
        "PREFECT_API_URL": settings.prefect_api_url,
        **({"PREFECT_API_AUTH_STRING": auth, "PREFECT_SERVER_API_AUTH_STRING": auth} if auth else {}),
        "PREFECT_SERVER_ANALYTICS_ENABLED": "false",
        "PREFECT_HOME": str(settings.home / "prefect"),
        # flow runs report every 30 s; a silent run is requeued for another worker (flows/ops.py)
        "PREFECT_FLOWS_HEARTBEAT_FREQUENCY": "30",
        # a run created at an event (a tournament's documents) starts within 2 s, not 10 (Prefect's default)
        "PREFECT_RUNNER_POLL_FREQUENCY": "2",
        "PREFECT_WORKER_QUERY_SECONDS": "2",
    }
    if settings.embedded and "PREFECT_API_DATABASE_CONNECTION_URL" not in os.environ:
        env["PREFECT_API_DATABASE_CONNECTION_URL"] = Cluster(settings.home).url("prefect", "asyncpg")
    return env


def healthy(api_url: str) -> bool:
    import httpx  # here: every `tourney` reads prefect_env, few ask the API

    try:
        return httpx.get(f"{api_url.rstrip('/')}/health", timeout=2).status_code == 200
    except httpx.HTTPError:
        return False


def _pid_file(settings: Settings) -> Path:
    return settings.home / "prefect-server.pid"


def started_here(settings: Settings) -> tuple[int, str, int] | None:
    """(pid, host, port) of the Prefect server `tourney server up` started for this data folder, when
    that very process still runs (the pid file holds its start time too: a reused pid is not it)."""
    from infra.processes import start_time

    try:
        pid_text, started, host, port = _pid_file(settings).read_text().split()
    except (FileNotFoundError, ValueError):
        return None
    pid = int(pid_text)
    return (pid, host, int(port)) if start_time(pid) == started else None


def answers(host: str, port: int) -> bool:
    """Whether anything accepts a connection on host:port."""
    import socket

    try:
        with socket.create_connection((host, port), timeout=1):
            return True
    except OSError:
        return False


def up(settings: Settings, timeout: float = 120) -> str:
    """Start the server in the background on TOURNEY_PREFECT_LISTEN, or reuse the one this data folder
    started. Anything else answering on that port is refused, never adopted."""
    from infra.processes import start_time

    host, port = settings.prefect_listen()
    near = "127.0.0.1" if host in ("0.0.0.0", "::") else host
    api = f"http://{near}:{port}/api"
    mine = started_here(settings)
    if mine is not None:
        pid, was_host, was_port = mine
        if (was_host, was_port) != (host, port):
            raise ConfigurationError(
                "prefect-server-elsewhere",
                f"the Prefect server of this data folder (pid {pid}) listens on {was_host}:{was_port}, not "
                f"{host}:{port}: stop it first (`tourney server stop`)",
            )
        process = None
    elif answers(near, port):
        raise ConfigurationError(
            "prefect-port-taken",
            f"something else answers on {host}:{port}, not a Prefect server this data folder started: "
            "stop it, or set TOURNEY_PREFECT_LISTEN to a free host:port",
        )
    log = settings.home / "prefect-server.log"
    if mine is None:
        settings.home.mkdir(parents=True, exist_ok=True)
        env = {**os.environ, **prefect_env(settings, server=True), "PREFECT_UI_API_URL": api}
        with log.open("ab") as out:
            process = subprocess.Popen(
                [sys.executable, "-m", "prefect", "server", "start", "--host", host, "--port", str(port)],
                stdout=out,
                stderr=subprocess.STDOUT,
                env=env,
                start_new_session=True,
            )
        _pid_file(settings).write_text(f"{process.pid} {start_time(process.pid)} {host} {port}\n")
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if healthy(api):
            if process is None:
                return f"reused the Prefect server of this data folder (pid {mine[0]}) at http://{near}:{port}"
            return f"started the Prefect server: UI at http://{near}:{port} (log {log})"
        if process is not None and process.poll() is not None:
            break
        time.sleep(1)
    raise ConfigurationError(
        "prefect-server-failed",
        f"the Prefect server did not answer at {api} within {int(timeout)} s (see {log})",
    )


def stop(settings: Settings) -> str:
    pid_file: Path = _pid_file(settings)
    if not pid_file.exists():
        return "the Prefect server is not running (no pid file)"
    fields = pid_file.read_text().split()
    pid = int(fields[0])
    if len(fields) > 1 and started_here(settings) is None:  # that process is gone; the pid is another's now
        pid_file.unlink()
        return "the Prefect server was not running"
    try:
        os.killpg(pid, signal.SIGTERM)
    except ProcessLookupError:
        pid_file.unlink()
        return "the Prefect server was not running"
    for _ in range(50):
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            break
        time.sleep(0.2)
    pid_file.unlink(missing_ok=True)
    return "stopped the Prefect server"
