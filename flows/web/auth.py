"""Who a web request is (RULES AC-1, AC-4): a bearer token (`Authorization: Bearer tny_…`), else the
session cookie, else nobody. Read afresh at every request, in the request's own transaction.

The session cookie is `<secret>.<signature>`: the secret's SHA-256 is the session row's key and the
signature (HMAC-SHA256 under a key derived from the platform secret) lets a forged cookie be turned
away before the database is asked. It is HttpOnly, SameSite=Lax, Secure when the public address is
HTTPS, and lives as long as the session may (14 days; the row decides when it ends).

CSRF: a write authenticated by the cookie carries the session's CSRF token (HMAC of its secret under
another derived key) in the `X-CSRF-Token` header (the API) or the `csrf` form field (the pages); a
bearer token needs none (a browser never sends it by itself). Forms of no session (sign-in, reset)
are checked by their origin (`same_origin`: Sec-Fetch-Site, else Origin).
"""

from __future__ import annotations

import hashlib
import hmac
from dataclasses import dataclass
from datetime import datetime

from sqlalchemy.orm import Session
from starlette.requests import Request

from domain.access.rules.credentials import SESSION_ABSOLUTE
from domain.access.rules.policy import ANONYMOUS, Actor
from domain.access.services import signin

COOKIE = "tourney_session"
CSRF_HEADER = "x-csrf-token"


@dataclass(frozen=True)
class Caller:
    actor: Actor
    session_secret: str | None = None  # set when the cookie authenticated the request

    @property
    def by_cookie(self) -> bool:
        return self.session_secret is not None


class Auth:
    def __init__(self, platform_key: bytes, secure: bool):
        self.cookie_key = hmac.new(platform_key, b"tourney session cookie", hashlib.sha256).digest()
        self.csrf_key = hmac.new(platform_key, b"tourney csrf", hashlib.sha256).digest()
        self.secure = secure

    def _sign(self, secret: str) -> str:
        return hmac.new(self.cookie_key, secret.encode(), hashlib.sha256).hexdigest()[:32]

    def cookie(self, secret: str) -> str:
        return f"{secret}.{self._sign(secret)}"

    def secret_of(self, cookie: str | None) -> str | None:
        if not cookie or cookie.count(".") != 1 or len(cookie) > 200:
            return None
        secret, signature = cookie.split(".")
        return secret if hmac.compare_digest(signature, self._sign(secret)) else None

    def csrf(self, secret: str) -> str:
        return hmac.new(self.csrf_key, secret.encode(), hashlib.sha256).hexdigest()[:32]

    def csrf_ok(self, caller: Caller, given: str | None) -> bool:
        if not caller.by_cookie:
            return True
        return given is not None and hmac.compare_digest(given, self.csrf(caller.session_secret))

    def identify(self, session: Session, request: Request, now: datetime) -> Caller:
        header = request.headers.get("authorization")
        if header is not None:  # a credential given is the one judged: a bad one is no one, never the cookie
            actor = signin.token_actor(session, header[7:].strip(), now) if header[:7].lower() == "bearer " else None
            return Caller(actor or ANONYMOUS)
        secret = self.secret_of(request.cookies.get(COOKIE))
        if secret is None:
            return Caller(ANONYMOUS)
        actor = signin.session_actor(session, secret, now)
        return Caller(actor, secret) if actor else Caller(ANONYMOUS)

    def set_cookie(self, response, secret: str) -> None:
        response.set_cookie(
            COOKIE,
            self.cookie(secret),
            max_age=int(SESSION_ABSOLUTE.total_seconds()),
            httponly=True,
            samesite="lax",
            secure=self.secure,
            path="/",
        )

    def clear_cookie(self, response) -> None:
        response.delete_cookie(COOKIE, path="/", httponly=True, samesite="lax", secure=self.secure)


def same_origin(request: Request) -> bool:
    """A form of no session came from this site. A browser's own word first: `Sec-Fetch-Site:
    same-origin` (every current browser sends it, and no page can forge it; Chromium sends `Origin:
    null` for this site's own forms, as its pages carry `Referrer-Policy: no-referrer`). Without it,
    its Origin (or Referer) names this host, or is absent (a client that sends neither is not a
    browser posting a form across sites)."""
    fetch_site = request.headers.get("sec-fetch-site")
    if fetch_site is not None:
        return fetch_site == "same-origin"
    origin = request.headers.get("origin") or request.headers.get("referer")
    if not origin or origin == "null":
        return origin is None
    host = request.headers.get("host", "")
    return origin.split("://", 1)[-1].split("/", 1)[0] == host
