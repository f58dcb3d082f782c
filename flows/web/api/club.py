"""A club's staff (AC-1): the owner, the floor and the cashier act on their own club's tournaments
only (AC-2). Each operation calls the use case the CLI calls."""

from __future__ import annotations

from fastapi import APIRouter, Query, Request

from domain.access.services import accounts, audit
from domain.poker.rules.knockouts import Bust
from domain.poker.services import clock as clock_service
from domain.poker.services import desk, entries, fees, listings, results
from domain.poker.services import knockouts as knockout_service
from domain.poker.services import tournaments as tournament_service
from flows.web.api.core import (
    SECURED,
    ClockBody,
    GrantBody,
    Id,
    KnockoutBody,
    PlayerBody,
    ReasonBody,
    SeedBody,
    SettleBody,
    api_of,
    club_of,
    settlement_of,
    tournament_of,
)

router = APIRouter(dependencies=SECURED)


def _by(actor) -> str:
    return actor.label


@router.get("/clubs/{club_id}/tournaments", operation_id="club.tournaments", tags=["club"])
def club_tournaments(request: Request, club_id: Id) -> list:
    """The club's tournaments, newest first."""
    return api_of(request).run(
        request,
        "club.tournaments",
        club_of(club_id),
        lambda s, actor, now: tournament_service.list_tournaments(s, club_id=club_id),
        describe=f"club {club_id}",
    )


@router.get("/clubs/{club_id}/audit", operation_id="club.audit", tags=["club"])
def club_audit(request: Request, club_id: Id, before: int | None = Query(None, ge=1)) -> list:
    """The club's audit trail, newest first, 200 at a time (`before`: the oldest id of the last page)."""
    return api_of(request).run(
        request,
        "club.audit",
        club_of(club_id),
        lambda s, actor, now: audit.trail(s, club_id, before_id=before),
        describe=f"club {club_id}",
    )


@router.get("/clubs/{club_id}/staff", operation_id="club.staff", tags=["club"])
def club_staff(request: Request, club_id: Id) -> list:
    """The club's staff and their roles."""
    return api_of(request).run(
        request,
        "club.staff",
        club_of(club_id),
        lambda s, actor, now: accounts.listing(s, club_id),
        describe=f"club {club_id}",
    )


@router.post("/clubs/{club_id}/staff", operation_id="club.grant", tags=["club"])
def club_grant(request: Request, club_id: Id, body: GrantBody) -> dict:
    """Give an account a role in the club (the account exists: the operator makes accounts)."""

    def do(s, actor, now):
        account = accounts.find(s, body.email, lock=True)
        return {
            "email": account.email,
            "role": body.role,
            "granted": accounts.grant(s, account, body.role, club_id, now),
        }

    return api_of(request).run(
        request, "club.grant", club_of(club_id), do, describe=f"{body.role} {body.email}", data=body.model_dump()
    )


@router.delete("/clubs/{club_id}/staff/{account_id}/{role}", operation_id="club.revoke", tags=["club"])
def club_revoke(request: Request, club_id: Id, account_id: Id, role: str) -> dict:
    """Take a role in the club away from an account."""

    def do(s, actor, now):
        from domain.access.tables import Account
        from domain.errors import NotFound

        account = s.get(Account, account_id)
        if account is None:
            raise NotFound("account-not-found", f"no account {account_id}")
        return {"account_id": account_id, "role": role, "revoked": accounts.revoke(s, account, role, club_id)}

    return api_of(request).run(request, "club.revoke", club_of(club_id), do, describe=f"{role} of account {account_id}")


# -- a tournament ------------------------------------------------------------------------------------


@router.get("/tournaments/{tournament_id}/entries", operation_id="poker.entries", tags=["floor"])
def tournament_entries(request: Request, tournament_id: Id) -> list:
    """Every registration with the player's full name (staff of the club see it, AC-5), seat, state, owed."""
    return api_of(request).run(
        request,
        "poker.entries",
        tournament_of(tournament_id),
        lambda s, actor, now: listings.entries(s, tournament_id),
        describe=f"tournament {tournament_id}",
    )


def _player_step(name: str, fn, view):
    def endpoint(request: Request, tournament_id: Id, body: PlayerBody) -> dict:
        return api_of(request).run(
            request,
            name,
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


STEPS = (  # path, action, use case, its view: one player's step at the desk
    ("registrations", "poker.register", entries.register, _registration),
    ("check-ins", "poker.check-in", desk.check_in, _seated),
    ("re-entries", "poker.re-enter", desk.reenter, _seated),
    ("rebuys", "poker.rebuy", desk.rebuy, entries.topup_view),
    ("add-ons", "poker.add-on", desk.add_on, entries.topup_view),
)
for path, name, fn, view in STEPS:
    endpoint = _player_step(name, fn, view)
    endpoint.__doc__ = f"{name.split('.')[1].replace('-', ' ').capitalize()}: one player, by id or handle."
    router.post(f"/tournaments/{{tournament_id}}/{path}", operation_id=name, tags=["floor"])(endpoint)


@router.delete("/tournaments/{tournament_id}/registrations/{player}", operation_id="poker.unregister", tags=["floor"])
def unregister(request: Request, tournament_id: Id, player: str) -> dict:
    """Withdraw a player's registration before check-in."""
    return api_of(request).run(
        request,
        "poker.unregister",
        tournament_of(tournament_id),
        lambda s, actor, now: _registration(entries.unregister(s, tournament_id, player[:80], now)),
        describe=f"tournament {tournament_id} player {player[:80]}",
    )


@router.post("/tournaments/{tournament_id}/knockouts", operation_id="poker.knock-out", tags=["floor"])
def knock_out(request: Request, tournament_id: Id, body: KnockoutBody) -> list:
    """A bust (3.2): the entries busted together, the killer, and a second killer of a shared bust
    (recorded in the audit trail, AC-3). The level is the clock's unless named."""

    def do(s, actor, now):
        name = lambda ref: entries.entry_named(s, tournament_id, ref)  # noqa: E731
        killer = name(body.killer) if body.killer else None
        second = name(body.second_killer) if body.second_killer else None
        busts = [Bust(name(b), killer, second, ()) for b in body.busted]
        made = desk.knock_out(s, tournament_id, busts, now=now, actor=_by(actor), level=body.level)
        return [knockout_service_view(k) for k in made]

    return api_of(request).run(
        request,
        "poker.knock-out",
        tournament_of(tournament_id),
        do,
        describe=f"tournament {tournament_id} bust of {', '.join(body.busted)}",
        data=body.model_dump(),
    )


def knockout_service_view(k) -> dict:
    return {
        "knockout_id": k.id,
        "bust_number": k.bust_number,
        "busted_entry_id": k.busted_entry_id,
        "killer_entry_id": k.killer_entry_id,
        "level": k.level,
    }


@router.post(
    "/tournaments/{tournament_id}/knockouts/{knockout_id}/void", operation_id="poker.void-knockout", tags=["floor"]
)
def void_knockout(request: Request, tournament_id: Id, knockout_id: Id) -> dict:
    """Void a knockout within its window (SP-5): the player is back in, at the seat they had."""

    def do(s, actor, now):
        listings.knockout_of(s, tournament_id, knockout_id)
        return knockout_service_view(knockout_service.void_knockout(s, knockout_id, now=now, actor=_by(actor)))

    return api_of(request).run(
        request,
        "poker.void-knockout",
        tournament_of(tournament_id),
        do,
        describe=f"tournament {tournament_id} knockout {knockout_id}",
    )


@router.post("/tournaments/{tournament_id}/clock", operation_id="poker.clock", tags=["floor"])
def clock(request: Request, tournament_id: Id, body: ClockBody) -> dict:
    """The clock: start, pause, resume, next, prev, or override the blinds."""

    def do(s, actor, now):
        return clock_service.act(s, tournament_id, body.action, now, small=body.small, big=body.big, ante=body.ante)

    return api_of(request).run(
        request,
        "poker.clock",
        tournament_of(tournament_id),
        do,
        describe=f"tournament {tournament_id} clock {body.action}",
        data=body.model_dump(exclude_none=True),
    )


@router.post("/tournaments/{tournament_id}/start", operation_id="poker.start", tags=["floor"])
def start(request: Request, tournament_id: Id, body: SeedBody | None = None) -> dict:
    """Start the tournament in one step (3.9, 3.6, SP-13): registration open -> running (the settings
    freeze), every entry seated by lot (`seed`: the floor's part of the draw) and the clock started."""
    body = body or SeedBody()

    def do(s, actor, now):
        return desk.start(s, tournament_id, now, body.seed) | {"status": "running"}

    return api_of(request).run(
        request,
        "poker.start",
        tournament_of(tournament_id),
        do,
        describe=f"tournament {tournament_id}",
        data=body.model_dump(exclude_none=True),
    )


@router.post("/tournaments/{tournament_id}/finish", operation_id="poker.finish", tags=["floor"])
def finish(request: Request, tournament_id: Id) -> dict:
    """Finish with one player left (3.7): final places and prizes at once; the documents follow."""

    def do(s, actor, now):
        done = results.finish(s, tournament_id, now)
        return {"id": done.tournament_id, "status": "finished", "final_table": results.final_table(done)}

    out = api_of(request).run(
        request, "poker.finish", tournament_of(tournament_id), do, describe=f"tournament {tournament_id}"
    )
    from flows.jobs.documents import start_publishing

    out["documents"] = start_publishing(tournament_id)
    return out


@router.get("/tournaments/{tournament_id}/debts", operation_id="poker.debts", tags=["cashier"])
def debts(request: Request, tournament_id: Id) -> list:
    """Every player owing fees, with the total and the fees it is made of (minor units)."""
    return api_of(request).run(
        request,
        "poker.debts",
        tournament_of(tournament_id),
        lambda s, actor, now: fees.debts(s, tournament_id),
        describe=f"tournament {tournament_id}",
    )


@router.post("/tournaments/{tournament_id}/settlements", operation_id="poker.settle", tags=["cashier"])
def settle(request: Request, tournament_id: Id, body: SettleBody) -> dict:
    """Close all of a player's unpaid fees with one settlement (3.4); nothing owed, nothing written."""

    def do(s, actor, now):
        made = fees.settle(s, tournament_id, body.player, body.method, _by(actor), now)
        return fees.settlement_view(made) if made else {"settled": None}

    return api_of(request).run(
        request,
        "poker.settle",
        tournament_of(tournament_id),
        do,
        describe=f"tournament {tournament_id} player {body.player}",
        data=body.model_dump(),
    )


@router.post("/settlements/{settlement_id}/void", operation_id="poker.void-settlement", tags=["cashier"])
def void_settlement(request: Request, settlement_id: Id, body: ReasonBody) -> dict:
    """Void a settlement (3.4): the record stays, marked voided; its fees are owed again."""

    def do(s, actor, now):
        return fees.settlement_view(fees.void_settlement(s, settlement_id, _by(actor), body.reason, now))

    return api_of(request).run(
        request,
        "poker.void-settlement",
        settlement_of(settlement_id),
        do,
        describe=f"settlement {settlement_id}",
        data=body.model_dump(),
    )
