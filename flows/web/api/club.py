"""A club's staff (AC-1): the owner, the floor and the cashier act on their own club's tournaments
only (AC-2). Each operation calls the use case the CLI calls and answers a typed model (the JSON the
use case's view makes, field for field). A write that would change nothing writes nothing, not even
its audit row (AC-3): 204 where it is so already, 409 where refusing says more."""

from __future__ import annotations

from datetime import date, datetime
from typing import Annotated, Any, Literal
from zoneinfo import ZoneInfo

from fastapi import Path, Query
from pydantic import BaseModel, Field

from domain.access.rules.policy import CLUB_ROLES
from domain.access.services import accounts, audit
from domain.access.services.gate import UNCHANGED
from domain.access.tables import Account
from domain.clubs.services.clubs import get_club
from domain.errors import DomainError, NotFound
from domain.poker.rules.knockouts import Bust
from domain.poker.services import clock as clock_service
from domain.poker.services import desk, entries, fees, listings, players, results
from domain.poker.services import knockouts as knockout_service
from domain.poker.services import tournaments as tournament_service
from flows.web.api import owner
from flows.web.api.core import (
    ID_MAX,
    PAGED,
    ClockBody,
    Cursor,
    GrantBody,
    Id,
    KnockoutBody,
    Limit,
    Op,
    Operations,
    PlayerBody,
    ReasonBody,
    SeedBody,
    SettleBody,
    club_of,
    decode_cursor,
    settlement_of,
    tournament_of,
)

ops = Operations()
router = ops.router
CLUB, FLOOR, CASHIER = ["club"], ["floor"], ["cashier"]  # the operations' tags

ClubRole = Literal[tuple(r.value for r in CLUB_ROLES)]  # type: ignore[valid-type]  (owner, floor, cashier)
PlayerRef = Annotated[str, Path(min_length=1, max_length=80, description="the player's id or handle")]


# -- the answers -------------------------------------------------------------------------------------


class TournamentRow(BaseModel):
    id: int
    club_id: int
    name: str
    status: str
    scheduled_start: datetime
    format: str
    buy_in: int = Field(description="minor units of `currency`")
    currency: str


class AuditRow(BaseModel):
    id: int
    at: datetime
    actor: str
    actor_kind: str
    action: str
    target: str
    club_id: int | None
    data: dict[str, Any]


class StaffMember(BaseModel):
    id: int
    email: str
    roles: list[str] = Field(description="scope names of this club's roles (`floor@3`), and `player`")
    player_id: int | None
    verified: bool
    password_set: bool
    blocked: str | None = Field(description="why the account is blocked, if it is")


class StaffRole(BaseModel):
    """A role of the club given to an account, or taken away from it."""

    account_id: int
    email: str
    role: ClubRole
    club_id: int


class EntryRow(BaseModel):
    player_id: int
    player: str = Field(description="the full name (the pseudonym once forgotten): staff only, AC-5")
    handle: str | None
    registration: str
    late: bool
    registered_at: datetime
    checked_in_at: datetime | None
    entry_id: int | None = Field(description="the current entry; none before check-in")
    state: str | None
    reentries: int
    seat: str | None = Field(description="`TABLE/SEAT`")
    owed: int = Field(description="unpaid fees, minor units of `currency`")
    currency: str


class RegistrationMade(BaseModel):
    registration_id: int
    player_id: int
    status: str
    late: bool


class SeatDraw(BaseModel):
    """A draw by lot (SP-13): the commitment it revealed, both seeds and the next commitment."""

    seq: int
    purpose: str
    commitment: str
    platform_seed: str
    floor_seed: str | None
    next_commitment: str


class SeatTaken(BaseModel):
    entry_id: int
    table: int
    seat: int
    opened_table: bool
    draw: SeatDraw | None = Field(None, description="the draw between the emptiest tables, when there was one")


class Seated(BaseModel):
    """The entry check-in or a re-entry opened, and its seat once the seats are drawn."""

    entry_id: int
    tournament_id: int
    player_id: int
    sequence: int
    previous_entry_id: int | None
    state: str
    chips: int
    seat: SeatTaken | None = Field(description="none before the seats are drawn (the draw seats it)")


class TopUpMade(BaseModel):
    topup_id: int
    tournament_id: int
    player_id: int
    entry_id: int
    kind: str
    chips: int


class KnockoutRow(BaseModel):
    knockout_id: int
    bust_number: int
    busted_entry_id: int
    killer_entry_id: int | None
    level: int | None


class ClockEventRow(BaseModel):
    kind: str
    level: int
    break_number: int | None
    at: datetime


class ClockReading(BaseModel):
    tournament_id: int
    status: str
    level: int | None = Field(description="1-based; none before the start")
    levels: int
    is_break: bool
    small_blind: int
    big_blind: int
    ante: int
    time_left_s: int
    level_ends_at: datetime | None
    next_break_in_s: int | None
    next_break_at: datetime | None
    breaks_passed: int
    at: datetime
    events: list[ClockEventRow] = Field(description="what this action made happen")


class TableCount(BaseModel):
    table: int
    players: int


class SeatHeld(BaseModel):
    table: int
    seat: int
    entry_id: int
    player: str | None


class Started(BaseModel):
    """The seating the start drew, with its draw."""

    tournament_id: int
    stage: str
    seat_cap: int
    tables: list[TableCount]
    broken: list[int]
    next_draw_commitment: str | None
    seats: list[SeatHeld]
    draw: SeatDraw
    status: Literal["running"]


class FinalPlace(BaseModel):
    place: int
    player: str
    bust: int | None = Field(description="the bust number; none for the champion")
    knockouts: int
    credit: str = Field(examples=["2.5"])
    prize: str | None


class Finished(BaseModel):
    id: int
    status: Literal["finished"]
    final_table: list[FinalPlace]


class DebtRow(BaseModel):
    player_id: int
    player: str
    owed: int = Field(description="minor units of `currency`")
    currency: str
    fees: int
    kinds: list[str]


class SettlementRow(BaseModel):
    id: int
    tournament_id: int
    player_id: int
    amount: int = Field(description="minor units of `currency`")
    currency: str
    method: str
    settled_by: str
    settled_at: datetime
    voided_at: datetime | None
    voided_by: str | None
    void_reason: str | None


def _by(actor) -> str:
    return actor.label


# -- the club ----------------------------------------------------------------------------------------


Status = Literal["draft", "registration_open", "running", "finished", "cancelled"]


@ops.get(
    "/clubs/{club_id}/tournaments",
    "club.tournaments",
    response=list[TournamentRow],
    tags=CLUB,
    responses={200: {"description": "a page of the club's tournaments", "headers": PAGED}},
)
def club_tournaments(
    op: Op,
    club_id: Id,
    status: Annotated[Status | None, Query(description="only those in this status")] = None,
    date_from: Annotated[date | None, Query(description="starting on this day or later (the club's calendar)")] = None,
    date_to: Annotated[date | None, Query(description="starting on this day or earlier (the club's calendar)")] = None,
    limit: Limit = 50,
    cursor: Cursor = None,
):
    """The club's tournaments, by their scheduled start (the earliest first), a page at a time."""

    def do(s, actor, now):
        zone = ZoneInfo(get_club(s, club_id).timezone)
        rows = tournament_service.list_tournaments(s, club_id=club_id, status=status)
        day = lambda r: r["scheduled_start"].astimezone(zone).date()  # noqa: E731
        rows = [
            r for r in rows if (date_from is None or day(r) >= date_from) and (date_to is None or day(r) <= date_to)
        ]
        return op.page(rows, lambda r: (r["scheduled_start"], r["id"]), limit, cursor)

    return op.run(club_of(club_id), do, describe=f"club {club_id}")


@ops.get(
    "/clubs/{club_id}/audit",
    "club.audit",
    response=list[AuditRow],
    tags=CLUB,
    responses={200: {"description": "a page of the club's trail", "headers": PAGED}},
)
def club_audit(
    op: Op,
    club_id: Id,
    actor: Annotated[str | None, Query(max_length=254, description="who: part of an e-mail or a token's name")] = None,
    action: Annotated[str | None, Query(max_length=60, description="what: an operation, `poker.knock-out`")] = None,
    tournament: Annotated[int | None, Query(ge=1, le=ID_MAX, description="about which tournament")] = None,
    since: Annotated[datetime | None, Query(description="from this instant (included)")] = None,
    until: Annotated[datetime | None, Query(description="to this instant (excluded)")] = None,
    limit: Limit = 50,
    cursor: Cursor = None,
):
    """The club's audit trail (AC-3), newest first, a page at a time, narrowed by who, what, which
    tournament and when."""
    only = audit.Filter(actor, action, tournament, since, until)
    return op.run(club_of(club_id), trail_page(op, club_id, only, limit, cursor), describe=f"club {club_id}")


def trail_page(op: Op, club_id: int | None, only: audit.Filter, limit: int, cursor: str | None):
    """A page of an audit trail (a club's, or every club's narrowed by `only`), the newest first; the
    cursor names the last row shown."""

    def do(s, *_):
        after = decode_cursor(cursor)
        before = -after[0] if after and isinstance(after[0], int) else None
        rows = audit.trail(s, club_id, before_id=before, limit=limit + 1, only=only)
        return op.page(rows, lambda r: (-r["id"],), limit, cursor)

    return do


@ops.get(
    "/clubs/{club_id}/staff",
    "club.staff",
    response=list[StaffMember],
    tags=CLUB,
    responses={200: {"description": "a page of the club's staff", "headers": PAGED}},
)
def club_staff(op: Op, club_id: Id, limit: Limit = 50, cursor: Cursor = None):
    """The club's staff and their roles, by e-mail, a page at a time."""
    return op.run(
        club_of(club_id),
        lambda s, actor, now: op.page(
            accounts.listing(s, club_id), lambda r: (r["email"].lower(), r["id"]), limit, cursor
        ),
        describe=f"club {club_id}",
    )


@ops.post("/clubs/{club_id}/staff", "club.grant", response=StaffRole, unchanged=True, tags=CLUB)
def club_grant(op: Op, club_id: Id, body: GrantBody):
    """Give an account a role in the club (the account exists: the operator makes accounts).
    A role the account holds already: 204, nothing written (it is so already)."""

    def do(s, actor, now):
        account = accounts.find(s, body.email, lock=True)
        if not accounts.grant(s, account, body.role, club_id, now):
            return UNCHANGED
        return {"account_id": account.id, "email": account.email, "role": body.role, "club_id": club_id}

    return op.run(club_of(club_id), do, describe=f"{body.role} {body.email}", data=body.model_dump())


@ops.delete("/clubs/{club_id}/staff/{account_id}/{role}", "club.revoke", response=StaffRole, unchanged=True, tags=CLUB)
def club_revoke(op: Op, club_id: Id, account_id: Id, role: ClubRole):
    """Take a role in the club away from an account (`role`: owner, floor or cashier; another: 422).
    A role the account does not hold in the club: 204, nothing written (it is so already). The last
    owner's owner role: 409 `last-owner` (the rule of `club.set-roles`, whose use case this is)."""

    def do(s, actor, now):
        account = s.get(Account, account_id)
        if account is None:
            raise NotFound("account-not-found", f"no account {account_id}")
        held = {r.value for r, c in accounts.roles_of(s, account_id) if c == club_id}
        if role not in held:
            return UNCHANGED
        owner.set_roles_use(club_id, account_id, sorted(held - {role}))(s, actor, now)
        return {"account_id": account.id, "email": account.email, "role": role, "club_id": club_id}

    return op.run(club_of(club_id), do, describe=f"{role} of account {account_id}")


# -- a tournament ------------------------------------------------------------------------------------


@ops.get(
    "/tournaments/{tournament_id}/entries",
    "poker.entries",
    response=list[EntryRow],
    tags=FLOOR,
    responses={200: {"description": "a page of the registrations", "headers": PAGED}},
)
def tournament_entries(op: Op, tournament_id: Id, limit: Limit = 200, cursor: Cursor = None):
    """Every registration with the player's full name (staff of the club see it, AC-5), seat, state, owed,
    in the order of registration, a page at a time."""
    return op.run(
        tournament_of(tournament_id),
        lambda s, actor, now: op.page(
            listings.entries(s, tournament_id), lambda r: (r["registered_at"], r["player_id"]), limit, cursor
        ),
        describe=f"tournament {tournament_id}",
    )


def _player_step(fn, view):
    def endpoint(op: Op, tournament_id: Id, body: PlayerBody):
        return op.run(
            tournament_of(tournament_id),
            lambda s, actor, now: view(fn(s, tournament_id, body.player, now)),
            describe=f"tournament {tournament_id} player {body.player}",
            data=body.model_dump(),
        )

    return endpoint


def _registration(reg) -> dict:
    return {"registration_id": reg.id, "player_id": reg.player_id, "status": reg.status, "late": reg.late}


def _seated(pair) -> dict:
    entry, seat = pair
    return entries.entry_view(entry) | {"seat": seat}


STEPS = (  # path, action, use case, its view and the view's model: one player's step at the desk
    ("registrations", "poker.register", entries.register, _registration, RegistrationMade),
    ("check-ins", "poker.check-in", desk.check_in, _seated, Seated),
    ("re-entries", "poker.re-enter", desk.reenter, _seated, Seated),
    ("rebuys", "poker.rebuy", desk.rebuy, entries.topup_view, TopUpMade),
    ("add-ons", "poker.add-on", desk.add_on, entries.topup_view, TopUpMade),
)
for path, name, fn, view, answer in STEPS:
    endpoint = _player_step(fn, view)
    endpoint.__doc__ = f"{name.split('.')[1].replace('-', ' ').capitalize()}: one player, by id or handle."
    ops.post(f"/tournaments/{{tournament_id}}/{path}", name, response=answer, tags=FLOOR)(endpoint)


@ops.delete(
    "/tournaments/{tournament_id}/registrations/{player}", "poker.unregister", response=RegistrationMade, tags=FLOOR
)
def unregister(op: Op, tournament_id: Id, player: PlayerRef):
    """Withdraw a player's registration before check-in.
    A player not registered: 409 `not-registered`, nothing written."""
    return op.run(
        tournament_of(tournament_id),
        lambda s, actor, now: _registration(entries.unregister(s, tournament_id, player, now)),
        describe=f"tournament {tournament_id} player {player}",
    )


@ops.post("/tournaments/{tournament_id}/knockouts", "poker.knock-out", response=list[KnockoutRow], tags=FLOOR)
def knock_out(op: Op, tournament_id: Id, body: KnockoutBody):
    """A bust (3.2): the entries busted together, the killer, and a second killer of a shared bust.
    The second killer is recorded in the audit trail (AC-3). The level is the clock's unless named."""

    def do(s, actor, now):
        name = lambda ref: entries.entry_named(s, tournament_id, ref)  # noqa: E731
        killer = name(body.killer) if body.killer else None
        second = name(body.second_killer) if body.second_killer else None
        busts = [Bust(name(b), killer, second, ()) for b in body.busted]
        made = desk.knock_out(s, tournament_id, busts, now=now, actor=_by(actor), level=body.level)
        return [_knockout(k) for k in made]

    return op.run(
        tournament_of(tournament_id),
        do,
        describe=f"tournament {tournament_id} bust of {', '.join(body.busted)}",
        data=body.model_dump(),
    )


def _knockout(k) -> dict:
    return {
        "knockout_id": k.id,
        "bust_number": k.bust_number,
        "busted_entry_id": k.busted_entry_id,
        "killer_entry_id": k.killer_entry_id,
        "level": k.level,
    }


@ops.post(
    "/tournaments/{tournament_id}/knockouts/{knockout_id}/void", "poker.void-knockout", response=KnockoutRow, tags=FLOOR
)
def void_knockout(op: Op, tournament_id: Id, knockout_id: Id):
    """Void a knockout within its window (SP-5): the player is back in, at the seat they had.
    One voided already: 409 `void-already-voided`, nothing written."""

    def do(s, actor, now):
        listings.knockout_of(s, tournament_id, knockout_id)
        return _knockout(knockout_service.void_knockout(s, knockout_id, now=now, actor=_by(actor)))

    return op.run(tournament_of(tournament_id), do, describe=f"tournament {tournament_id} knockout {knockout_id}")


@ops.post("/tournaments/{tournament_id}/clock", "poker.clock", response=ClockReading, tags=FLOOR)
def clock(op: Op, tournament_id: Id, body: ClockBody):
    """The clock: start, pause, resume, next, prev, or override the blinds."""

    def do(s, actor, now):
        return clock_service.act(s, tournament_id, body.action, now, small=body.small, big=body.big, ante=body.ante)

    return op.run(
        tournament_of(tournament_id),
        do,
        describe=f"tournament {tournament_id} clock {body.action}",
        data=body.model_dump(exclude_none=True),
    )


@ops.post("/tournaments/{tournament_id}/start", "poker.start", response=Started, tags=FLOOR)
def start(op: Op, tournament_id: Id, body: SeedBody | None = None):
    """Start the tournament in one step (3.9, 3.6, SP-13).
    Registration open -> running (the settings freeze), every entry seated by lot (`seed`: the floor's
    part of the draw) and the clock started."""
    body = body or SeedBody()

    def do(s, actor, now):
        return desk.start(s, tournament_id, now, body.seed) | {"status": "running"}

    return op.run(
        tournament_of(tournament_id),
        do,
        describe=f"tournament {tournament_id}",
        data=body.model_dump(exclude_none=True),
    )


@ops.post("/tournaments/{tournament_id}/finish", "poker.finish", response=Finished, tags=FLOOR)
def finish(op: Op, tournament_id: Id):
    """Finish with one player left (3.7): final places and prizes at once; the documents follow (the
    finish's event starts their publishing run)."""

    def do(s, actor, now):
        done = results.finish(s, tournament_id, now)
        return {"id": done.tournament_id, "status": "finished", "final_table": results.final_table(done)}

    return op.run(tournament_of(tournament_id), do, describe=f"tournament {tournament_id}")


@ops.get(
    "/tournaments/{tournament_id}/debts",
    "poker.debts",
    response=list[DebtRow],
    tags=CASHIER,
    responses={200: {"description": "a page of the debts", "headers": PAGED}},
)
def debts(op: Op, tournament_id: Id, limit: Limit = 200, cursor: Cursor = None):
    """Every player owing fees, with the total and the fees it is made of (minor units), by player, a page
    at a time."""
    return op.run(
        tournament_of(tournament_id),
        lambda s, actor, now: op.page(fees.debts(s, tournament_id), lambda r: (r["player_id"],), limit, cursor),
        describe=f"tournament {tournament_id}",
    )


@ops.post("/tournaments/{tournament_id}/settlements", "poker.settle", response=SettlementRow, tags=CASHIER)
def settle(op: Op, tournament_id: Id, body: SettleBody):
    """Close all of a player's unpaid fees with one settlement (3.4).
    Nothing owed: 409 `nothing-owed` (the desk's settlements' code), nothing written: no settlement is
    made, and money taken for nothing is a mistake to say, not a success to hide."""

    def do(s, actor, now):
        made = fees.settle(s, tournament_id, body.player, body.method, _by(actor), now)
        if made is None:
            name = players.find_player(s, body.player).display_name
            raise DomainError("nothing-owed", "%(name)s owes nothing now: already settled.", name=name)
        return fees.settlement_view(made)

    return op.run(
        tournament_of(tournament_id),
        do,
        describe=f"tournament {tournament_id} player {body.player}",
        data=body.model_dump(),
    )


@ops.post("/settlements/{settlement_id}/void", "poker.void-settlement", response=SettlementRow, tags=CASHIER)
def void_settlement(op: Op, settlement_id: Id, body: ReasonBody):
    """Void a settlement (3.4): the record stays, marked voided; its fees are owed again.
    One voided already: 409 `settlement-already-voided`, nothing written."""

    def do(s, actor, now):
        return fees.settlement_view(fees.void_settlement(s, settlement_id, _by(actor), body.reason, now))

    return op.run(settlement_of(settlement_id), do, describe=f"settlement {settlement_id}", data=body.model_dump())
