"""What every public page shares: the templates in each language, a database session per read (in a
worker thread), the event streams' hub, the join-code rate limit, the security headers and the
plain error pages."""

from __future__ import annotations

import asyncio
import re
import time
from collections import deque
from collections.abc import Callable
from pathlib import Path
from typing import Any
from urllib.parse import quote

from anyio import to_thread
from jinja2 import Environment, FileSystemLoader, select_autoescape
from sqlalchemy.engine import Engine
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import HTMLResponse, Response, StreamingResponse

from domain.errors import DomainError
from domain.public.services import views
from domain.store.db import unit_of_work
from flows import bootstrap
from flows.web.live import Hub
from infra import i18n
from infra.config import Settings

TEMPLATES = Path(__file__).resolve().parents[2] / "templates" / "web"
CSP = (
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; "
    "font-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'"
)
SECURITY_HEADERS = {
    "content-security-policy": CSP,
    "x-content-type-options": "nosniff",
    "referrer-policy": "no-referrer",
    "x-frame-options": "DENY",
    "cross-origin-opener-policy": "same-origin",
}
MESSAGES = {
    400: "That request cannot be read.",
    404: "Nothing here.",
    405: "This site only shows pages.",
    413: "That file is too large.",
    429: "Too many look-ups from your address: wait a minute and try again.",
    500: "Something went wrong on our side.",
}
JOIN_CODE = re.compile(r"^[23456789ABCDEFGHJKLMNPQRSTUVWXYZ]{6}$")
KEEPALIVE_S = 15.0


class RateLimit:
    """At most `limit` distinct keys per `window` seconds per client address (a sliding window).

    A key the client already looked up inside the window costs nothing again, so a page refreshing
    its own tournament never hits the limit, while guessing codes does after `limit` guesses."""

    def __init__(self, limit: int = 10, window: float = 60.0):
        self.limit, self.window = limit, window
        self.hits: dict[str, deque[tuple[float, str]]] = {}

    def allow(self, client: str, key: str) -> bool:
        now = time.monotonic()
        hits = self.hits.setdefault(client, deque())
        while hits and hits[0][0] <= now - self.window:
            hits.popleft()
        if any(k == key for _, k in hits):
            return True
        if len(hits) >= self.limit:
            return False
        hits.append((now, key))
        if len(self.hits) > 10000:  # forget idle clients
            for name in [c for c, v in self.hits.items() if not v or v[-1][0] <= now - self.window]:
                del self.hits[name]
        return True


def path_id(raw: str) -> int:
    """A path id: digits within PostgreSQL's bigint, else 404."""
    if not raw.isascii() or not raw.isdigit() or len(raw) > 19 or int(raw) > views.BIGINT_MAX or int(raw) < 1:
        raise HTTPException(404)
    return int(raw)


def environment(locale: str, public_url: str) -> Environment:
    """The pages' templates (templates/web, then templates/ for the parts shared with the documents)
    with a language's catalog and CLDR formats (DOC-4): the season page speaks the club's language,
    the other pages English."""
    env = Environment(loader=FileSystemLoader([TEMPLATES, TEMPLATES.parent]), autoescape=select_autoescape(default=True),
                      extensions=["jinja2.ext.i18n"])
    env.install_gettext_translations(i18n.translations(locale), newstyle=True)
    env.filters["longdate"] = lambda day: i18n.long_date(day, locale)
    env.filters["number"] = lambda value: i18n.number(value, locale)
    env.filters["points"] = lambda value: i18n.points(value, locale)
    env.globals["public_url"] = public_url
    env.globals["quote"] = quote
    return env


class Site:
    """The state the pages share. `shared_poller=False` gives every event-stream client a poller of
    its own: the naive way, kept only so `bench/bench_web.py` can measure the shared one beside it."""

    def __init__(self, engine: Engine | None, settings: Settings, *, poll_interval: float, join_limit: int,
                 join_window: float, outbox: Path | None, shared_poller: bool):
        self.engine, self.settings, self.shared_poller = engine, settings, shared_poller
        self.envs = {locale: environment(locale, settings.public_url()) for locale in i18n.LOCALES}
        self.hub = Hub(poll_interval)
        self.outbox = outbox or settings.home / "outbox"
        self.join_limits = RateLimit(join_limit, join_window)

    def db(self):
        return unit_of_work(self.engine or bootstrap.engine())

    def page(self, name: str, status: int = 200, locale: str = "en", **context) -> HTMLResponse:
        return HTMLResponse(self.envs[locale].get_template(name).render(lang=locale, **context), status_code=status)

    async def read(self, fn: Callable[..., Any], *args) -> Any:
        """`fn(session, *args)` in a worker thread; a tournament, season or code that is not there is a 404."""
        def run():
            with self.db() as session:
                return fn(session, *args)
        try:
            return await to_thread.run_sync(run)
        except DomainError:  # NotFound, or an id the domain refuses
            raise HTTPException(404) from None

    def join_code(self, request: Request) -> str:
        """The path's join code, after the rate limit: guessing codes is slowed down before it is checked."""
        client = request.client.host if request.client else "?"
        code = request.path_params["code"].upper()[:16]
        if not self.join_limits.allow(client, code):
            raise HTTPException(429)
        if not JOIN_CODE.match(code):
            raise HTTPException(404)
        return code

    async def stream(self, request: Request, key: str, fingerprint, build) -> Response:
        """Server-sent events of one topic from the hub's shared poller, with keep-alives."""
        if not self.shared_poller:
            key = f"{key}:{id(request)}"
        queue, topic = await self.hub.subscribe(key, fingerprint, build)

        async def events():
            try:
                yield b"retry: 1000\n\n"
                while True:
                    try:
                        message = await asyncio.wait_for(queue.get(), KEEPALIVE_S)
                    except TimeoutError:
                        if await request.is_disconnected():
                            return
                        yield b": keep-alive\n\n"
                        continue
                    yield message
            finally:
                self.hub.unsubscribe(topic, queue)

        return StreamingResponse(events(), media_type="text/event-stream",
                                 headers={"cache-control": "no-store", "x-accel-buffering": "no"})

    def error(self, request: Request, exc: Exception) -> Response:
        """A plain page, never a trace."""
        code = exc.status_code if isinstance(exc, HTTPException) else 500
        code = code if code in MESSAGES else (404 if code < 500 else 500)
        return self.page("error.html", status=code, code=code, message=MESSAGES[code])


class SecurityHeaders:
    """Adds the security headers to every response (pages, events, files and errors alike)."""

    def __init__(self, app):
        self.app = app

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http":
            return await self.app(scope, receive, send)

        async def sending(message):
            if message["type"] == "http.response.start":
                headers = list(message.get("headers", []))
                present = {k.lower() for k, _ in headers}
                for name, value in SECURITY_HEADERS.items():
                    if name.encode() not in present:
                        headers.append((name.encode(), value.encode()))
                message = {**message, "headers": headers}
            await send(message)

        await self.app(scope, receive, sending)
