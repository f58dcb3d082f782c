"""The public web pages (read-only): the club's screen, live results, season standings, certificate
checks and the clubs' calendars. Starlette + Jinja2 (autoescape), server-sent events from one shared poller per
tournament, JavaScript served as files under a strict Content-Security-Policy.

`tourney web` serves it with uvicorn; docs/web.md describes the pages and the security choices.
"""

from __future__ import annotations

import asyncio
import re
import time
from collections import deque
from contextlib import asynccontextmanager
from datetime import UTC, datetime
from pathlib import Path
from urllib.parse import quote

from anyio import to_thread
from jinja2 import Environment, FileSystemLoader, select_autoescape
from sqlalchemy.engine import Engine
from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import HTMLResponse, Response, StreamingResponse
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from domain.errors import DomainError, NotFound
from domain.store.db import get_engine, unit_of_work
from flows.web import reads
from flows.web.live import Hub
from infra import i18n
from infra.config import load_settings

STATIC = Path(__file__).with_name("static")
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
SERIAL = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$")
CODE = re.compile(r"^[A-Za-z2-9]{4}-?[A-Za-z2-9]{4}$")
JOIN_CODE = re.compile(r"^[23456789ABCDEFGHJKLMNPQRSTUVWXYZ]{6}$")
MAX_UPLOAD = 10 * 1024 * 1024
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


def _id(raw: str) -> int:
    """A path id: digits within PostgreSQL's bigint, else 404."""
    if not raw.isascii() or not raw.isdigit() or len(raw) > 19 or int(raw) > reads.BIGINT_MAX or int(raw) < 1:
        raise HTTPException(404)
    return int(raw)


def create_app(engine: Engine | None = None, *, poll_interval: float = 0.5, join_limit: int = 10,
               join_window: float = 60.0, outbox: Path | None = None, shared_poller: bool = True) -> Starlette:
    """The application. `shared_poller=False` gives every event-stream client a poller of its own:
    the naive way, kept only so `bench/bench_web.py` can measure the shared one beside it."""
    envs = {locale: _environment(locale) for locale in i18n.LOCALES}
    settings = load_settings()
    hub = Hub(poll_interval)
    outbox = outbox or settings.home / "outbox"
    join_limits = RateLimit(join_limit, join_window)

    def db():
        return unit_of_work(engine or get_engine())

    def page(name: str, status: int = 200, locale: str = "en", **context) -> HTMLResponse:
        return HTMLResponse(envs[locale].get_template(name).render(lang=locale, **context), status_code=status)

    async def read(fn, *args):
        def run():
            with db() as session:
                return fn(session, *args)
        try:
            return await to_thread.run_sync(run)
        except NotFound:
            raise HTTPException(404) from None
        except DomainError:
            raise HTTPException(404) from None

    # -- the pages -------------------------------------------------------------------------------

    async def home(request: Request) -> Response:
        listed = await read(reads.open_tournaments)
        return page("home.html", **listed)

    async def screen(request: Request) -> Response:
        tid = _id(request.path_params["id"])
        state = await read(reads.screen, tid, datetime.now(UTC))
        return page("screen.html", s=state, c=state["clock"])

    async def poker_results(request: Request) -> Response:
        tid = _id(request.path_params["id"])
        data = await read(reads.poker_results, tid, datetime.now(UTC))
        name = "results_body.html" if request.query_params.get("fragment") == "1" else "results.html"
        return page(name, s=data["screen"], places=data["places"], knockouts=data["knockouts"], seasons=data["seasons"])

    async def season(request: Request) -> Response:
        data = await read(reads.season, _id(request.path_params["id"]))
        return page("season.html", locale=data["locale"], s=data)

    async def poker_events(request: Request) -> Response:
        tid = _id(request.path_params["id"])
        await read(reads.fingerprint_or_404, tid)

        def fingerprint():
            with db() as session:
                return reads.fingerprint(session, tid)

        def build(now):
            with db() as session:
                return reads.screen(session, tid, now)

        return await _stream(request, f"poker:{tid}", fingerprint, build)

    async def pusoy_page(request: Request) -> Response:
        code = _join_code(request)
        data = await read(reads.pusoy_page, code)
        name = "pusoy_body.html" if request.query_params.get("fragment") == "1" else "pusoy.html"
        return page(name, p=data, code=code)

    async def pusoy_events(request: Request) -> Response:
        code = _join_code(request)
        await read(reads.pusoy_page, code)

        def fingerprint():
            with db() as session:
                return reads.pusoy_version(session, code)

        def build(now):
            return {"version": fingerprint(), "at": now}

        return await _stream(request, f"pusoy:{code}", fingerprint, build)

    def _join_code(request: Request) -> str:
        client = request.client.host if request.client else "?"
        code = request.path_params["code"].upper()[:16]
        if not join_limits.allow(client, code):
            raise HTTPException(429)
        if not JOIN_CODE.match(code):
            raise HTTPException(404)
        return code

    async def _stream(request: Request, key: str, fingerprint, build) -> Response:
        if not shared_poller:
            key = f"{key}:{id(request)}"
        queue, topic = await hub.subscribe(key, fingerprint, build)

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
                hub.unsubscribe(topic, queue)

        return StreamingResponse(events(), media_type="text/event-stream",
                                 headers={"cache-control": "no-store", "x-accel-buffering": "no"})

    # -- certificates (DOC-5) --------------------------------------------------------------------

    async def verify(request: Request) -> Response:
        serial = request.path_params["serial"]
        if not SERIAL.match(serial):
            raise HTTPException(404)
        if request.method == "POST":
            return await _verify_upload(request, serial)
        code = request.query_params.get("code", "")
        if code and not CODE.match(code):
            raise HTTPException(400)
        found = await read(reads.certificate, serial)
        reasons = []
        if found is None:
            reasons.append("no certificate with this serial was issued by Tourney")
        elif not code:
            reasons.append("the link carries no verification code")
        elif _normal_code(code) != _normal_code(found["code"]):
            reasons.append("the verification code does not match this certificate's signature")
        signed = await to_thread.run_sync(_signed_data, outbox, found) if not reasons else None
        return page("verify.html", serial=serial, cert=found if not reasons else None, reasons=reasons,
                    upload=None, signed=signed)

    async def _verify_upload(request: Request, serial: str) -> Response:
        length = request.headers.get("content-length", "")
        if not length.isdigit():  # no chunked uploads: the size is known before anything is read
            raise HTTPException(400)
        if int(length) > MAX_UPLOAD:
            raise HTTPException(413)
        try:
            async with request.form(max_files=1, max_fields=2) as form:
                upload = form.get("file")
                if upload is None or isinstance(upload, str):
                    raise HTTPException(400)
                data = await upload.read(MAX_UPLOAD + 1)
        except HTTPException:
            raise
        except Exception:
            raise HTTPException(400) from None
        if len(data) > MAX_UPLOAD:
            raise HTTPException(413)
        from infra import pdf

        key = settings.secret_key()
        embedded, problems = await to_thread.run_sync(pdf.verify, key, data)
        reasons = [p.message for p in problems]
        signed = (embedded or {}).get("data") or {}
        if not reasons and str(signed.get("serial")) != serial:
            reasons.append(f"the file is the certificate {signed.get('serial')}, not {serial}")
        return page("verify.html", serial=serial, cert=None, reasons=reasons,
                    upload={"valid": not reasons, "data": signed if not reasons else None})

    # -- calendars -------------------------------------------------------------------------------

    async def calendar(request: Request) -> Response:
        club_id = _id(request.path_params["id"])
        data = await read(reads.club_calendar, club_id, datetime.now(UTC))
        from flows.web.calendar import ics

        return Response(ics(data, settings.public_url()), media_type="text/calendar; charset=utf-8",
                        headers={"content-disposition": f'inline; filename="club-{club_id}.ics"'})

    # -- errors: a plain page, never a trace -----------------------------------------------------

    async def http_error(request: Request, exc: Exception) -> Response:
        code = exc.status_code if isinstance(exc, HTTPException) else 500
        code = code if code in MESSAGES else (404 if code < 500 else 500)
        return page("error.html", status=code, code=code, message=MESSAGES[code])

    async def server_error(request: Request, exc: Exception) -> Response:
        return page("error.html", status=500, code=500, message=MESSAGES[500])

    @asynccontextmanager
    async def lifespan(app):
        yield
        await hub.close()

    app = Starlette(
        routes=[
            Route("/", home),
            Route("/t/{id}", poker_results),
            Route("/t/{id}/screen", screen),
            Route("/t/{id}/events", poker_events),
            Route("/seasons/{id}", season),
            Route("/p/{code}", pusoy_page),
            Route("/p/{code}/events", pusoy_events),
            Route("/verify/{serial}", verify, methods=["GET", "POST"]),
            Route("/clubs/{id}/calendar.ics", calendar),
            Mount("/static", StaticFiles(directory=STATIC), name="static"),
        ],
        exception_handlers={HTTPException: http_error, Exception: server_error},
        middleware=[Middleware(SecurityHeaders)],
        lifespan=lifespan,
    )
    app.state.hub = hub
    app.state.join_limits = join_limits
    for each in envs.values():
        each.globals["public_url"] = settings.public_url()
        each.globals["quote"] = quote
    return app


def _environment(locale: str) -> Environment:
    """The pages' templates (templates/web, then templates/ for the parts shared with the documents)
    with a language's catalog and CLDR formats (DOC-4): the season page speaks the club's language,
    the other pages English."""
    env = Environment(loader=FileSystemLoader([TEMPLATES, TEMPLATES.parent]), autoescape=select_autoescape(default=True),
                      extensions=["jinja2.ext.i18n"])
    env.install_gettext_translations(i18n.translations(locale), newstyle=True)
    env.filters["longdate"] = lambda day: i18n.long_date(day, locale)
    env.filters["number"] = lambda value: i18n.number(value, locale)
    env.filters["points"] = lambda value: i18n.points(value, locale)
    return env


def _signed_data(outbox: Path, found: dict) -> dict | None:
    """The certificate's signed data (place, prize, date) from its stored PDF, when the file is there
    unchanged and carries the very signature on record; else None (the page shows the record)."""
    import hashlib
    import json

    from pypdf import PdfReader

    folder, filename = found["path"]
    path = (outbox / folder / filename).resolve()
    if not path.is_relative_to(outbox.resolve()) or not path.is_file():
        return None
    data = path.read_bytes()
    if hashlib.sha256(data).hexdigest() != found["sha256"]:
        return None
    try:
        import io

        from infra.pdf import ATTACHMENT

        attached = PdfReader(io.BytesIO(data)).attachments.get(ATTACHMENT)
        embedded = json.loads(attached[0]) if attached else None
    except Exception:
        return None
    if not embedded or embedded.get("signature") != found["signature"]:
        return None
    return embedded.get("data")


def _normal_code(code: str) -> str:
    return code.replace("-", "").upper()


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


__all__ = ["create_app"]
