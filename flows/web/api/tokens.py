"""A club's tokens (AC-4): its owner makes the club's machines their tokens (a desk's tablet, a screen,
a script) for staff accounts of the club, each narrowed to roles the account holds there, shows the
secret once (stored as its digest), lists them (never a secret) and revokes them. A token of several
clubs, or of the platform, is no club's to see or revoke (AC-2)."""

from __future__ import annotations

from datetime import datetime
from typing import Literal

from pydantic import BaseModel, Field

from domain.access.services import signin
from flows.web.api.account import TokenRow
from flows.web.api.core import PAGED, Cursor, Id, Limit, Op, Operations, Strict, club_of

ops = Operations("club")
router = ops.router


class TokenBody(Strict):
    email: str = Field(
        min_length=3, max_length=254, description="a staff account of the club", examples=["floor@club.example"]
    )
    name: str = Field(min_length=1, max_length=80, description="what machine holds it", examples=["tablet at table 3"])
    roles: list[Literal["owner", "floor", "cashier"]] = Field(
        min_length=1, max_length=3, description="roles the account holds in the club: the token's scopes"
    )


class NewToken(TokenRow):
    token: str = Field(description="the secret, shown this once: `Authorization: Bearer tny_…`")


class RevokedToken(BaseModel):
    id: int
    revoked_at: datetime


@ops.get(
    "/clubs/{club_id}/tokens",
    "club.tokens",
    response=list[TokenRow],
    responses={200: {"description": "a page of the club's tokens", "headers": PAGED}},
)
def club_tokens(op: Op, club_id: Id, limit: Limit = 50, cursor: Cursor = None):
    """The club's tokens (each scope a role in this club), oldest first; never a secret; a page at a time."""
    return op.run(
        club_of(club_id),
        lambda s, actor, now: op.page(signin.club_tokens(s, club_id), lambda t: (t["id"],), limit, cursor),
        describe=f"club {club_id}",
    )


@ops.post("/clubs/{club_id}/tokens", "club.create-token", response=NewToken, status=201, secret=True)
def club_create_token(op: Op, club_id: Id, body: TokenBody):
    """Make a token of a staff account narrowed to roles it holds in this club.
    The answer carries its secret, shown this once; a role the account does not hold here: 409
    `scope-not-held`; an account that is not the club's staff: 404, as for one that does not exist."""

    def do(s, actor, now):
        row, secret = signin.create_club_token(s, club_id, body.email, body.name, body.roles, now)
        return row | {"token": secret}

    data = body.model_dump(exclude={"email"}) | {"account": body.email}
    return op.run(club_of(club_id), do, describe=f"token {body.name!r} of {body.email}", data=data)


@ops.delete("/clubs/{club_id}/tokens/{token_id}", "club.revoke-token", response=RevokedToken)
def club_revoke_token(op: Op, club_id: Id, token_id: Id):
    """Revoke one of the club's tokens: it stops at its next request.
    Revoked already: 409 `token-revoked`, nothing written."""

    def do(s, actor, now):
        token = signin.revoke_club_token(s, club_id, token_id, now)
        return {"id": token.id, "revoked_at": token.revoked_at}

    return op.run(club_of(club_id), do, describe=f"token {token_id}")
