"""Players, game servers and the platform (AC-1): a player acts on their own entries only (AC-2); a
game server reports games of the cups its token is bound to; the operator blocks accounts (AC-4)."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Path, Request, Response
from fastapi.encoders import jsonable_encoder

from domain.access.services import accounts, targets
from domain.access.services.mine import cup_view, handle_of
from domain.access.tables import Account
from domain.errors import NotFound
from domain.poker.services import entries
from domain.pusoy.services import reports, setup
from domain.pusoy.services import views as cup_views
from flows.web.api.core import (
    PUBLIC,
    SECURED,
    AmendBody,
    Code,
    Id,
    ReasonBody,
    ReportBody,
    anywhere,
    api_of,
    cup_of,
    tournament_of,
)
from flows.web.certificates import pdf_download, stored_file

router = APIRouter()
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


def _handle(session, actor) -> str:
    """The signed-in player's handle (a Pusoy Dos seat is held by handle)."""
    return handle_of(session, actor.player_id)


@router.get("/pusoy", operation_id="pusoy.browse", openapi_extra=PUBLIC, tags=["players"])
def browse(request: Request) -> list:
    """Open Pusoy Dos cups that are filling, newest first (private ones never)."""
    return api_of(request).run(
        request,
        "pusoy.browse",
        anywhere,
        lambda s, actor, now: [{k: cup_views.summary(t)[k] for k in PUBLIC_CUP} for t in setup.browse(s)],
        describe="open cups",
    )


@router.post("/pusoy/{code}/entries", operation_id="pusoy.join", dependencies=SECURED, tags=["players"])
def join(request: Request, code: Code) -> dict:
    """Join a cup by its code (from the list, or a private cup's code): the last seat starts it (PD-4)."""

    def do(s, actor, now):
        done = setup.join(s, code, _handle(s, actor), now)
        return {"code": done.tournament.code, "player": done.player, "started": done.started}

    return api_of(request).run(request, "pusoy.join", cup_of(code), do, describe=f"cup {code.upper()}", code=code)


@router.delete("/pusoy/{code}/entries/me", operation_id="pusoy.withdraw", dependencies=SECURED, tags=["players"])
def withdraw(request: Request, code: Code) -> dict:
    """Leave a cup while it fills (PD-4)."""

    def do(s, actor, now):
        t = setup.withdraw(s, code, _handle(s, actor), now)
        return {"code": t.code, "entrants": t.entrants}

    return api_of(request).run(request, "pusoy.withdraw", cup_of(code), do, describe=f"cup {code.upper()}", code=code)


@router.get("/pusoy/{code}/me", operation_id="pusoy.mine", dependencies=SECURED, tags=["players"])
def my_cup(request: Request, code: Code) -> dict:
    """My view of a cup (RULES PD-4..PD-13): my table now (or my playoff table), seat and opponents, my
    games there with their points, the round's standings (live until it locks), each round I played,
    my final position and the champion. Not entered: the cup alone (`entered: false`). Knowing the
    code is what a private cup asks (PD-3): the call is throttled per account like a join."""
    return api_of(request).run(
        request,
        "pusoy.mine",
        cup_of(code),
        lambda s, actor, now: cup_view(s, code, actor.player_id),
        describe=f"cup {code.upper()}",
        code=code,
    )


@router.post(
    "/tournaments/{tournament_id}/my-registration",
    operation_id="poker.register-self",
    dependencies=SECURED,
    tags=["players"],
)
def register_me(request: Request, tournament_id: Id) -> dict:
    """Register myself for a club's tournament, by its rules and deadlines (check-in is at the desk)."""

    def do(s, actor, now):
        reg = entries.register(s, tournament_id, actor.player_id, now)
        return {"registration_id": reg.id, "status": reg.status, "late": reg.late}

    return api_of(request).run(
        request, "poker.register-self", tournament_of(tournament_id), do, describe=f"tournament {tournament_id}"
    )


@router.delete(
    "/tournaments/{tournament_id}/my-registration",
    operation_id="poker.unregister-self",
    dependencies=SECURED,
    tags=["players"],
)
def unregister_me(request: Request, tournament_id: Id) -> dict:
    """Withdraw my registration before check-in."""

    def do(s, actor, now):
        reg = entries.unregister(s, tournament_id, actor.player_id, now)
        return {"registration_id": reg.id, "status": reg.status}

    return api_of(request).run(
        request, "poker.unregister-self", tournament_of(tournament_id), do, describe=f"tournament {tournament_id}"
    )


@router.get("/me/entries", operation_id="player.entries", dependencies=SECURED, tags=["players"])
def my_entries(request: Request) -> dict:
    """My registrations, entries and places at clubs, and my Pusoy Dos cups."""
    from domain.access.services.mine import entries_of

    return api_of(request).run(
        request, "player.entries", anywhere, lambda s, actor, now: entries_of(s, actor.player_id), describe="mine"
    )


Serial = Annotated[str, Path(pattern=r"^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$", examples=["PD-000007-01"])]


@router.get(
    "/me/certificates/{serial}",
    operation_id="player.certificate",
    dependencies=SECURED,
    tags=["players"],
    response_class=Response,
    responses={200: {"content": {"application/pdf": {}}, "description": "the stored, signed PDF"}},
)
def my_certificate(request: Request, serial: Serial) -> Response:
    """My own certificate (the stored, signed PDF, with my full name: AC-5), by its serial (`GET /me/entries`
    lists them). Another player's certificate is the same 404 as one that does not exist (AC-2)."""
    held = {}

    def locate(session):
        found = targets.certificate(session, serial)
        if found is not None:
            held["it"] = found[1]
        return (found[0] if found else None), NotFound("certificate-not-found", f"no certificate {serial}")

    api_of(request).run(request, "player.certificate", locate, lambda s, actor, now: None, describe=serial)
    it = held["it"]
    data = stored_file(request.app.state.outbox, it.folder, it.filename, it.sha256)
    if data is None:  # the record is there, the file is not (or was changed): nothing to hand out
        raise NotFound("certificate-file-missing", f"the file of certificate {serial} is not in the outbox")
    return pdf_download(data, serial)


@router.post("/pusoy/{code}/reports", operation_id="pusoy.report", dependencies=SECURED, tags=["game servers"])
def report(request: Request, code: Code, body: ReportBody) -> dict:
    """A game server reports one table's game (its token is bound to the cup: `cup:CODE`). The round
    completes at its last report. Idempotent by the game: the same report again (a retry) is answered
    with the first, `repeated: true`, and counted once; another result for a reported game is refused
    (409 `already-reported`): send an amendment."""

    def do(s, actor, now):
        done = reports.report(s, code, **_game(body, actor, now))
        return {"tournament_id": done.tournament_id, "round_ready": done.round_ready, "repeated": done.repeated}

    out = api_of(request).run(
        request, "pusoy.report", cup_of(code), do, describe=f"cup {code.upper()}", data=body.model_dump()
    )
    if out["round_ready"]:
        from flows.jobs.pusoy import complete_at_event

        out["completed"] = jsonable_encoder(complete_at_event(out["tournament_id"]))
        api_of(request).cup_changed(code.upper())
    return out


@router.post("/pusoy/{code}/amendments", operation_id="pusoy.amend", dependencies=SECURED, tags=["game servers"])
def amend(request: Request, code: Code, body: AmendBody) -> dict:
    """A game server corrects a reported game while its round (or playoff) is open (PD-6), with the
    reason; the finishes before and after are kept in the game's audit."""

    def do(s, actor, now):
        done = reports.amend(s, code, **_game(body, actor, now), reason=body.reason)
        return {"tournament_id": done.tournament_id, "amended": True}

    return api_of(request).run(
        request, "pusoy.amend", cup_of(code), do, describe=f"cup {code.upper()}", data=body.model_dump()
    )


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


@router.post("/accounts/{account_id}/block", operation_id="platform.block-account", dependencies=SECURED)
def block(request: Request, account_id: Id, body: ReasonBody) -> dict:
    """Block an account (1.5.3): its sessions end and its tokens stop at the next request (AC-4)."""

    def do(s, actor, now):
        accounts.block(s, _account(s, account_id), body.reason, now)
        return {"account_id": account_id, "blocked": body.reason}

    return api_of(request).run(
        request, "platform.block-account", anywhere, do, describe=f"account {account_id}", data=body.model_dump()
    )


@router.post("/accounts/{account_id}/unblock", operation_id="platform.unblock-account", dependencies=SECURED)
def unblock(request: Request, account_id: Id) -> dict:
    """Lift an account's block."""

    def do(s, actor, now):
        accounts.unblock(s, _account(s, account_id))
        return {"account_id": account_id, "blocked": None}

    return api_of(request).run(request, "platform.unblock-account", anywhere, do, describe=f"account {account_id}")
