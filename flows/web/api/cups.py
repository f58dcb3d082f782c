"""The Pusoy Dos organizer's cups (issue 39, docs/cups.md): what an organizer runs without the operator.
Create a cup (PD-1 size, PD-5 games per round, PD-2 a bracket of their own, PD-3 open or by code, the
language of its page and documents, DOC-4), watch it fill, amend it while the rules allow, cancel it
while it fills (PD-11), and make the game server's token bound to it (`cup:CODE`, shown once).

Who: an account holding the platform's `organizer` role (granted by the operator). A cup is its
organizer's by its `organizer_email`: the account whose e-mail that is (trimmed, case-folded) is its
organizer, so a cup the operator made with `--email` of an organizer's account is theirs too; a cup
made here carries its organizer's e-mail (the documents go there) and a name (`organizer`, the handle
its page shows and the organizer's webhooks are keyed by) that no other organizer's cup bears.
Another's cup is not found, exactly as a missing one (AC-2).

Each operation is one action of the policy (`cups.*`), runs `Op.run` (the policy, the use case, the
audit row, AC-3) over the services `tourney pusoy` calls (domain/pusoy/services/setup.py); the pages
(flows/web/cups.py) run the same `*_use` functions."""

from __future__ import annotations

import re
from collections.abc import Callable
from datetime import datetime
from typing import Annotated, Any, Literal

from fastapi import Query, Response
from pydantic import BaseModel, Field
from sqlalchemy import func, or_, select
from sqlalchemy.orm import Session

from domain.access.rules import credentials
from domain.access.rules.policy import Target
from domain.access.services import audit, signin
from domain.access.services.gate import UNCHANGED
from domain.access.services.mine import handle_of
from domain.access.tables import Account, Token
from domain.clubs.tables import Club
from domain.documents.rules.model import LOCALES, locale_problem
from domain.documents.services import locales, records
from domain.documents.tables import DocumentPublication
from domain.errors import DomainError, NotFound, Problem, raise_problems
from domain.pusoy.rules.bracket import bracket, bracket_problems, capacity_problems, games_problems
from domain.pusoy.rules.codes import HANDLE_MAX, handle_problems, normalise
from domain.pusoy.rules.status import Status
from domain.pusoy.services import setup, views
from domain.pusoy.services.rows import find
from domain.pusoy.tables import PusoyEntry, PusoyTournament
from flows.web.api.account import TokenRow
from flows.web.api.club import AuditRow, trail_page
from flows.web.api.core import PAGED, Code, Cursor, Id, Limit, Op, Operations, Strict, anywhere
from flows.web.api.owner_series import PDF, Documents, documents_row, pdf_answer

ops = Operations("organizer")
router = ops.router
Do = Callable[[Session, Any, datetime], Any]
Locale = Literal[tuple(LOCALES)]  # type: ignore[valid-type]
Advancing = list[Annotated[int, Field(ge=1, le=32)]]
CupStatus = Literal[tuple(s.value for s in Status)]  # type: ignore[valid-type]
TERMS = ("capacity", "games_per_round", "advancing")  # fixed once a player has joined on them


class CupBody(Strict):
    """A new cup: every problem at once (409: `bad-name`, `bad-capacity`, `bad-games-per-round`,
    `bad-bracket` naming the bad round, `bad-organizer`, `organizer-name-taken`, `bad-locale`)."""

    name: str = Field(min_length=1, max_length=200, examples=["Sunday Cup"])
    capacity: int = Field(8, ge=1, le=64, description="8, 16 or 32 players (PD-1)")
    games_per_round: int = Field(1, ge=1, le=100, description="1 to 10 (PD-5)")
    advancing: Advancing | None = Field(
        None, min_length=1, max_length=5, description="a custom bracket: the players advancing from each round (PD-2)"
    )
    private: bool = Field(False, description="joinable by its code only, never in the list (PD-3)")
    locale: Locale | None = Field(None, description="its page's and documents' language; default: my account's")
    organizer: str | None = Field(
        None, min_length=1, max_length=100, description="the name the cup shows; default: my last cup's"
    )


class EditBody(Strict):
    """Only what is given changes, while the cup fills; its terms (capacity, games per round, the
    bracket: `advancing`, null for the default) only while nobody has joined (409 `terms-fixed`)."""

    name: str | None = Field(None, min_length=1, max_length=200)
    private: bool | None = None
    locale: Locale | None = None
    capacity: int | None = Field(None, ge=1, le=64)
    games_per_round: int | None = Field(None, ge=1, le=100)
    advancing: Advancing | None = Field(None, min_length=1, max_length=5)


class TokenBody(Strict):
    name: str = Field(min_length=1, max_length=80, description="what machine holds it", examples=["table server 1"])


class CupRow(BaseModel):
    code: str
    name: str
    status: CupStatus
    capacity: int
    entrants: int
    seats_left: int
    private: bool
    games_per_round: int
    bracket: list[int]
    custom_bracket: bool
    organizer: str
    club_id: int | None
    locale: Locale
    current_round: int | None
    champion: str | None
    created_at: datetime


class Entrant(BaseModel):
    player: str
    joined_at: datetime
    final_position: int | None


class Cup(CupRow):
    started_at: datetime | None
    finished_at: datetime | None
    editable: bool = Field(description="it fills: its name, listing and language may change")
    terms_editable: bool = Field(description="nobody has joined: its capacity, games and bracket may change too")
    entries: list[Entrant] = Field(description="who holds a seat, first come first")
    tokens: list[TokenRow] = Field(description="the game servers' tokens bound to it (never a secret)")


class NewToken(TokenRow):
    token: str = Field(description="the secret, shown this once: `Authorization: Bearer tny_…`")


class RevokedToken(BaseModel):
    id: int
    revoked_at: datetime


# -- whose a cup is ----------------------------------------------------------------------------------


def _same_email(column, email: str):
    """A cup's e-mail is `email`, compared trimmed and lower-cased (the account's key, `email_key`, is
    case-folded: the same for every address but a handful of non-ASCII letters)."""
    return func.lower(func.btrim(column)) == email.strip().lower()


def organizer_of(session: Session, email: str | None) -> int | None:
    """The account a cup's `organizer_email` is, if any."""
    if not email:
        return None
    return session.scalar(select(Account.id).where(Account.email_key == credentials.email_key(email)))


def cup_target(session: Session, code: str) -> Target | None:
    """What the policy needs of a cup an organizer names: its organizer's account, its club."""
    row = session.execute(
        select(PusoyTournament.code, PusoyTournament.club_id, PusoyTournament.organizer_email).where(
            PusoyTournament.code == normalise(code)
        )
    ).first()
    if row is None:
        return None
    return Target(club_id=row.club_id, cup=row.code, organizer=organizer_of(session, row.organizer_email))


def my_cup(code: str) -> Callable[[Session], tuple[Target | None, NotFound]]:
    def locate(session: Session):
        return cup_target(session, code), NotFound("unknown-code", f"no tournament has the join code {normalise(code)}")

    return locate


def _account(s: Session, actor) -> Account:
    return s.get_one(Account, actor.account_id)


def _mine(s: Session, account: Account):
    """The organizer's cups, newest first: their e-mail is the account's."""
    return (
        select(PusoyTournament)
        .where(
            PusoyTournament.organizer_email.is_not(None), _same_email(PusoyTournament.organizer_email, account.email)
        )
        .order_by(PusoyTournament.created_at.desc(), PusoyTournament.id.desc())
    )


def _row(s: Session, t: PusoyTournament) -> dict:
    """The cup as the organizer's list shows it: its summary (not the organizer's e-mail) and locale."""
    row = {k: v for k, v in views.summary(t).items() if k != "organizer_email"}
    return row | {"locale": locales.pusoy_tournament_locale(s, t.id)}


def my_cups(s: Session, actor, status: str | None = None) -> list[dict]:
    account = _account(s, actor)
    key = credentials.email_key(account.email)
    rows = [t for t in s.scalars(_mine(s, account)) if credentials.email_key(t.organizer_email) == key]
    return [_row(s, t) for t in rows if status is None or t.status == status]


def cup_tokens(s: Session, account_id: int, code: str) -> list[dict]:
    """The organizer's tokens bound to the cup (made here or by the operator for this account)."""
    return [t for t in signin.tokens_of(s, account_id) if f"cup:{code}" in t["scopes"]]


def cup_view(s: Session, actor, code: str) -> dict:
    t = find(s, code)
    entries = s.execute(
        select(PusoyEntry.player, PusoyEntry.joined_at, PusoyEntry.final_position)
        .where(PusoyEntry.tournament_id == t.id)
        .order_by(PusoyEntry.joined_at, PusoyEntry.player)
    ).all()
    setup_ = t.status == Status.SETUP.value
    return _row(s, t) | {
        "started_at": t.started_at,
        "finished_at": t.finished_at,
        "editable": setup_,
        "terms_editable": setup_ and t.entrants == 0,
        "entries": [
            {"player": e.player, "joined_at": e.joined_at, "final_position": e.final_position} for e in entries
        ],
        "tokens": cup_tokens(s, actor.account_id, t.code),
    }


# -- creating a cup ----------------------------------------------------------------------------------


def default_organizer(s: Session, account: Account) -> str:
    """The name a new cup of this organizer bears unless another is given: their last cup's, else their
    player's handle, else their e-mail's local part (made a handle: no spaces, commas or '=')."""
    last = s.scalars(_mine(s, account).limit(1)).first()
    if last is not None:
        return last.organizer
    if account.player_id is not None:
        return handle_of(s, account.player_id)
    local = re.sub(r"[\s,=]+", "-", account.email.strip().rpartition("@")[0]).strip("-")
    return (local or "organizer")[:HANDLE_MAX]


def name_problems(s: Session, account: Account, name: str) -> list[Problem]:
    """A cup's organizer name is the organizer's own: refused when another's cup bears it (its page
    and its webhooks say whose the cup is)."""
    others = s.scalar(
        select(func.count())
        .select_from(PusoyTournament)
        .where(
            PusoyTournament.organizer == name,
            or_(
                PusoyTournament.organizer_email.is_(None),
                ~_same_email(PusoyTournament.organizer_email, account.email),
            ),
        )
    )
    if others:
        return [Problem("organizer-name-taken", "Another organizer's cups bear the name %(name)s.", name=name)]
    return []


def create_use(body: dict) -> Do:
    """A cup in Setup by `setup.create` (its bracket stored, the first draw's seed committed, PD-12) in
    the organizer's name and e-mail, its language set (DOC-4); every problem at once, nothing written."""

    def do(s, actor, now):
        account = _account(s, actor)
        organizer = (body.get("organizer") or "").strip() or default_organizer(s, account)
        locale = body.get("locale") or (account.locale if account.locale in LOCALES else "en")
        mine: list[Problem] = []
        if not handle_problems(organizer, "organizer"):
            mine += name_problems(s, account, organizer)
        if locale_problem(locale):
            mine.append(Problem("bad-locale", locale_problem(locale)))
        try:
            t = setup.create(
                s,
                name=body.get("name") or "",
                organizer=organizer,
                capacity=body.get("capacity", 8),
                games_per_round=body.get("games_per_round", 1),
                private=bool(body.get("private")),
                advancing=body.get("advancing"),
                organizer_email=account.email,
                now=now,
            )
        except DomainError as exc:
            raise_problems([*exc.problems, *mine])
        raise_problems(mine)
        locales.set_locale(s, "pusoy", t.id, locale, now)
        return cup_view(s, actor, t.code)

    return do


# -- amending and cancelling -------------------------------------------------------------------------


def edit_use(code: str, given: dict) -> Do:
    """The cup with the fields `given` changed, under its row lock, while it fills (PD-11): its name,
    open or by code (PD-3) and language any time; its terms (capacity, games per round, the bracket:
    PD-1, PD-2, PD-5) only while nobody has joined on them. Every problem at once, nothing written;
    UNCHANGED when it is so already. A join waiting on the row counts under the terms this edit left."""

    def do(s, actor, now):
        t = find(s, code, lock=True)
        if t.status != Status.SETUP.value:
            raise DomainError(
                "cup-not-filling",
                "%(code)s is %(status)s: a cup's settings change only while it fills.",
                code=t.code,
                status=t.status,
            )
        locale = locales.pusoy_tournament_locale(s, t.id)
        before = {
            "name": t.name,
            "private": t.private,
            "locale": locale,
            "capacity": t.capacity,
            "games_per_round": t.games_per_round,
            "advancing": list(t.bracket[1:]) if t.custom_bracket else None,
        }
        new = before | {k: (v.strip() if isinstance(v, str) and k == "name" else v) for k, v in given.items()}
        if new == before:
            return UNCHANGED
        problems: list[Problem] = []
        if not new["name"] or len(new["name"]) > 120:
            problems.append(Problem("bad-name", "a tournament name is 1 to 120 characters"))
        if locale_problem(new["locale"]):
            problems.append(Problem("bad-locale", locale_problem(new["locale"])))
        terms = {k: new[k] for k in TERMS} != {k: before[k] for k in TERMS}
        if terms and t.entrants > 0:
            problems.append(
                Problem(
                    "terms-fixed",
                    "%(n)s players have joined on these terms: the capacity, the games per round and the "
                    "bracket change only while nobody has joined.",
                    n=t.entrants,
                )
            )
        elif terms:
            problems += capacity_problems(new["capacity"]) + games_problems(new["games_per_round"])
            if new["advancing"] is not None and not capacity_problems(new["capacity"]):
                problems += bracket_problems(new["capacity"], new["advancing"])
        raise_problems(problems)
        t.name, t.private = new["name"], new["private"]
        if terms:
            t.capacity, t.games_per_round = new["capacity"], new["games_per_round"]
            t.bracket = list(bracket(new["capacity"], new["advancing"]))
            t.custom_bracket = new["advancing"] is not None
        if new["locale"] != locale:
            locales.set_locale(s, "pusoy", t.id, new["locale"], now)
        s.flush()
        return cup_view(s, actor, t.code)

    return do


def cancel_use(code: str) -> Do:
    """PD-11: the organizer cancels while the cup fills (`setup.cancel`, in the cup's organizer's name:
    the policy has said the caller is its organizer). Started or over: 409 `bad-status-change`."""

    def do(s, actor, now):
        t = find(s, code)
        setup.cancel(s, code, t.organizer, now)
        return cup_view(s, actor, t.code)

    return do


def create_token_use(code: str, name: str) -> Do:
    """A game server's token of the organizer's account bound to the cup (`cup:CODE`): it reports the
    cup's games and nothing else (AC-1); its secret returned once, stored as its digest (AC-4). A cup
    that is over: 409 `cup-over`."""

    def do(s, actor, now):
        t = find(s, code)
        if t.status in (Status.COMPLETE.value, Status.CANCELLED.value):
            raise DomainError(
                "cup-over", "%(code)s is %(status)s: it takes no more reports.", code=t.code, status=t.status
            )
        token, secret = signin.create_token(s, _account(s, actor), name, [f"cup:{t.code}"], now)
        row = next(r for r in signin.tokens_of(s, actor.account_id) if r["id"] == token.id)
        return row | {"token": secret}

    return do


def revoke_token_use(code: str, token_id: int) -> Do:
    """Revoke one of the cup's tokens (the organizer's, bound to it); another is not found. Revoked
    already: 409 `token-revoked`."""

    def do(s, actor, now):
        t = find(s, code)
        token = s.get(Token, token_id, with_for_update=True)
        if token is None or token.account_id != actor.account_id or f"cup:{t.code}" not in token.scopes:
            raise NotFound("token-not-found", f"no token {token_id}")
        revoked = signin.revoke_token(s, token_id, now)
        return {"id": revoked.id, "revoked_at": revoked.revoked_at}

    return do


# -- the operations ----------------------------------------------------------------------------------


@ops.get(
    "/cups",
    "cups.list",
    response=list[CupRow],
    responses={200: {"description": "a page of my cups", "headers": PAGED}},
)
def cups(
    op: Op,
    status: Annotated[CupStatus | None, Query(description="only those in this status")] = None,
    limit: Limit = 50,
    cursor: Cursor = None,
):
    """My cups, newest first, a page at a time."""

    def do(s, actor, now):
        rows = my_cups(s, actor, status)
        return op.page(rows, lambda r: (-r["created_at"].timestamp(), r["code"]), limit, cursor)

    return op.run(anywhere, do, describe="my cups")


@ops.post("/cups", "cups.create", response=Cup, status=201)
def create(op: Op, body: CupBody):
    """Create a cup (Setup): its join code, its bracket stored, its first draw's seed committed (PD-12).
    Every problem at once: 409 with each code; nothing written."""
    given = body.model_dump(exclude_none=True)
    return op.run(anywhere, create_use(given), describe=lambda cup: f"cup {cup['code']}", data=given)


@ops.get("/cups/{code}", "cups.cup", response=Cup)
def cup(op: Op, code: Code):
    """One of my cups: its settings, who has joined, its game servers' tokens."""
    return op.run(my_cup(code), lambda s, actor, now: cup_view(s, actor, code), describe=f"cup {code.upper()}")


@ops.post("/cups/{code}/settings", "cups.edit", response=Cup, unchanged=True)
def edit(op: Op, code: Code, body: EditBody):
    """Amend one of my cups while it fills.
    Its name, open or by code and language any time it fills; its capacity, games per round and bracket
    (`advancing`: null for the default) while nobody has joined (409 `terms-fixed`). Started or over:
    409 `cup-not-filling`. Nothing different: 204, nothing written."""
    given = body.model_dump(exclude_unset=True)
    if "advancing" not in body.model_fields_set:
        given.pop("advancing", None)
    for key in ("name", "private", "locale", "capacity", "games_per_round"):
        if given.get(key, 0) is None:
            given.pop(key)
    return op.run(my_cup(code), edit_use(code, given), describe=f"cup {code.upper()}", data=given)


@ops.post("/cups/{code}/cancel", "cups.cancel", response=Cup)
def cancel(op: Op, code: Code):
    """Cancel one of my cups while it fills (PD-11).
    Started or over: 409 `bad-status-change`."""
    return op.run(my_cup(code), cancel_use(code), describe=f"cup {code.upper()}")


@ops.post("/cups/{code}/tokens", "cups.create-token", response=NewToken, status=201, secret=True)
def create_token(op: Op, code: Code, body: TokenBody):
    """Make a game server's token bound to one of my cups (`cup:CODE`): it reports that cup's games.
    The answer carries its secret, shown this once."""
    return op.run(
        my_cup(code),
        create_token_use(code, body.name.strip()),
        describe=f"token {body.name.strip()!r} of cup {code.upper()}",
        data=body.model_dump(),
    )


@ops.delete("/cups/{code}/tokens/{token_id}", "cups.revoke-token", response=RevokedToken)
def revoke_token(op: Op, code: Code, token_id: Id):
    """Revoke a game server's token of one of my cups: it stops at its next request.
    Revoked already: 409 `token-revoked`."""
    return op.run(my_cup(code), revoke_token_use(code, token_id), describe=f"token {token_id} of cup {code.upper()}")


# -- the cup's documents --------------------------------------------------------------------------------


def _cup(s: Session, code: str) -> PusoyTournament:
    return s.scalars(select(PusoyTournament).where(PusoyTournament.code == normalise(code))).one()


def _publication(s: Session, code: str, documents_id: int | None = None) -> DocumentPublication | None:
    """The cup's documents (its results sheet and certificates): one publication, once it is complete."""
    query = select(DocumentPublication).where(
        DocumentPublication.source == "pusoy", DocumentPublication.tournament_id == _cup(s, code).id
    )
    if documents_id is not None:
        query = query.where(DocumentPublication.id == documents_id)
    return s.scalar(query.execution_options(populate_existing=True))


def cup_documents(s: Session, code: str) -> list[dict]:
    """The cup's documents as stored, with their delivery; a complete cup not published yet says so;
    none before it is complete."""
    cup = _cup(s, code)
    p = _publication(s, code)
    if p is not None:
        return [documents_row(p, records.documents_of(s, p.id))]
    if cup.status == Status.COMPLETE:
        return [documents_row(None, [], source="pusoy", tournament_id=cup.id, tournament=cup.name)]
    return []


def stored_cup_document(s: Session, code: str, documents_id: int, document_id: int) -> tuple[str, str, str]:
    """(folder, filename, sha256) of a stored document of the cup's."""
    p = _publication(s, code, documents_id)
    found = records.documents_of(s, p.id) if p is not None else []
    d = next((d for d in found if d.id == document_id), None)
    if d is None:
        raise NotFound("document-not-found", f"no document {document_id}")
    return p.folder, d.filename, d.sha256


def resend_cup_use(code: str, documents_id: int) -> Do:
    """The cup's documents again, to whom they went: its club's e-mail now, else the organizer's (the
    delivery job sends them, `records.resend`); on their way already: UNCHANGED."""

    def do(s, actor, now):
        p = _publication(s, code, documents_id)
        if p is None:
            raise NotFound("documents-not-found", f"no documents {documents_id}")
        cup = _cup(s, code)
        club = s.get(Club, cup.club_id) if cup.club_id is not None else None
        recipient = (club.contact_email if club else None) or cup.organizer_email
        if records.resend(s, p.id, recipient, now) is None:
            return UNCHANGED
        return documents_row(p, records.documents_of(s, p.id))

    return do


@ops.get("/cups/{code}/documents", "cups.documents", response=list[Documents])
def documents(op: Op, code: Code):
    """My cup's results sheet and certificates, as stored, with their delivery (a complete cup not
    published yet: `not-published`; before it is complete: none)."""
    return op.run(my_cup(code), lambda s, actor, now: cup_documents(s, code), describe=f"cup {code.upper()}")


@ops.get(
    "/cups/{code}/documents/{documents_id}/files/{document_id}",
    "cups.download-document",
    response_class=Response,
    responses=PDF,
)
def download_document(op: Op, code: Code, documents_id: Id, document_id: Id) -> Response:
    """A stored document of my cup: the signed PDF as published and mailed, checked against its sha256;
    the file not in the outbox or changed: 404 `document-file-missing`."""
    found = op.run(
        my_cup(code),
        lambda s, actor, now: stored_cup_document(s, code, documents_id, document_id),
        describe=f"cup {code.upper()}",
    )
    return pdf_answer(op, document_id, *found)


@ops.post(
    "/cups/{code}/documents/{documents_id}/deliveries",
    "cups.resend-documents",
    response=Documents,
    status=202,
    unchanged=True,
)
def resend_documents(op: Op, code: Code, documents_id: Id):
    """Send my cup's documents again, to its club's e-mail now (a cup of no club: mine). A new delivery,
    due now, that the delivery job sends; on its way already: 204, nothing written, no second message."""
    return op.run(
        my_cup(code), resend_cup_use(code, documents_id), describe=f"documents {documents_id} of cup {code.upper()}"
    )


@ops.get(
    "/cups/{code}/audit",
    "cups.audit",
    response=list[AuditRow],
    responses={200: {"description": "a page of the cup's trail", "headers": PAGED}},
)
def cup_audit(op: Op, code: Code, limit: Limit = 50, cursor: Cursor = None):
    """My cup's audit trail (AC-3), newest first, a page at a time: who made it and amended it, who
    joined, its game servers' reports, the rounds completed, its documents sent again."""
    only = audit.Filter(cup=normalise(code))
    return op.run(my_cup(code), trail_page(op, None, only, limit, cursor), describe=f"cup {code.upper()}")
