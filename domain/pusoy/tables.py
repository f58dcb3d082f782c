"""Pusoy Dos bracket tournaments: tables prefixed `pusoy_` (RULES PD-1..PD-13).

Invariants a race could break are the database's: one seat per player and tournament, entrants
never above capacity, one report per game, one finish per position and per player in a game,
the 2♦ only on a win, one seat per player and table position in every stage of a round.
A round's stage is 0 for its regular games and p for its p-th playoff.
"""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import (
    BigInteger,
    Boolean,
    CheckConstraint,
    DateTime,
    ForeignKey,
    ForeignKeyConstraint,
    Identity,
    Index,
    Integer,
    SmallInteger,
    String,
    Text,
    UniqueConstraint,
    text,
)
from sqlalchemy.dialects.postgresql import ARRAY, JSONB
from sqlalchemy.orm import Mapped, mapped_column

from domain.clubs.tables import Club
from domain.store.base import Base

TS = DateTime(timezone=True)


class PusoyTournament(Base):
    __tablename__ = "pusoy_tournaments"
    __table_args__ = (
        CheckConstraint("capacity IN (8, 16, 32)", name="capacity"),
        CheckConstraint("games_per_round BETWEEN 1 AND 10", name="games_per_round"),
        CheckConstraint("code ~ '^[23456789ABCDEFGHJKLMNPQRSTUVWXYZ]{6}$'", name="code"),
        CheckConstraint("bracket[1] = capacity AND bracket[cardinality(bracket)] = 4", name="bracket"),
        CheckConstraint("entrants BETWEEN 0 AND capacity", name="entrants"),
        CheckConstraint("status IN ('setup', 'active', 'complete', 'cancelled')", name="status"),
        CheckConstraint("(status = 'complete') = (champion IS NOT NULL)", name="champion"),
        Index("ix_pusoy_tournaments_browse", "created_at", postgresql_where=text("status = 'setup' AND NOT private")),
    )

    id: Mapped[int] = mapped_column(BigInteger, Identity(), primary_key=True)
    code: Mapped[str] = mapped_column(String(6), unique=True)
    name: Mapped[str] = mapped_column(String(120))
    organizer: Mapped[str] = mapped_column(String(40))
    organizer_email: Mapped[str | None] = mapped_column(String(254))
    club_id: Mapped[int | None] = mapped_column(BigInteger, ForeignKey(Club.id), index=True)
    capacity: Mapped[int] = mapped_column(SmallInteger)
    private: Mapped[bool] = mapped_column(Boolean)
    games_per_round: Mapped[int] = mapped_column(SmallInteger)
    bracket: Mapped[list[int]] = mapped_column(ARRAY(SmallInteger))
    custom_bracket: Mapped[bool] = mapped_column(Boolean)
    status: Mapped[str] = mapped_column(String(12))
    entrants: Mapped[int] = mapped_column(SmallInteger, default=0)
    current_round: Mapped[int | None] = mapped_column(SmallInteger)
    champion: Mapped[str | None] = mapped_column(String(40))
    created_at: Mapped[datetime] = mapped_column(TS)
    started_at: Mapped[datetime | None] = mapped_column(TS)
    finished_at: Mapped[datetime | None] = mapped_column(TS)


class PusoyEntry(Base):
    __tablename__ = "pusoy_entries"
    __table_args__ = (ForeignKeyConstraint(["tournament_id"], ["pusoy_tournaments.id"], ondelete="CASCADE"),)

    tournament_id: Mapped[int] = mapped_column(BigInteger, primary_key=True)
    player: Mapped[str] = mapped_column(String(40), primary_key=True)
    joined_at: Mapped[datetime] = mapped_column(TS)
    left_round: Mapped[int | None] = mapped_column(SmallInteger)
    final_position: Mapped[int | None] = mapped_column(SmallInteger)


class PusoyDraw(Base):
    """PD-12: a seed committed (its SHA-256 published) before its draw, revealed with the draw's
    purpose, items and outcome after it. A pending row holds the commitment only, never the seed
    (derived from the platform's key, outside the database)."""

    __tablename__ = "pusoy_draws"
    __table_args__ = (
        ForeignKeyConstraint(["tournament_id"], ["pusoy_tournaments.id"], ondelete="CASCADE"),
        CheckConstraint("(revealed_at IS NULL) = (purpose IS NULL)", name="revealed"),
        CheckConstraint("(seed IS NULL) = (revealed_at IS NULL)", name="seed_revealed"),
    )

    tournament_id: Mapped[int] = mapped_column(BigInteger, primary_key=True)
    seq: Mapped[int] = mapped_column(SmallInteger, primary_key=True)
    commitment: Mapped[str] = mapped_column(String(64))
    seed: Mapped[str | None] = mapped_column(String(64))
    committed_at: Mapped[datetime] = mapped_column(TS)
    purpose: Mapped[str | None] = mapped_column(Text)
    items: Mapped[list[str] | None] = mapped_column(JSONB)
    outcome: Mapped[list[str] | None] = mapped_column(JSONB)
    revealed_at: Mapped[datetime | None] = mapped_column(TS)


class PusoyRound(Base):
    __tablename__ = "pusoy_rounds"
    __table_args__ = (
        ForeignKeyConstraint(["tournament_id"], ["pusoy_tournaments.id"], ondelete="CASCADE"),
        CheckConstraint("status IN ('playing', 'playoff', 'locked')", name="status"),
        CheckConstraint("(status = 'playing') = (stage = 0) OR status = 'locked'", name="stage"),
        CheckConstraint("advancing BETWEEN 1 AND field", name="advancing"),
        Index("ix_pusoy_rounds_open", "tournament_id", "number", postgresql_where=text("status <> 'locked'")),
    )

    tournament_id: Mapped[int] = mapped_column(BigInteger, primary_key=True)
    number: Mapped[int] = mapped_column(SmallInteger, primary_key=True)
    field: Mapped[int] = mapped_column(SmallInteger)
    advancing: Mapped[int] = mapped_column(SmallInteger)
    stage: Mapped[int] = mapped_column(SmallInteger, default=0)
    status: Mapped[str] = mapped_column(String(8), default="playing")
    expected_games: Mapped[int] = mapped_column(SmallInteger)
    started_at: Mapped[datetime] = mapped_column(TS)
    locked_at: Mapped[datetime | None] = mapped_column(TS)


class PusoySeat(Base):
    __tablename__ = "pusoy_seats"
    __table_args__ = (
        ForeignKeyConstraint(
            ["tournament_id", "round_no"], ["pusoy_rounds.tournament_id", "pusoy_rounds.number"], ondelete="CASCADE"
        ),
        ForeignKeyConstraint(
            ["tournament_id", "player"], ["pusoy_entries.tournament_id", "pusoy_entries.player"], ondelete="CASCADE"
        ),
        UniqueConstraint("tournament_id", "round_no", "stage", "table_no", "seat_no", name="uq_pusoy_seats_seat"),
        UniqueConstraint(
            "tournament_id", "round_no", "stage", "table_no", "player", name="uq_pusoy_seats_table_player"
        ),
        CheckConstraint("seat_no BETWEEN 1 AND 4", name="seat_no"),
    )

    tournament_id: Mapped[int] = mapped_column(BigInteger, primary_key=True)
    round_no: Mapped[int] = mapped_column(SmallInteger, primary_key=True)
    stage: Mapped[int] = mapped_column(SmallInteger, primary_key=True)
    player: Mapped[str] = mapped_column(String(40), primary_key=True)
    table_no: Mapped[int] = mapped_column(SmallInteger)
    seat_no: Mapped[int] = mapped_column(SmallInteger)


class PusoyGame(Base):
    __tablename__ = "pusoy_games"
    __table_args__ = (
        ForeignKeyConstraint(
            ["tournament_id", "round_no"], ["pusoy_rounds.tournament_id", "pusoy_rounds.number"], ondelete="CASCADE"
        ),
        CheckConstraint("game_no BETWEEN 1 AND 10", name="game_no"),
    )

    tournament_id: Mapped[int] = mapped_column(BigInteger, primary_key=True)
    round_no: Mapped[int] = mapped_column(SmallInteger, primary_key=True)
    stage: Mapped[int] = mapped_column(SmallInteger, primary_key=True)
    table_no: Mapped[int] = mapped_column(SmallInteger, primary_key=True)
    game_no: Mapped[int] = mapped_column(SmallInteger, primary_key=True)
    reported_by: Mapped[str | None] = mapped_column(String(40))
    reported_at: Mapped[datetime] = mapped_column(TS)
    amended_at: Mapped[datetime | None] = mapped_column(TS)


GAME_KEY = ["tournament_id", "round_no", "stage", "table_no", "game_no"]


class PusoyFinish(Base):
    """PD-6: the stored finishes every point is derived from."""

    __tablename__ = "pusoy_finishes"
    __table_args__ = (
        ForeignKeyConstraint(GAME_KEY, [f"pusoy_games.{c}" for c in GAME_KEY], ondelete="CASCADE"),
        ForeignKeyConstraint(
            ["tournament_id", "round_no", "stage", "table_no", "player"],
            [f"pusoy_seats.{c}" for c in ("tournament_id", "round_no", "stage", "table_no", "player")],
        ),
        UniqueConstraint(*GAME_KEY, "position", name="uq_pusoy_finishes_position"),
        CheckConstraint("position BETWEEN 1 AND 4", name="position"),
        CheckConstraint("NOT two_of_diamonds OR position = 1", name="two_of_diamonds"),
    )

    tournament_id: Mapped[int] = mapped_column(BigInteger, primary_key=True)
    round_no: Mapped[int] = mapped_column(SmallInteger, primary_key=True)
    stage: Mapped[int] = mapped_column(SmallInteger, primary_key=True)
    table_no: Mapped[int] = mapped_column(SmallInteger, primary_key=True)
    game_no: Mapped[int] = mapped_column(SmallInteger, primary_key=True)
    player: Mapped[str] = mapped_column(String(40), primary_key=True)
    position: Mapped[int] = mapped_column(SmallInteger)
    two_of_diamonds: Mapped[bool] = mapped_column(Boolean, default=False)


class PusoyGameAudit(Base):
    """Every report and amendment of a game: who, when, why, the finishes before and after."""

    __tablename__ = "pusoy_game_audit"
    __table_args__ = (
        ForeignKeyConstraint(GAME_KEY, [f"pusoy_games.{c}" for c in GAME_KEY], ondelete="CASCADE"),
        CheckConstraint("action IN ('report', 'amend')", name="action"),
    )

    id: Mapped[int] = mapped_column(BigInteger, Identity(), primary_key=True)
    tournament_id: Mapped[int] = mapped_column(BigInteger)
    round_no: Mapped[int] = mapped_column(SmallInteger)
    stage: Mapped[int] = mapped_column(SmallInteger)
    table_no: Mapped[int] = mapped_column(SmallInteger)
    game_no: Mapped[int] = mapped_column(SmallInteger)
    action: Mapped[str] = mapped_column(String(8))
    by: Mapped[str | None] = mapped_column(String(40))
    reason: Mapped[str | None] = mapped_column(Text)
    before: Mapped[dict | None] = mapped_column(JSONB)
    after: Mapped[dict] = mapped_column(JSONB)
    at: Mapped[datetime] = mapped_column(TS)


class PusoyStanding(Base):
    """A round's standings, written once when the round locks (PD-8): rank and the deciding step."""

    __tablename__ = "pusoy_standings"
    __table_args__ = (
        ForeignKeyConstraint(
            ["tournament_id", "round_no"], ["pusoy_rounds.tournament_id", "pusoy_rounds.number"], ondelete="CASCADE"
        ),
        ForeignKeyConstraint(
            ["tournament_id", "player"], ["pusoy_entries.tournament_id", "pusoy_entries.player"], ondelete="CASCADE"
        ),
    )

    tournament_id: Mapped[int] = mapped_column(BigInteger, primary_key=True)
    round_no: Mapped[int] = mapped_column(SmallInteger, primary_key=True)
    player: Mapped[str] = mapped_column(String(40), primary_key=True)
    listed: Mapped[int] = mapped_column(SmallInteger)
    points: Mapped[int] = mapped_column(Integer)
    rank: Mapped[int] = mapped_column(SmallInteger)
    decided_by: Mapped[str | None] = mapped_column(String(32))
    advanced: Mapped[bool] = mapped_column(Boolean)
