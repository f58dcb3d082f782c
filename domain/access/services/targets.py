"""What the policy needs to know of an object an action names (its club, whether that club may still
change events, its player, its cup), loaded in one query each; None when there is no such object."""

from __future__ import annotations

from sqlalchemy import select
from sqlalchemy.orm import Session

from domain.access.rules.policy import Target
from domain.clubs.rules.status import Listing
from domain.clubs.tables import Club
from domain.documents.services import holders
from domain.documents.services.holders import Held
from domain.poker.tables.tournaments import Settlement, Tournament
from domain.pusoy.rules.codes import normalise
from domain.pusoy.tables import PusoyTournament


def club(session: Session, club_id: int) -> Target | None:
    status = session.scalar(select(Club.listing_status).where(Club.id == club_id))
    return None if status is None else Target(club_id, status == Listing.LISTED)


def tournament(session: Session, tournament_id: int) -> Target | None:
    row = session.execute(
        select(Tournament.club_id, Club.listing_status)
        .join(Club, Club.id == Tournament.club_id)
        .where(Tournament.id == tournament_id)
    ).first()
    return None if row is None else Target(row.club_id, row.listing_status == Listing.LISTED)


def settlement(session: Session, settlement_id: int) -> tuple[Target, int] | None:
    """The settlement's target and its tournament."""
    row = session.execute(select(Settlement.tournament_id).where(Settlement.id == settlement_id)).first()
    if row is None:
        return None
    found = tournament(session, row.tournament_id)
    return None if found is None else (found, row.tournament_id)


def cup(session: Session, code: str) -> Target | None:
    row = session.execute(
        select(PusoyTournament.code, PusoyTournament.club_id).where(PusoyTournament.code == normalise(code))
    ).first()
    return None if row is None else Target(club_id=row.club_id, cup=row.code)


def certificate(session: Session, serial: str) -> tuple[Target, Held] | None:
    """A stored certificate's target: its holder (AC-5). One nobody can be shown to hold is None: the
    same as a missing one, so no player may take it."""
    found = holders.holder(session, serial)
    if found is None or found.player_id is None:
        return None
    return Target(player_id=found.player_id), found
