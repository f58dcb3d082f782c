"""The session and my account: sign in and out, who I am, my data (AC-5), sign out everywhere, my
tokens, and the password reset links."""

from __future__ import annotations

from fastapi import APIRouter, Request
from fastapi.responses import JSONResponse

from domain.access.services import accounts, signin
from flows.web.api.core import PUBLIC, SECURED, STATUS, Id, SignInBody, anywhere, api_of, error
from flows.web.auth import COOKIE

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
