"""The operator's queue (issue 39, docs/platform.md): what the platform's operator decides without the
command line. The applications for verification (CL-2, CL-3: those the registry could not decide wait
in the moderator queue with its answer kept; any pending one may be decided by hand), approved or
refused with a reason; the catalog by status, a club's whole history, and a verified club's status
revoked, its listing suspended, reinstated or terminated with a reason (CL-4; AC-4: at the club's
next request); the accounts, to block and unblock (`platform.block-account`, `unblock-account` are
flows/web/api/play.py's).

Each operation is one action of the policy (`platform.*`, the operator's alone), runs `Op.run` (the
policy, the use case, the audit row with the club's id, AC-3) and calls the services `tourney club`
calls (domain/clubs/services/clubs.py), so the history (`club_decisions`) reads the same whichever door
decided. The queue's pages (flows/web/platform.py) run the same `*_use` functions."""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from typing import Annotated, Any, Literal

from fastapi import Query
from pydantic import BaseModel, Field
from sqlalchemy import select
from sqlalchemy.orm import Session

from domain.access.rules.policy import Role
from domain.access.services import accounts, signin
from domain.access.services.gate import UNCHANGED
from domain.access.tables import Account
from domain.clubs.rules.status import Listing, Verification
from domain.clubs.services import clubs as club_service
from domain.clubs.tables import ClubDecision
from domain.errors import DomainError, NotFound
from flows.web.api.core import PAGED, Cursor, Id, Limit, Op, Operations, Strict, anywhere, club_of

ops = Operations("platform")
router = ops.router
Do = Callable[[Session, Any, datetime], Any]
ListingStatus = Literal[tuple(s.value for s in Listing)]  # type: ignore[valid-type]
VerificationStatus = Literal[tuple(s.value for s in Verification)]  # type: ignore[valid-type]


class ClubRow(BaseModel):
    id: int
    name: str
    legal_form: str
    inn: str
    ogrn: str
    contact_email: str
    timezone: str
    listing_status: ListingStatus
    listing_reason: str | None
    verification_status: VerificationStatus
    verification_reason: str | None
    in_moderation_queue: bool = Field(description="pending and waiting for a moderator (CL-3)")
    application_no: int
    applied_at: datetime | None
    queued_at: datetime | None
    attempts: int = Field(description="registry look-ups that got no answer, this application")
    last_error: str | None
    verified_at: datetime | None


class RegistryWord(BaseModel):
    """The registry's last word on the application (or why no provider could give one)."""

    at: datetime
    action: str
    actor: str
    reason: str | None
    raw_answer: str | None = Field(description="the registry's answer, verbatim")


class Application(ClubRow):
    registry: RegistryWord | None


class Decision(BaseModel):
    at: datetime
    application_no: int
    action: str
    verification_status: VerificationStatus
    listing_status: ListingStatus
    source: str = Field(description="registry, moderator, operator or club")
    actor: str
    reason: str | None
    raw_answer: str | None


class ClubDetail(ClubRow):
    history: list[Decision] = Field(description="every decision about the club, oldest first (CL-3: audited)")


class AccountRow(BaseModel):
    id: int
    email: str
    roles: list[str] = Field(description="`operator`, `organizer`, `owner@3`, …; `player` for a player's")
    player_id: int | None
    verified: bool
    password_set: bool
    blocked: str | None = Field(description="the block's reason; none: not blocked")


class ApproveBody(Strict):
    reason: str | None = Field(None, max_length=500, description="what was checked (default: checked by hand)")


class DecisionBody(Strict):
    reason: str = Field(min_length=1, max_length=500, description="why (kept in the club's history, CL-4)")


club_row = club_service.club_view  # the operator's view of a club, the CLI's too


def _decision(d: ClubDecision) -> dict:
    return {
        "at": d.decided_at,
        "application_no": d.application_no,
        "action": d.action,
        "verification_status": d.verification_status,
        "listing_status": d.listing_status,
        "source": d.source,
        "actor": d.actor,
        "reason": d.reason,
        "raw_answer": d.raw_answer,
    }


def applications(s: Session) -> list[dict]:
    """Every pending application: the moderator queue's first (oldest first, CL-3), then those the
    registry is still to check (oldest first); each with the registry's last word on it."""
    pending = club_service.list_clubs(s, verification=Verification.PENDING.value)
    words: dict[int, ClubDecision] = {}
    if pending:
        rows = s.scalars(
            select(ClubDecision)
            .where(ClubDecision.club_id.in_([c.id for c in pending]), ClubDecision.source == "registry")
            .order_by(ClubDecision.decided_at, ClubDecision.id)
        )
        by_club = {c.id: c.application_no for c in pending}
        words = {d.club_id: d for d in rows if d.application_no == by_club[d.club_id]}
    out = []
    for club in pending:
        word = words.get(club.id)
        registry = None
        if word is not None:
            registry = {
                "at": word.decided_at,
                "action": word.action,
                "actor": word.actor,
                "reason": word.reason,
                "raw_answer": word.raw_answer,
            }
        out.append(club_row(club) | {"registry": registry})
    return out


def queue_key(row: dict) -> tuple:
    """The queue's order: queued first, each part oldest first."""
    waiting = row["queued_at"] or row["applied_at"] or datetime.min
    return (0 if row["in_moderation_queue"] else 1, waiting.isoformat(), row["id"])


def club_detail(s: Session, club_id: int) -> dict:
    club = club_service.get_club(s, club_id)
    return club_row(club) | {"history": [_decision(d) for d in club_service.history(s, club_id)]}


def decide_use(club_id: int, decision: str, reason: str | None) -> Do:
    """One decision on one club (CL-3, CL-4) by the services `tourney club` calls, in the operator's
    name (the club's history keeps who): approve or refuse a pending application; revoke a verified
    club's status; suspend, reinstate or terminate its listing. A reason is required but for an
    approval (`reason-missing`); a decision the club's state does not allow is refused with its reason
    (`cannot-suspend`, …); nothing is written then."""
    act = {
        "approve": club_service.approve,
        "refuse": club_service.refuse,
        "revoke": club_service.revoke,
        "suspend": club_service.suspend,
        "reinstate": club_service.reinstate,
        "terminate": club_service.terminate,
    }[decision]

    def do(s, actor, now):
        club = act(s, club_id, actor.label, reason, now)
        return club_row(club)

    return do


def account_rows(s: Session, q: str | None = None) -> list[dict]:
    """Every account with its roles, or those whose e-mail holds `q` (any case)."""
    rows = accounts.listing(s)
    if q:
        needle = q.strip().casefold()
        rows = [r for r in rows if needle in r["email"].casefold()]
    return rows


def _account(s: Session, account_id: int) -> Account:
    account = s.get(Account, account_id, with_for_update=True)
    if account is None:
        raise NotFound("account-not-found", f"no account {account_id}")
    return account


def block_use(account_id: int, reason: str) -> Do:
    """`platform.block-account`'s steps (flows/web/api/play.py), for the queue's page: sessions end
    and tokens stop at the next request (AC-4); never one's own account."""

    def do(s, actor, now):
        if account_id == actor.account_id:
            raise DomainError("cannot-block-self", "An operator cannot block their own account.")
        accounts.block(s, _account(s, account_id), reason, now)
        return {"account_id": account_id, "blocked": reason.strip()}

    return do


def unblock_use(account_id: int) -> Do:
    """`platform.unblock-account`'s steps: UNCHANGED for an account not blocked."""

    def do(s, actor, now):
        account = _account(s, account_id)
        if account.blocked_at is None:
            return UNCHANGED
        accounts.unblock(s, account)
        return {"account_id": account_id, "blocked": None}

    return do


class Organizer(BaseModel):
    account_id: int
    roles: list[str] = Field(description="the account's roles after the change (`organizer` among them or not)")


def organizer_use(account_id: int, *, grant: bool) -> Do:
    """`platform.grant-organizer`'s (or `revoke-organizer`'s) steps, for the API and the queue's page: the
    platform's Pusoy Dos organizer role given to (taken from) an account, as `tourney user grant ACCOUNT
    organizer` does; UNCHANGED when it held it already (did not hold it)."""

    def do(s, actor, now):
        account = _account(s, account_id)
        changed = (
            accounts.grant(s, account, Role.ORGANIZER, None, now)
            if grant
            else accounts.revoke(s, account, Role.ORGANIZER, None)
        )
        if not changed:
            return UNCHANGED
        held = accounts.roles_of(s, account_id)
        return {"account_id": account_id, "roles": [signin.scope_name(role, club) for role, club in held]}

    return do


@ops.post("/accounts/{account_id}/organizer", "platform.grant-organizer", response=Organizer, unchanged=True)
def grant_organizer(op: Op, account_id: Id):
    """Make an account a Pusoy Dos organizer of the platform: it creates and runs cups at `/cups`.
    One that is already: 204, nothing written."""
    return op.run(anywhere, organizer_use(account_id, grant=True), describe=f"account {account_id}")


@ops.delete("/accounts/{account_id}/organizer", "platform.revoke-organizer", response=Organizer, unchanged=True)
def revoke_organizer(op: Op, account_id: Id):
    """Take the organizer role from an account: it no longer acts on its cups (they stay). One that is not: 204."""
    return op.run(anywhere, organizer_use(account_id, grant=False), describe=f"account {account_id}")


@ops.get(
    "/platform/queue",
    "platform.queue",
    response=list[Application],
    responses={200: {"description": "a page of the pending applications", "headers": PAGED}},
)
def queue(op: Op, limit: Limit = 50, cursor: Cursor = None):
    """The applications waiting for a decision: the moderator queue first, then those the registry is to check.
    Each carries the registry's last word on it (its reason and raw answer, CL-3), oldest first, a page
    at a time."""
    return op.run(
        anywhere, lambda s, actor, now: op.page(applications(s), queue_key, limit, cursor), describe="the queue"
    )


@ops.get(
    "/platform/clubs",
    "platform.clubs",
    response=list[ClubRow],
    responses={200: {"description": "a page of the catalog", "headers": PAGED}},
)
def clubs(
    op: Op,
    listing: Annotated[ListingStatus | None, Query(description="only those with this listing")] = None,
    verification: Annotated[VerificationStatus | None, Query(description="only those with this verification")] = None,
    limit: Limit = 50,
    cursor: Cursor = None,
):
    """The catalog by id, or the clubs with the given listing and verification statuses, a page at a time."""

    def do(s, actor, now):
        rows = [club_row(c) for c in club_service.list_clubs(s, listing, verification)]
        return op.page(rows, lambda r: (r["id"],), limit, cursor)

    return op.run(anywhere, do, describe="the catalog")


@ops.get("/platform/clubs/{club_id}", "platform.club", response=ClubDetail)
def club(op: Op, club_id: Id):
    """A club of the catalog with every decision about it (when, what, the source, who, why, the registry's answer)."""
    return op.run(club_of(club_id), lambda s, actor, now: club_detail(s, club_id), describe=f"club {club_id}")


def _decide(op: Op, club_id: int, decision: str, reason: str | None) -> dict:
    return op.run(
        club_of(club_id),
        decide_use(club_id, decision, reason),
        describe=f"club {club_id}",
        data={"reason": reason} if reason is not None else None,
    )


@ops.post("/platform/clubs/{club_id}/approve", "platform.approve-club", response=ClubRow)
def approve(op: Op, club_id: Id, body: ApproveBody | None = None):
    """Verify a pending application by hand (CL-3), saying what was checked.
    Not pending: 409 `cannot-verify`."""
    return _decide(op, club_id, "approve", body.reason if body else None)


@ops.post("/platform/clubs/{club_id}/refuse", "platform.refuse-club", response=ClubRow)
def refuse(op: Op, club_id: Id, body: DecisionBody):
    """Refuse a pending application, with the reason (CL-3, CL-4); the club may apply again.
    Not pending: 409 `cannot-refuse`; a blank reason: 409 `reason-missing`."""
    return _decide(op, club_id, "refuse", body.reason)


@ops.post("/platform/clubs/{club_id}/revoke", "platform.revoke-club", response=ClubRow)
def revoke(op: Op, club_id: Id, body: DecisionBody):
    """Take a verified club's status away, with the reason (CL-4).
    Not verified: 409 `cannot-revoke`."""
    return _decide(op, club_id, "revoke", body.reason)


@ops.post("/platform/clubs/{club_id}/suspend", "platform.suspend-club", response=ClubRow)
def suspend(op: Op, club_id: Id, body: DecisionBody):
    """Suspend a club's listing, with the reason (CL-4).
    From the club's next request its staff read but open or change nothing (403 `club-suspended`, AC-4).
    Not listed: 409 `cannot-suspend`."""
    return _decide(op, club_id, "suspend", body.reason)


@ops.post("/platform/clubs/{club_id}/reinstate", "platform.reinstate-club", response=ClubRow)
def reinstate(op: Op, club_id: Id, body: DecisionBody):
    """List a suspended club again, with the reason (CL-4).
    Not suspended: 409 `cannot-reinstate`."""
    return _decide(op, club_id, "reinstate", body.reason)


@ops.post("/platform/clubs/{club_id}/terminate", "platform.terminate-club", response=ClubRow)
def terminate(op: Op, club_id: Id, body: DecisionBody):
    """End a club's listing for good, with the reason (CL-4): its staff read, nothing more (AC-4).
    Terminated already: 409 `cannot-terminate`."""
    return _decide(op, club_id, "terminate", body.reason)


@ops.get(
    "/platform/accounts",
    "platform.accounts",
    response=list[AccountRow],
    responses={200: {"description": "a page of the accounts", "headers": PAGED}},
)
def accounts_list(
    op: Op,
    q: Annotated[str | None, Query(max_length=254, description="only those whose e-mail holds this")] = None,
    limit: Limit = 50,
    cursor: Cursor = None,
):
    """Every account with its roles and its block, by e-mail, a page at a time (never a secret)."""

    def do(s, actor, now):
        return op.page(account_rows(s, q), lambda r: (r["email"].casefold(), r["id"]), limit, cursor)

    return op.run(anywhere, do, describe="the accounts")
