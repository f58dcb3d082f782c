"""The timekeeper: refused moments kept with their reason, the index of the no-show moments' instant;
the exact runs' bookkeeping (`poker_clock.run_scheduled_for`) goes.

Revision ID: 0410
Revises: 0401
"""

import sqlalchemy as sa
from alembic import op

revision = "0410"
down_revision = "0401"
branch_labels = None
depends_on = None

TZ = sa.DateTime(timezone=True)


def upgrade() -> None:
    op.create_table(
        "poker_moment_failures",
        sa.Column("job", sa.String(32), nullable=False),
        sa.Column("tournament_id", sa.BigInteger, nullable=False),
        sa.Column("due_at", TZ, nullable=False),
        sa.Column("code", sa.String(64), nullable=False),
        sa.Column("reason", sa.Text, nullable=False),
        sa.Column("failed_at", TZ, nullable=False),
        sa.PrimaryKeyConstraint("job", "tournament_id", "due_at", name="pk_poker_moment_failures"),
    )
    op.execute(
        "CREATE INDEX ix_poker_tournaments_no_show_due ON poker_tournaments "
        "((greatest(coalesce(late_reg_deadline, scheduled_start), started_at))) WHERE status = 'running'"
    )
    op.drop_column("poker_clock", "run_scheduled_for")


def downgrade() -> None:
    op.add_column("poker_clock", sa.Column("run_scheduled_for", TZ))
    op.drop_index("ix_poker_tournaments_no_show_due", table_name="poker_tournaments")
    op.drop_table("poker_moment_failures")
