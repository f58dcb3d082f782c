"""Players, game servers and the platform (AC-1): a player acts on their own entries only (AC-2); a
game server reports games of the cups its token is bound to; the operator blocks accounts (AC-4)."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated

from fastapi import Path, Response
from pydantic import BaseModel, Field

from domain.access.services import accounts, targets
from domain.access.services.gate import UNCHANGED
from domain.access.services.mine import cup_view, handle_of
from domain.access.tables import Account
from domain.errors import DomainError, NotFound
from domain.poker.services import entries
from domain.pusoy.services import reports, setup
from domain.pusoy.services import views as cup_views
from flows.web.api.account import MyEntries
from flows.web.api.core import (
    PAGED,
    AmendBody,
    Code,
    Cursor,
    Id,
    Limit,
    Op,
    Operations,
    ReasonBody,
    ReportBody,
    anywhere,
    cup_of,
    tournament_of,
)
from flows.web.certificates import pdf_download, stored_file

ops = Operations()
router = ops.router
PUBLIC_CUP = (
    "code",
    "name",
    "status",
    "capacity",
    "entrants",
    "seats_left",
    "games_per_round",
    "club_id",
    "created_at",
)


class OpenCup(BaseModel):
    code: str
    name: str
    status: str
    capacity: int
    entrants: int
    seats_left: int
    games_per_round: int
    club_id: int | None
    created_at: datetime


class Cup(OpenCup):
    private: bool
    bracket: list[int]
    custom_bracket: bool
    organizer: str | None
    current_round: int | None
    champion: str | None


class Round(BaseModel):
    number: int
    status: str
    field: int
    advancing: int


class Standing(BaseModel):
    rank: int
    player: str
    points: int
    decided_by: str | None
    advanced: bool | None = None


class PlayedRound(BaseModel):
    round: int
    rank: int
    points: int
    advanced: bool


class Opponent(BaseModel):
    seat: int
    player: str


class MyTable(BaseModel):
    round: int
    playoff: int = 0
    table: int
    seat: int
    opponents: list[Opponent]


class Game(BaseModel):
    game: int
    finishes: list[str]
    position: int | None = None
    two_of_diamonds: bool | None = None
    points: int | None = None


class MyCup(BaseModel):
    """A player's view of a cup; `entered: false`: the cup alone."""

    cup: Cup
    entered: bool
    player: str | None
    champion: str | None
    certificate: str | None = None
    round: Round | None = None
    standings: list[Standing] = []
    joined_at: datetime | None = None
    left_round: int | None = None
    final_position: int | None = None
    rounds: list[PlayedRound] = []
    table: MyTable | None = None
    games: list[Game] = []
    state: str | None = None


class Joined(BaseModel):
    code: str
    player: str
    started: bool


class Withdrawn(BaseModel):
    code: str
    entrants: int


class SelfRegistration(BaseModel):
    registration_id: int
    status: str
    late: bool | None = None


class Reported(BaseModel):
    tournament_id: int
    round_ready: bool = Field(
        description="this report was its round's (or playoff's) last: the round completes at once after it, "
        "and the cup's event stream follows"
    )
    repeated: bool


class Amended(BaseModel):
    tournament_id: int
    amended: bool


class Blocked(BaseModel):
    account_id: int
    blocked: str | None


def _handle(session, actor) -> str:
    """The signed-in player's handle (a Pusoy Dos seat is held by handle)."""
    return handle_of(session, actor.player_id)


@ops.get(
    "/pusoy",
    "pusoy.browse",
    response=list[OpenCup],
    tags=["players"],
    responses={200: {"description": "a page of the open cups", "headers": PAGED}},
)
def browse(op: Op, limit: Limit = 50, cursor: Cursor = None):
    """Open Pusoy Dos cups that are filling, newest first (private ones never), a page at a time."""

    def do(s, actor, now):
        cups = [{k: cup_views.summary(t)[k] for k in PUBLIC_CUP} for t in setup.browse(s)]
        return op.page(cups, lambda c: (_newest(c["created_at"]), c["code"]), limit, cursor)

    return op.run(anywhere, do, describe="open cups")


def _newest(at) -> float:
    return -at.timestamp()


@ops.post("/pusoy/{code}/entries", "pusoy.join", response=Joined, errors=(429,), tags=["players"])
def join(op: Op, code: Code):
    """Join a cup by its code (from the list, or a private cup's code): the last seat starts it (PD-4)."""

    def do(s, actor, now):
        done = setup.join(s, code, _handle(s, actor), now)
        return {"code": done.tournament.code, "player": done.player, "started": done.started}

    return op.run(cup_of(code), do, describe=f"cup {code.upper()}", code=code)


@ops.delete("/pusoy/{code}/entries/me", "pusoy.withdraw", response=Withdrawn, errors=(429,), tags=["players"])
def withdraw(op: Op, code: Code):
    """Leave a cup while it fills (PD-4)."""

    def do(s, actor, now):
        t = setup.withdraw(s, code, _handle(s, actor), now)
        return {"code": t.code, "entrants": t.entrants}

    return op.run(cup_of(code), do, describe=f"cup {code.upper()}", code=code)


@ops.get("/pusoy/{code}/me", "pusoy.mine", response=MyCup, errors=(429,), tags=["players"])
def my_cup(op: Op, code: Code):
    """My view of a cup (RULES PD-4..PD-13): my table now (or my playoff table), seat and opponents, my
    games there with their points, the round's standings (live until it locks), each round I played,
    my final position and the champion. Not entered: the cup alone (`entered: false`). Knowing the
    code is what a private cup asks (PD-3): the call is throttled per account like a join."""
    return op.run(
        cup_of(code),
        lambda s, actor, now: cup_view(s, code, actor.player_id),
        describe=f"cup {code.upper()}",
        code=code,
    )


@ops.post(
    "/tournaments/{tournament_id}/my-registration", "poker.register-self", response=SelfRegistration, tags=["players"]
)
def register_me(op: Op, tournament_id: Id):
    """Register myself for a club's tournament, by its rules and deadlines (check-in is at the desk)."""

    def do(s, actor, now):
        reg = entries.register(s, tournament_id, actor.player_id, now)
        return {"registration_id": reg.id, "status": reg.status, "late": reg.late}

    return op.run(tournament_of(tournament_id), do, describe=f"tournament {tournament_id}")


@ops.delete(
    "/tournaments/{tournament_id}/my-registration", "poker.unregister-self", response=SelfRegistration, tags=["players"]
)
def unregister_me(op: Op, tournament_id: Id):
    """Withdraw my registration before check-in."""

    def do(s, actor, now):
        reg = entries.unregister(s, tournament_id, actor.player_id, now)
        return {"registration_id": reg.id, "status": reg.status}

    return op.run(tournament_of(tournament_id), do, describe=f"tournament {tournament_id}")


@ops.get("/me/entries", "player.entries", response=MyEntries, tags=["players"])
def my_entries(op: Op):
    """My registrations, entries and places at clubs, and my Pusoy Dos cups."""
    from domain.access.services.mine import entries_of

    return op.run(anywhere, lambda s, actor, now: entries_of(s, actor.player_id), describe="mine")


Serial = Annotated[str, Path(pattern=r"^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$", examples=["PD-000007-01"])]


@ops.get(
    "/me/certificates/{serial}",
    "player.certificate",
    tags=["players"],
    response_class=Response,
    responses={
        200: {
            "content": {"application/pdf": {"schema": {"type": "string", "format": "binary"}}},
            "description": "the stored, signed PDF",
        }
    },
)
def my_certificate(op: Op, serial: Serial) -> Response:
    """My own certificate (the stored, signed PDF, with my full name: AC-5), by its serial (`GET /me/entries`
    lists them). Another player's certificate is the same 404 as one that does not exist (AC-2)."""
    held = {}

    def locate(session):
        found = targets.certificate(session, serial)
        if found is not None:
            held["it"] = found[1]
        return (found[0] if found else None), NotFound("certificate-not-found", f"no certificate {serial}")

    op.run(locate, lambda s, actor, now: None, describe=serial)
    it = held["it"]
    data = stored_file(op.request.app.state.outbox, it.folder, it.filename, it.sha256)
    if data is None:  # the record is there, the file is not (or was changed): nothing to hand out
        raise NotFound("certificate-file-missing", f"the file of certificate {serial} is not in the outbox")
    return pdf_download(data, serial)


@ops.post(
    "/pusoy/{code}/reports", "pusoy.report", response=Reported, response_model_exclude_unset=True, tags=["game servers"]
)
def report(op: Op, code: Code, body: ReportBody):
    """A game server reports one table's game (its token is bound to the cup: `cup:CODE`). The answer
    comes at once: the round's last report answers `round_ready: true`, and the round completes right
    after it (the platform's event consumer), which the cup's event stream and pages follow.
    Idempotent by the game: the same report again (a retry) is answered with the first, `repeated:
    true`, and counted once; another result for a reported game is refused (409 `already-reported`):
    send an amendment."""

    def do(s, actor, now):
        done = reports.report(s, code, **_game(body, actor, now))
        return {"tournament_id": done.tournament_id, "round_ready": done.round_ready, "repeated": done.repeated}

    return op.run(cup_of(code), do, describe=f"cup {code.upper()}", data=body.model_dump())


@ops.post("/pusoy/{code}/amendments", "pusoy.amend", response=Amended, tags=["game servers"])
def amend(op: Op, code: Code, body: AmendBody):
    """A game server corrects a reported game while its round (or playoff) is open (PD-6), with the
    reason; the finishes before and after are kept in the game's audit."""

    def do(s, actor, now):
        done = reports.amend(s, code, **_game(body, actor, now), reason=body.reason)
        return {"tournament_id": done.tournament_id, "amended": True}

    return op.run(cup_of(code), do, describe=f"cup {code.upper()}", data=body.model_dump())


def _game(body: ReportBody, actor, now) -> dict:
    """A report's or an amendment's game, as the services take it: the finishes in order, who reports."""
    return {
        "round_no": body.round,
        "table": body.table,
        "game": body.game,
        "finishes": [(player, n) for n, player in enumerate(body.finishes, start=1)],
        "two_of_diamonds": body.two_of_diamonds,
        "now": now,
        "by": _server(actor),
        "playoff": body.playoff,
    }


def _server(actor) -> str:
    """Who reported, as a game's row keeps it (40 characters): the token's number."""
    return f"token {actor.token_id}" if actor.token_id else actor.label[:40]


def _account(session, account_id: int) -> Account:
    account = session.get(Account, account_id, with_for_update=True)
    if account is None:
        raise NotFound("account-not-found", f"no account {account_id}")
    return account


@ops.post("/accounts/{account_id}/block", "platform.block-account", response=Blocked, tags=["platform"])
def block(op: Op, account_id: Id, body: ReasonBody):
    """Block an account (1.5.3): its sessions end and its tokens stop at the next request (AC-4).
    One's own account: 409 `cannot-block-self`."""

    def do(s, actor, now):
        if account_id == actor.account_id:  # the platform would lose the one who can lift it
            raise DomainError("cannot-block-self", "An operator cannot block their own account.")
        accounts.block(s, _account(s, account_id), body.reason, now)
        return {"account_id": account_id, "blocked": body.reason}

    return op.run(anywhere, do, describe=f"account {account_id}", data=body.model_dump())


@ops.post(
    "/accounts/{account_id}/unblock", "platform.unblock-account", response=Blocked, unchanged=True, tags=["platform"]
)
def unblock(op: Op, account_id: Id):
    """Lift an account's block.
    One not blocked: 204, nothing written."""

    def do(s, actor, now):
        account = _account(s, account_id)
        if account.blocked_at is None:
            return UNCHANGED
        accounts.unblock(s, account)
        return {"account_id": account_id, "blocked": None}

    return op.run(anywhere, do, describe=f"account {account_id}")
