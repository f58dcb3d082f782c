"""Seasons and their standings on the database (RULES LG-1..LG-3). The caller owns the transaction.

Standings are derived on every read from the stored final places of the season's finished
tournaments, in a constant number of statements whatever the number of tournaments and players:
the season, its tournaments (chosen series + picked ones, start in [from, to) in the club's
timezone, finished only), their places, the players' names.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass
from datetime import date, datetime
from decimal import Decimal
from fractions import Fraction

from sqlalchemy import and_, exists, func, or_, select
from sqlalchemy.orm import Session

from domain.clubs.tables import Club
from domain.errors import DomainError, NotFound, Problem, raise_problems
from domain.leagues.rules.points import (
    Placing,
    Standing,
    results,
    season_problems,
    standings,
)
from domain.leagues.tables import Season, SeasonSeries, SeasonTournament
from domain.poker.tables.knockouts_places import FinalPlace
from domain.poker.tables.tournaments import Player, Tournament
from domain.series.tables import Series, SeriesOccurrence

CREDIT_UNIT = 2520  # domain.poker.rules.bounties.CREDIT_UNIT: exact credit units of poker_places


def create_season(
    session: Session,
    *,
    club_id: int,
    name: str,
    date_from: date,
    date_to: date,
    formula: str,
    table: Sequence[Decimal] = (),
    shared: str = "best",
    bonus: Decimal | None = None,
    best_k: int | None = None,
    now: datetime,
) -> Season:
    problems = season_problems(
        name=name,
        date_from=date_from,
        date_to=date_to,
        formula=formula,
        table=table,
        shared=shared,
        bonus=bonus,
        best_k=best_k,
    )
    if session.get(Club, club_id) is None:
        problems.append(Problem("season-club-unknown", f"no club {club_id}"))
    else:
        problems += _name_taken(session, club_id, name)
    raise_problems(problems)
    season = Season(
        club_id=club_id,
        name=name.strip(),
        date_from=date_from,
        date_to=date_to,
        formula=formula,
        points_table=list(table),
        knockout_bonus=bonus,
        shared=shared,
        best_k=best_k,
        created_at=now,
    )
    session.add(season)
    session.flush()
    return season


def edit_season(
    session: Session,
    season_id: int,
    *,
    name: str,
    date_from: date,
    date_to: date,
    formula: str,
    table: Sequence[Decimal] = (),
    shared: str = "best",
    bonus: Decimal | None = None,
    best_k: int | None = None,
) -> Season:
    """The season defined anew (its name, days, formula and counting), every problem at once, as at its
    creation; its series and tournaments stay. Its standings follow at the next read (LG-3: computed
    from the results, never stored)."""
    season = get_season(session, season_id)
    problems = season_problems(
        name=name, date_from=date_from, date_to=date_to, formula=formula, table=table, shared=shared,
        bonus=bonus, best_k=best_k,
    )  # fmt: skip
    problems += _name_taken(session, season.club_id, name, other_than=season_id)
    raise_problems(problems)
    season.name, season.date_from, season.date_to, season.formula = name.strip(), date_from, date_to, formula
    season.points_table, season.shared, season.knockout_bonus, season.best_k = list(table), shared, bonus, best_k
    session.flush()
    return season


def remove_from_season(
    session: Session, season_id: int, *, series_ids: Sequence[int] = (), tournament_ids: Sequence[int] = ()
) -> int:
    """LG-1: the season no longer follows these series nor counts these picked tournaments; how many
    were taken out (one not in the season is no problem: 0)."""
    get_season(session, season_id)
    gone = session.execute(
        SeasonSeries.__table__.delete().where(
            SeasonSeries.season_id == season_id, SeasonSeries.series_id.in_(list(series_ids))
        )
    ).rowcount
    gone += session.execute(
        SeasonTournament.__table__.delete().where(
            SeasonTournament.season_id == season_id, SeasonTournament.tournament_id.in_(list(tournament_ids))
        )
    ).rowcount
    return gone


def _name_taken(session: Session, club_id: int, name: str, other_than: int | None = None) -> list[Problem]:
    """`season-name-taken` when another season of the club bears the name (a season's own is no problem)."""
    query = select(Season.id).where(Season.club_id == club_id, Season.name == name.strip())
    if other_than is not None:
        query = query.where(Season.id != other_than)
    if session.scalar(query) is None:
        return []
    return [Problem("season-name-taken", f"club {club_id} already has a season named '{name.strip()}'")]


def get_season(session: Session, season_id: int) -> Season:
    season = session.get(Season, season_id)
    if season is None:
        raise NotFound("season-not-found", f"no season {season_id}")
    return season


def add_to_season(
    session: Session, season_id: int, *, series_ids: Sequence[int] = (), tournament_ids: Sequence[int] = ()
) -> Season:
    """LG-1: chosen series and picked tournaments of the season's club; adding one twice is a no-op."""
    season = get_season(session, season_id)
    problems: list[Problem] = []
    if not series_ids and not tournament_ids:
        problems.append(Problem("season-add-nothing", "name a series (--series) or a tournament (--tournament)"))
    found_series = dict(session.execute(select(Series.id, Series.club_id).where(Series.id.in_(series_ids))).all())
    for sid in series_ids:
        if sid not in found_series:
            problems.append(Problem("season-series-unknown", f"no series {sid}"))
        elif found_series[sid] != season.club_id:
            problems.append(Problem("season-series-other-club", f"series {sid} is not of club {season.club_id}"))
    found = dict(
        session.execute(select(Tournament.id, Tournament.club_id).where(Tournament.id.in_(tournament_ids))).all()
    )
    for tid in tournament_ids:
        if tid not in found:
            problems.append(Problem("season-tournament-unknown", f"no poker tournament {tid}"))
        elif found[tid] != season.club_id:
            problems.append(
                Problem("season-tournament-other-club", f"tournament {tid} is not of club {season.club_id}")
            )
    raise_problems(problems)
    have_s = set(session.scalars(select(SeasonSeries.series_id).where(SeasonSeries.season_id == season_id)))
    have_t = set(session.scalars(select(SeasonTournament.tournament_id).where(SeasonTournament.season_id == season_id)))
    session.add_all(
        SeasonSeries(season_id=season_id, series_id=s) for s in dict.fromkeys(series_ids) if s not in have_s
    )
    session.add_all(
        SeasonTournament(season_id=season_id, tournament_id=t) for t in dict.fromkeys(tournament_ids) if t not in have_t
    )
    session.flush()
    return season


def counted_tournaments():
    """LG-1 as one query for every season: (season_id, tournament_id) of each finished poker
    tournament of the season's club, of its series or picked, whose scheduled start falls in
    [from, to) in the club's timezone. Narrow it with `.where(Season.id == ...)`."""
    local_start = func.timezone(Club.timezone, Tournament.scheduled_start)
    of_series = exists().where(
        SeriesOccurrence.tournament_id == Tournament.id,
        SeasonSeries.series_id == SeriesOccurrence.series_id,
        SeasonSeries.season_id == Season.id,
    )
    picked = exists().where(SeasonTournament.season_id == Season.id, SeasonTournament.tournament_id == Tournament.id)
    return (
        select(Season.id.label("season_id"), Tournament.id.label("tournament_id"))
        .join(Club, Club.id == Season.club_id)
        .join(Tournament, Tournament.club_id == Season.club_id)
        .where(
            Tournament.status == "finished",
            or_(of_series, picked),
            and_(local_start >= Season.date_from, local_start < Season.date_to),
        )
    )


@dataclass(frozen=True)
class NamedStanding:
    standing: Standing
    name: str


def season_standings(
    session: Session, season_id: int, within: Collection[int] | None = None
) -> tuple[Season, list[int], list[NamedStanding]]:
    """LG-2, LG-3: derived now from the stored places (four statements). `within`: only those of the
    season's tournaments (a season's standings after one of its tournaments)."""
    season = get_season(session, season_id)
    counted = counted_tournaments().where(Season.id == season.id)
    if within is not None:
        counted = counted.where(Tournament.id.in_(list(within)))
    tournament_ids = list(session.scalars(counted.with_only_columns(Tournament.id).order_by(Tournament.id)))
    placings = (
        [
            Placing(
                r.tournament_id,
                r.player_id,
                r.place,
                Fraction(r.credit_units, CREDIT_UNIT) if r.credit_units is not None else Fraction(r.credit_halves, 2),
            )
            for r in session.execute(
                select(
                    FinalPlace.tournament_id,
                    FinalPlace.player_id,
                    FinalPlace.place,
                    FinalPlace.credit_units,
                    FinalPlace.credit_halves,
                ).where(FinalPlace.tournament_id.in_(tournament_ids))
            )
        ]
        if tournament_ids
        else []
    )
    table = standings(
        results(
            placings,
            formula=season.formula,
            table=[Decimal(v) for v in season.points_table],
            shared=season.shared,
            bonus=season.knockout_bonus,
        ),
        season.best_k,
    )
    names = (
        dict(
            session.execute(
                select(Player.id, func.coalesce(Player.name, Player.pseudonym)).where(
                    Player.id.in_([s.player_id for s in table])
                )
            ).all()
        )
        if table
        else {}
    )
    return season, tournament_ids, [NamedStanding(s, names[s.player_id]) for s in table]


def date_from_text(field: str, raw: str) -> date:
    try:
        return date.fromisoformat(raw.strip())
    except ValueError:
        raise DomainError("season-date-invalid", f"{field} '{raw}' is not a date such as 2026-09-01") from None


def decimal_from_text(field: str, raw: str) -> Decimal:
    try:
        value = Decimal(raw.strip())
    except ArithmeticError:
        raise DomainError("season-number-invalid", f"{field} '{raw}' is not a number") from None
    if not value.is_finite():
        raise DomainError("season-number-invalid", f"{field} '{raw}' is not a number")
    return value
