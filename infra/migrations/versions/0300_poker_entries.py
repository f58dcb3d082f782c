"""Players, blind structures and levels, tournaments, registrations, entries,
top-ups, fees, settlements and the append-only audit trail (Sport Poker 1.2, 3.1, 3.4, 3.5, 3.9,
3.10; SP-1, SP-2).

Revision ID: 0300
Revises: 0001
Depends on: 0100 (clubs)
"""

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects.postgresql import JSONB

revision = "0300"
down_revision = "0001"
branch_labels = None
depends_on = "0100"

TZ = sa.DateTime(timezone=True)


def _id() -> sa.Column:
    return sa.Column("id", sa.BigInteger, sa.Identity(), primary_key=True)


def upgrade() -> None:
    op.create_table(
        "players",
        _id(),
        sa.Column("pseudonym", sa.Text, nullable=False),
        sa.Column("name", sa.Text),
        sa.Column("handle", sa.Text),
        sa.Column("birth_date", sa.Date),
        sa.Column("blocked_at", TZ),
        sa.Column("blocked_reason", sa.Text),
        sa.Column("forgotten_at", TZ),
        sa.Column("created_at", TZ, nullable=False),
        sa.UniqueConstraint("pseudonym", name="uq_players_pseudonym"),
        sa.CheckConstraint(
            "(forgotten_at IS NULL AND name IS NOT NULL AND handle IS NOT NULL AND birth_date IS NOT NULL)"
            " OR (forgotten_at IS NOT NULL AND name IS NULL AND handle IS NULL AND birth_date IS NULL)",
            name="ck_players_profile_or_forgotten",
        ),
        sa.CheckConstraint("(blocked_at IS NULL) = (blocked_reason IS NULL)", name="ck_players_block_has_reason"),
    )
    op.execute("CREATE UNIQUE INDEX uq_players_handle_lower ON players (lower(handle))")

    op.create_table(
        "poker_structures",
        _id(),
        sa.Column("club_id", sa.BigInteger, sa.ForeignKey("clubs.id", name="fk_poker_structures_club_id_clubs"), nullable=False),
        sa.Column("name", sa.Text, nullable=False),
        sa.Column("ante_type", sa.String(16), nullable=False),
        sa.Column("created_at", TZ, nullable=False),
        sa.UniqueConstraint("club_id", "name", name="uq_poker_structures_club_id_name"),
        sa.CheckConstraint("ante_type IN ('none', 'classic', 'bb_ante')", name="ck_poker_structures_ante_type"),
        sa.CheckConstraint("length(btrim(name)) > 0", name="ck_poker_structures_name_not_blank"),
    )

    op.create_table(
        "poker_levels",
        _id(),
        sa.Column(
            "structure_id",
            sa.BigInteger,
            sa.ForeignKey("poker_structures.id", ondelete="CASCADE", name="fk_poker_levels_structure_id_poker_structures"),
            nullable=False,
        ),
        sa.Column("position", sa.Integer, nullable=False),
        sa.Column("small_blind", sa.BigInteger, nullable=False),
        sa.Column("big_blind", sa.BigInteger, nullable=False),
        sa.Column("ante", sa.BigInteger, nullable=False),
        sa.Column("duration_seconds", sa.Integer, nullable=False),
        sa.Column("is_break", sa.Boolean, nullable=False),
        sa.UniqueConstraint("structure_id", "position", name="uq_poker_levels_structure_id_position"),
        sa.CheckConstraint("position >= 1", name="ck_poker_levels_position_positive"),
        sa.CheckConstraint("duration_seconds > 0", name="ck_poker_levels_duration_positive"),
        sa.CheckConstraint(
            "(is_break AND small_blind = 0 AND big_blind = 0 AND ante = 0)"
            " OR (NOT is_break AND small_blind > 0 AND big_blind >= small_blind AND ante >= 0)",
            name="ck_poker_levels_blinds",
        ),
    )

    op.create_table(
        "poker_tournaments",
        _id(),
        sa.Column("club_id", sa.BigInteger, sa.ForeignKey("clubs.id", name="fk_poker_tournaments_club_id_clubs"), nullable=False),
        sa.Column("name", sa.Text, nullable=False),
        sa.Column("status", sa.String(20), nullable=False),
        sa.Column("scheduled_start", TZ, nullable=False),
        sa.Column("format", sa.String(16), nullable=False),
        sa.Column("bounty_type", sa.String(16), nullable=False),
        sa.Column("mystery_draw", sa.Boolean, nullable=False),
        sa.Column("starting_stack", sa.BigInteger, nullable=False),
        sa.Column(
            "structure_id",
            sa.BigInteger,
            sa.ForeignKey("poker_structures.id", name="fk_poker_tournaments_structure_id_poker_structures"),
            nullable=False,
        ),
        sa.Column("seat_cap", sa.Integer, nullable=False),
        sa.Column("late_reg_deadline", TZ),
        sa.Column("reentry_deadline", TZ),
        sa.Column("addon_deadline", TZ),
        sa.Column("addon_break", sa.Integer),
        sa.Column("addon_once", sa.Boolean, nullable=False),
        sa.Column("addon_chips", sa.BigInteger),
        sa.Column("currency", sa.String(3), nullable=False),
        sa.Column("buy_in", sa.BigInteger, nullable=False),
        sa.Column("rebuy_amount", sa.BigInteger),
        sa.Column("reentry_amount", sa.BigInteger),
        sa.Column("addon_amount", sa.BigInteger),
        sa.Column("no_show_policy", sa.String(16), nullable=False),
        sa.Column("itm_percent", sa.Integer, nullable=False),
        sa.Column("itm_min", sa.Integer, nullable=False),
        sa.Column("created_at", TZ, nullable=False),
        sa.Column("opened_at", TZ),
        sa.Column("started_at", TZ),
        sa.Column("finished_at", TZ),
        sa.Column("cancelled_at", TZ),
        sa.CheckConstraint(
            "status IN ('draft', 'registration_open', 'running', 'finished', 'cancelled')",
            name="ck_poker_tournaments_status",
        ),
        sa.CheckConstraint(
            "format IN ('freezeout', 'rebuy', 'reentry', 'addon', 'bounty')", name="ck_poker_tournaments_format"
        ),
        sa.CheckConstraint(
            "bounty_type IN ('none', 'classic', 'pko', 'mystery')", name="ck_poker_tournaments_bounty_type"
        ),
        sa.CheckConstraint("no_show_policy IN ('drop', 'absent_mode')", name="ck_poker_tournaments_no_show_policy"),
        sa.CheckConstraint("length(btrim(name)) > 0", name="ck_poker_tournaments_name_not_blank"),
        sa.CheckConstraint("seat_cap BETWEEN 2 AND 10", name="ck_poker_tournaments_seat_cap"),
        sa.CheckConstraint("starting_stack > 0", name="ck_poker_tournaments_starting_stack"),
        sa.CheckConstraint("currency ~ '^[A-Z]{3}$'", name="ck_poker_tournaments_currency"),
        sa.CheckConstraint(
            "buy_in >= 0 AND coalesce(rebuy_amount, 0) >= 0 AND coalesce(reentry_amount, 0) >= 0"
            " AND coalesce(addon_amount, 0) >= 0",
            name="ck_poker_tournaments_amounts",
        ),
        sa.CheckConstraint("addon_chips IS NULL OR addon_chips > 0", name="ck_poker_tournaments_addon_chips"),
        sa.CheckConstraint("addon_break IS NULL OR addon_break >= 1", name="ck_poker_tournaments_addon_break"),
        sa.CheckConstraint("itm_percent BETWEEN 0 AND 100 AND itm_min >= 1", name="ck_poker_tournaments_itm"),
        sa.CheckConstraint(
            "late_reg_deadline IS NULL OR late_reg_deadline > scheduled_start",
            name="ck_poker_tournaments_late_reg_after_start",
        ),
        sa.CheckConstraint(
            "reentry_deadline IS NULL OR reentry_deadline > scheduled_start",
            name="ck_poker_tournaments_reentry_after_start",
        ),
        sa.CheckConstraint(
            "reentry_deadline IS NULL OR late_reg_deadline IS NULL OR reentry_deadline >= late_reg_deadline",
            name="ck_poker_tournaments_reentry_not_before_late_reg",
        ),
        sa.CheckConstraint(
            "addon_deadline IS NULL OR addon_deadline > scheduled_start", name="ck_poker_tournaments_addon_after_start"
        ),
    )
    op.create_index("ix_poker_tournaments_status", "poker_tournaments", ["status"])

    op.create_table(
        "poker_registrations",
        _id(),
        sa.Column(
            "tournament_id",
            sa.BigInteger,
            sa.ForeignKey("poker_tournaments.id", name="fk_poker_registrations_tournament_id_poker_tournaments"),
            nullable=False,
        ),
        sa.Column(
            "player_id",
            sa.BigInteger,
            sa.ForeignKey("players.id", name="fk_poker_registrations_player_id_players"),
            nullable=False,
        ),
        sa.Column("status", sa.String(12), nullable=False),
        sa.Column("late", sa.Boolean, nullable=False),
        sa.Column("registered_at", TZ, nullable=False),
        sa.Column("checked_in_at", TZ),
        sa.Column("ended_at", TZ),
        sa.CheckConstraint("status IN ('active', 'withdrawn', 'dropped')", name="ck_poker_registrations_status"),
        sa.CheckConstraint(
            "(status = 'active') = (ended_at IS NULL)", name="ck_poker_registrations_ended_when_not_active"
        ),
    )
    op.create_index(
        "uq_poker_registrations_active",
        "poker_registrations",
        ["tournament_id", "player_id"],
        unique=True,
        postgresql_where=sa.text("status = 'active'"),
    )
    op.create_index("ix_poker_registrations_player", "poker_registrations", ["player_id"])

    op.create_table(
        "poker_entries",
        _id(),
        sa.Column(
            "tournament_id",
            sa.BigInteger,
            sa.ForeignKey("poker_tournaments.id", name="fk_poker_entries_tournament_id_poker_tournaments"),
            nullable=False,
        ),
        sa.Column(
            "player_id", sa.BigInteger, sa.ForeignKey("players.id", name="fk_poker_entries_player_id_players"), nullable=False
        ),
        sa.Column(
            "registration_id",
            sa.BigInteger,
            sa.ForeignKey("poker_registrations.id", name="fk_poker_entries_registration_id_poker_registrations"),
            nullable=False,
        ),
        sa.Column("sequence", sa.Integer, nullable=False),
        sa.Column(
            "previous_entry_id",
            sa.BigInteger,
            sa.ForeignKey("poker_entries.id", name="fk_poker_entries_previous_entry_id_poker_entries"),
        ),
        sa.Column("state", sa.String(8), nullable=False),
        sa.Column("starting_chips", sa.BigInteger, nullable=False),
        sa.Column("created_at", TZ, nullable=False),
        sa.Column("busted_at", TZ),
        sa.UniqueConstraint(
            "tournament_id", "player_id", "sequence", name="uq_poker_entries_tournament_id_player_id_sequence"
        ),
        sa.UniqueConstraint("previous_entry_id", name="uq_poker_entries_previous_entry_id"),
        sa.CheckConstraint("state IN ('active', 'busted', 'voided')", name="ck_poker_entries_state"),
        sa.CheckConstraint("sequence >= 1", name="ck_poker_entries_sequence_positive"),
        sa.CheckConstraint("(sequence = 1) = (previous_entry_id IS NULL)", name="ck_poker_entries_reentry_linked"),
        sa.CheckConstraint("(state = 'busted') = (busted_at IS NOT NULL)", name="ck_poker_entries_busted_at"),
        sa.CheckConstraint("starting_chips > 0", name="ck_poker_entries_starting_chips"),
    )
    op.create_index(
        "uq_poker_entries_one_active",
        "poker_entries",
        ["tournament_id", "player_id"],
        unique=True,
        postgresql_where=sa.text("state = 'active'"),
    )

    op.create_table(
        "poker_topups",
        _id(),
        sa.Column(
            "tournament_id",
            sa.BigInteger,
            sa.ForeignKey("poker_tournaments.id", name="fk_poker_topups_tournament_id_poker_tournaments"),
            nullable=False,
        ),
        sa.Column(
            "player_id", sa.BigInteger, sa.ForeignKey("players.id", name="fk_poker_topups_player_id_players"), nullable=False
        ),
        sa.Column(
            "entry_id",
            sa.BigInteger,
            sa.ForeignKey("poker_entries.id", name="fk_poker_topups_entry_id_poker_entries"),
            nullable=False,
        ),
        sa.Column("kind", sa.String(8), nullable=False),
        sa.Column("chips", sa.BigInteger, nullable=False),
        sa.Column("created_at", TZ, nullable=False),
        sa.CheckConstraint("kind IN ('rebuy', 'reentry', 'addon')", name="ck_poker_topups_kind"),
        sa.CheckConstraint("chips > 0", name="ck_poker_topups_chips"),
    )
    op.create_index("ix_poker_topups_tournament_player", "poker_topups", ["tournament_id", "player_id"])

    op.create_table(
        "poker_settlements",
        _id(),
        sa.Column(
            "tournament_id",
            sa.BigInteger,
            sa.ForeignKey("poker_tournaments.id", name="fk_poker_settlements_tournament_id_poker_tournaments"),
            nullable=False,
        ),
        sa.Column(
            "player_id",
            sa.BigInteger,
            sa.ForeignKey("players.id", name="fk_poker_settlements_player_id_players"),
            nullable=False,
        ),
        sa.Column("amount", sa.BigInteger, nullable=False),
        sa.Column("currency", sa.String(3), nullable=False),
        sa.Column("method", sa.String(12), nullable=False),
        sa.Column("settled_by", sa.Text, nullable=False),
        sa.Column("settled_at", TZ, nullable=False),
        sa.Column("voided_at", TZ),
        sa.Column("voided_by", sa.Text),
        sa.Column("void_reason", sa.Text),
        sa.CheckConstraint("amount > 0", name="ck_poker_settlements_amount"),
        sa.CheckConstraint("currency ~ '^[A-Z]{3}$'", name="ck_poker_settlements_currency"),
        sa.CheckConstraint("method IN ('cash', 'card', 'transfer', 'other')", name="ck_poker_settlements_method"),
        sa.CheckConstraint("length(btrim(settled_by)) > 0", name="ck_poker_settlements_settled_by"),
        sa.CheckConstraint(
            "(voided_at IS NULL AND voided_by IS NULL AND void_reason IS NULL)"
            " OR (voided_at IS NOT NULL AND voided_by IS NOT NULL AND void_reason IS NOT NULL)",
            name="ck_poker_settlements_void_complete",
        ),
    )
    op.create_index(
        "ix_poker_settlements_tournament_player", "poker_settlements", ["tournament_id", "player_id"]
    )

    op.create_table(
        "poker_fees",
        _id(),
        sa.Column(
            "tournament_id",
            sa.BigInteger,
            sa.ForeignKey("poker_tournaments.id", name="fk_poker_fees_tournament_id_poker_tournaments"),
            nullable=False,
        ),
        sa.Column(
            "player_id", sa.BigInteger, sa.ForeignKey("players.id", name="fk_poker_fees_player_id_players"), nullable=False
        ),
        sa.Column(
            "entry_id",
            sa.BigInteger,
            sa.ForeignKey("poker_entries.id", name="fk_poker_fees_entry_id_poker_entries"),
            nullable=False,
        ),
        sa.Column(
            "topup_id", sa.BigInteger, sa.ForeignKey("poker_topups.id", name="fk_poker_fees_topup_id_poker_topups")
        ),
        sa.Column("kind", sa.String(8), nullable=False),
        sa.Column("amount", sa.BigInteger, nullable=False),
        sa.Column("currency", sa.String(3), nullable=False),
        sa.Column("created_at", TZ, nullable=False),
        sa.Column(
            "settlement_id",
            sa.BigInteger,
            sa.ForeignKey("poker_settlements.id", name="fk_poker_fees_settlement_id_poker_settlements"),
        ),
        sa.UniqueConstraint("topup_id", name="uq_poker_fees_topup_id"),
        sa.CheckConstraint("kind IN ('buy_in', 'rebuy', 'reentry', 'addon')", name="ck_poker_fees_kind"),
        sa.CheckConstraint("(kind = 'buy_in') = (topup_id IS NULL)", name="ck_poker_fees_topup_for_topup_fees"),
        sa.CheckConstraint("amount > 0", name="ck_poker_fees_amount"),
        sa.CheckConstraint("currency ~ '^[A-Z]{3}$'", name="ck_poker_fees_currency"),
    )
    op.create_index(
        "ix_poker_fees_unpaid",
        "poker_fees",
        ["tournament_id", "player_id"],
        postgresql_where=sa.text("settlement_id IS NULL"),
    )
    op.create_index("ix_poker_fees_settlement", "poker_fees", ["settlement_id"])

    op.create_table(
        "poker_audit",
        _id(),
        sa.Column(
            "tournament_id",
            sa.BigInteger,
            sa.ForeignKey("poker_tournaments.id", name="fk_poker_audit_tournament_id_poker_tournaments"),
        ),
        sa.Column("player_id", sa.BigInteger, sa.ForeignKey("players.id", name="fk_poker_audit_player_id_players")),
        sa.Column("kind", sa.Text, nullable=False),
        sa.Column("actor", sa.Text),
        sa.Column("at", TZ, nullable=False),
        sa.Column("data", JSONB, nullable=False),
    )
    op.create_index("ix_poker_audit_tournament", "poker_audit", ["tournament_id", "id"])
    op.execute(
        """
        CREATE FUNCTION poker_audit_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
            RAISE EXCEPTION 'poker_audit is append-only: % refused', TG_OP;
        END $$;
        CREATE TRIGGER poker_audit_append_only BEFORE UPDATE OR DELETE ON poker_audit
            FOR EACH ROW EXECUTE FUNCTION poker_audit_append_only();
        """
    )


def downgrade() -> None:
    op.execute("DROP TRIGGER poker_audit_append_only ON poker_audit; DROP FUNCTION poker_audit_append_only();")
    for table in (
        "poker_audit",
        "poker_fees",
        "poker_settlements",
        "poker_topups",
        "poker_entries",
        "poker_registrations",
        "poker_tournaments",
        "poker_levels",
        "poker_structures",
        "players",
    ):
        op.drop_table(table)
