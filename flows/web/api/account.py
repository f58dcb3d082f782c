"""The session and my account: sign up, sign in and out, who I am, my data (AC-5), sign out everywhere,
my tokens, the password reset links and a change of password (each audited, AC-3: never the password
or the link)."""

from __future__ import annotations

from datetime import date, datetime
from typing import Any, Literal

from fastapi import BackgroundTasks, Request
from fastapi.responses import JSONResponse, Response
from pydantic import BaseModel, Field

from domain.access.services import accounts, passwords, signin
from domain.access.services.gate import UNCHANGED, Refused
from domain.access.services.signup import Letter
from domain.errors import DomainError
from flows.web.api.core import (
    STATUS,
    ChangePasswordBody,
    Id,
    NewPasswordBody,
    Op,
    Operations,
    ResetBody,
    SignInBody,
    Strict,
    anywhere,
    api_of,
    error,
    rate_headers,
    throttled,
)
from flows.web.auth import COOKIE, CSRF_HEADER
from flows.web.play import sign_up_action

ops = Operations("account")
router = ops.router


class Csrf(BaseModel):
    csrf: str = Field(description="send it as `X-CSRF-Token` on every write signed in by the cookie")


class SignedOut(BaseModel):
    signed_out: bool


class Grant(BaseModel):
    role: str
    club_id: int | None
    club: str | None = None


class OpenSession(BaseModel):
    id: int
    started_at: datetime
    last_seen_at: datetime
    ended_at: datetime | None
    address: str | None
    agent: str | None
    current: bool = False


class TokenRow(BaseModel):
    id: int
    account: str
    name: str
    scopes: list[str]
    created_at: datetime
    last_used_at: datetime | None
    revoked_at: datetime | None


class Me(BaseModel):
    actor: str
    email: str
    locale: str
    roles: list[str] = Field(description="scope names: `floor@3`, `player`, `operator`")
    grants: list[Grant]
    player_id: int | None
    sessions: list[OpenSession]
    tokens: list[TokenRow]


class PokerEntry(BaseModel):
    tournament_id: int
    tournament: str
    club_id: int
    starts: datetime
    registration: str
    late: bool
    registered_at: datetime
    checked_in_at: datetime | None
    place: int | None
    certificate: str | None = Field(description="the serial of my certificate (`GET /me/certificates/{serial}`)")


class CupEntry(BaseModel):
    code: str
    cup: str
    status: str
    joined_at: datetime
    left_round: int | None
    final_position: int | None
    certificate: str | None


class MyEntries(BaseModel):
    poker: list[PokerEntry]
    pusoy: list[CupEntry]


class AccountRecord(BaseModel):
    email: str
    locale: str
    created_at: datetime
    email_verified_at: datetime | None
    blocked: str | None


class HeldRole(BaseModel):
    role: str
    club_id: int | None
    granted_at: datetime


class PlayerRecord(BaseModel):
    name: str
    handle: str
    birth_date: date | None
    created_at: datetime


class Change(BaseModel):
    id: int
    at: datetime
    actor: str
    actor_kind: str
    action: str
    target: str
    club_id: int | None
    data: dict[str, Any]


class MyData(BaseModel):
    account: AccountRecord
    roles: list[HeldRole]
    player: PlayerRecord | None
    sessions: list[OpenSession]
    tokens: list[TokenRow]
    entries: MyEntries
    changes_made: list[Change]


class Ended(BaseModel):
    ended: int = Field(description="how many sessions ended")


class Revoked(BaseModel):
    id: int
    revoked_at: datetime


class Sent(BaseModel):
    sent: bool


class Changed(BaseModel):
    changed: bool
    csrf: str | None = Field(None, description="a browser's new CSRF token (signed in afresh by its cookie)")


class CheckYourMail(BaseModel):
    status: Literal["check-your-mail"]


@ops.post("/session", "account.sign-in", response=Csrf, errors=(401, 403, 429))
def sign_in(request: Request, body: SignInBody):
    """Sign in with an e-mail and a password: sets the session cookie and returns the CSRF token to send
    as `X-CSRF-Token` on writes. Failures are throttled per account and per address (429, Retry-After)."""
    api = api_of(request)
    now = api.clock()
    with api.db() as session:  # a failed attempt commits too: it is what throttles the next one
        done = signin.sign_in(
            session,
            api.hasher,
            body.email,
            body.password,
            now,
            address=request.client.host if request.client else "?",
            agent=request.headers.get("user-agent"),
        )
    if done.secret is None:
        headers = rate_headers(None, done.retry_after_s or 60) if STATUS.get(done.code) == 429 else None
        return error(STATUS.get(done.code, 401), done.code, done.message, headers=headers)
    response = JSONResponse({"csrf": api.auth.csrf(done.secret)})
    api.auth.set_cookie(response, done.secret)
    return response


@ops.delete("/session", "account.sign-out", response=SignedOut, unchanged=True)
def sign_out(op: Op):
    """Sign out this browser.
    A call with no session (a bearer token, or a session already ended): 204, nothing written."""
    api, request = op.api, op.request
    secret = api.auth.secret_of(request.cookies.get(COOKIE))

    def do(session, actor, now):
        if secret is None or not signin.end_session(session, secret, now):
            return UNCHANGED
        return {"signed_out": True}

    answer = op.run(anywhere, do, describe="this session")
    response = answer if isinstance(answer, Response) else JSONResponse(answer)
    api.auth.clear_cookie(response)
    return response


@ops.get("/me", "account.read", response=Me)
def me(op: Op):
    """Who I am: my roles in each club (with its name), my player, my open sessions (`current`: this one) and my tokens."""
    current = op.api.auth.secret_of(op.request.cookies.get(COOKIE))
    return op.run(
        anywhere, lambda s, actor, now: signin.overview(s, actor, now, current=current), describe="my account"
    )


@ops.get("/me/data", "account.data", response=MyData)
def my_data(op: Op):
    """Everything the platform holds about me (AC-5), as one JSON document."""
    from domain.access.services.mine import everything

    return op.run(anywhere, lambda s, actor, now: everything(s, actor.account_id), describe="my data")


@ops.post("/me/sign-out-everywhere", "account.sign-out-everywhere", response=Ended, unchanged=True)
def sign_out_everywhere(op: Op):
    """End every session of my account, on every device (this one too).
    None open: 204, nothing written."""

    def do(session, actor, now):
        ended = accounts.end_all_sessions(session, actor.account_id, now)
        return {"ended": ended} if ended else UNCHANGED

    return op.run(anywhere, do, describe="every session")


@ops.delete("/me/tokens/{token_id}", "account.revoke-token", response=Revoked)
def revoke_my_token(op: Op, token_id: Id):
    """Revoke one of my tokens: it stops at its next request.
    One revoked already: 409 `token-revoked`, nothing written."""

    def do(session, actor, now):
        token = signin.revoke_token(session, token_id, now, account_id=actor.account_id)
        return {"id": token.id, "revoked_at": token.revoked_at}

    return op.run(anywhere, do, describe=f"token {token_id}")


def _address(request: Request) -> str:
    return request.client.host if request.client else "?"


@ops.post("/password-resets", "account.reset", response=Sent, status=202, errors=(403, 429))
def ask_reset(request: Request, body: ResetBody, background: BackgroundTasks) -> dict:
    """Ask for a link to set a new password, sent by e-mail (valid 1 hour, used once). The answer is the
    same whatever the address (it never tells whether it has an account); at most 5 asks per address
    in 15 minutes (429 `too-many-resets`), one letter a minute per account."""
    api = api_of(request)
    now = api.clock()
    if api.reset_limits is not None and not api.reset_limits.allow(_address(request)):
        raise throttled(
            "too-many-resets",
            "Too many resets asked for from here: try again later.",
            api.reset_limits,
            _address(request),
        )
    with api.db() as session:
        caller = api.auth.identify(session, request, now)
        if not api.auth.csrf_ok(caller, request.headers.get(CSRF_HEADER)):
            raise Refused("csrf", "This write carries no valid CSRF token: reload the page and try again.")
        found = passwords.ask_reset(session, caller.actor, body.email.strip(), now)
    if found is not None and api.send_reset is not None:
        account, secret = found
        background.add_task(api.send_reset, account.email, account.locale, secret)
    return {"sent": True}


@ops.post("/password", "account.set-password", response=Csrf, errors=(410,))
def set_password(request: Request, body: NewPasswordBody):
    """A new password by the e-mailed link (`link`: its secret), twice: the link is spent, every session of
    the account ends and this caller is signed in afresh (the session cookie, and the CSRF token). An
    unknown, spent or expired link: 410 `link-expired`; a password's problems: 409, all at once."""
    api = api_of(request)
    now = api.clock()
    with api.db() as session:
        account = passwords.reset(session, api.hasher, body.link, body.password, body.repeated, now)
        fresh = signin.start_session(
            session, account.id, now, address=_address(request), agent=request.headers.get("user-agent")
        )
    response = JSONResponse({"csrf": api.auth.csrf(fresh)})
    api.auth.set_cookie(response, fresh)
    return response


@ops.post("/me/password", "account.change-password", response=Changed, errors=(429,))
def change_password(request: Request, body: ChangePasswordBody):
    """Change my password: the current one (throttled as a sign-in is: 401 `wrong-password`, 429
    `too-many-attempts`), the new one twice. Every session of my account ends; a browser (signed in by
    its cookie) is signed in afresh and gets its new CSRF token."""
    api = api_of(request)
    now = api.clock()
    with api.db() as session:
        caller = api.auth.identify(session, request, now)
        if not api.auth.csrf_ok(caller, request.headers.get(CSRF_HEADER)):
            raise Refused("csrf", "This write carries no valid CSRF token: reload the page and try again.")
        refused = passwords.change(
            session,
            api.hasher,
            caller.actor,
            body.current,
            body.password,
            body.repeated,
            now,
            address=_address(request),
        )
        fresh = None
        if refused is None and caller.by_cookie:
            fresh = signin.start_session(
                session,
                caller.actor.account_id,
                now,
                address=_address(request),
                agent=request.headers.get("user-agent"),
            )
    if refused is not None:  # committed: the miss counts for the throttle
        headers = rate_headers(None, refused.retry_after_s or 60) if STATUS.get(refused.code) == 429 else None
        return error(STATUS.get(refused.code, 401), refused.code, refused.message, headers=headers)
    response = JSONResponse({"changed": True} | ({"csrf": api.auth.csrf(fresh)} if fresh else {}))
    if fresh:
        api.auth.set_cookie(response, fresh)
    return response


class SignUpBody(Strict):
    email: str = Field(max_length=254, examples=["nina@example.org"])
    handle: str = Field(max_length=254, examples=["nina"], description="the name other players see")
    name: str = Field(
        max_length=254, examples=["Nina Newbie"], description="the full name (AC-5: certificates, the club's lists)"
    )
    birth_date: str = Field(max_length=32, examples=["1995-05-17"], description="ISO date; adults only")
    locale: Literal["ru", "en"] = "en"


@ops.post("/signup", "account.sign-up", response=CheckYourMail, status=202, errors=(429,))
def sign_up(request: Request, body: SignUpBody, background: BackgroundTasks) -> dict:
    """Sign up as a player: the rules of the `/signup` page. Every problem at once (409 `bad-sign-up`,
    `problems` with each code, nothing written); otherwise 202 with the same answer whether or not the
    address had an account (it never tells): a new address gets a welcome letter whose link sets the
    password, a known one a password reset letter. At most 10 sign-ups per address in 15 minutes,
    counted with the page's (429 `too-many-sign-ups`)."""
    door = request.app.state.sign_up
    address = request.client.host if request.client else "?"
    if not door.allow(address):
        raise throttled(
            "too-many-sign-ups", "Too many sign-ups from your address: wait a quarter of an hour.", door.limits, address
        )
    fields = {k: getattr(body, k).strip() for k in ("email", "handle", "name", "birth_date", "locale")}
    try:
        letter = api_of(request).run(request, "account.sign-up", anywhere, sign_up_action(fields), describe="sign-up")
    except DomainError as exc:
        if exc.code in STATUS or not exc.problems:
            raise
        problems = [{"code": p.code, "message": p.message} for p in exc.problems]
        return error(409, "bad-sign-up", exc.message, problems)
    if letter is not None:  # after the answer: its timing tells nothing either
        background.add_task(door.deliver, Letter(**letter))
    return {"status": "check-your-mail"}
