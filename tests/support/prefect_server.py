"""A real Prefect server for a test session, on PostgreSQL as `make run`'s is, through Prefect's public
interfaces only: the `prefect server start` command, its settings as environment variables, and its
`/api/health`, so an upgrade of Prefect is a change of its pin, not a repair of the tests.

Its database is a scratch one on the test session's PostgreSQL server (dropped at the end). Prefect's
own test harness would put it in SQLite, whose single writer lock the server's event services contend
for under load ("database is locked"): events then arrive late, and the requeue automation
(flows/ops.py), waiting for a heartbeat or an end that is only late, takes a finished run for dead
and runs it again.

Where the server will listen is decided when the test session starts (`PREFECT_API_URL`, set by
tests/conftest.py before anything imports Prefect): Prefect reads its settings from
the environment once, at import, and the threads it or the timekeeper start later see only those. So
every client in the session, and every process a test starts, talks to this server, and none starts
a server of its own (Prefect starts a temporary one only when no API URL is set).
"""

from __future__ import annotations

import inspect
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from urllib.parse import urlsplit

import httpx
from sqlalchemy.engine import make_url

from domain.store.scratch import scratch_database


@contextmanager
def prefect_server(database_url: str, api_url: str | None = None, timeout: float = 180) -> Iterator[str]:
    """Start `prefect server start` on a scratch database beside `database_url`'s, at `api_url`
    (default: the session's `PREFECT_API_URL`); yield the API URL; at the end drain this process's
    logs and events into it, stop it and drop its database."""
    api_url = api_url or os.environ["PREFECT_API_URL"]
    port = urlsplit(api_url).port
    log = Path(tempfile.mkdtemp(prefix="tourney-prefect-server-")) / "server.log"
    with scratch_database(database_url, "prefect") as url:
        asyncpg = make_url(url).set(drivername="postgresql+asyncpg").render_as_string(hide_password=False)
        env = {
            **os.environ,
            "PREFECT_SERVER_DATABASE_CONNECTION_URL": asyncpg,
            "PREFECT_SERVER_ANALYTICS_ENABLED": "false",
            "PREFECT_UI_ENABLED": "false",
        }
        env.pop("PREFECT_API_AUTH_STRING", None)
        with log.open("wb") as out:
            server = subprocess.Popen(
                [sys.executable, "-m", "prefect", "server", "start", "--host", "127.0.0.1", "--port", str(port)],
                stdout=out,
                stderr=subprocess.STDOUT,
                env=env,
                start_new_session=True,
            )
        try:
            _wait_healthy(api_url, server, log, timeout)
            yield api_url
            _drain()
        finally:
            server.terminate()
            try:
                server.wait(timeout=30)
            except subprocess.TimeoutExpired:
                server.kill()
                server.wait()


def _wait_healthy(api_url: str, server: subprocess.Popen, log: Path, timeout: float) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if server.poll() is not None:
            raise RuntimeError(f"the test Prefect server exited with {server.returncode}:\n{log.read_text()[-3000:]}")
        try:
            if httpx.get(f"{api_url}/health", timeout=2).status_code == 200:
                return
        except httpx.HTTPError:
            pass
        time.sleep(0.5)
    raise RuntimeError(
        f"the test Prefect server did not answer at {api_url} in {timeout:.0f} s:\n{log.read_text()[-3000:]}"
    )


def _drain() -> None:
    """What this process still holds for the server (run logs, events) is sent before it stops."""
    from prefect.events.worker import EventsWorker
    from prefect.logging.handlers import APILogWorker
    from prefect.utilities.asyncutils import run_coro_as_sync

    async def drain() -> None:
        for pending in (APILogWorker.drain_all(), EventsWorker.drain_all()):
            if inspect.isawaitable(pending):
                await pending

    run_coro_as_sync(drain())
