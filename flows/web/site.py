"""What every public page shares: the templates in each language, a database session per read (in a
worker thread), the event streams' hub, the join-code rate limit, the security headers and the
plain error pages."""

from __future__ import annotations

import asyncio
import hashlib
import hmac
import math
import re
import time
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any
from urllib.parse import quote
from zoneinfo import ZoneInfo

from anyio import to_thread
from babel.core import negotiate_locale
from babel.dates import format_date, format_time, get_timezone_gmt
from jinja2 import Environment, FileSystemLoader, select_autoescape
from sqlalchemy import text
from sqlalchemy.engine import Engine
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import HTMLResponse, Response, StreamingResponse

from domain.access.rules.credentials import SESSION_ABSOLUTE
from domain.access.rules.policy import CLUB_ROLES, Actor, Role
from domain.documents.rules.model import DEFAULT_LOCALE as DEFAULT_LOCALES
from domain.documents.rules.model import N_
from domain.errors import DomainError
from domain.public.services import views
from domain.store.db import unit_of_work
from flows import bootstrap
from flows.web.auth import COOKIE, Auth
from flows.web.cached import Pages
from flows.web.live import Hub
from flows.web.wording import clock_text
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
MESSAGES = {  # translated where shown (the error page, in the language the browser asks for)
    400: N_("That request cannot be read."),
    404: N_("Nothing here."),
    405: N_("This site only shows pages."),
    413: N_("That file is too large."),
    429: N_("Too many look-ups from your address: wait a minute and try again."),
    500: N_("Something went wrong on our side."),
}
DEFAULT_LOCALE = DEFAULT_LOCALES["poker"]  # a page of no club: Russian unless the browser prefers English
JOIN_CODE = re.compile(r"^[23456789ABCDEFGHJKLMNPQRSTUVWXYZ]{6}$")
KEEPALIVE_S = 15.0


_HOLD = text("SELECT pg_advisory_xact_lock(hashtextextended(:bucket || ' ' || :client, 0))")
_ASK = text(
    """
    WITH gone AS (DELETE FROM web_throttle_hits WHERE bucket = :bucket AND at <= clock_timestamp() - :window),
    seen AS (
        SELECT count(*) AS hits, max(at) FILTER (WHERE key = :key) AS asked
        FROM web_throttle_hits WHERE bucket = :bucket AND client = :client AND at > clock_timestamp() - :window
    ),
    added AS (
        INSERT INTO web_throttle_hits (bucket, client, key, at)
        SELECT :bucket, :client, :key, clock_timestamp() FROM seen
        WHERE NOT (:distinct AND asked IS NOT NULL) AND hits < :limit
        RETURNING at
    )
    SELECT (SELECT count(*) FROM added) = 1 OR (:distinct AND asked IS NOT NULL) AS allowed,
           extract(epoch FROM coalesce((SELECT at FROM added), asked) + :window - clock_timestamp()) AS left_s
    FROM seen
    """
)
_WAIT = text(
    """
    SELECT count(*) AS hits, extract(epoch FROM min(at) + :window - clock_timestamp()) AS left_s
    FROM web_throttle_hits WHERE bucket = :bucket AND client = :client AND at > clock_timestamp() - :window
    """
)


class RateLimit:
    """At most `limit` distinct keys per `window` seconds per client (a sliding window), counted in
    PostgreSQL (`web_throttle_hits`, by the database's clock), so every web process and host behind one
    address counts the same asks.

    A key the client already looked up inside the window costs nothing again, so a page refreshing
    its own tournament never hits the limit, while guessing codes does after `limit` guesses; such a
    key is remembered here until its hit expires, so asking it again costs no statement either. With
    `distinct=False` every call counts (the password reset form: `limit` asks per window). Each ask is
    a transaction of its own, committed at once: a refused request still counted its ask."""

    def __init__(self, db: Callable, bucket: str, limit: int = 10, window: float = 60.0, *, distinct: bool = True):
        self.db, self.bucket, self.limit, self.window, self.distinct = db, bucket, limit, window, distinct
        self.known: dict[tuple[str, str], float] = {}  # (client, key) allowed: until when (monotonic)

    def _binds(self, client: str) -> dict[str, Any]:
        return {"bucket": self.bucket, "client": client, "window": timedelta(seconds=self.window)}

    def wait(self, client: str) -> int:
        """Seconds until `client` may ask again (0: now): when its oldest hit in the window expires."""
        with self.db() as session:
            hits, left = session.execute(_WAIT, self._binds(client)).one()
        return 0 if hits < self.limit else max(1, math.ceil(left))

    def allow(self, client: str, key: str = "") -> bool:
        now = time.monotonic()
        if self.distinct and self.known.get((client, key), 0.0) > now:
            return True
        with self.db() as session:
            binds = self._binds(client)
            session.execute(_HOLD, binds)  # one client's asks one at a time, on every process
            allowed, left = session.execute(
                _ASK, binds | {"key": key, "limit": self.limit, "distinct": self.distinct}
            ).one()
        if not allowed:
            return False
        if self.distinct:
            if len(self.known) > 10000:  # forget what expired
                self.known = {k: until for k, until in self.known.items() if until > now}
            self.known[(client, key)] = now + float(left)
        return True

    async def allows(self, client: str, key: str = "") -> bool:
        """`allow` from the event loop (its statements in a worker thread)."""
        return await to_thread.run_sync(self.allow, client, key)


PLACES_COOKIE = "tourney_places"
PLACES = ("platform", "club", "cups", "desk", "play")  # where a signed-in person may go, as the header links them


def places_of(actor: Actor) -> tuple[str, ...]:
    """The places of the header a person may go to: the operator's queue, the owner's console, an
    organizer's cups, the desk for a club's staff (owner, floor, cashier), play for a player; every
    signed-in person has their account besides."""
    roles = {role for role, _ in actor.roles}
    held = (
        ("platform", Role.OPERATOR in roles),
        ("club", Role.OWNER in roles),
        ("cups", Role.ORGANIZER in roles),
        ("desk", bool(roles & set(CLUB_ROLES))),
        ("play", Role.PLAYER in roles),
    )
    return tuple(place for place, holds in held if holds)


class Places:
    """The header's places of a session, kept in a cookie of their own beside the session's
    (`tourney_places`: `desk,play.<HMAC of the session's secret and the places>`), so a page's header
    links them with no read of the database. Bound to the session's secret: another session's (a
    person signed in anew past it) is ignored. Set when the roles were read anyway (the sign-in,
    `/account`, `/play`); it only says which links to show: each place asks for its roles itself."""

    def __init__(self, platform_key: bytes, secure: bool):
        self.key = hmac.new(platform_key, b"tourney header places", hashlib.sha256).digest()
        self.secure = secure

    def _sign(self, secret: str, places: str) -> str:
        return hmac.new(self.key, f"{secret}|{places}".encode(), hashlib.sha256).hexdigest()[:32]

    def value(self, secret: str, places: tuple[str, ...]) -> str:
        shown = ",".join(places) or "-"
        return f"{shown}.{self._sign(secret, shown)}"

    def read(self, raw: str | None, secret: str) -> tuple[str, ...] | None:
        """The places of the cookie when it is this session's, else None (unknown)."""
        if not raw or raw.count(".") != 1 or len(raw) > 100:
            return None
        shown, signature = raw.split(".")
        if not hmac.compare_digest(signature, self._sign(secret, shown)):
            return None
        return tuple(p for p in shown.split(",") if p in PLACES)

    def set(self, response: Response, secret: str, places: tuple[str, ...]) -> None:
        response.set_cookie(
            PLACES_COOKIE,
            self.value(secret, places),
            max_age=int(SESSION_ABSOLUTE.total_seconds()),
            httponly=True,
            samesite="lax",
            secure=self.secure,
            path="/",
        )

    def clear(self, response: Response) -> None:
        response.delete_cookie(PLACES_COOKIE, path="/", httponly=True, samesite="lax", secure=self.secure)


def local_instant(at: datetime, zone: str | None, locale: str) -> str:
    """6 дек. 2026 г., 23:40 / Dec 6, 2026, 11:40 PM: an instant in a timezone (an IANA name; None: UTC),
    CLDR's medium date and short time (the zone is said once beside, `zone_offset`)."""
    local = at.astimezone(ZoneInfo(zone) if zone else UTC)
    return f"{format_date(local, 'medium', locale=locale)}, {format_time(local, 'short', tzinfo=local.tzinfo, locale=locale)}"


def zone_offset(zone: str | None, at: datetime, locale: str) -> str:
    """GMT+03:00: a timezone's offset from UTC at an instant, as CLDR writes it."""
    return get_timezone_gmt(at.astimezone(ZoneInfo(zone) if zone else UTC), "long", locale=locale)


def path_id(raw: str) -> int:
    """A path id: digits within PostgreSQL's bigint, else 404."""
    if not raw.isascii() or not raw.isdigit() or len(raw) > 19 or int(raw) > views.BIGINT_MAX or int(raw) < 1:
        raise HTTPException(404)
    return int(raw)


def environment(locale: str, public_url: str) -> Environment:
    """The pages' templates (templates/web, then templates/ for the parts shared with the documents)
    with a language's catalog and CLDR formats (DOC-4): a club's pages speak the club's language (its
    documents' language), a Pusoy Dos tournament's page its documents' language, the pages of no
    club the language the browser prefers."""
    env = Environment(
        loader=FileSystemLoader([TEMPLATES, TEMPLATES.parent]),
        autoescape=select_autoescape(default=True),
        extensions=["jinja2.ext.i18n"],
    )
    env.install_gettext_translations(i18n.translations(locale), newstyle=True)
    env.filters["longdate"] = lambda day: i18n.long_date(day, locale)
    env.filters["number"] = lambda value: i18n.number(value, locale)
    env.filters["points"] = lambda value: i18n.points(value, locale)
    env.filters["place"] = lambda n: i18n.place(n, locale)
    env.filters["time"] = lambda at: i18n.short_time(at, locale)
    env.filters["day_and_time"] = lambda at: i18n.day_and_time(at, locale)
    env.filters["instant"] = lambda at: i18n.instant_utc(at, locale)
    env.filters["local_instant"] = lambda at, zone: local_instant(at, zone, locale)
    env.filters["zone_offset"] = lambda zone, at: zone_offset(zone, at, locale)
    env.filters["clock"] = clock_text
    env.globals["public_url"] = public_url
    env.globals["quote"] = quote
    return env


def preferred_locale(request: Request) -> str:
    """The page's language for a page of no club: the first of ru and en the browser's
    Accept-Language names (by its q-values), else Russian."""
    ranked = []
    for n, part in enumerate(request.headers.get("accept-language", "").split(",")[:20]):
        tag, _, params = part.strip().partition(";")
        q = 1.0
        if params.strip().startswith("q="):
            try:
                q = float(params.strip()[2:])
            except ValueError:
                q = 0.0
        if tag and q > 0:
            ranked.append((-q, n, tag.strip().replace("-", "_")))
    found = negotiate_locale([tag for *_, tag in sorted(ranked)], i18n.LOCALES, sep="_")
    return found or DEFAULT_LOCALE


class Site:
    """The state the pages share. `shared_poller=False` gives every event-stream client a poller of
    its own: the naive way, kept only so `bench/bench_web.py` can measure the shared one beside it."""

    def __init__(
        self,
        engine: Engine | None,
        settings: Settings,
        *,
        poll_interval: float,
        join_limit: int,
        join_window: float,
        outbox: Path | None,
        shared_poller: bool,
        clock: Callable[[], datetime] | None = None,
        reset_limit: int = 5,
        reset_window: float = 900.0,
    ):
        self.engine, self.settings, self.shared_poller = engine, settings, shared_poller
        self.envs = {locale: environment(locale, settings.public_url()) for locale in i18n.LOCALES}
        self.hub = Hub(poll_interval, listen=self.listen_url)
        self.pages = Pages()  # the public pages rendered once per change (flows/web/cached.py)
        self.outbox = outbox or settings.home / "outbox"
        self.join_limits = RateLimit(self.db, "join-code", join_limit, join_window)
        self.auth = Auth(settings.secret_key(), secure=settings.public_url().startswith("https://"))
        self.places = Places(settings.secret_key(), secure=self.auth.secure)
        self.hasher = bootstrap.password_hasher()
        self.clock = clock or (lambda: datetime.now(UTC))
        self.reset_limits = RateLimit(self.db, "reset", reset_limit, reset_window, distinct=False)
        self.signup_limits = RateLimit(self.db, "sign-up", 10, 900.0, distinct=False)  # per address, right or wrong

    def db(self):
        return unit_of_work(self.engine or bootstrap.engine())

    def listen_url(self) -> str:
        """The database's address for the hub's one LISTEN connection (psycopg's, outside the pool)."""
        url = (self.engine or bootstrap.engine()).url
        return url.set(drivername="postgresql").render_as_string(hide_password=False)

    def page(
        self,
        name: str,
        status: int = 200,
        locale: str = DEFAULT_LOCALE,
        request: Request | None = None,
        *,
        actor: Actor | None = None,
        **context,
    ) -> HTMLResponse:
        """A page; given the request, its header links the places of the person signed in (`header`):
        the desk, play, my account and a sign-out form when the request carries a session cookie this
        site signed, else "Sign in". That costs HMACs, never a read of the database: the places come from
        the session's places cookie (`Places`), set again here when the handler read the person anyway
        (`actor`, the session's own). Whether the session is still open is asked by the places
        themselves; without a places cookie (a session begun through the API) the header links my
        account and the sign-out alone, until a page that reads the roles sets it."""
        secret = self.auth.secret_of(request.cookies.get(COOKIE)) if request is not None else None
        context.setdefault("signed_in", secret is not None)
        places = None
        if secret is not None:
            known = self.places.read(request.cookies.get(PLACES_COOKIE), secret)
            places = places_of(actor) if actor is not None else known
            context.setdefault("header_csrf", self.auth.csrf(secret))
        context.setdefault("header_places", places or ())
        context.setdefault("header_here", request.url.path if request is not None else "")
        response = HTMLResponse(self.envs[locale].get_template(name).render(lang=locale, **context), status_code=status)
        if secret is not None and actor is not None and places != known:
            self.places.set(response, secret, places)
        return response

    async def write(self, fn: Callable[..., Any], *args, **kwargs) -> Any:
        """`fn(session, *args, **kwargs)` in a worker thread, in one transaction committed when it
        returns (rolled back when it raises; the error reaches the caller)."""

        def run():
            with self.db() as session:
                return fn(session, *args, **kwargs)

        return await to_thread.run_sync(run)

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

    async def stream(self, request: Request, key: str, fingerprint, build, part: str | None = None) -> Response:
        """Server-sent events of one topic from the hub's shared poller, with keep-alives (of `part`: the
        topic's shared fields and that part's own, `flows/web/live.py`)."""
        if not self.shared_poller:
            key = f"{key}:{id(request)}"
        queue, topic = await self.hub.subscribe(key, fingerprint, build, part)

        async def events():
            try:
                yield b"retry: 1000\n\n"
                while True:
                    try:  # asyncio.timeout, not wait_for: no task made for each message (the fan-out's cost)
                        async with asyncio.timeout(KEEPALIVE_S):
                            message = await queue.get()
                    except TimeoutError:
                        if await request.is_disconnected():
                            return
                        yield b": keep-alive\n\n"
                        continue
                    yield message
            finally:
                self.hub.unsubscribe(topic, queue)

        return StreamingResponse(
            events(), media_type="text/event-stream", headers={"cache-control": "no-store", "x-accel-buffering": "no"}
        )

    def error(self, request: Request, exc: Exception) -> Response:
        """A plain page, never a trace, in the language the browser prefers."""
        code = exc.status_code if isinstance(exc, HTTPException) else 500
        code = code if code in MESSAGES else (404 if code < 500 else 500)
        if request.url.path.startswith("/api/v1/"):  # a path the API's mount could not route (a newline in it)
            from flows.web.api.core import error

            return error(
                code,
                "not-found" if code == 404 else "internal",
                "Nothing here." if code == 404 else "Something went wrong on our side.",
            )
        return self.page(
            "error.html",
            status=code,
            locale=preferred_locale(request),
            request=request,
            code=code,
            message=MESSAGES[code],
        )


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
                present = {k.lower(): v for k, v in headers}
                framed = b"frame-ancestors *" in present.get(b"content-security-policy", b"")  # the widget's
                for name, value in SECURITY_HEADERS.items():
                    if name.encode() not in present and not (framed and name == "x-frame-options"):
                        headers.append((name.encode(), value.encode()))
                message = {**message, "headers": headers}
            await send(message)

        await self.app(scope, receive, sending)
