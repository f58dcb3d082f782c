"""`/api/v1`: one JSON API for the club's desk, the players' pages, the game servers and integrations
(RULES AC-1..AC-5). FastAPI, mounted in the web app, with its OpenAPI document at
`/api/v1/openapi.json` (docs/api.md).

Every operation is one action of the policy table (`domain/access/rules/policy.POLICY`), named by its
`operationId`; `core.Api.run` is the one path every operation takes. The operations are in
`account.py` (the session, my account), `club.py` (a club's staff), `desk.py` (the club's desk in one call), `desk_floor.py` (the desk's floor: seats, busts, voids, tables),
`hooks.py` (a club's webhooks), `play.py` (players, game
servers, the platform), `platform.py` (the operator's queue) and `cups.py` (a Pusoy Dos organizer's cups)."""

from __future__ import annotations

import logging
import re
from collections.abc import Callable
from datetime import UTC, datetime
from functools import partial

from fastapi import FastAPI, Response
from fastapi.exceptions import RequestValidationError
from fastapi.openapi.utils import get_openapi
from fastapi.responses import JSONResponse
from fastapi.routing import APIRoute
from starlette.concurrency import run_in_threadpool
from starlette.exceptions import HTTPException

from domain.access.rules.policy import POLICY, SIGN_IN, Scope
from domain.access.services.gate import Refused
from domain.errors import DomainError
from flows.web.api import (
    account,
    club,
    cups,
    desk,
    desk_floor,
    hooks,
    logo,
    owner,
    owner_series,
    platform,
    play,
    public,
    tokens,
)
from flows.web.api.core import PROBLEM_JSON, Api, Problem, Replayed, domain_error, error
from flows.web.api.edge import MAX_BODY, Http, TooLarge
from flows.web.auth import Auth

LOG = logging.getLogger("tourney.api")
DESCRIPTION = (
    "The club's desk, the players' pages, game servers and integrations. Authenticate with a bearer token "
    "(`Authorization: Bearer tny_…`, made by the club's owner or the operator, narrowed to its scopes: "
    "`floor@3`, `player`, `cup:CODE`, `account`) or with the session cookie of `POST /session` (then send its "
    "`csrf` as `X-CSRF-Token` on every write). Operations with no security are public. Every error is a "
    "problem (RFC 9457, `application/problem+json`) whose `code` is stable; a refusal for another club's "
    "object is the same 404 as for a missing one. docs/api.md says the rest."
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
) -> FastAPI:
    """The API over `db()` (a unit of work), signing cookies with `auth`, hashing passwords with `hasher`;
    `code_limits` (a `RateLimit`) throttles the calls that name a cup by its join code; webhook
    endpoints' secrets are derived from `webhook_key` (the platform key); `reset_limits` limits the
    reset links asked for per address, and `send_reset(email, locale, secret)` sends one; a player's
    certificate is read from `outbox`; `sign_up` is the sign-up page's own steps
    (`flows.web.play.SignUp`: its throttle and its letter), so the API's sign-up cannot differ from the
    page's."""
    app = FastAPI(title="Tourney API", version="1", description=DESCRIPTION, docs_url=None, redoc_url=None)
    app.state.api = Api(db, auth, hasher, clock or (lambda: datetime.now(UTC)), code_limits, reset_limits, send_reset)
    app.state.desk_states = desk.DeskStates()  # the desk state built once per change (docs/desk.md)
    app.state.webhook_key = webhook_key
    app.state.outbox = outbox
    app.state.sign_up = sign_up
    for module in (
        account,
        club,
        cups,
        desk,
        desk_floor,
        hooks,
        logo,
        owner,
        owner_series,
        platform,
        play,
        public,
        tokens,
    ):
        app.include_router(module.router)

    @app.exception_handler(DomainError)
    async def refused(request, exc: DomainError):
        return domain_error(exc)

    @app.exception_handler(RequestValidationError)
    async def bad_input(request, exc: RequestValidationError):
        if _shadowed(app, request.scope):  # `DELETE …/staff/1/roles` is `…/roles`'s, not `…/{role}`'s
            return await http_error(request, HTTPException(405))
        if not _public(request) and not await _signed_in(request):
            return domain_error(Refused(SIGN_IN, "Sign in first."))  # who asks before what is asked (401 first)
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
        if exc.status_code == 400:  # a body FastAPI could not parse: bad input, as every other
            return await bad_input(
                request, RequestValidationError([{"type": "json_invalid", "loc": ("body",), "msg": str(exc.detail)}])
            )
        if exc.status_code == 405:
            allowed = _allowed(app, request.scope)
            return error(
                405, "method-not-allowed", f"{request.method} is not one of {allowed}", headers={"allow": allowed}
            )
        code = {404: "not-found"}.get(exc.status_code, "bad-request")
        return error(exc.status_code, code, str(exc.detail), headers=exc.headers)

    @app.exception_handler(Replayed)
    async def replayed(request, exc: Replayed):
        headers = {"idempotent-replayed": "true"}
        if exc.kept.status == 204:
            return Response(status_code=204, headers=headers)
        return JSONResponse(exc.kept.answer, status_code=exc.kept.status, headers=headers)

    @app.exception_handler(TooLarge)
    async def too_large(request, exc: TooLarge):
        return error(413, "too-large", f"The body is over {(exc.args[0] if exc.args else MAX_BODY) // 1024} KiB.")

    @app.exception_handler(Exception)
    async def internal(request, exc: Exception):
        LOG.error("%s %s failed", request.method, request.url.path, exc_info=exc)  # the path, never the query
        return error(500, "internal", "Something went wrong on our side.")

    app.openapi = partial(_openapi, app)
    app.add_middleware(Http)
    return app


def _shadowed(app: FastAPI, scope) -> bool:
    """The route taken reads a path parameter where another operation's path has its own word (`…/{role}`
    taking `…/roles`): the path is that operation's, so a method it does not have is a 405, not a bad
    parameter (`_allowed` names the word's methods)."""
    route = scope.get("route")
    if not isinstance(route, APIRoute):
        return False
    path = scope["path"].removeprefix(scope.get("root_path", ""))
    fewest = min(
        (len(r.param_convertors) for r in _operations(app.routes) if r.path_regex.match(path)),
        default=len(route.param_convertors),
    )
    return len(route.param_convertors) > fewest


def _allowed(app: FastAPI, scope) -> str:
    """Every method of the path's operations (with HEAD where there is a GET), for a 405's `Allow`."""
    path = scope["path"].removeprefix(scope.get("root_path", ""))  # the path inside /api/v1
    matching = [route for route in _operations(app.routes) if route.path_regex.match(path)]
    fewest = min((len(route.param_convertors) for route in matching), default=0)  # `…/roles` over `…/{role}`
    methods = {m for route in matching if len(route.param_convertors) == fewest for m in route.methods}
    if "GET" in methods:
        methods.add("HEAD")
    return ", ".join(sorted(methods))


TEXT = "^[^\\x00]*$"  # no NUL: what the edge refuses (edge.py), said in the document


def _text_only(node) -> None:
    """Every string of the document's inputs and answers without a pattern of its own says it holds
    no NUL (the edge refuses one with 422), so a client or a fuzzer knows before it asks."""
    if isinstance(node, dict):
        if node.get("type") == "string" and "pattern" not in node and "enum" not in node and "const" not in node:
            if node.get("format") != "binary":
                node["pattern"] = TEXT
        for value in node.values():
            _text_only(value)
    elif isinstance(node, list):
        for value in node:
            _text_only(value)


def _operations(routes) -> list[APIRoute]:
    """Every operation's route, through the routers FastAPI includes (`original_router`)."""
    found = []
    for route in routes:
        if isinstance(route, APIRoute):
            found.append(route)
        elif hasattr(route, "original_router"):
            found += _operations(route.original_router.routes)
    return found


def _public(request) -> bool:
    route = request.scope.get("route")
    return route is None or POLICY[route.operation_id].scope is Scope.PUBLIC


async def _signed_in(request) -> bool:
    return await run_in_threadpool(request.app.state.api.signed_in, request)


def _openapi(app: FastAPI) -> dict:
    """FastAPI's document, with every error answer the one `Problem` (`application/problem+json`) in
    place of the `HTTPValidationError` the server never sends."""
    if app.openapi_schema:
        return app.openapi_schema
    schema = get_openapi(
        title=app.title,
        version=app.version,
        description=app.description,
        routes=app.routes,
        servers=[{"url": "/api/v1"}],
    )
    components = schema.setdefault("components", {}).setdefault("schemas", {})
    for name in ("HTTPValidationError", "ValidationError"):
        components.pop(name, None)
    for name, definition in Problem.model_json_schema(ref_template="#/components/schemas/{model}").pop("$defs").items():
        components[name] = definition
    components["Problem"] = Problem.model_json_schema(ref_template="#/components/schemas/{model}")
    components["Problem"].pop("$defs", None)
    _text_only(schema)
    problem = {PROBLEM_JSON: {"schema": {"$ref": "#/components/schemas/Problem"}}}
    for item in schema["paths"].values():
        for operation in item.values():
            for status, answer in operation["responses"].items():
                if status[0] in "45":
                    answer["content"] = problem
                    if status == "422":
                        answer["description"] = "Bad input: `problems` lists every field's problem"
                elif status == "204":
                    answer.pop("content", None)
    _link_what_is_made(schema)
    app.openapi_schema = schema
    return schema


def _link_what_is_made(schema: dict) -> None:
    """OpenAPI links from each operation whose answer is an object with an `id` to the operations on
    its path's one-deeper item (`POST /clubs/{club_id}/webhooks` → `DELETE /clubs/{club_id}/webhooks/{webhook_id}`),
    or on its collection's own paths (`POST /clubs/{club_id}/tournaments` → `/tournaments/{tournament_id}/…`),
    the new id and the path's own parameters passed on: a client, or a fuzzer's stateful chains, follow
    what was just made."""
    components = schema["components"]["schemas"]
    paths = schema["paths"]
    for path, item in paths.items():
        for operation in item.values():
            for status, answer in operation["responses"].items():
                ref = answer.get("content", {}).get("application/json", {}).get("schema", {}).get("$ref", "")
                made = components.get(ref.rsplit("/", 1)[-1], {}).get("properties", {})
                if not status.startswith("2") or "id" not in made:
                    continue
                own = re.findall(r"{(\w+)}", path)
                collection = path.rsplit("/", 1)[-1]  # a club's tournaments live at /tournaments/{id}/…
                links = {}
                for deeper, deeper_item in paths.items():
                    found = re.fullmatch(re.escape(path) + r"/{(\w+)}", deeper)
                    top = re.match(rf"/{re.escape(collection)}/{{(\w+)}}(?:/|$)", deeper)
                    if found:
                        parameters = {name: f"$request.path.{name}" for name in own}
                        parameters[found.group(1)] = "$response.body#/id"
                    elif top and "{" not in collection and len(re.findall(r"{\w+}", deeper)) == 1:
                        parameters = {top.group(1): "$response.body#/id"}
                    else:
                        continue
                    for target in deeper_item.values():
                        links[target["operationId"]] = {"operationId": target["operationId"], "parameters": parameters}
                if links:
                    answer["links"] = links
