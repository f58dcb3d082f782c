"""Leagues (RULES LG-1..LG-3): a club's seasons, their series and picked tournaments. Points and
standings are never stored: they are derived from `poker_places` on every read (LG-3)."""

from __future__ import annotations

from datetime import date, datetime
from decimal import Decimal

from sqlalchemy import (
    BigInteger,
    CheckConstraint,
    Date,
    DateTime,
    ForeignKey,
    Identity,
    Integer,
    Numeric,
    Text,
    UniqueConstraint,
)
from sqlalchemy.dialects.postgresql import ARRAY
from sqlalchemy.orm import Mapped, mapped_column

from domain.clubs.tables import Club
from domain.poker.tables.tournaments import Tournament
from domain.series.tables import Series
from domain.store.base import Base


class Season(Base):
    __tablename__ = "league_seasons"

    id: Mapped[int] = mapped_column(BigInteger, Identity(), primary_key=True)
    club_id: Mapped[int] = mapped_column(ForeignKey(Club.id))
    name: Mapped[str] = mapped_column(Text)
    date_from: Mapped[date] = mapped_column(Date)  # in the club's timezone, included
    date_to: Mapped[date] = mapped_column(Date)  # excluded
    formula: Mapped[str] = mapped_column(Text)
    points_table: Mapped[list[Decimal]] = mapped_column(ARRAY(Numeric(12, 2)))
    knockout_bonus: Mapped[Decimal | None] = mapped_column(Numeric(12, 4))
    shared: Mapped[str] = mapped_column(Text)
    best_k: Mapped[int | None] = mapped_column(Integer)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))

    __table_args__ = (
        UniqueConstraint("club_id", "name"),
        CheckConstraint("date_from < date_to", name="range"),
        CheckConstraint("formula IN ('table', 'sqrt')", name="formula"),
        CheckConstraint("shared IN ('best', 'average')", name="shared"),
        CheckConstraint("best_k IS NULL OR best_k >= 1", name="best_k"),
        CheckConstraint("knockout_bonus IS NULL OR knockout_bonus >= 0", name="bonus"),
        CheckConstraint("length(btrim(name)) > 0", name="name_not_blank"),
    )


class SeasonSeries(Base):
    """A series whose poker tournaments count for the season (when their start is in range)."""

    __tablename__ = "league_season_series"

    season_id: Mapped[int] = mapped_column(ForeignKey("league_seasons.id"), primary_key=True)
    series_id: Mapped[int] = mapped_column(ForeignKey(Series.id), primary_key=True)


class SeasonTournament(Base):
    """A tournament picked for the season (counted when its start is in range)."""

    __tablename__ = "league_season_tournaments"

    season_id: Mapped[int] = mapped_column(ForeignKey("league_seasons.id"), primary_key=True)
    tournament_id: Mapped[int] = mapped_column(ForeignKey(Tournament.id), primary_key=True)
