"""What every operation of `/api/v1` shares (the package's __init__ says what the API is): the
transaction of one operation (`Api.run`), the error shape, the request models' base and the
locators of what an action names.

`/api/v1`: one JSON API for the club's desk, the players' pages, the game servers and integrations
(RULES AC-1..AC-5). FastAPI, mounted in the web app, with its OpenAPI document at
`/api/v1/openapi.json` (docs/api.md).

Every operation is one action of the policy table (`domain/access/rules/policy.POLICY`), named by
its `operationId`. Each runs in one transaction: who the caller is (`Auth.identify`), the CSRF check
of a cookie-authenticated write, what the action names (`domain/access/services/targets`), the
policy (`gate.allow`: another club's object is the same 404 as a missing one), the use case, and the
audit row of a change (AC-3), committed together or not at all.

Errors are one shape, `{"error": code, "message": text}` (with `problems` for 409 and 422), the
codes the services use: 401 sign in, 403 CSRF or a suspended club, 404 not found, 409 refused by a
rule, 422 bad input (every problem), 429 too many sign-ins, 500 never with a trace.
"""

from __future__ import annotations

import base64
import functools
import hashlib
import json
from collections.abc import Callable
from datetime import datetime
from typing import Annotated, Any, Literal
from zoneinfo import ZoneInfo

from fastapi import APIRouter, Depends, Path, Query, Request, Response, Security
from fastapi.encoders import jsonable_encoder
from fastapi.responses import JSONResponse
from fastapi.security import APIKeyCookie, HTTPBearer
from pydantic import BaseModel, ConfigDict, Field, TypeAdapter
from sqlalchemy import select
from sqlalchemy.orm import Session

from domain.access.rules.policy import POLICY, Actor, Rule, Scope, Target, may
from domain.access.services import idempotency, targets
from domain.access.services.gate import UNCHANGED, Refused, act
from domain.clubs.tables import Club
from domain.documents.services import locales
from domain.errors import DomainError, NotFound
from flows.web import refusals
from flows.web.api.edge import MAX_BODY_KEY, EdgeRoute
from flows.web.auth import COOKIE, CSRF_HEADER, Auth, Caller

ID_MAX = 2**53 - 1  # the largest id every JSON reader keeps exact (a JavaScript number): ids stay below it
Id = Annotated[int, Path(ge=1, le=ID_MAX)]
Code = Annotated[str, Path(min_length=6, max_length=6, pattern=r"^[2-9A-Za-z]{6}$")]
Ref = Annotated[str, Field(min_length=1, max_length=80)]
STATUS = {
    "sign-in": 401,
    "csrf": 403,
    "club-suspended": 403,
    "too-many-attempts": 429,
    "too-many-codes": 429,
    "too-many-sign-ups": 429,
    "account-blocked": 403,
    "wrong-password": 401,
    "link-expired": 410,
    "too-many-resets": 429,
    "bad-idempotency-key": 422,
    "bad-cursor": 422,
}


class Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


class SignInBody(Strict):
    email: str = Field(min_length=3, max_length=254, examples=["floor@club.example"])
    password: str = Field(min_length=1, max_length=256)


class ResetBody(Strict):
    email: str = Field(min_length=1, max_length=254, examples=["floor@club.example"])


class NewPasswordBody(Strict):
    link: str = Field(min_length=1, max_length=100, description="the secret of the e-mailed link (/reset/SECRET)")
    password: str = Field(min_length=1, max_length=257)
    repeated: str = Field(min_length=1, max_length=257)


class ChangePasswordBody(Strict):
    current: str = Field(min_length=1, max_length=256)
    password: str = Field(min_length=1, max_length=257)
    repeated: str = Field(min_length=1, max_length=257)


class PlayerBody(Strict):
    player: Ref = Field(description="the player's id or handle", examples=["@anna"])


class KnockoutBody(Strict):
    busted: list[Ref] = Field(min_length=1, max_length=10, description="entries busted together (ids or handles)")
    killer: Ref | None = None
    second_killer: Ref | None = Field(None, description="a second killer of the same player (3.2: audit only)")
    level: int | None = Field(None, ge=1, le=10_000, description="default: the level the clock shows now")


class ClockBody(Strict):
    action: Literal["start", "pause", "resume", "next", "prev", "override"]
    small: int | None = Field(None, ge=0, le=10**12)
    big: int | None = Field(None, ge=0, le=10**12)
    ante: int | None = Field(None, ge=0, le=10**12)


class SeedBody(Strict):
    seed: str | None = Field(
        None, min_length=1, max_length=64, description="the floor's part of the draw (SP-13); default none"
    )


class SettleBody(PlayerBody):
    method: Literal["cash", "card", "transfer", "other"] = "cash"


class ReasonBody(Strict):
    reason: str = Field(min_length=1, max_length=500)


class GrantBody(Strict):
    email: str = Field(min_length=3, max_length=254)
    role: Literal["owner", "floor", "cashier"]


class ReportBody(Strict):
    round: int = Field(ge=1, le=1000)
    table: int = Field(ge=1, le=10_000)
    game: int = Field(ge=1, le=100)
    playoff: int = Field(0, ge=0, le=100)
    finishes: list[Annotated[str, Field(min_length=1, max_length=40)]] = Field(
        min_length=4, max_length=4, description="the players' handles in finishing order, first to last"
    )
    two_of_diamonds: str | None = Field(None, max_length=40, description="who won holding the 2♦, if anyone")

    model_config = ConfigDict(
        extra="forbid",
        json_schema_extra={"examples": [{"round": 1, "table": 2, "game": 1, "finishes": ["ann", "bob", "cid", "dee"]}]},
    )


class AmendBody(ReportBody):
    reason: str = Field(min_length=1, max_length=500, description="why the result changes (kept in the audit)")

    model_config = ConfigDict(extra="forbid")


PROBLEM_JSON = "application/problem+json"
TITLES = {
    400: "Bad request",
    401: "Sign in first",
    403: "Not allowed",
    404: "Not found",
    405: "Method not allowed",
    409: "Refused by a rule",
    410: "Gone",
    413: "Too large",
    422: "Bad input",
    429: "Too many requests",
    500: "Internal error",
}


class ProblemItem(BaseModel):
    code: str = Field(description="a stable code of this problem")
    message: str
    field: str | None = Field(None, description="the input it is about (`body.email`, `query.q`), if one")


class Problem(BaseModel):
    """Every error of the API (RFC 9457, `application/problem+json`): `code` is the stable code
    (also the last part of `type`), `detail` a sentence a person understands, `problems` every problem
    of a 409 or a 422 at once."""

    type: str = Field(examples=["urn:tourney:problem:tournament-not-found"])
    title: str = Field(examples=["Not found"])
    status: int = Field(examples=[404])
    detail: str = Field(examples=["no tournament 7"])
    code: str = Field(examples=["tournament-not-found"])
    problems: list[ProblemItem] = []


def error(status: int, code: str, message: str, problems=(), headers=None) -> JSONResponse:
    body: dict[str, Any] = {
        "type": f"urn:tourney:problem:{code}",
        "title": TITLES.get(status, "Error"),
        "status": status,
        "detail": message,
        "code": code,
    }
    if problems:
        body["problems"] = list(problems)
    return JSONResponse(body, status_code=status, headers=headers, media_type=PROBLEM_JSON)


class Throttled(Refused):
    """A 429 of a throttle: how many asks its window allows and the seconds until the next one may."""

    def __init__(self, code: str, message: str, *, limit: int, wait: int):
        super().__init__(code, message)
        self.limit, self.wait = limit, wait


def throttled(code: str, message: str, limits, who: str) -> Throttled:
    """The refusal of `limits` (a `site.RateLimit`) for `who`, with its figures."""
    return Throttled(code, message, limit=limits.limit, wait=limits.wait(who) or int(limits.window))


def rate_headers(limit: int | None, wait: int) -> dict[str, str]:
    """A 429's headers: `Retry-After` and the IETF draft's `RateLimit-*` (none left, reset in `wait` s)."""
    headers = {"retry-after": str(wait), "ratelimit-remaining": "0", "ratelimit-reset": str(wait)}
    if limit is not None:
        headers["ratelimit-limit"] = str(limit)
    return headers


def domain_error(exc: DomainError) -> JSONResponse:
    if isinstance(exc, NotFound):
        return error(404, exc.code, exc.message)
    status = STATUS.get(exc.code, 409)
    problems = [{"code": p.code, "message": p.message} for p in exc.problems] if status == 409 else ()
    headers = {"www-authenticate": "Bearer"} if status == 401 else None
    if status == 429:
        headers = rate_headers(getattr(exc, "limit", None), getattr(exc, "wait", None) or 60)
    return error(status, exc.code, exc.message, problems, headers)


class Replayed(Exception):
    """A write's answer kept for its Idempotency-Key, answered again (`Api.run`)."""

    def __init__(self, kept):
        self.kept = kept


def _asked(request: Request, actor: Actor) -> idempotency.Asked | None:
    """A signed-in caller's write with an `Idempotency-Key`: who, the key, the request's fingerprint
    (method, path, query and body, as the edge read it)."""
    key = request.headers.get("idempotency-key")
    if key is None or not actor.signed_in or (request.scope["route"].openapi_extra or {}).get(SECRET_ONCE):
        return None  # an answer holding a secret shown once is never kept where the database could give it back
    caller = f"token:{actor.token_id}" if actor.token_id else f"account:{actor.account_id}"
    body = getattr(request.state, "body", b"")
    seen = b"\n".join([request.method.encode(), request.url.path.encode(), request.url.query.encode(), body])
    return idempotency.Asked(caller, idempotency.checked(key), hashlib.sha256(seen).digest())


class _Unwritten(Exception):
    """Rolls a read back (`Api.signed_in`)."""


class Api:
    """The operations' shared steps; `clock` is the entry point's (tests pass their own)."""

    def __init__(
        self,
        db: Callable,
        auth: Auth,
        hasher,
        clock: Callable[[], datetime],
        code_limits=None,
        reset_limits=None,
        send_reset: Callable[[str, str, str], None] | None = None,
    ):
        self.db, self.auth, self.hasher, self.clock = db, auth, hasher, clock
        self.code_limits = code_limits  # the join-code rate limit per account (flows/web/site.RateLimit)
        self.reset_limits = reset_limits  # reset links asked for per address (the pages' limit, shared)
        self.send_reset = send_reset  # (e-mail, locale, secret): the reset letter, sent after the answer

    def run(
        self,
        request: Request,
        action: str,
        locate: Callable[[Session], tuple[Target | None, NotFound | None]],
        do: Callable[[Session, Actor, datetime], Any],
        *,
        describe: str,
        data: dict | None = None,
        code: str | None = None,
    ) -> Any:
        """One operation in one transaction: identify, CSRF, the join-code rate limit of a call naming
        a cup by `code` (per account, or per address when anonymous), locate, allow, act, audit (and the
        NOTIFY of a change to a tournament or a cup, `gate.act`: its followers' streams wake on commit)."""
        rule = POLICY[action]
        now = self.clock()
        with self.db() as session:
            caller = self.auth.identify(session, request, now)
            if rule.writes and not self.auth.csrf_ok(caller, request.headers.get(CSRF_HEADER)):
                raise Refused("csrf", "This write carries no valid CSRF token: reload the page and try again.")
            asked = _asked(request, caller.actor) if rule.writes else None
            if asked is not None and (kept := idempotency.recall(session, asked, now)) is not None:
                raise Replayed(kept)
            if code is not None:
                self.throttle(request, caller, code)
            target, missing = locate(session)
            try:
                result = act(
                    session, caller.actor, action, now, do, target=target, missing=missing, describe=describe, data=data
                )
            except DomainError as exc:
                raise self.in_clubs_language(exc, caller.actor, action, target, now) from None
            if asked is not None:
                status = 204 if result is UNCHANGED else request.scope["route"].status_code or 200
                answer = None if status == 204 else as_sent(request, plain(result))
                idempotency.keep(session, asked, idempotency.Kept(status, answer), now)
        if result is UNCHANGED:
            return Response(status_code=204)
        return plain(result)

    def in_clubs_language(
        self, exc: DomainError, actor: Actor, action: str, target: Target | None, now: datetime
    ) -> DomainError:
        """A refusal of an allowed action on a club's object, in the club's language with its times in
        the club's zone (flows/web/refusals.py), read in a unit of work of its own (the failed one may
        be unusable). Refused before the policy allowed it, it stays as it is: a missing object and
        another club's say nothing of whose they are (AC-2)."""
        if target is None or target.club_id is None or may(actor, action, target) is not None:
            return exc
        with self.db() as session:
            locale = locales.club_locale(session, target.club_id)
            zone = ZoneInfo(session.scalar(select(Club.timezone).where(Club.id == target.club_id)))
        return refusals.in_language(exc, locale, zone, now)

    def throttle(self, request: Request, caller: Caller, code: str) -> None:
        """Join-code guessing is slowed down before a code is looked up: per account when signed in
        (so a club's shared network does not make its players wait), else per address."""
        if self.code_limits is None:
            return
        who = f"account:{caller.actor.account_id}" if caller.actor.account_id else (request.client or ("?",))[0]
        if not self.code_limits.allow(who, code.upper()):
            raise throttled(
                "too-many-codes", "Too many join codes tried: wait a minute and try again.", self.code_limits, who
            )

    def signed_in(self, request: Request) -> bool:
        """Whether the request's credential is good, read and rolled back: nothing written (not even a
        token's last use), for an answer that changes nothing (a 401 before a 422)."""
        found = []
        try:
            with self.db() as session:
                found.append(self.auth.identify(session, request, self.clock()).actor.signed_in)
                raise _Unwritten
        except _Unwritten:
            return found[0]

    def caller(self, request: Request) -> tuple[Caller, datetime]:
        now = self.clock()
        with self.db() as session:
            return self.auth.identify(session, request, now), now


_LEAVES = frozenset({str, int, float, bool, type(None)})


def plain(value: Any) -> Any:
    """`jsonable_encoder(value)`, the same values, with its dicts, lists and plain leaves walked here:
    FastAPI's encoder asks a dozen questions of every leaf (a desk state has thousands), this one a set
    lookup; any other value (an instant, a dataclass, an enum, a set) is still FastAPI's. `make bench`
    measures the two side by side (desk: the answer made JSON-able)."""
    kind = type(value)
    if kind in _LEAVES:
        return value
    if kind is dict:
        return {(k if type(k) in _LEAVES else jsonable_encoder(k)): plain(v) for k, v in value.items()}
    if kind is list or kind is tuple:
        return [plain(v) for v in value]
    return jsonable_encoder(value)


@functools.cache
def _answer(model: Any) -> TypeAdapter:
    return TypeAdapter(model)


def as_sent(request: Request, value: Any) -> Any:
    """The answer as the operation's declared model sends it (an instant as `…Z`, the model's names):
    kept so, a replay of its Idempotency-Key sends the same JSON as the first answer."""
    model = getattr(request.scope.get("route"), "response_model", None)
    if model is None:
        return value
    adapter = _answer(model)
    return adapter.dump_python(adapter.validate_python(value), mode="json", by_alias=True)


def anywhere(session: Session) -> tuple[Target, None]:
    return Target(), None


def tournament_of(tournament_id: int) -> Callable[[Session], tuple[Target | None, NotFound]]:
    def locate(session: Session):
        return targets.tournament(session, tournament_id), NotFound(
            "tournament-not-found", f"no tournament {tournament_id}"
        )

    return locate


def club_of(club_id: int) -> Callable[[Session], tuple[Target | None, NotFound]]:
    def locate(session: Session):
        return targets.club(session, club_id), NotFound("club-not-found", f"no club {club_id}")

    return locate


def cup_of(code: str) -> Callable[[Session], tuple[Target | None, NotFound]]:
    def locate(session: Session):
        from domain.pusoy.rules.codes import normalise

        return targets.cup(session, code), NotFound(
            "unknown-code", f"no tournament has the join code {normalise(code)}"
        )

    return locate


BEARER = HTTPBearer(auto_error=False, description="a machine's token: tny_…")
SESSION_COOKIE = APIKeyCookie(name=COOKIE, auto_error=False, description="the session of POST /session")
SECURED = [Security(BEARER), Security(SESSION_COOKIE)]  # an operation's `dependencies`: shown in OpenAPI
PUBLIC = {"security": []}  # an operation's `openapi_extra`: anyone may call it


def api_of(request: Request) -> Api:
    return request.app.state.api


def settlement_of(settlement_id: int) -> Callable[[Session], tuple[Target | None, NotFound]]:
    def locate(session: Session):
        found = targets.settlement(session, settlement_id)
        return (found[0] if found else None), NotFound("settlement-not-found", f"no settlement {settlement_id}")

    return locate


# -- declaring an operation once -------------------------------------------------------------------

CSRF_PARAMETER = {
    "name": "X-CSRF-Token",
    "in": "header",
    "required": False,
    "schema": {"type": "string"},
    "description": "the `csrf` of `POST /session`: required on a write signed in by the session cookie, "
    "not with a bearer token",
}
SECRET_ONCE = "x-secret-once"  # an operation whose answer holds a secret shown once: never kept (AC-4)
IDEMPOTENCY_PARAMETER = {
    "name": "Idempotency-Key",
    "in": "header",
    "required": False,
    "schema": {"type": "string", "minLength": 1, "maxLength": 255, "pattern": "^[\\x21-\\x7e]+$"},
    "description": "any unique string (a UUID): the same key again within 24 hours gets the first answer "
    "again (`Idempotent-Replayed: true`), nothing done twice; with another request, 409",
}
DESCRIBED = {
    204: "Nothing to change: it is so already (nothing written)",
    401: "Sign in first: no token or session, or one that ended (`sign-in`)",
    403: "A cookie write without its CSRF token (`csrf`), or a suspended club's staff changing events",
    404: "Not there, or not yours: another club's object answers exactly as a missing one (AC-2)",
    409: "Refused by a rule: `problems` lists every problem",
    410: "The link is spent or expired",
    413: "The body is too large (`too-large`): over 256 KiB, or over the operation's `x-max-body`",
    422: "Bad input: `problems` lists every field's problem",
    429: "Too many requests: `Retry-After` says when to try again",
}
ROLE_WORDS = {"owner": "owner", "floor": "floor manager", "cashier": "cashier"}


def who(rule: Rule) -> str:
    """Who may call an operation, in words, from its rule of the policy (AC-1)."""
    if rule.scope is Scope.PUBLIC:
        return "Anyone: no sign-in."
    if rule.scope is Scope.ACCOUNT:
        return "A signed-in person, on their own account (a token needs the `account` scope)."
    if rule.scope is Scope.PLAYER:
        return "A signed-in player, on their own entries (a token needs the `player` scope)."
    if rule.scope is Scope.CUP:
        return "A game server's token bound to the cup (`cup:CODE`)."
    if rule.scope is Scope.PLATFORM:
        return "The platform's operator."
    if rule.scope is Scope.ORGANIZER:
        return (
            "A Pusoy Dos organizer (the platform's `organizer` role; a token needs the `organizer` scope), "
            "on the cups they organize."
        )
    names = " or ".join(ROLE_WORDS[r.value] for r in sorted(rule.roles))
    return f"The club's {names} (a token needs the scope `ROLE@CLUB`)."


def statuses(rule: Rule, path: str, errors: tuple[int, ...]) -> list[int]:
    """The statuses an operation can answer besides its success: derived from its rule and path."""
    found = {422, *errors}
    if "{" in path:
        found.add(404)
    if rule.scope is not Scope.PUBLIC:
        found |= {401, 404, 409}
        if rule.writes:
            found.add(403)
    elif rule.writes:
        found.add(409)
    return sorted(found)


class Operations:
    """The operations of one module of the API, each declared once: `@ops.post(path, action, ...)`
    names the action of the policy (`POLICY`, its `operationId`), and from it come who may call it
    (`security`, and the words of its description), the CSRF header of a write, and every error
    status it can answer (`Problem`, `application/problem+json`). The handler takes an `Op` (the
    call: `op.run(locate, do, ...)` is `Api.run` for this action) and returns its typed answer."""

    def __init__(self, *tags: str):
        self.router = APIRouter(tags=list(tags), route_class=EdgeRoute)

    def operation(
        self,
        method: str,
        path: str,
        action: str,
        *,
        response: Any = None,
        status: int = 200,
        errors: tuple[int, ...] = (),
        unchanged: bool = False,
        secret: bool = False,
        body: dict | None = None,
        max_body: int | None = None,
        **extra: Any,
    ):
        """`secret`: the answer carries a secret shown once (a token, a signing secret): it is never kept,
        so the operation takes no `Idempotency-Key` (`x-secret-once` in the document). `body`: the
        document's `requestBody` of an operation that takes no JSON (a logo's bytes); `max_body`: the
        largest body it takes, when larger than the edge's `MAX_BODY` (`x-max-body` in the document)."""
        rule = POLICY[action]
        openapi_extra: dict[str, Any] = {"security": []} if rule.scope is Scope.PUBLIC else {}
        if secret:
            openapi_extra[SECRET_ONCE] = True
        if body is not None:
            openapi_extra["requestBody"] = body
        if max_body is not None:
            openapi_extra[MAX_BODY_KEY] = max_body
        if rule.writes:
            kept = method == "POST" and rule.scope is not Scope.PUBLIC and not secret  # a signed-in caller's
            openapi_extra["parameters"] = [CSRF_PARAMETER] + ([IDEMPOTENCY_PARAMETER] if kept else [])
        responses: dict[int | str, Any] = {
            code: {"description": DESCRIBED[code]} for code in statuses(rule, path, errors)
        }
        if method != "GET":  # a body over the edge's limit (MAX_BODY, or `max_body`)
            responses[413] = {"description": DESCRIBED[413]}
        if unchanged:
            responses[204] = {"description": DESCRIBED[204]}
        responses.update(extra.pop("responses", {}))

        def declare(handler):
            summary, _, rest = (handler.__doc__ or "").strip().partition("\n")
            return self.router.api_route(
                path,
                methods=[method],
                operation_id=action,
                response_model=response,
                status_code=status,
                responses=responses,
                dependencies=[] if rule.scope is Scope.PUBLIC else SECURED,
                openapi_extra=openapi_extra or None,
                summary=summary.strip() or None,
                description=f"{rest.strip()}\n\n**Who:** {who(rule)}".strip(),
                **extra,
            )(handler)

        return declare

    def get(self, path: str, action: str, **kw: Any):
        return self.operation("GET", path, action, **kw)

    def post(self, path: str, action: str, **kw: Any):
        return self.operation("POST", path, action, **kw)

    def delete(self, path: str, action: str, **kw: Any):
        return self.operation("DELETE", path, action, **kw)


class Operation:
    """One call of a declared operation: its action is the route's `operationId`, so a handler never
    names it again. `run` is the one path (`Api.run`): the caller, the CSRF check, the policy, the use
    case, the audit row and the refusal's language, in one transaction."""

    def __init__(self, request: Request, response: Response):
        self.request, self.response = request, response
        self.api: Api = request.app.state.api
        self.action: str = request.scope["route"].operation_id

    def page(self, items: list[dict], key: Callable[[dict], tuple], limit: int, cursor: str | None) -> list[dict]:
        """One page of a list in the order of `key` (each item's unique sort key): the items after
        `cursor`, at most `limit`; the next page's address in `Link` (RFC 8288, `rel="next"`) when there
        is more. `items` may be already narrowed to those after the cursor."""
        after = decode_cursor(cursor)
        try:
            rest = sorted((i for i in items if after is None or _key(key(i)) > after), key=lambda i: _key(key(i)))
        except TypeError:  # a cursor of another list (its key's values of other types)
            raise DomainError(
                "bad-cursor", "This cursor is not one of this list's: start again from the first page."
            ) from None
        if len(rest) > limit:
            following = self.request.url.include_query_params(cursor=encode_cursor(key(rest[limit - 1])))
            self.response.headers["link"] = f'<{following.path}?{following.query}>; rel="next"'
        return rest[:limit]

    def run(
        self,
        locate: Callable[[Session], tuple[Target | None, NotFound | None]],
        do: Callable[[Session, Actor, datetime], Any],
        *,
        describe: str,
        data: dict | None = None,
        code: str | None = None,
    ) -> Any:
        return self.api.run(self.request, self.action, locate, do, describe=describe, data=data, code=code)


Op = Annotated[Operation, Depends(Operation)]
Limit = Annotated[int, Query(ge=1, le=200, description="at most this many (the next page: the `Link` header)")]
Cursor = Annotated[
    str | None,
    Query(max_length=400, pattern=r"^[A-Za-z0-9_-]+$", description='the `cursor` of a `Link: rel="next"`'),
]
PAGED = {
    "link": {
        "description": 'the next page: `<…?cursor=…>; rel="next"` (RFC 8288), absent on the last',
        "schema": {"type": "string"},
    }
}


def _key(values: tuple) -> list:
    return json.loads(json.dumps(list(values), default=lambda v: v.isoformat()))


def encode_cursor(values: tuple) -> str:
    return base64.urlsafe_b64encode(json.dumps(_key(values)).encode()).decode().rstrip("=")


def decode_cursor(cursor: str | None) -> list | None:
    """A page's cursor read back (opaque to callers: the last item's sort key); a bad one is 422."""
    if cursor is None:
        return None
    try:
        found = json.loads(base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4)))
    except ValueError:
        found = None
    if not isinstance(found, list):
        raise DomainError("bad-cursor", "This cursor is not one of ours: start again from the first page.")
    return found
