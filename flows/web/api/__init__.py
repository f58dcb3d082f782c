"""`/api/v1`: one JSON API for the club's desk, the players' pages, the game servers and integrations
(RULES AC-1..AC-5). FastAPI, mounted in the web app, with its OpenAPI document at
`/api/v1/openapi.json` (docs/api.md).

Every operation is one action of the policy table (`domain/access/rules/policy.POLICY`), named by its
`operationId`; `core.Api.run` is the one path every operation takes. The operations are in
`account.py` (the session, my account), `club.py` (a club's staff), `desk.py` (the club's desk in one call), `desk_floor.py` (the desk's floor: seats, busts, voids, tables),
`hooks.py` (a club's webhooks) and `play.py` (players, game
servers, the platform)."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime

from fastapi import FastAPI
from fastapi.exceptions import RequestValidationError
from starlette.exceptions import HTTPException

from domain.errors import DomainError
from flows.web.api import account, club, desk, desk_floor, hooks, play
from flows.web.api.core import Api, domain_error, error
from flows.web.auth import Auth

DESCRIPTION = (
    "The club's desk, the players' pages, game servers and integrations. Authenticate with a bearer token "
    "(`Authorization: Bearer tny_…`, made by the operator: `tourney token create`) or with the session cookie "
    "of `POST /session` (then send its `csrf` as `X-CSRF-Token` on every write). Operations with no security "
    'are public. Every error is `{"error": code, "message": text}`; a refusal for another club\'s object is '
    "the same 404 as for a missing one."
)


def create_api(
    db: Callable,
    auth: Auth,
    hasher,
    clock: Callable[[], datetime] | None = None,
    code_limits=None,
    *,
    webhook_key: bytes,
    reset_limits=None,
    send_reset=None,
    outbox=None,
    sign_up=None,
    changed=None,
) -> FastAPI:
    """The API over `db()` (a unit of work), signing cookies with `auth`, hashing passwords with `hasher`;
    `code_limits` (a `RateLimit`) throttles the calls that name a cup by its join code; webhook
    endpoints' secrets are derived from `webhook_key` (the platform key); `reset_limits` limits the
    reset links asked for per address, and `send_reset(email, locale, secret)` sends one; a player's
    certificate is read from `outbox`; `sign_up` is the sign-up page's own steps
    (`flows.web.play.SignUp`: its throttle and its letter), so the API's sign-up cannot differ from the
    page's; `changed(key)` is told of a committed change to a cup (`pusoy:CODE`: the event streams' hub)."""
    app = FastAPI(title="Tourney API", version="1", description=DESCRIPTION, docs_url=None, redoc_url=None)
    app.state.api = Api(
        db, auth, hasher, clock or (lambda: datetime.now(UTC)), code_limits, reset_limits, send_reset, changed
    )
    app.state.desk_states = desk.DeskStates()  # the desk state built once per change (docs/desk.md)
    app.state.webhook_key = webhook_key
    app.state.outbox = outbox
    app.state.sign_up = sign_up
    for module in (account, club, desk, desk_floor, hooks, play):
        app.include_router(module.router)

    @app.exception_handler(DomainError)
    async def refused(request, exc: DomainError):
        return domain_error(exc)

    @app.exception_handler(RequestValidationError)
    async def bad_input(request, exc: RequestValidationError):
        problems = [
            {
                "code": e.get("type", "invalid"),
                "field": ".".join(str(p) for p in e.get("loc", ())[1:]),
                "message": e.get("msg", ""),
            }
            for e in exc.errors()
        ]
        return error(422, "bad-input", "; ".join(f"{p['field']}: {p['message']}" for p in problems), problems)

    @app.exception_handler(HTTPException)
    async def http_error(request, exc: HTTPException):
        code = {404: "not-found", 405: "method-not-allowed"}.get(exc.status_code, "bad-request")
        return error(exc.status_code, code, str(exc.detail))

    @app.exception_handler(Exception)
    async def internal(request, exc: Exception):
        return error(500, "internal", "Something went wrong on our side.")

    return app
