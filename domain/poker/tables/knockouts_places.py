"""Results (Sport Poker 3.2, 3.3, 3.4, 3.7; SP-4, SP-5, SP-7): knockouts and their audit,
mystery draws, prize lines, final places, and the per-tournament void window.

The database backs what a race or a bad write could break: one live knockout per busted entry (a
partial unique index), one mystery draw per killer entry and tournament, knockouts immutable but for
voiding (a trigger), draws, audit rows and places append-only (triggers), and the monetary wording
(SP-4): a prize line or draw description is stored only with the domain's verdict, its
`wording_seal`, which only a text the domain's check accepts gets (domain.poker.rules.wording); a CHECK
refuses a row whose seal is missing or is not the seal of its text.
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
    Text,
    UniqueConstraint,
    text,
)
from sqlalchemy.dialects.postgresql import JSONB
from sqlalchemy.orm import Mapped, mapped_column

from domain.poker.rules.wording.check import MAX_DESCRIPTION_CHARS
from domain.poker.tables.tournaments import Entry, Player, Tournament
from domain.store.base import Base

TZ = DateTime(timezone=True)


def sealed_sql(column: str, seal: str = "wording_seal") -> str:
    """SP-4 as SQL: `seal` is the domain's seal of `column` (domain.poker.rules.wording.check.seal_for:
    `<checker>:<hex sha256 of "<checker>:<text>">`). The database cannot run the check itself
    (lemmas need pymorphy3), so it refuses every text the domain has not accepted."""
    checker = f"split_part({seal}, ':', 1)"
    digest = f"encode(sha256(convert_to({checker} || ':' || {column}, 'UTF8')), 'hex')"
    return f"({seal} IS NOT NULL AND {column} IS NOT NULL AND {seal} = {checker} || ':' || {digest})"


class KnockoutSettings(Base):
    """The void window of a tournament (SP-5); a tournament without a row has the 5-minute default."""

    __tablename__ = "poker_knockout_settings"

    tournament_id: Mapped[int] = mapped_column(ForeignKey(Tournament.id), primary_key=True)
    void_window_seconds: Mapped[int] = mapped_column(Integer)

    __table_args__ = (CheckConstraint("void_window_seconds > 0", name="void_window_positive"),)


class Knockout(Base):
    """One bust (3.2). Busts of one block share `bust_number`; `credit_halves` is 2 (1.0) or 1 (0.5,
    the primary of two killers, whose second killer is in the audit only). Immutable but for voiding."""

    __tablename__ = "poker_knockouts"

    id: Mapped[int] = mapped_column(BigInteger, Identity(), primary_key=True)
    tournament_id: Mapped[int] = mapped_column(ForeignKey(Tournament.id))
    busted_entry_id: Mapped[int] = mapped_column(ForeignKey(Entry.id))
    killer_entry_id: Mapped[int | None] = mapped_column(ForeignKey(Entry.id))
    bust_number: Mapped[int] = mapped_column(Integer)
    bust_group: Mapped[str | None] = mapped_column(Text)
    level: Mapped[int | None] = mapped_column(Integer)
    credit_halves: Mapped[int] = mapped_column(SmallInteger)
    recorded_at: Mapped[datetime] = mapped_column(TZ)
    recorded_by: Mapped[str] = mapped_column(Text)
    voided_at: Mapped[datetime | None] = mapped_column(TZ)
    voided_by: Mapped[str | None] = mapped_column(Text)

    __table_args__ = (
        CheckConstraint("bust_number >= 1", name="bust_number_positive"),
        CheckConstraint("level IS NULL OR level >= 1", name="level_positive"),
        CheckConstraint("credit_halves IN (1, 2)", name="credit"),
        CheckConstraint("killer_entry_id IS NULL OR killer_entry_id <> busted_entry_id", name="not_self"),
        CheckConstraint("credit_halves = 2 OR killer_entry_id IS NOT NULL", name="half_needs_killer"),
        CheckConstraint("(voided_at IS NULL) = (voided_by IS NULL)", name="void_complete"),
        UniqueConstraint("id", "killer_entry_id", name="uq_poker_knockouts_id_killer"),
        Index(
            "uq_poker_knockouts_live_busted",
            "busted_entry_id",
            unique=True,
            postgresql_where=text("voided_at IS NULL"),
        ),
        Index("ix_poker_knockouts_tournament_bust", "tournament_id", "bust_number"),
        Index("ix_poker_knockouts_killer", "killer_entry_id"),
    )


class KnockoutShare(Base):
    """One killer's share of a knockout (SP-9, SP-10), written with the knockout when the tournament
    has a PKO head or shared knockouts (migration 0501); without a share row a knockout counts as
    today (`credit_halves` for its primary killer). `credit_units` are 1/2520 of a full credit, so
    every 1/k share is exact; `pko_points` are credited, `head_added` goes to the killer entry's
    head. Append-only: a void marks the knockout, and its shares stop counting with it."""

    __tablename__ = "poker_knockout_shares"

    knockout_id: Mapped[int] = mapped_column(ForeignKey("poker_knockouts.id"), primary_key=True)
    position: Mapped[int] = mapped_column(SmallInteger, primary_key=True)
    killer_entry_id: Mapped[int] = mapped_column(ForeignKey(Entry.id))
    credit_units: Mapped[int] = mapped_column(Integer)
    pko_points: Mapped[int] = mapped_column(BigInteger)
    head_added: Mapped[int] = mapped_column(BigInteger)

    __table_args__ = (
        UniqueConstraint("knockout_id", "killer_entry_id", name="uq_poker_knockout_shares_killer"),
        CheckConstraint("position BETWEEN 1 AND 9", name="position"),
        CheckConstraint("credit_units > 0 AND credit_units <= 2520", name="credit_units"),
        CheckConstraint("pko_points >= 0 AND head_added >= 0", name="points"),
        Index("ix_poker_knockout_shares_killer", "killer_entry_id"),
    )


class KnockoutAudit(Base):
    """Append-only log of every knockout event: recorded (with the second killer, if any), voided,
    drawn."""

    __tablename__ = "poker_knockout_audit"

    id: Mapped[int] = mapped_column(BigInteger, Identity(), primary_key=True)
    tournament_id: Mapped[int] = mapped_column(ForeignKey(Tournament.id))
    knockout_id: Mapped[int] = mapped_column(ForeignKey("poker_knockouts.id"))
    kind: Mapped[str] = mapped_column(Text)
    second_killer_entry_id: Mapped[int | None] = mapped_column(ForeignKey(Entry.id))
    actor: Mapped[str] = mapped_column(Text)
    at: Mapped[datetime] = mapped_column(TZ)
    data: Mapped[dict] = mapped_column(JSONB)

    __table_args__ = (
        CheckConstraint("kind IN ('recorded', 'voided', 'drawn')", name="kind"),
        CheckConstraint("second_killer_entry_id IS NULL OR kind = 'recorded'", name="second_killer_on_record"),
        Index("ix_poker_knockout_audit_knockout", "knockout_id"),
    )


class MysteryDraw(Base):
    """A mystery bounty drawn on a knockout by its killer entry (3.3): one per killer entry and
    tournament; a sequential number; an optional non-monetary description (SP-4)."""

    __tablename__ = "poker_mystery_draws"

    id: Mapped[int] = mapped_column(BigInteger, Identity(), primary_key=True)
    tournament_id: Mapped[int] = mapped_column(ForeignKey(Tournament.id))
    knockout_id: Mapped[int] = mapped_column(BigInteger, unique=True)
    killer_entry_id: Mapped[int] = mapped_column(ForeignKey(Entry.id))
    draw_number: Mapped[int] = mapped_column(Integer)
    description: Mapped[str | None] = mapped_column(Text)
    wording_seal: Mapped[str | None] = mapped_column(Text)  # SP-4: the domain's verdict on the description
    drawn_at: Mapped[datetime] = mapped_column(TZ)
    drawn_by: Mapped[str] = mapped_column(Text)
    per_killer: Mapped[bool] = mapped_column(Boolean, server_default=text("true"))  # 3.3; false: per knockout (0503)
    prize_position: Mapped[int | None] = mapped_column(Integer)  # SP-11: the table's prize drawn (0503)

    __table_args__ = (
        ForeignKeyConstraint(
            ["knockout_id", "killer_entry_id"],
            ["poker_knockouts.id", "poker_knockouts.killer_entry_id"],
            name="fk_poker_mystery_draws_knockout_killer",
        ),
        Index(
            "uq_poker_mystery_draws_killer",
            "tournament_id",
            "killer_entry_id",
            unique=True,
            postgresql_where=text("per_killer"),
        ),
        UniqueConstraint("tournament_id", "prize_position", name="uq_poker_mystery_draws_prize"),
        UniqueConstraint("tournament_id", "draw_number", name="uq_poker_mystery_draws_number"),
        CheckConstraint("draw_number >= 1", name="draw_number_positive"),
        CheckConstraint(
            f"(description IS NULL AND wording_seal IS NULL) OR (char_length(description) <= {MAX_DESCRIPTION_CHARS}"
            f" AND {sealed_sql('description')})",
            name="description",
        ),
    )


class MysteryPrize(Base):
    """A declared prize of a tournament's mystery table (SP-11): non-monetary text (SP-4)."""

    __tablename__ = "poker_mystery_prizes"

    tournament_id: Mapped[int] = mapped_column(ForeignKey(Tournament.id), primary_key=True)
    position: Mapped[int] = mapped_column(Integer, primary_key=True)
    description: Mapped[str] = mapped_column(Text)
    wording_seal: Mapped[str] = mapped_column(Text)  # SP-4: the domain's verdict on the line

    __table_args__ = (
        CheckConstraint("position BETWEEN 1 AND 200", name="position"),
        CheckConstraint(
            f"length(btrim(description)) > 0 AND char_length(description) <= {MAX_DESCRIPTION_CHARS}"
            f" AND {sealed_sql('description')}",
            name="description",
        ),
    )


class MysteryPhase(Base):
    """The start of a tournament's mystery phase (SP-11): the committed seed (PD-12) whose shuffle
    orders the prizes; `seed` is shown only once the tournament is finished. Append-only."""

    __tablename__ = "poker_mystery_phases"

    tournament_id: Mapped[int] = mapped_column(ForeignKey(Tournament.id), primary_key=True)
    seed: Mapped[str] = mapped_column(Text)
    commitment: Mapped[str] = mapped_column(Text)
    prize_count: Mapped[int] = mapped_column(Integer)
    started_at: Mapped[datetime] = mapped_column(TZ)

    __table_args__ = (CheckConstraint("prize_count >= 1", name="prize_count"),)


class Prize(Base):
    """Prize line of a place (3.4): non-monetary text, at most 200 places and 500 characters."""

    __tablename__ = "poker_prizes"

    tournament_id: Mapped[int] = mapped_column(ForeignKey(Tournament.id), primary_key=True)
    place: Mapped[int] = mapped_column(Integer, primary_key=True)
    description: Mapped[str] = mapped_column(Text)
    wording_seal: Mapped[str] = mapped_column(Text)  # SP-4: the domain's verdict on the line

    __table_args__ = (
        CheckConstraint("place BETWEEN 1 AND 200", name="place"),
        CheckConstraint(
            f"length(btrim(description)) > 0 AND char_length(description) <= {MAX_DESCRIPTION_CHARS}"
            f" AND {sealed_sql('description')}",
            name="description",
        ),
    )


class FinalPlace(Base):
    """A player's final place (3.7), written once by `finalize-tournaments`."""

    __tablename__ = "poker_places"

    tournament_id: Mapped[int] = mapped_column(ForeignKey(Tournament.id), primary_key=True)
    player_id: Mapped[int] = mapped_column(ForeignKey(Player.id), primary_key=True)
    entry_id: Mapped[int] = mapped_column(ForeignKey(Entry.id))
    place: Mapped[int] = mapped_column(Integer)
    bust_number: Mapped[int | None] = mapped_column(Integer)
    knockouts: Mapped[int] = mapped_column(Integer)
    credit_halves: Mapped[int] = mapped_column(Integer)
    prize: Mapped[str | None] = mapped_column(Text)
    credit_units: Mapped[int | None] = mapped_column(Integer)  # exact credit, 1/2520 (0501; NULL before)
    pko_points: Mapped[int | None] = mapped_column(BigInteger)  # SP-9 total, champion's head included
    placed_at: Mapped[datetime] = mapped_column(TZ)

    __table_args__ = (
        CheckConstraint("place >= 1", name="place_positive"),
        CheckConstraint("(place = 1) = (bust_number IS NULL)", name="champion_unbusted"),
        CheckConstraint("knockouts >= 0 AND credit_halves >= 0", name="credits"),
        Index("ix_poker_places_tournament_place", "tournament_id", "place"),
    )
