"""The clock and its events, tables, seats, moves, seat draws, no-show runs, dead
stacks and their charges (Sport Poker 3.5, 3.6, 3.8; SP-6, SP-8).

Revision ID: 0400
Revises: 0300
"""

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects.postgresql import JSONB

revision = "0400"
down_revision = "0300"
branch_labels = None
depends_on = None

TZ = sa.DateTime(timezone=True)


def _tournament(table: str, **kw) -> sa.Column:
    return sa.Column(
        "tournament_id",
        sa.BigInteger,
        sa.ForeignKey("poker_tournaments.id", name=f"fk_{table}_tournament_id_poker_tournaments"),
        nullable=False,
        **kw,
    )


def upgrade() -> None:
    op.create_table(
        "poker_clock",
        _tournament("poker_clock", primary_key=True),
        sa.Column("segments", JSONB, nullable=False),
        sa.Column("pauses", JSONB, nullable=False),
        sa.Column("overrides", JSONB, nullable=False),
        sa.Column("hands_per_hour", sa.Integer, nullable=False),
        sa.Column("next_change_at", TZ),
        sa.Column("updated_at", TZ, nullable=False),
        sa.PrimaryKeyConstraint("tournament_id", name="pk_poker_clock"),
        sa.CheckConstraint("hands_per_hour > 0", name="ck_poker_clock_hands_per_hour"),
        sa.CheckConstraint("jsonb_array_length(segments) >= 1", name="ck_poker_clock_started"),
    )
    op.create_index(
        "ix_poker_clock_next_change_at",
        "poker_clock",
        ["next_change_at"],
        postgresql_where=sa.text("next_change_at IS NOT NULL"),
    )

    op.create_table(
        "poker_clock_events",
        sa.Column("id", sa.BigInteger, sa.Identity(), primary_key=True),
        _tournament("poker_clock_events"),
        sa.Column("segment", sa.Integer, nullable=False),
        sa.Column("kind", sa.String(16), nullable=False),
        sa.Column("level", sa.Integer, nullable=False),
        sa.Column("break_number", sa.Integer),
        sa.Column("at", TZ, nullable=False),
        sa.Column("recorded_at", TZ, nullable=False),
        sa.PrimaryKeyConstraint("id", name="pk_poker_clock_events"),
        sa.UniqueConstraint(
            "tournament_id",
            "segment",
            "kind",
            "level",
            "at",
            name="uq_poker_clock_events_tournament_id_segment_kind_level_at",
        ),
        sa.CheckConstraint(
            "kind IN ('level-started', 'break-started', 'break-ended', 'paused', 'resumed', 'overridden')",
            name="ck_poker_clock_events_kind",
        ),
        sa.CheckConstraint("level >= 1 AND segment >= 0", name="ck_poker_clock_events_level"),
    )
    op.create_index("ix_poker_clock_events_tournament_at", "poker_clock_events", ["tournament_id", "at"])

    op.create_table(
        "poker_tables",
        _tournament("poker_tables"),
        sa.Column("table_no", sa.Integer, nullable=False),
        sa.Column("opened_at", TZ, nullable=False),
        sa.Column("broken_at", TZ),
        sa.PrimaryKeyConstraint("tournament_id", "table_no", name="pk_poker_tables"),
        sa.CheckConstraint("table_no >= 1", name="ck_poker_tables_table_no"),
    )

    op.create_table(
        "poker_seats",
        sa.Column(
            "entry_id",
            sa.BigInteger,
            sa.ForeignKey("poker_entries.id", name="fk_poker_seats_entry_id_poker_entries"),
            nullable=False,
        ),
        sa.Column("tournament_id", sa.BigInteger, nullable=False),
        sa.Column("table_no", sa.Integer, nullable=False),
        sa.Column("seat_no", sa.Integer, nullable=False),
        sa.Column("seated_at", TZ, nullable=False),
        sa.PrimaryKeyConstraint("entry_id", name="pk_poker_seats"),
        sa.UniqueConstraint(
            "tournament_id", "table_no", "seat_no", name="uq_poker_seats_tournament_id_table_no_seat_no"
        ),
        sa.ForeignKeyConstraint(
            ["tournament_id", "table_no"],
            ["poker_tables.tournament_id", "poker_tables.table_no"],
            name="fk_poker_seats_table",
        ),
        sa.CheckConstraint("seat_no BETWEEN 1 AND 10", name="ck_poker_seats_seat_no"),
    )

    op.create_table(
        "poker_moves",
        sa.Column("id", sa.BigInteger, sa.Identity(), primary_key=True),
        _tournament("poker_moves"),
        sa.Column(
            "entry_id",
            sa.BigInteger,
            sa.ForeignKey("poker_entries.id", name="fk_poker_moves_entry_id_poker_entries"),
            nullable=False,
        ),
        sa.Column("kind", sa.String(12), nullable=False),
        sa.Column("from_table", sa.Integer, nullable=False),
        sa.Column("from_seat", sa.Integer, nullable=False),
        sa.Column("to_table", sa.Integer, nullable=False),
        sa.Column("to_seat", sa.Integer, nullable=False),
        sa.Column("at", TZ, nullable=False),
        sa.Column("actor", sa.Text),
        sa.Column("undone_at", TZ),
        sa.PrimaryKeyConstraint("id", name="pk_poker_moves"),
        sa.CheckConstraint(
            "kind IN ('move', 'break-table', 'final-table', 'undo')", name="ck_poker_moves_kind"
        ),
        sa.CheckConstraint("undone_at IS NULL OR kind = 'move'", name="ck_poker_moves_only_moves_undone"),
    )
    op.create_index("ix_poker_moves_tournament", "poker_moves", ["tournament_id", "id"])

    op.create_table(
        "poker_seat_draws",
        sa.Column("id", sa.BigInteger, sa.Identity(), primary_key=True),
        _tournament("poker_seat_draws"),
        sa.Column("purpose", sa.Text, nullable=False),
        sa.Column("commitment", sa.String(64), nullable=False),
        sa.Column("seed", sa.Text, nullable=False),
        sa.Column("drawn_at", TZ, nullable=False),
        sa.PrimaryKeyConstraint("id", name="pk_poker_seat_draws"),
        sa.UniqueConstraint("tournament_id", "purpose", name="uq_poker_seat_draws_tournament_id_purpose"),
    )

    op.create_table(
        "poker_no_show_runs",
        _tournament("poker_no_show_runs"),
        sa.Column("policy", sa.String(16), nullable=False),
        sa.Column("dropped", sa.Integer, nullable=False),
        sa.Column("dead_stacks", sa.Integer, nullable=False),
        sa.Column("processed_at", TZ, nullable=False),
        sa.PrimaryKeyConstraint("tournament_id", name="pk_poker_no_show_runs"),
    )

    op.create_table(
        "poker_dead_stacks",
        sa.Column("id", sa.BigInteger, sa.Identity(), primary_key=True),
        _tournament("poker_dead_stacks"),
        sa.Column(
            "registration_id",
            sa.BigInteger,
            sa.ForeignKey(
                "poker_registrations.id", name="fk_poker_dead_stacks_registration_id_poker_registrations"
            ),
            nullable=False,
        ),
        sa.Column(
            "entry_id",
            sa.BigInteger,
            sa.ForeignKey("poker_entries.id", name="fk_poker_dead_stacks_entry_id_poker_entries"),
            nullable=False,
        ),
        sa.Column("chips", sa.BigInteger, nullable=False),
        sa.Column("seated_at", TZ, nullable=False),
        sa.Column("arrived_at", TZ),
        sa.Column("busted_at", TZ),
        sa.PrimaryKeyConstraint("id", name="pk_poker_dead_stacks"),
        sa.UniqueConstraint("registration_id", name="uq_poker_dead_stacks_registration_id"),
        sa.UniqueConstraint("entry_id", name="uq_poker_dead_stacks_entry_id"),
        sa.CheckConstraint("chips >= 0", name="ck_poker_dead_stacks_chips"),
        sa.CheckConstraint(
            "(busted_at IS NOT NULL) = (chips = 0)", name="ck_poker_dead_stacks_busted_at_zero"
        ),
        sa.CheckConstraint(
            "arrived_at IS NULL OR busted_at IS NULL", name="ck_poker_dead_stacks_arrived_or_busted"
        ),
    )
    op.create_index(
        "ix_poker_dead_stacks_live",
        "poker_dead_stacks",
        ["tournament_id"],
        postgresql_where=sa.text("arrived_at IS NULL AND busted_at IS NULL"),
    )

    op.create_table(
        "poker_dead_stack_charges",
        sa.Column(
            "dead_stack_id",
            sa.BigInteger,
            sa.ForeignKey(
                "poker_dead_stacks.id", name="fk_poker_dead_stack_charges_dead_stack_id_poker_dead_stacks"
            ),
            nullable=False,
        ),
        sa.Column(
            "event_id",
            sa.BigInteger,
            sa.ForeignKey(
                "poker_clock_events.id", name="fk_poker_dead_stack_charges_event_id_poker_clock_events"
            ),
            nullable=False,
        ),
        sa.Column("paid", sa.BigInteger, nullable=False),
        sa.Column("chips_after", sa.BigInteger, nullable=False),
        sa.Column("busted", sa.Boolean, nullable=False),
        sa.PrimaryKeyConstraint("dead_stack_id", "event_id", name="pk_poker_dead_stack_charges"),
        sa.CheckConstraint("paid >= 0 AND chips_after >= 0", name="ck_poker_dead_stack_charges_amounts"),
    )

    # 3.6: the seat of an entry that busts (or is voided) is freed and stays empty.
    op.execute(
        """
        CREATE FUNCTION poker_free_seat() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
            DELETE FROM poker_seats WHERE entry_id = NEW.id;
            RETURN NULL;
        END $$;
        CREATE TRIGGER poker_free_seat AFTER UPDATE OF state ON poker_entries
            FOR EACH ROW WHEN (OLD.state = 'active' AND NEW.state <> 'active')
            EXECUTE FUNCTION poker_free_seat();
        """
    )
    # 3.6: no entry of a running tournament whose seating is drawn is committed without a seat.
    op.execute(
        """
        CREATE FUNCTION poker_entry_needs_seat() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
            IF EXISTS (SELECT 1 FROM poker_entries e
                       JOIN poker_tournaments t ON t.id = e.tournament_id
                       WHERE e.id = NEW.id AND e.state = 'active' AND t.status = 'running')
               AND EXISTS (SELECT 1 FROM poker_tables WHERE tournament_id = NEW.tournament_id)
               AND NOT EXISTS (SELECT 1 FROM poker_seats WHERE entry_id = NEW.id) THEN
                RAISE EXCEPTION 'entry % of tournament % has no seat', NEW.id, NEW.tournament_id
                    USING ERRCODE = 'check_violation';
            END IF;
            RETURN NULL;
        END $$;
        CREATE CONSTRAINT TRIGGER poker_entry_needs_seat AFTER INSERT ON poker_entries
            DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION poker_entry_needs_seat();
        """
    )


def downgrade() -> None:
    op.execute(
        "DROP TRIGGER poker_entry_needs_seat ON poker_entries; DROP FUNCTION poker_entry_needs_seat();"
    )
    op.execute("DROP TRIGGER poker_free_seat ON poker_entries; DROP FUNCTION poker_free_seat();")
    for table in (
        "poker_dead_stack_charges",
        "poker_dead_stacks",
        "poker_no_show_runs",
        "poker_seat_draws",
        "poker_moves",
        "poker_seats",
        "poker_tables",
        "poker_clock_events",
        "poker_clock",
    ):
        op.drop_table(table)
