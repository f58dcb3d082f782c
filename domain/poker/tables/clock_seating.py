"""The floor (Sport Poker 3.5, 3.6, 3.8; SP-6, SP-8): the clock, its events, tables and seats,
moves, seat draws, no-show runs and dead stacks. Keyed by `poker_tournaments.id` and
`poker_entries.id`; the registration tables are never edited.

The database backs what a race could break: one seat per entry and one entry per seat (unique
constraints), seats only at tables that exist, each clock event once (its natural key), each
dead-stack charge once per level start, one dead stack per registration, one no-show run per
tournament. A trigger frees the seat of an entry that stops being active (3.6: the seat stays
empty); a deferred trigger refuses to commit an active entry left without a seat in a running
tournament whose seating is drawn (3.6: no late entry or re-entry is ever left without a seat).
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

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
    String,
    Text,
    UniqueConstraint,
    text,
)
from sqlalchemy.dialects.postgresql import JSONB
from sqlalchemy.orm import Mapped, mapped_column

from domain.poker.tables.tournaments import Entry, Registration, Tournament
from domain.store.base import Base

TZ = DateTime(timezone=True)


class Clock(Base):
    """The server clock of one tournament (SP-8): the instants it was started or moved by hand
    (`segments`: [[level index, instant], ...]), its `pauses` ([[start, end or null], ...]) and
    blind `overrides` ([[level index, instant, small, big, ante], ...]). `next_change_at` (the next
    automatic level change, NULL when paused or exhausted) is derived and kept for the sweep and
    the timekeeper."""

    __tablename__ = "poker_clock"

    tournament_id: Mapped[int] = mapped_column(ForeignKey(Tournament.id), primary_key=True)
    segments: Mapped[list] = mapped_column(JSONB)
    pauses: Mapped[list] = mapped_column(JSONB)
    overrides: Mapped[list] = mapped_column(JSONB)
    hands_per_hour: Mapped[int] = mapped_column(Integer)
    next_change_at: Mapped[datetime | None] = mapped_column(TZ)
    updated_at: Mapped[datetime] = mapped_column(TZ)

    __table_args__ = (
        CheckConstraint("hands_per_hour > 0", name="hands_per_hour"),
        CheckConstraint("jsonb_array_length(segments) >= 1", name="started"),
        Index(
            "ix_poker_clock_next_change_at",
            "next_change_at",
            postgresql_where=text("next_change_at IS NOT NULL"),
        ),
    )


class ClockEvent(Base):
    """One level change, break start or end, pause, resume or override, recorded once (SP-8).
    `level` is the 1-based level number in the structure's order."""

    __tablename__ = "poker_clock_events"

    id: Mapped[int] = mapped_column(BigInteger, Identity(), primary_key=True)
    tournament_id: Mapped[int] = mapped_column(ForeignKey(Tournament.id))
    segment: Mapped[int] = mapped_column(Integer)
    kind: Mapped[str] = mapped_column(String(16))
    level: Mapped[int] = mapped_column(Integer)
    break_number: Mapped[int | None] = mapped_column(Integer)
    at: Mapped[datetime] = mapped_column(TZ)
    recorded_at: Mapped[datetime] = mapped_column(TZ)

    __table_args__ = (
        UniqueConstraint("tournament_id", "segment", "kind", "level", "at"),
        CheckConstraint(
            "kind IN ('level-started', 'break-started', 'break-ended', 'paused', 'resumed', 'overridden')",
            name="kind",
        ),
        CheckConstraint("level >= 1 AND segment >= 0", name="level"),
        Index("ix_poker_clock_events_tournament_at", "tournament_id", "at"),
    )


class Table(Base):
    """A table of a tournament; once broken it is never used again (3.6)."""

    __tablename__ = "poker_tables"

    tournament_id: Mapped[int] = mapped_column(ForeignKey(Tournament.id), primary_key=True)
    table_no: Mapped[int] = mapped_column(Integer, primary_key=True)
    opened_at: Mapped[datetime] = mapped_column(TZ)
    broken_at: Mapped[datetime | None] = mapped_column(TZ)

    __table_args__ = (CheckConstraint("table_no >= 1", name="table_no"),)


class Seat(Base):
    """Who sits where: one seat per entry, one entry per seat."""

    __tablename__ = "poker_seats"

    entry_id: Mapped[int] = mapped_column(ForeignKey(Entry.id), primary_key=True)
    tournament_id: Mapped[int] = mapped_column(BigInteger)
    table_no: Mapped[int] = mapped_column(Integer)
    seat_no: Mapped[int] = mapped_column(Integer)
    seated_at: Mapped[datetime] = mapped_column(TZ)

    __table_args__ = (
        UniqueConstraint("tournament_id", "table_no", "seat_no"),
        ForeignKeyConstraint(
            ["tournament_id", "table_no"],
            ["poker_tables.tournament_id", "poker_tables.table_no"],
            name="fk_poker_seats_table",
        ),
        CheckConstraint("seat_no BETWEEN 1 AND 10", name="seat_no"),
    )


class Move(Base):
    """Every seat change the floor made: a move (undoable), a table break, the final table, or the
    undo of a move."""

    __tablename__ = "poker_moves"

    id: Mapped[int] = mapped_column(BigInteger, Identity(), primary_key=True)
    tournament_id: Mapped[int] = mapped_column(ForeignKey(Tournament.id))
    entry_id: Mapped[int] = mapped_column(ForeignKey(Entry.id))
    kind: Mapped[str] = mapped_column(String(12))
    from_table: Mapped[int] = mapped_column(Integer)
    from_seat: Mapped[int] = mapped_column(Integer)
    to_table: Mapped[int] = mapped_column(Integer)
    to_seat: Mapped[int] = mapped_column(Integer)
    at: Mapped[datetime] = mapped_column(TZ)
    actor: Mapped[str | None] = mapped_column(Text)
    undone_at: Mapped[datetime | None] = mapped_column(TZ)

    __table_args__ = (
        CheckConstraint("kind IN ('move', 'break-table', 'final-table', 'undo')", name="kind"),
        CheckConstraint("undone_at IS NULL OR kind = 'move'", name="only_moves_undone"),
        Index("ix_poker_moves_tournament", "tournament_id", "id"),
    )


class SeatDraw(Base):
    """A tournament's chain of draws by lot (PD-12, SP-13). Each row is a seed of the platform's,
    committed (its SHA-256 published) before the floor's optional seed is known; the draw that uses
    it records its purpose, the floor's seed, the items and the outcome, and commits the next row.
    At most one row of a tournament is pending (not drawn yet); a pending row holds the commitment
    only, never the seed (derived from the platform's key, outside the database; stored once the
    draw reveals it). Rows drawn before SP-13 have no items or outcome: their seed was used as given."""

    __tablename__ = "poker_seat_draws"

    tournament_id: Mapped[int] = mapped_column(ForeignKey(Tournament.id), primary_key=True)
    seq: Mapped[int] = mapped_column(Integer, primary_key=True)
    commitment: Mapped[str] = mapped_column(String(64))
    seed: Mapped[str | None] = mapped_column(Text)
    committed_at: Mapped[datetime] = mapped_column(TZ)
    purpose: Mapped[str | None] = mapped_column(Text)
    floor_seed: Mapped[str | None] = mapped_column(Text)
    items: Mapped[Any | None] = mapped_column(JSONB)
    outcome: Mapped[Any | None] = mapped_column(JSONB)
    drawn_at: Mapped[datetime | None] = mapped_column(TZ)

    __table_args__ = (
        CheckConstraint("seq >= 1", name="seq"),
        CheckConstraint("(drawn_at IS NULL) = (purpose IS NULL)", name="drawn"),
        CheckConstraint(
            "drawn_at IS NOT NULL OR (floor_seed IS NULL AND items IS NULL AND outcome IS NULL)", name="pending_empty"
        ),
        CheckConstraint("(items IS NULL) = (outcome IS NULL)", name="recorded"),
        CheckConstraint("(seed IS NULL) = (drawn_at IS NULL)", name="seed_revealed"),
        Index("ix_poker_seat_draws_pending", "tournament_id", unique=True, postgresql_where=text("drawn_at IS NULL")),
    )


class NoShowRun(Base):
    """The tournament's no-shows were processed (3.8): once per tournament."""

    __tablename__ = "poker_no_show_runs"

    tournament_id: Mapped[int] = mapped_column(ForeignKey(Tournament.id), primary_key=True)
    policy: Mapped[str] = mapped_column(String(16))
    dropped: Mapped[int] = mapped_column(Integer)
    dead_stacks: Mapped[int] = mapped_column(Integer)
    processed_at: Mapped[datetime] = mapped_column(TZ)


class DeadStack(Base):
    """An absent player's stack (SP-6): pays forced bets at each level start until the player
    arrives or it reaches 0."""

    __tablename__ = "poker_dead_stacks"

    id: Mapped[int] = mapped_column(BigInteger, Identity(), primary_key=True)
    tournament_id: Mapped[int] = mapped_column(ForeignKey(Tournament.id))
    registration_id: Mapped[int] = mapped_column(ForeignKey(Registration.id), unique=True)
    entry_id: Mapped[int] = mapped_column(ForeignKey(Entry.id), unique=True)
    chips: Mapped[int] = mapped_column(BigInteger)
    seated_at: Mapped[datetime] = mapped_column(TZ)
    arrived_at: Mapped[datetime | None] = mapped_column(TZ)
    busted_at: Mapped[datetime | None] = mapped_column(TZ)

    __table_args__ = (
        CheckConstraint("chips >= 0", name="chips"),
        CheckConstraint("(busted_at IS NOT NULL) = (chips = 0)", name="busted_at_zero"),
        CheckConstraint("arrived_at IS NULL OR busted_at IS NULL", name="arrived_or_busted"),
        Index(
            "ix_poker_dead_stacks_live",
            "tournament_id",
            postgresql_where=text("arrived_at IS NULL AND busted_at IS NULL"),
        ),
    )


class DeadStackCharge(Base):
    """What a dead stack paid at one level start (SP-6); once per stack and level-start event."""

    __tablename__ = "poker_dead_stack_charges"

    dead_stack_id: Mapped[int] = mapped_column(ForeignKey("poker_dead_stacks.id"), primary_key=True)
    event_id: Mapped[int] = mapped_column(ForeignKey("poker_clock_events.id"), primary_key=True)
    paid: Mapped[int] = mapped_column(BigInteger)
    chips_after: Mapped[int] = mapped_column(BigInteger)
    busted: Mapped[bool] = mapped_column(Boolean)

    __table_args__ = (CheckConstraint("paid >= 0 AND chips_after >= 0", name="amounts"),)
