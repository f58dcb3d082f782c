"""The Prefect server `make run` starts: UI and API on 127.0.0.1:4200, its database in the same
PostgreSQL cluster (database `prefect`, asyncpg) when the cluster is the embedded one."""

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

HOST, PORT = "127.0.0.1", 4200


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


def up(settings: Settings, timeout: float = 120) -> str:
    """Start the server in the background, or reuse one that already answers."""
    api = f"http://{HOST}:{PORT}/api"
    if healthy(api):
        return f"reused the Prefect server at http://{HOST}:{PORT}"
    log = settings.home / "prefect-server.log"
    settings.home.mkdir(parents=True, exist_ok=True)
    env = {**os.environ, **prefect_env(settings, server=True), "PREFECT_UI_API_URL": api}
    with log.open("ab") as out:
        process = subprocess.Popen(
            [sys.executable, "-m", "prefect", "server", "start", "--host", HOST, "--port", str(PORT)],
            stdout=out,
            stderr=subprocess.STDOUT,
            env=env,
            start_new_session=True,
        )
    (settings.home / "prefect-server.pid").write_text(str(process.pid))
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if healthy(api):
            return f"started the Prefect server: UI at http://{HOST}:{PORT} (log {log})"
        if process.poll() is not None:
            break
        time.sleep(1)
    raise ConfigurationError(
        "prefect-server-failed",
        f"the Prefect server did not answer at {api} within {int(timeout)} s (see {log})",
    )


def stop(settings: Settings) -> str:
    pid_file: Path = settings.home / "prefect-server.pid"
    if not pid_file.exists():
        return "the Prefect server is not running (no pid file)"
    pid = int(pid_file.read_text())
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
