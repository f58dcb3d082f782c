"""What the policy needs to know of an object an action names (its club, whether that club may still
change events, its player, its cup), loaded in one query each; None when there is no such object."""

from __future__ import annotations

from functools import cache

from sqlalchemy import bindparam, select
from sqlalchemy.orm import Session

from domain.access.rules.policy import Target
from domain.clubs.rules.status import Listing
from domain.clubs.tables import Club
from domain.documents.services import holders
from domain.documents.services.holders import Held
from domain.poker.tables.tournaments import Settlement, Tournament
from domain.pusoy.rules.codes import normalise
from domain.pusoy.tables import PusoyTournament
from domain.store.db import hold


def club(session: Session, club_id: int) -> Target | None:
    """The club's target; its row read afresh and held by the session (`hold`: the use case reads it no
    more)."""
    found = session.scalar(select(Club).where(Club.id == club_id).execution_options(populate_existing=True))
    return None if found is None else Target(hold(session, found).id, found.listing_status == Listing.LISTED)


def tournament(session: Session, tournament_id: int) -> Target | None:
    """The tournament's target. The tournament's and its club's rows are read afresh and held by the
    session (`hold`), so the use case that follows reads neither again (`get_tournament`, `get_club`)."""
    row = session.execute(
        select(Tournament, Club)
        .join(Club, Club.id == Tournament.club_id)
        .where(Tournament.id == tournament_id)
        .execution_options(populate_existing=True)
    ).first()
    if row is None:
        return None
    hold(session, row.Club)
    return held_tournament(session, hold(session, row.Tournament))


def held_tournament(session: Session, t: Tournament) -> Target:
    """The target of a tournament the session holds (as `tournament` read it): its club from the
    session's identity map, so no statement after `tournament`."""
    club = session.get_one(Club, t.club_id)
    return Target(club.id, club.listing_status == Listing.LISTED, tournament=t.id, public=t.status != "draft")


def settlement(session: Session, settlement_id: int) -> tuple[Target, int] | None:
    """The settlement's target and its tournament."""
    row = session.execute(select(Settlement.tournament_id).where(Settlement.id == settlement_id)).first()
    if row is None:
        return None
    found = tournament(session, row.tournament_id)
    return None if found is None else (found, row.tournament_id)


@cache
def _cup():
    """`cup`'s statement, built once (every call naming a cup asks it: a join, a report, a page)."""
    return select(PusoyTournament.code, PusoyTournament.club_id).where(PusoyTournament.code == bindparam("code"))


def cup(session: Session, code: str) -> Target | None:
    row = session.execute(_cup(), {"code": normalise(code)}).first()
    return None if row is None else Target(club_id=row.club_id, cup=row.code)


def certificate(session: Session, serial: str) -> tuple[Target, Held] | None:
    """A stored certificate's target: its holder (AC-5). One nobody can be shown to hold is None: the
    same as a missing one, so no player may take it."""
    found = holders.holder(session, serial)
    if found is None or found.player_id is None:
        return None
    return Target(player_id=found.player_id), found
