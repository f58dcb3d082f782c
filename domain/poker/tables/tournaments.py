"""Players, blind structures and tournaments (Sport Poker 1.2, 3.1, 3.4, 3.5, 3.9, 3.10; SP-1, SP-2): players, blind structures,
tournaments and their settings, registrations, entries, top-ups, fees, settlements, the audit trail.

Other poker areas extend this schema with their own tables keyed by `poker_tournaments.id`,
`poker_entries.id` or `players.id` (clock, seating, knockouts, prizes), never by editing these.
Every enumerated text column is backed by a CHECK listing its values; money is BigInteger minor
units beside a three-letter currency code (SP-1); times are timestamptz in UTC.
"""

from __future__ import annotations

from datetime import date, datetime

from sqlalchemy import (
    BigInteger,
    Boolean,
    CheckConstraint,
    Date,
    DateTime,
    ForeignKey,
    Identity,
    Index,
    Integer,
    String,
    Text,
    UniqueConstraint,
    func,
    text,
)
from sqlalchemy.dialects.postgresql import JSONB
from sqlalchemy.orm import Mapped, mapped_column

from domain.clubs.tables import Club
from domain.store.base import Base

TZ = DateTime(timezone=True)


class Player(Base):
    """The platform profile. Forgetting (1.6.1) erases name, handle and date of birth; the row and
    its pseudonym stay, so results, knockouts and fee records keep pointing at it."""

    __tablename__ = "players"

    id: Mapped[int] = mapped_column(BigInteger, Identity(), primary_key=True)
    pseudonym: Mapped[str] = mapped_column(Text, unique=True)
    name: Mapped[str | None] = mapped_column(Text)
    handle: Mapped[str | None] = mapped_column(Text)
    birth_date: Mapped[date | None] = mapped_column(Date)
    blocked_at: Mapped[datetime | None] = mapped_column(TZ)
    blocked_reason: Mapped[str | None] = mapped_column(Text)
    forgotten_at: Mapped[datetime | None] = mapped_column(TZ)
    created_at: Mapped[datetime] = mapped_column(TZ)

    __table_args__ = (
        Index("uq_players_handle_lower", func.lower(text("handle")), unique=True),
        CheckConstraint(
            "(forgotten_at IS NULL AND name IS NOT NULL AND handle IS NOT NULL AND birth_date IS NOT NULL)"
            " OR (forgotten_at IS NOT NULL AND name IS NULL AND handle IS NULL AND birth_date IS NULL)",
            name="profile_or_forgotten",
        ),
        CheckConstraint("(blocked_at IS NULL) = (blocked_reason IS NULL)", name="block_has_reason"),
    )

    @property
    def display_name(self) -> str:
        """The name, or the pseudonym once the player is forgotten (results sheets use this)."""
        return self.name if self.name is not None else self.pseudonym


class Structure(Base):
    """A club's reusable blind structure (3.5). Immutable once imported: tournaments share it."""

    __tablename__ = "poker_structures"

    id: Mapped[int] = mapped_column(BigInteger, Identity(), primary_key=True)
    club_id: Mapped[int] = mapped_column(ForeignKey(Club.id))
    name: Mapped[str] = mapped_column(Text)
    ante_type: Mapped[str] = mapped_column(String(16))
    created_at: Mapped[datetime] = mapped_column(TZ)

    __table_args__ = (
        UniqueConstraint("club_id", "name"),
        CheckConstraint("ante_type IN ('none', 'classic', 'bb_ante')", name="ante_type"),
        CheckConstraint("length(btrim(name)) > 0", name="name_not_blank"),
    )


class Level(Base):
    """One level of a structure, numbered 1.. in play order; a break has no blinds (3.5)."""

    __tablename__ = "poker_levels"

    id: Mapped[int] = mapped_column(BigInteger, Identity(), primary_key=True)
    structure_id: Mapped[int] = mapped_column(ForeignKey("poker_structures.id", ondelete="CASCADE"))
    position: Mapped[int] = mapped_column(Integer)
    small_blind: Mapped[int] = mapped_column(BigInteger)
    big_blind: Mapped[int] = mapped_column(BigInteger)
    ante: Mapped[int] = mapped_column(BigInteger)
    duration_seconds: Mapped[int] = mapped_column(Integer)
    is_break: Mapped[bool] = mapped_column(Boolean)

    __table_args__ = (
        UniqueConstraint("structure_id", "position"),
        CheckConstraint("position >= 1", name="position_positive"),
        CheckConstraint("duration_seconds > 0", name="duration_positive"),
        CheckConstraint(
            "(is_break AND small_blind = 0 AND big_blind = 0 AND ante = 0)"
            " OR (NOT is_break AND small_blind > 0 AND big_blind >= small_blind AND ante >= 0)",
            name="blinds",
        ),
    )


class Tournament(Base):
    """A live tournament and every setting of 3.1/3.9; settings are frozen once running."""

    __tablename__ = "poker_tournaments"

    id: Mapped[int] = mapped_column(BigInteger, Identity(), primary_key=True)
    club_id: Mapped[int] = mapped_column(ForeignKey(Club.id))
    name: Mapped[str] = mapped_column(Text)
    status: Mapped[str] = mapped_column(String(20))
    scheduled_start: Mapped[datetime] = mapped_column(TZ)
    format: Mapped[str] = mapped_column(String(16))
    bounty_type: Mapped[str] = mapped_column(String(16))
    mystery_draw: Mapped[bool] = mapped_column(Boolean)
    starting_stack: Mapped[int] = mapped_column(BigInteger)
    structure_id: Mapped[int] = mapped_column(ForeignKey("poker_structures.id"))
    seat_cap: Mapped[int] = mapped_column(Integer)
    late_reg_deadline: Mapped[datetime | None] = mapped_column(TZ)
    reentry_deadline: Mapped[datetime | None] = mapped_column(TZ)
    addon_deadline: Mapped[datetime | None] = mapped_column(TZ)
    addon_break: Mapped[int | None] = mapped_column(Integer)
    addon_once: Mapped[bool] = mapped_column(Boolean)
    addon_chips: Mapped[int | None] = mapped_column(BigInteger)
    currency: Mapped[str] = mapped_column(String(3))
    buy_in: Mapped[int] = mapped_column(BigInteger)
    rebuy_amount: Mapped[int | None] = mapped_column(BigInteger)
    reentry_amount: Mapped[int | None] = mapped_column(BigInteger)
    addon_amount: Mapped[int | None] = mapped_column(BigInteger)
    no_show_policy: Mapped[str] = mapped_column(String(16))
    itm_percent: Mapped[int] = mapped_column(Integer)
    itm_min: Mapped[int] = mapped_column(Integer)
    pko_head: Mapped[int | None] = mapped_column(Integer)  # SP-9 (migration 0501)
    shared_knockouts: Mapped[bool] = mapped_column(Boolean, server_default=text("false"))  # SP-10 (0501)
    rebuy_until: Mapped[datetime | None] = mapped_column(TZ)  # SP-12 (0502)
    rebuy_until_level: Mapped[int | None] = mapped_column(Integer)  # SP-12 (0502)
    rebuy_limit: Mapped[int | None] = mapped_column(Integer)  # SP-12 (0502)
    reentry_limit: Mapped[int | None] = mapped_column(Integer)  # SP-12 (0502)
    mystery_phase: Mapped[str] = mapped_column(Text, server_default=text("'start'"))  # SP-11 (0503)
    mystery_draw_per: Mapped[str] = mapped_column(Text, server_default=text("'per_killer_entry'"))  # SP-11 (0503)
    created_at: Mapped[datetime] = mapped_column(TZ)
    opened_at: Mapped[datetime | None] = mapped_column(TZ)
    started_at: Mapped[datetime | None] = mapped_column(TZ)
    finished_at: Mapped[datetime | None] = mapped_column(TZ)
    cancelled_at: Mapped[datetime | None] = mapped_column(TZ)

    __table_args__ = (
        CheckConstraint("status IN ('draft', 'registration_open', 'running', 'finished', 'cancelled')", name="status"),
        CheckConstraint("format IN ('freezeout', 'rebuy', 'reentry', 'addon', 'bounty')", name="format"),
        CheckConstraint("bounty_type IN ('none', 'classic', 'pko', 'mystery')", name="bounty_type"),
        CheckConstraint("no_show_policy IN ('drop', 'absent_mode')", name="no_show_policy"),
        CheckConstraint("length(btrim(name)) > 0", name="name_not_blank"),
        CheckConstraint("seat_cap BETWEEN 2 AND 10", name="seat_cap"),
        CheckConstraint("starting_stack > 0", name="starting_stack"),
        CheckConstraint("currency ~ '^[A-Z]{3}$'", name="currency"),
        CheckConstraint(
            "buy_in >= 0 AND coalesce(rebuy_amount, 0) >= 0 AND coalesce(reentry_amount, 0) >= 0"
            " AND coalesce(addon_amount, 0) >= 0",
            name="amounts",
        ),
        CheckConstraint("addon_chips IS NULL OR addon_chips > 0", name="addon_chips"),
        CheckConstraint("addon_break IS NULL OR addon_break >= 1", name="addon_break"),
        CheckConstraint("itm_percent BETWEEN 0 AND 100 AND itm_min >= 1", name="itm"),
        CheckConstraint(
            "late_reg_deadline IS NULL OR late_reg_deadline > scheduled_start", name="late_reg_after_start"
        ),
        CheckConstraint("reentry_deadline IS NULL OR reentry_deadline > scheduled_start", name="reentry_after_start"),
        CheckConstraint(
            "reentry_deadline IS NULL OR late_reg_deadline IS NULL OR reentry_deadline >= late_reg_deadline",
            name="reentry_not_before_late_reg",
        ),
        CheckConstraint("addon_deadline IS NULL OR addon_deadline > scheduled_start", name="addon_after_start"),
        CheckConstraint("pko_head IS NULL OR (pko_head >= 2 AND bounty_type = 'pko')", name="pko_head"),
        CheckConstraint(
            "(rebuy_until IS NULL OR rebuy_until_level IS NULL) AND (rebuy_until IS NULL OR rebuy_until > scheduled_start)"
            " AND coalesce(rebuy_until_level, 1) >= 1 AND coalesce(rebuy_limit, 0) >= 0 AND coalesce(reentry_limit, 0) >= 0",
            name="topup_limits",
        ),
        CheckConstraint("mystery_phase ~ '^(start|itm|level:[1-9][0-9]*)$'", name="mystery_phase"),
        CheckConstraint("mystery_draw_per IN ('per_killer_entry', 'per_knockout')", name="mystery_draw_per"),
        Index("ix_poker_tournaments_status", "status"),
    )


class Registration(Base):
    """A player's sign-up (3.10). `checked_in_at` set = checked in at the counter.
    status: active; withdrawn (the player unregistered); dropped (a no-show, set by the seating area)."""

    __tablename__ = "poker_registrations"

    id: Mapped[int] = mapped_column(BigInteger, Identity(), primary_key=True)
    tournament_id: Mapped[int] = mapped_column(ForeignKey("poker_tournaments.id"))
    player_id: Mapped[int] = mapped_column(ForeignKey("players.id"))
    status: Mapped[str] = mapped_column(String(12))
    late: Mapped[bool] = mapped_column(Boolean)
    registered_at: Mapped[datetime] = mapped_column(TZ)
    checked_in_at: Mapped[datetime | None] = mapped_column(TZ)
    ended_at: Mapped[datetime | None] = mapped_column(TZ)

    __table_args__ = (
        CheckConstraint("status IN ('active', 'withdrawn', 'dropped')", name="status"),
        CheckConstraint("(status = 'active') = (ended_at IS NULL)", name="ended_when_not_active"),
        Index(
            "uq_poker_registrations_active",
            "tournament_id",
            "player_id",
            unique=True,
            postgresql_where=text("status = 'active'"),
        ),
        Index("ix_poker_registrations_player", "player_id"),
    )


class Entry(Base):
    """One entry of a player (numbered 1.. per player and tournament). A re-entry is a new entry
    linked to the busted one it follows. state: active, busted (out), voided (annulled)."""

    __tablename__ = "poker_entries"

    id: Mapped[int] = mapped_column(BigInteger, Identity(), primary_key=True)
    tournament_id: Mapped[int] = mapped_column(ForeignKey("poker_tournaments.id"))
    player_id: Mapped[int] = mapped_column(ForeignKey("players.id"))
    registration_id: Mapped[int] = mapped_column(ForeignKey("poker_registrations.id"))
    sequence: Mapped[int] = mapped_column(Integer)
    previous_entry_id: Mapped[int | None] = mapped_column(ForeignKey("poker_entries.id"), unique=True)
    state: Mapped[str] = mapped_column(String(8))
    starting_chips: Mapped[int] = mapped_column(BigInteger)
    created_at: Mapped[datetime] = mapped_column(TZ)
    busted_at: Mapped[datetime | None] = mapped_column(TZ)

    __table_args__ = (
        UniqueConstraint("tournament_id", "player_id", "sequence"),
        CheckConstraint("state IN ('active', 'busted', 'voided')", name="state"),
        CheckConstraint("sequence >= 1", name="sequence_positive"),
        CheckConstraint("(sequence = 1) = (previous_entry_id IS NULL)", name="reentry_linked"),
        CheckConstraint("(state = 'busted') = (busted_at IS NOT NULL)", name="busted_at"),
        CheckConstraint("starting_chips > 0", name="starting_chips"),
        Index(
            "uq_poker_entries_one_active",
            "tournament_id",
            "player_id",
            unique=True,
            postgresql_where=text("state = 'active'"),
        ),
    )


class TopUp(Base):
    """Chips bought after the first entry (3.1): a rebuy or add-on into an entry, or the
    starting stack of a re-entry (its new entry)."""

    __tablename__ = "poker_topups"

    id: Mapped[int] = mapped_column(BigInteger, Identity(), primary_key=True)
    tournament_id: Mapped[int] = mapped_column(ForeignKey("poker_tournaments.id"))
    player_id: Mapped[int] = mapped_column(ForeignKey("players.id"))
    entry_id: Mapped[int] = mapped_column(ForeignKey("poker_entries.id"))
    kind: Mapped[str] = mapped_column(String(8))
    chips: Mapped[int] = mapped_column(BigInteger)
    created_at: Mapped[datetime] = mapped_column(TZ)

    __table_args__ = (
        CheckConstraint("kind IN ('rebuy', 'reentry', 'addon')", name="kind"),
        CheckConstraint("chips > 0", name="chips"),
        Index("ix_poker_topups_tournament_player", "tournament_id", "player_id"),
    )


class Settlement(Base):
    """One payment at the counter closing all of a player's unpaid fees in a tournament (3.4).
    Voiding marks it voided (never deleted) and the fees become unpaid again."""

    __tablename__ = "poker_settlements"

    id: Mapped[int] = mapped_column(BigInteger, Identity(), primary_key=True)
    tournament_id: Mapped[int] = mapped_column(ForeignKey("poker_tournaments.id"))
    player_id: Mapped[int] = mapped_column(ForeignKey("players.id"))
    amount: Mapped[int] = mapped_column(BigInteger)
    currency: Mapped[str] = mapped_column(String(3))
    method: Mapped[str] = mapped_column(String(12))
    settled_by: Mapped[str] = mapped_column(Text)
    settled_at: Mapped[datetime] = mapped_column(TZ)
    voided_at: Mapped[datetime | None] = mapped_column(TZ)
    voided_by: Mapped[str | None] = mapped_column(Text)
    void_reason: Mapped[str | None] = mapped_column(Text)

    __table_args__ = (
        CheckConstraint("amount > 0", name="amount"),
        CheckConstraint("currency ~ '^[A-Z]{3}$'", name="currency"),
        CheckConstraint("method IN ('cash', 'card', 'transfer', 'other')", name="method"),
        CheckConstraint("length(btrim(settled_by)) > 0", name="settled_by"),
        CheckConstraint(
            "(voided_at IS NULL AND voided_by IS NULL AND void_reason IS NULL)"
            " OR (voided_at IS NOT NULL AND voided_by IS NOT NULL AND void_reason IS NOT NULL)",
            name="void_complete",
        ),
        Index("ix_poker_settlements_tournament_player", "tournament_id", "player_id"),
    )


class Fee(Base):
    """One organisational fee owed by a player (SP-1): the buy-in of an entry, or the price of a
    top-up. Unpaid while `settlement_id` is NULL. Zero-priced entries and top-ups owe no fee."""

    __tablename__ = "poker_fees"

    id: Mapped[int] = mapped_column(BigInteger, Identity(), primary_key=True)
    tournament_id: Mapped[int] = mapped_column(ForeignKey("poker_tournaments.id"))
    player_id: Mapped[int] = mapped_column(ForeignKey("players.id"))
    entry_id: Mapped[int] = mapped_column(ForeignKey("poker_entries.id"))
    topup_id: Mapped[int | None] = mapped_column(ForeignKey("poker_topups.id"), unique=True)
    kind: Mapped[str] = mapped_column(String(8))
    amount: Mapped[int] = mapped_column(BigInteger)
    currency: Mapped[str] = mapped_column(String(3))
    created_at: Mapped[datetime] = mapped_column(TZ)
    settlement_id: Mapped[int | None] = mapped_column(ForeignKey("poker_settlements.id"))

    __table_args__ = (
        CheckConstraint("kind IN ('buy_in', 'rebuy', 'reentry', 'addon')", name="kind"),
        CheckConstraint("(kind = 'buy_in') = (topup_id IS NULL)", name="topup_for_topup_fees"),
        CheckConstraint("amount > 0", name="amount"),
        CheckConstraint("currency ~ '^[A-Z]{3}$'", name="currency"),
        Index("ix_poker_fees_unpaid", "tournament_id", "player_id", postgresql_where=text("settlement_id IS NULL")),
        Index("ix_poker_fees_settlement", "settlement_id"),
    )


class AuditEvent(Base):
    """Append-only trail of every fee, top-up and settlement event (a trigger refuses UPDATE and
    DELETE). `data` holds ids and amounts only, never personal data. Other poker areas append
    their own kinds."""

    __tablename__ = "poker_audit"

    id: Mapped[int] = mapped_column(BigInteger, Identity(), primary_key=True)
    tournament_id: Mapped[int | None] = mapped_column(ForeignKey("poker_tournaments.id"))
    player_id: Mapped[int | None] = mapped_column(ForeignKey("players.id"))
    kind: Mapped[str] = mapped_column(Text)
    actor: Mapped[str | None] = mapped_column(Text)
    at: Mapped[datetime] = mapped_column(TZ)
    data: Mapped[dict] = mapped_column(JSONB)

    __table_args__ = (Index("ix_poker_audit_tournament", "tournament_id", "id"),)
