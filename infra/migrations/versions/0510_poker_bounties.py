"""Poker progressive and shared knockouts (RULES SP-9, SP-10).

- `poker_tournaments.pko_head` (NULL: no heads, today's rule) and `shared_knockouts` (false: today's
  rule, 0.5 for the primary of two killers);
- `poker_knockout_shares`: one row per killer of a knockout, append-only, exact credit units
  (1/2520 of a full credit) and PKO points credited and added to the head;
- `poker_places.credit_units`, `pko_points`: the exact credit and the PKO total of a placed player.

Revision ID: 0501
Revises: 0500
"""

import sqlalchemy as sa
from alembic import op

revision = "0510"
down_revision = "0501"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column("poker_tournaments", sa.Column("pko_head", sa.Integer))
    op.add_column(
        "poker_tournaments",
        sa.Column("shared_knockouts", sa.Boolean, nullable=False, server_default=sa.text("false")),
    )
    op.create_check_constraint(
        "pko_head", "poker_tournaments", "pko_head IS NULL OR (pko_head >= 2 AND bounty_type = 'pko')"
    )
    t = "poker_knockout_shares"
    op.create_table(
        t,
        sa.Column(
            "knockout_id", sa.BigInteger,
            sa.ForeignKey("poker_knockouts.id", name=f"fk_{t}_knockout_id_poker_knockouts"), nullable=False,
        ),
        sa.Column("position", sa.SmallInteger, nullable=False),
        sa.Column(
            "killer_entry_id", sa.BigInteger,
            sa.ForeignKey("poker_entries.id", name=f"fk_{t}_killer_entry_id_poker_entries"), nullable=False,
        ),
        sa.Column("credit_units", sa.Integer, nullable=False),
        sa.Column("pko_points", sa.BigInteger, nullable=False),
        sa.Column("head_added", sa.BigInteger, nullable=False),
        sa.PrimaryKeyConstraint("knockout_id", "position", name=f"pk_{t}"),
        sa.UniqueConstraint("knockout_id", "killer_entry_id", name="uq_poker_knockout_shares_killer"),
        sa.CheckConstraint("position BETWEEN 1 AND 9", name="position"),
        sa.CheckConstraint("credit_units > 0 AND credit_units <= 2520", name="credit_units"),
        sa.CheckConstraint("pko_points >= 0 AND head_added >= 0", name="points"),
    )
    op.create_index("ix_poker_knockout_shares_killer", t, ["killer_entry_id"])
    op.execute(
        f"CREATE TRIGGER {t}_append_only BEFORE UPDATE OR DELETE ON {t}"
        " FOR EACH ROW EXECUTE FUNCTION poker_results_append_only()"
    )
    op.add_column("poker_places", sa.Column("credit_units", sa.Integer))
    op.add_column("poker_places", sa.Column("pko_points", sa.BigInteger))


def downgrade() -> None:
    op.drop_column("poker_places", "pko_points")
    op.drop_column("poker_places", "credit_units")
    op.execute("DROP TRIGGER poker_knockout_shares_append_only ON poker_knockout_shares")
    op.drop_table("poker_knockout_shares")
    op.drop_constraint("ck_poker_tournaments_pko_head", "poker_tournaments")
    op.drop_column("poker_tournaments", "shared_knockouts")
    op.drop_column("poker_tournaments", "pko_head")
