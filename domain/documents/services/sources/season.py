"""A season's standings after each of its tournaments (RULES LG-3, area leagues), with the club's
name, contact address, timezone and language."""

from __future__ import annotations

from datetime import timedelta
from decimal import Decimal

from sqlalchemy import Select, and_, exists, func, select
from sqlalchemy.engine import Row
from sqlalchemy.orm import Session, aliased

from domain.clubs.tables import Club
from domain.documents.rules.model import Bundle, SeasonRow, SeasonSheet
from domain.documents.services import locales
from domain.documents.services.sources.shared import local_date
from domain.documents.tables import DocumentPublication
from domain.leagues.services.leagues import (
    NamedStanding,
    counted_tournaments,
    season_standings,
)
from domain.leagues.tables import Season
from domain.poker.tables.tournaments import Tournament


def _published_in_seasons():
    """(season_id, tournament_id, publication_id): every counted tournament (LG-1) of every season
    whose results sheet was published."""
    results = aliased(DocumentPublication)
    counted = counted_tournaments().subquery()
    return select(counted.c.season_id, counted.c.tournament_id, results.id.label("publication_id")).join(
        results, and_(results.source == "poker", results.tournament_id == counted.c.tournament_id)
    )


def pending_seasons() -> Select:
    """The status report's count of seasons' standings `publish-results` will render next."""
    published = _published_in_seasons().subquery()
    return (
        select(func.count())
        .select_from(published)
        .where(
            ~exists().where(
                DocumentPublication.source == "season",
                DocumentPublication.season_id == published.c.season_id,
                DocumentPublication.tournament_id == published.c.tournament_id,
            )
        )
    )


def season_bundles(session: Session) -> list[Bundle]:
    """A season's standings after each of its counted tournaments (LG-1) whose results sheet was
    published and whose standings were not, oldest publication first: one bundle per (season,
    tournament). Each counts the season's tournaments whose results were published up to and
    including that tournament's, so a rerun, or a run after a crash, renders the same standings.
    Five statements, then the leagues service's four per bundle."""
    published = session.execute(_published_in_seasons().order_by("season_id", "publication_id")).all()
    if not published:
        return []
    due = _unrendered(session, published)
    if not due:
        return []
    heads = {
        season.id: (season, club)
        for season, club in session.execute(
            select(Season, Club).join(Club, Club.id == Season.club_id).where(Season.id.in_({sid for sid, _, _ in due}))
        )
    }
    tournaments = {
        t.id: t for t in session.scalars(select(Tournament).where(Tournament.id.in_({tid for _, tid, _ in due})))
    }
    club_locales = locales.locales(session, "club", sorted({club.id for _, club in heads.values()}))
    out = []
    for sid, tid, pid in due:
        season, club = heads[sid]
        within = [t for s, t, p in published if s == sid and p <= pid]
        _, counted_ids, named = season_standings(session, sid, within)
        sheet = _sheet(season, club, tournaments[tid], len(counted_ids), named, club_locales.get(club.id))
        out.append(Bundle(sheet, club_id=club.id, recipient=club.contact_email))
    return out


def _unrendered(session: Session, published: list[Row]) -> list[tuple[int, int, int]]:
    """Of the (season, tournament, publication) published, those whose standings were not."""
    done = set(
        session.execute(
            select(DocumentPublication.season_id, DocumentPublication.tournament_id).where(
                DocumentPublication.source == "season",
                DocumentPublication.season_id.in_({sid for sid, _, _ in published}),
            )
        ).all()
    )
    return [(sid, tid, pid) for sid, tid, pid in published if (sid, tid) not in done]


def _sheet(
    season: Season, club: Club, t: Tournament, counted: int, named: list[NamedStanding], locale: str | None
) -> SeasonSheet:
    return SeasonSheet(
        season_id=season.id,
        season=season.name,
        club=club.name,
        date_from=season.date_from,
        date_until=season.date_to - timedelta(days=1),
        tournament_id=t.id,
        tournament=t.name,
        held_on=local_date(t.finished_at or t.scheduled_start, club.timezone),
        tournaments=counted,
        formula=season.formula,
        points_table=tuple(Decimal(v) for v in season.points_table),
        shared=season.shared,
        bonus=season.knockout_bonus,
        best_k=season.best_k,
        rows=tuple(
            SeasonRow(
                n.standing.rank,
                n.name,
                n.standing.total,
                n.standing.counted,
                n.standing.played,
                n.standing.firsts,
                n.standing.best,
            )
            for n in named
        ),
        locale=locales.poker_locale(locale),
    )
