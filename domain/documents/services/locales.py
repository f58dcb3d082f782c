"""The documents' language (RULES DOC-4), which the public pages speak too: a club's setting (its
poker and Pusoy Dos documents), or a Pusoy Dos tournament's own (its organizer chooses). Without
one: Russian for a Sport Poker club; a Pusoy Dos tournament of a club speaks the club's language
(chosen or not), one without a club English."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import select
from sqlalchemy.dialects.postgresql import insert
from sqlalchemy.orm import Session

from domain.clubs.tables import Club
from domain.documents.rules.model import DEFAULT_LOCALE, locale_problem
from domain.documents.tables import DocumentLocale
from domain.errors import DomainError, NotFound
from domain.poker.tables.tournaments import Tournament as PokerTournament
from domain.pusoy.tables import PusoyTournament

SCOPES = {"club": (Club, "club"), "pusoy": (PusoyTournament, "Pusoy Dos tournament")}


def set_locale(session: Session, scope: str, ref_id: int, locale: str, now: datetime) -> dict:
    """Set the language of a club's documents (`club`) or of one Pusoy Dos tournament's (`pusoy`)."""
    if scope not in SCOPES:
        raise DomainError(
            "bad-scope", f"the documents' language is set for a club or a pusoy tournament, not {scope!r}"
        )
    problem = locale_problem(locale)
    if problem:
        raise DomainError("bad-locale", problem)
    table, name = SCOPES[scope]
    if session.get(table, ref_id) is None:
        raise NotFound(f"{scope}-unknown", f"no {name} {ref_id}")
    session.execute(
        insert(DocumentLocale)
        .values(scope=scope, ref_id=ref_id, locale=locale, updated_at=now)
        .on_conflict_do_update(index_elements=["scope", "ref_id"], set_={"locale": locale, "updated_at": now})
    )
    return {"scope": scope, "id": ref_id, "locale": locale}


def locales(session: Session, scope: str, ids: list[int]) -> dict[int, str]:
    """The chosen languages of these clubs or Pusoy Dos tournaments (no entry: no choice)."""
    if not ids:
        return {}
    rows = session.execute(
        select(DocumentLocale.ref_id, DocumentLocale.locale).where(
            DocumentLocale.scope == scope, DocumentLocale.ref_id.in_(ids)
        )
    )
    return dict(rows.all())


def poker_locale(club_locale: str | None) -> str:
    """A club's language: its choice, else Russian (a Sport Poker club)."""
    return club_locale or DEFAULT_LOCALE["poker"]


def pusoy_locale(own: str | None, club_id: int | None, club_locale: str | None) -> str:
    """A Pusoy Dos tournament's language: its organizer's choice, else its club's language (chosen
    or not, as for the club's poker), else English."""
    if own:
        return own
    return poker_locale(club_locale) if club_id is not None else DEFAULT_LOCALE["pusoy"]


def club_locale(session: Session, club_id: int) -> str:
    """The language of a club's documents and public pages."""
    return poker_locale(locales(session, "club", [club_id]).get(club_id))


def tournament_locale(session: Session, tournament_id: int) -> str:
    """The language of a poker tournament's documents and public pages: its club's (the tournament as
    the session read it already, else one read)."""
    t = session.get(PokerTournament, tournament_id)
    if t is None:
        raise NotFound("unknown-tournament", f"no tournament {tournament_id}")
    return club_locale(session, t.club_id)


def pusoy_tournament_locale(session: Session, tournament_id: int) -> str:
    """The language of a Pusoy Dos tournament's documents and public page."""
    club_id = session.scalar(select(PusoyTournament.club_id).where(PusoyTournament.id == tournament_id))
    club = locales(session, "club", [club_id]).get(club_id) if club_id is not None else None
    return pusoy_locale(locales(session, "pusoy", [tournament_id]).get(tournament_id), club_id, club)
