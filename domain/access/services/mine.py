"""What the platform holds about a person (AC-5): their account, roles, sessions, tokens, their player
profile, registrations, places and cups, and the changes they made, as one document they can take."""

from __future__ import annotations

from functools import cache
from typing import Any

from sqlalchemy import bindparam, select
from sqlalchemy.orm import Session

from domain.access.services import audit, signin
from domain.access.tables import Account, Grant
from domain.documents.services.holders import certificates_of
from domain.poker.tables.knockouts_places import FinalPlace
from domain.poker.tables.tournaments import Player, Registration, Tournament
from domain.pusoy.tables import PusoyEntry, PusoyTournament


@cache
def _handle():
    """`handle_of`'s statement, built once (a join, a withdrawal, a cup's events ask it)."""
    return select(Player.handle).where(Player.id == bindparam("player"))


def handle_of(session: Session, player_id: int | None) -> str:
    """The player's handle (a Pusoy Dos seat is held by handle); refused when the profile has none."""
    from domain.errors import DomainError

    handle = session.scalar(_handle(), {"player": player_id}) if player_id else None
    if handle is None:
        raise DomainError("no-handle", "Your player profile has no handle.")
    return handle


def cup_view(session: Session, code: str, player_id: int | None) -> dict[str, Any]:
    """A player's view of a cup (`pusoy.mine`), with the serial of their own certificate once the cup is
    complete and its documents stored (the champion's, AC-5), else None."""
    from domain.pusoy.rules.codes import normalise
    from domain.pusoy.services import views as cup_views

    view = cup_views.player_view(session, code, handle_of(session, player_id) if player_id else None)
    tid = session.scalar(select(PusoyTournament.id).where(PusoyTournament.code == normalise(code)))
    held = certificates_of(session, player_id) if player_id and view.get("entered") else {}
    view["certificate"] = held.get(("pusoy", tid))
    return view


def entries_of(session: Session, player_id: int | None) -> dict[str, Any]:
    """A player's registrations (with places once final) at clubs, and their Pusoy Dos cups, each with the
    serial of the player's own certificate there once it is stored (else None)."""
    if player_id is None:
        return {"poker": [], "pusoy": []}
    poker = session.execute(
        select(Registration, Tournament.name, Tournament.club_id, Tournament.scheduled_start, FinalPlace.place)
        .join(Tournament, Tournament.id == Registration.tournament_id)
        .outerjoin(
            FinalPlace,
            (FinalPlace.tournament_id == Registration.tournament_id) & (FinalPlace.player_id == Registration.player_id),
        )
        .where(Registration.player_id == player_id)
        .order_by(Tournament.scheduled_start.desc(), Registration.id)
    ).all()
    handle = session.scalar(select(Player.handle).where(Player.id == player_id))
    cups = session.execute(
        select(PusoyTournament.code, PusoyTournament.name, PusoyTournament.status, PusoyEntry, PusoyTournament.id)
        .join(PusoyEntry, PusoyEntry.tournament_id == PusoyTournament.id)
        .where(PusoyEntry.player == handle)
        .order_by(PusoyEntry.joined_at.desc())
    ).all()
    held = certificates_of(session, player_id)
    return {
        "poker": [
            {
                "tournament_id": r.tournament_id,
                "tournament": name,
                "club_id": club,
                "starts": start,
                "registration": r.status,
                "late": r.late,
                "registered_at": r.registered_at,
                "checked_in_at": r.checked_in_at,
                "place": place,
                "certificate": held.get(("poker", r.tournament_id)),
            }
            for r, name, club, start, place in poker
        ],
        "pusoy": [
            {
                "code": code,
                "cup": name,
                "status": status,
                "joined_at": e.joined_at,
                "left_round": e.left_round,
                "final_position": e.final_position,
                "certificate": held.get(("pusoy", tid)),
            }
            for code, name, status, e, tid in cups
        ],
    }


def everything(session: Session, account_id: int) -> dict[str, Any]:
    account = session.get(Account, account_id)
    player = session.get(Player, account.player_id) if account.player_id else None
    grants = session.execute(select(Grant.role, Grant.club_id, Grant.granted_at).where(Grant.account_id == account_id))
    return {
        "account": {
            "email": account.email,
            "locale": account.locale,
            "created_at": account.created_at,
            "email_verified_at": account.email_verified_at,
            "blocked": account.blocked_reason,
        },
        "roles": [{"role": r, "club_id": c, "granted_at": at} for r, c, at in grants],
        "player": None
        if player is None
        else {
            "name": player.name,
            "handle": player.handle,
            "birth_date": player.birth_date,
            "created_at": player.created_at,
        },
        "sessions": signin.sessions_of(session, account_id, None),
        "tokens": signin.tokens_of(session, account_id),
        "entries": entries_of(session, account.player_id),
        "changes_made": audit.by_account(session, account_id),
    }
