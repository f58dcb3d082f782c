"""The session and my account: sign up, sign in and out, who I am, my data (AC-5), sign out everywhere,
my tokens, the password reset links and a change of password (each audited, AC-3: never the password
or the link)."""

from __future__ import annotations

from typing import Literal

from fastapi import APIRouter, BackgroundTasks, Request
from fastapi.responses import JSONResponse
from pydantic import Field

from domain.access.services import accounts, passwords, signin
from domain.access.services.gate import Refused
from domain.access.services.signup import Letter
from domain.errors import DomainError
from flows.web.api.core import (
    PUBLIC,
    SECURED,
    STATUS,
    ChangePasswordBody,
    Id,
    NewPasswordBody,
    ResetBody,
    SignInBody,
    Strict,
    anywhere,
    api_of,
    error,
)
from flows.web.auth import COOKIE, CSRF_HEADER
from flows.web.play import sign_up_action

router = APIRouter(tags=["account"])


@router.post("/session", operation_id="account.sign-in", openapi_extra=PUBLIC)
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
        headers = {"retry-after": str(done.retry_after_s)} if done.retry_after_s else None
        return error(STATUS.get(done.code, 401), done.code, done.message, headers=headers)
    response = JSONResponse({"csrf": api.auth.csrf(done.secret)})
    api.auth.set_cookie(response, done.secret)
    return response


@router.delete("/session", operation_id="account.sign-out", dependencies=SECURED)
def sign_out(request: Request):
    """Sign out this browser."""
    api = api_of(request)

    def do(session, actor, now):
        secret = api.auth.secret_of(request.cookies.get(COOKIE))
        if secret:
            signin.end_session(session, secret, now)
        return {"signed_out": True}

    response = JSONResponse(api.run(request, "account.sign-out", anywhere, do, describe="this session"))
    api.auth.clear_cookie(response)
    return response


@router.get("/me", operation_id="account.read", dependencies=SECURED)
def me(request: Request) -> dict:
    """Who I am: my roles in each club (with its name), my player, my open sessions (`current`: this one) and my tokens."""

    api = api_of(request)

    def do(session, actor, now):
        return signin.overview(session, actor, now, current=api.auth.secret_of(request.cookies.get(COOKIE)))

    return api.run(request, "account.read", anywhere, do, describe="my account")


@router.get("/me/data", operation_id="account.data", dependencies=SECURED)
def my_data(request: Request) -> dict:
    """Everything the platform holds about me (AC-5), as one JSON document."""
    from domain.access.services.mine import everything

    return api_of(request).run(
        request, "account.data", anywhere, lambda s, actor, now: everything(s, actor.account_id), describe="my data"
    )


@router.post("/me/sign-out-everywhere", operation_id="account.sign-out-everywhere", dependencies=SECURED)
def sign_out_everywhere(request: Request) -> dict:
    """End every session of my account, on every device (this one too)."""

    def do(session, actor, now):
        return {"ended": accounts.end_all_sessions(session, actor.account_id, now)}

    return api_of(request).run(request, "account.sign-out-everywhere", anywhere, do, describe="every session")


@router.delete("/me/tokens/{token_id}", operation_id="account.revoke-token", dependencies=SECURED)
def revoke_my_token(request: Request, token_id: Id) -> dict:
    """Revoke one of my tokens: it stops at its next request."""

    def do(session, actor, now):
        token = signin.revoke_token(session, token_id, now, account_id=actor.account_id)
        return {"id": token.id, "revoked_at": token.revoked_at}

    return api_of(request).run(request, "account.revoke-token", anywhere, do, describe=f"token {token_id}")


def _address(request: Request) -> str:
    return request.client.host if request.client else "?"


@router.post("/password-resets", operation_id="account.reset", openapi_extra=PUBLIC, status_code=202)
def ask_reset(request: Request, body: ResetBody, background: BackgroundTasks) -> dict:
    """Ask for a link to set a new password, sent by e-mail (valid 1 hour, used once). The answer is the
    same whatever the address (it never tells whether it has an account); at most 5 asks per address
    in 15 minutes (429 `too-many-resets`), one letter a minute per account."""
    api = api_of(request)
    now = api.clock()
    if api.reset_limits is not None and not api.reset_limits.allow(_address(request)):
        raise Refused("too-many-resets", "Too many resets asked for from here: try again later.")
    with api.db() as session:
        caller = api.auth.identify(session, request, now)
        if not api.auth.csrf_ok(caller, request.headers.get(CSRF_HEADER)):
            raise Refused("csrf", "This write carries no valid CSRF token: reload the page and try again.")
        found = passwords.ask_reset(session, caller.actor, body.email.strip(), now)
    if found is not None and api.send_reset is not None:
        account, secret = found
        background.add_task(api.send_reset, account.email, account.locale, secret)
    return {"sent": True}


@router.post("/password", operation_id="account.set-password", openapi_extra=PUBLIC)
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


@router.post("/me/password", operation_id="account.change-password", dependencies=SECURED)
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
        headers = {"retry-after": str(refused.retry_after_s)} if refused.retry_after_s else None
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


@router.post("/signup", operation_id="account.sign-up", openapi_extra=PUBLIC, status_code=202)
def sign_up(request: Request, body: SignUpBody, background: BackgroundTasks) -> dict:
    """Sign up as a player: the rules of the `/signup` page. Every problem at once (422 `bad-sign-up`,
    `problems` with each code, nothing written); otherwise 202 with the same answer whether or not the
    address had an account (it never tells): a new address gets a welcome letter whose link sets the
    password, a known one a password reset letter. At most 10 sign-ups per address in 15 minutes,
    counted with the page's (429 `too-many-sign-ups`)."""
    door = request.app.state.sign_up
    if not door.allow(request.client.host if request.client else "?"):
        raise Refused("too-many-sign-ups", "Too many sign-ups from your address: wait a quarter of an hour.")
    fields = {k: getattr(body, k).strip() for k in ("email", "handle", "name", "birth_date", "locale")}
    try:
        letter = api_of(request).run(request, "account.sign-up", anywhere, sign_up_action(fields), describe="sign-up")
    except DomainError as exc:
        if exc.code in STATUS or not exc.problems:
            raise
        problems = [{"code": p.code, "message": p.message} for p in exc.problems]
        return error(422, "bad-sign-up", exc.message, problems)
    if letter is not None:  # after the answer: its timing tells nothing either
        background.add_task(door.deliver, Letter(**letter))
    return {"status": "check-your-mail"}
