"""The web pages' uvicorn settings: how long a client may take to send a request's headers, and how
long an idle kept-alive connection stays open (TOURNEY_WEB_HEADER_TIMEOUT, TOURNEY_WEB_IDLE_TIMEOUT).

uvicorn closes an idle kept-alive connection itself (`timeout_keep_alive`), but a connection that
sends its headers a byte at a time is never timed out by it: `guarded` is its HTTP/1.1 protocol with
a timer from the connection (or from the end of the last response) to the end of the next request's
headers, which closes the connection when it runs out."""

from __future__ import annotations

import asyncio
import gc
from typing import Any

from uvicorn.protocols.http.h11_impl import H11Protocol

from infra.config import Settings

# The web server's connection pool: one kept for each of anyio's 40 worker threads (where every handler,
# fingerprint and build of the event streams runs, one unit of work at a time). SQLAlchemy's default
# keeps 5 and closes each connection over them when it is returned, so under load most units of work
# opened a new connection (a PostgreSQL backend started and ended): measured by `python -m bench players`
# (docs/benchmarks.md), a join's server time and the server's CPU per join fell by a sixth with 40.
POOL = {"pool_size": 40, "max_overflow": 10}
# Stopping (SIGTERM: `tourney stop`), requests under way get this long to finish; an event stream never
# does, so it is ended then (its page reconnects to another process or after the restart).
SHUTDOWN_S = 2
# The web process's garbage collector. Thousands of open event streams are long-lived objects (each
# connection's protocol, request, task and generator): with Python's default thresholds (700, 10, 10)
# a full collection walked them all every few seconds of fan-out, 0.2-0.5 s with the interpreter
# stopped, and the screens' change-to-arrival p95 at 5,000 was 680 ms instead of 140-190 (`python -m
# bench web`, docs/benchmarks.md). Collecting the young generation at 50,000 objects, not 700, lets the
# fan-out's short-lived garbage die by reference count first; what the imports and the app made before
# the first request is frozen (never walked again).
GC_THRESHOLDS = (50_000, 20, 10)


def guarded(header_timeout: float) -> type[H11Protocol]:
    """uvicorn's h11 protocol, closing a connection whose request headers are not in within
    `header_timeout` seconds."""

    class Guarded(H11Protocol):
        _header_timer: asyncio.TimerHandle | None = None

        def _waiting_for_headers(self) -> bool:
            return self.cycle is None or self.cycle.response_complete

        def _arm(self) -> None:
            if self._header_timer is None:
                self._header_timer = self.loop.call_later(header_timeout, self._too_slow)

        def _disarm(self) -> None:
            if self._header_timer is not None:
                self._header_timer.cancel()
                self._header_timer = None

        def _too_slow(self) -> None:
            self._header_timer = None
            if self._waiting_for_headers() and not self.transport.is_closing():
                self.transport.close()

        def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
            super().connection_made(transport)
            self._arm()

        def data_received(self, data: bytes) -> None:
            if self._waiting_for_headers():
                self._arm()
            super().data_received(data)
            if not self._waiting_for_headers():
                self._disarm()

        def connection_lost(self, exc: Exception | None) -> None:
            self._disarm()
            super().connection_lost(exc)

    return Guarded


def config(app: Any, host: str, port: int, settings: Settings) -> Any:
    """The uvicorn.Config `tourney web` serves the pages with."""
    import uvicorn

    header_timeout, idle_timeout = settings.web_timeouts()
    return uvicorn.Config(
        app,
        host=host,
        port=port,
        http=guarded(header_timeout),
        timeout_keep_alive=idle_timeout,  # type: ignore[arg-type]  # a float is fine: call_later
        timeout_graceful_shutdown=SHUTDOWN_S,
        log_level="warning",
        access_log=False,
        server_header=False,
        # behind a load balancer (TOURNEY_WEB_TRUSTED_PROXIES) its X-Forwarded-For names the client, whose
        # address the throttles count; from any other peer the header is ignored
        proxy_headers=settings.web_trusted_proxies() is not None,
        forwarded_allow_ips=settings.web_trusted_proxies() or "",
    )


def collect_less() -> None:
    """The web process's collector as GC_THRESHOLDS says: once the app is made, before it serves."""
    gc.collect()
    gc.freeze()
    gc.set_threshold(*GC_THRESHOLDS)
