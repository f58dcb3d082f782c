"""A real Prefect server for a test session, on PostgreSQL as `make run`'s is.

Its database is a scratch one on the test session's PostgreSQL server (dropped at the end). Prefect's
own test harness would put it in SQLite, whose single writer lock the server's event services contend
for under load ("database is locked"): events then arrive late, and the requeue automation
(flows/ops.py), waiting for a heartbeat or an end that is only late, takes a finished run for dead
and runs it again.
"""

from __future__ import annotations

import inspect
from collections.abc import Iterator
from contextlib import contextmanager

from sqlalchemy.engine import make_url

from domain.store.scratch import scratch_database
from tests.support.net import free_port


@contextmanager
def prefect_server(database_url: str) -> Iterator[str]:
    """Start the server on a scratch database beside `database_url`'s; point this process's Prefect
    settings at it; yield its API URL; drain this process's logs and events into it, then stop it.

    What Prefect's own harness does besides (prefect/testing/utilities.py), done here too: the
    settings are also the process-global ones (threads with a context copied earlier, such as the
    timekeeper's reporter, see them), and the server is the default one, so nothing starts another.
    """
    import prefect.context
    from prefect.events.worker import EventsWorker
    from prefect.logging.handlers import APILogWorker
    from prefect.server.api.server import SubprocessASGIServer
    from prefect.settings import PREFECT_API_URL, PREFECT_SERVER_DATABASE_CONNECTION_URL, temporary_settings
    from prefect.utilities.asyncutils import run_coro_as_sync

    async def drain() -> None:
        for pending in (APILogWorker.drain_all(), EventsWorker.drain_all()):
            if inspect.isawaitable(pending):
                await pending

    with scratch_database(database_url, "prefect") as url:
        asyncpg = make_url(url).set(drivername="postgresql+asyncpg").render_as_string(hide_password=False)
        with temporary_settings({PREFECT_SERVER_DATABASE_CONNECTION_URL: asyncpg}):
            server = SubprocessASGIServer(port=free_port())
            default = SubprocessASGIServer._instances.get(None)
            SubprocessASGIServer._instances[None] = server
            try:
                server.start(timeout=120)
                with temporary_settings({PREFECT_API_URL: server.api_url}), \
                        prefect.context._temporary_global_settings_context(prefect.context.get_settings_context()):
                    yield server.api_url
                    run_coro_as_sync(drain())
            finally:
                server.stop()
                if default is None:
                    SubprocessASGIServer._instances.pop(None, None)
                else:
                    SubprocessASGIServer._instances[None] = default
