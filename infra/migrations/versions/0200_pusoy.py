"""Pusoy Dos bracket tournaments: tournaments, entries, committed draws, rounds, seats, games,
finishes, the game audit trail and locked standings (PD-1..PD-13).

`club_id` gets its foreign key to clubs.id in 0201 (which depends on the clubs migration 0100).

Revision ID: 0200
Revises: 0001
"""

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects.postgresql import ARRAY, JSONB

revision = "0200"
down_revision = "0001"
branch_labels = None
depends_on = None

TZ = sa.DateTime(timezone=True)
ROUND = ["tournament_id", "round_no"]
GAME = ["tournament_id", "round_no", "stage", "table_no", "game_no"]


def _round_fk(table: str) -> sa.ForeignKeyConstraint:
    return sa.ForeignKeyConstraint(
        ROUND, ["pusoy_rounds.tournament_id", "pusoy_rounds.number"],
        name=f"fk_{table}_tournament_id_pusoy_rounds", ondelete="CASCADE",
    )


def _entry_fk(table: str) -> sa.ForeignKeyConstraint:
    return sa.ForeignKeyConstraint(
        ["tournament_id", "player"], ["pusoy_entries.tournament_id", "pusoy_entries.player"],
        name=f"fk_{table}_tournament_id_pusoy_entries", ondelete="CASCADE",
    )


def _game_fk(table: str) -> sa.ForeignKeyConstraint:
    return sa.ForeignKeyConstraint(
        GAME, [f"pusoy_games.{c}" for c in GAME], name=f"fk_{table}_tournament_id_pusoy_games", ondelete="CASCADE"
    )


def _tournament_fk(table: str) -> sa.ForeignKeyConstraint:
    return sa.ForeignKeyConstraint(
        ["tournament_id"], ["pusoy_tournaments.id"], name=f"fk_{table}_tournament_id_pusoy_tournaments",
        ondelete="CASCADE",
    )


def upgrade() -> None:
    op.create_table(
        "pusoy_tournaments",
        sa.Column("id", sa.BigInteger, sa.Identity(), primary_key=True),
        sa.Column("code", sa.String(6), nullable=False),
        sa.Column("name", sa.String(120), nullable=False),
        sa.Column("organizer", sa.String(40), nullable=False),
        sa.Column("organizer_email", sa.String(254)),
        sa.Column("club_id", sa.BigInteger),
        sa.Column("capacity", sa.SmallInteger, nullable=False),
        sa.Column("private", sa.Boolean, nullable=False),
        sa.Column("games_per_round", sa.SmallInteger, nullable=False),
        sa.Column("bracket", ARRAY(sa.SmallInteger), nullable=False),
        sa.Column("custom_bracket", sa.Boolean, nullable=False),
        sa.Column("status", sa.String(12), nullable=False),
        sa.Column("entrants", sa.SmallInteger, nullable=False),
        sa.Column("current_round", sa.SmallInteger),
        sa.Column("champion", sa.String(40)),
        sa.Column("created_at", TZ, nullable=False),
        sa.Column("started_at", TZ),
        sa.Column("finished_at", TZ),
        sa.PrimaryKeyConstraint("id", name="pk_pusoy_tournaments"),
        sa.UniqueConstraint("code", name="uq_pusoy_tournaments_code"),
        sa.CheckConstraint("capacity IN (8, 16, 32)", name="ck_pusoy_tournaments_capacity"),
        sa.CheckConstraint("games_per_round BETWEEN 1 AND 10", name="ck_pusoy_tournaments_games_per_round"),
        sa.CheckConstraint("code ~ '^[23456789ABCDEFGHJKLMNPQRSTUVWXYZ]{6}$'", name="ck_pusoy_tournaments_code"),
        sa.CheckConstraint(
            "bracket[1] = capacity AND bracket[cardinality(bracket)] = 4", name="ck_pusoy_tournaments_bracket"
        ),
        sa.CheckConstraint("entrants BETWEEN 0 AND capacity", name="ck_pusoy_tournaments_entrants"),
        sa.CheckConstraint(
            "status IN ('setup', 'active', 'complete', 'cancelled')", name="ck_pusoy_tournaments_status"
        ),
        sa.CheckConstraint("(status = 'complete') = (champion IS NOT NULL)", name="ck_pusoy_tournaments_champion"),
    )
    op.create_index(
        "ix_pusoy_tournaments_browse", "pusoy_tournaments", ["created_at"],
        postgresql_where=sa.text("status = 'setup' AND NOT private"),
    )
    op.create_table(
        "pusoy_entries",
        sa.Column("tournament_id", sa.BigInteger, nullable=False),
        sa.Column("player", sa.String(40), nullable=False),
        sa.Column("joined_at", TZ, nullable=False),
        sa.Column("left_round", sa.SmallInteger),
        sa.Column("final_position", sa.SmallInteger),
        sa.PrimaryKeyConstraint("tournament_id", "player", name="pk_pusoy_entries"),
        _tournament_fk("pusoy_entries"),
    )
    op.create_table(
        "pusoy_draws",
        sa.Column("tournament_id", sa.BigInteger, nullable=False),
        sa.Column("seq", sa.SmallInteger, nullable=False),
        sa.Column("commitment", sa.String(64), nullable=False),
        sa.Column("seed", sa.String(64), nullable=False),
        sa.Column("committed_at", TZ, nullable=False),
        sa.Column("purpose", sa.Text),
        sa.Column("items", JSONB),
        sa.Column("outcome", JSONB),
        sa.Column("revealed_at", TZ),
        sa.PrimaryKeyConstraint("tournament_id", "seq", name="pk_pusoy_draws"),
        _tournament_fk("pusoy_draws"),
        sa.CheckConstraint("(revealed_at IS NULL) = (purpose IS NULL)", name="ck_pusoy_draws_revealed"),
    )
    op.create_table(
        "pusoy_rounds",
        sa.Column("tournament_id", sa.BigInteger, nullable=False),
        sa.Column("number", sa.SmallInteger, nullable=False),
        sa.Column("field", sa.SmallInteger, nullable=False),
        sa.Column("advancing", sa.SmallInteger, nullable=False),
        sa.Column("stage", sa.SmallInteger, nullable=False),
        sa.Column("status", sa.String(8), nullable=False),
        sa.Column("expected_games", sa.SmallInteger, nullable=False),
        sa.Column("started_at", TZ, nullable=False),
        sa.Column("locked_at", TZ),
        sa.PrimaryKeyConstraint("tournament_id", "number", name="pk_pusoy_rounds"),
        _tournament_fk("pusoy_rounds"),
        sa.CheckConstraint("status IN ('playing', 'playoff', 'locked')", name="ck_pusoy_rounds_status"),
        sa.CheckConstraint("(status = 'playing') = (stage = 0) OR status = 'locked'", name="ck_pusoy_rounds_stage"),
        sa.CheckConstraint("advancing BETWEEN 1 AND field", name="ck_pusoy_rounds_advancing"),
    )
    op.create_index(
        "ix_pusoy_rounds_open", "pusoy_rounds", ["tournament_id", "number"],
        postgresql_where=sa.text("status <> 'locked'"),
    )
    op.create_table(
        "pusoy_seats",
        sa.Column("tournament_id", sa.BigInteger, nullable=False),
        sa.Column("round_no", sa.SmallInteger, nullable=False),
        sa.Column("stage", sa.SmallInteger, nullable=False),
        sa.Column("player", sa.String(40), nullable=False),
        sa.Column("table_no", sa.SmallInteger, nullable=False),
        sa.Column("seat_no", sa.SmallInteger, nullable=False),
        sa.PrimaryKeyConstraint("tournament_id", "round_no", "stage", "player", name="pk_pusoy_seats"),
        _round_fk("pusoy_seats"),
        _entry_fk("pusoy_seats"),
        sa.UniqueConstraint(
            "tournament_id", "round_no", "stage", "table_no", "seat_no",
            name="uq_pusoy_seats_seat",
        ),
        sa.UniqueConstraint(
            "tournament_id", "round_no", "stage", "table_no", "player",
            name="uq_pusoy_seats_table_player",
        ),
        sa.CheckConstraint("seat_no BETWEEN 1 AND 4", name="ck_pusoy_seats_seat_no"),
    )
    op.create_table(
        "pusoy_games",
        sa.Column("tournament_id", sa.BigInteger, nullable=False),
        sa.Column("round_no", sa.SmallInteger, nullable=False),
        sa.Column("stage", sa.SmallInteger, nullable=False),
        sa.Column("table_no", sa.SmallInteger, nullable=False),
        sa.Column("game_no", sa.SmallInteger, nullable=False),
        sa.Column("reported_by", sa.String(40)),
        sa.Column("reported_at", TZ, nullable=False),
        sa.Column("amended_at", TZ),
        sa.PrimaryKeyConstraint(*GAME, name="pk_pusoy_games"),
        _round_fk("pusoy_games"),
        sa.CheckConstraint("game_no BETWEEN 1 AND 10", name="ck_pusoy_games_game_no"),
    )
    op.create_table(
        "pusoy_finishes",
        sa.Column("tournament_id", sa.BigInteger, nullable=False),
        sa.Column("round_no", sa.SmallInteger, nullable=False),
        sa.Column("stage", sa.SmallInteger, nullable=False),
        sa.Column("table_no", sa.SmallInteger, nullable=False),
        sa.Column("game_no", sa.SmallInteger, nullable=False),
        sa.Column("player", sa.String(40), nullable=False),
        sa.Column("position", sa.SmallInteger, nullable=False),
        sa.Column("two_of_diamonds", sa.Boolean, nullable=False),
        sa.PrimaryKeyConstraint(*GAME, "player", name="pk_pusoy_finishes"),
        _game_fk("pusoy_finishes"),
        sa.ForeignKeyConstraint(
            ["tournament_id", "round_no", "stage", "table_no", "player"],
            [f"pusoy_seats.{c}" for c in ("tournament_id", "round_no", "stage", "table_no", "player")],
            name="fk_pusoy_finishes_tournament_id_pusoy_seats",
        ),
        sa.UniqueConstraint(*GAME, "position", name="uq_pusoy_finishes_position"),
        sa.CheckConstraint("position BETWEEN 1 AND 4", name="ck_pusoy_finishes_position"),
        sa.CheckConstraint("NOT two_of_diamonds OR position = 1", name="ck_pusoy_finishes_two_of_diamonds"),
    )
    op.create_table(
        "pusoy_game_audit",
        sa.Column("id", sa.BigInteger, sa.Identity(), nullable=False),
        sa.Column("tournament_id", sa.BigInteger, nullable=False),
        sa.Column("round_no", sa.SmallInteger, nullable=False),
        sa.Column("stage", sa.SmallInteger, nullable=False),
        sa.Column("table_no", sa.SmallInteger, nullable=False),
        sa.Column("game_no", sa.SmallInteger, nullable=False),
        sa.Column("action", sa.String(8), nullable=False),
        sa.Column("by", sa.String(40)),
        sa.Column("reason", sa.Text),
        sa.Column("before", JSONB),
        sa.Column("after", JSONB, nullable=False),
        sa.Column("at", TZ, nullable=False),
        sa.PrimaryKeyConstraint("id", name="pk_pusoy_game_audit"),
        _game_fk("pusoy_game_audit"),
        sa.CheckConstraint("action IN ('report', 'amend')", name="ck_pusoy_game_audit_action"),
    )
    op.create_table(
        "pusoy_standings",
        sa.Column("tournament_id", sa.BigInteger, nullable=False),
        sa.Column("round_no", sa.SmallInteger, nullable=False),
        sa.Column("player", sa.String(40), nullable=False),
        sa.Column("listed", sa.SmallInteger, nullable=False),
        sa.Column("points", sa.Integer, nullable=False),
        sa.Column("rank", sa.SmallInteger, nullable=False),
        sa.Column("decided_by", sa.String(32)),
        sa.Column("advanced", sa.Boolean, nullable=False),
        sa.PrimaryKeyConstraint("tournament_id", "round_no", "player", name="pk_pusoy_standings"),
        _round_fk("pusoy_standings"),
        _entry_fk("pusoy_standings"),
    )


def downgrade() -> None:
    for table in (
        "pusoy_standings", "pusoy_game_audit", "pusoy_finishes", "pusoy_games", "pusoy_seats",
        "pusoy_rounds", "pusoy_draws", "pusoy_entries", "pusoy_tournaments",
    ):
        op.drop_table(table)
