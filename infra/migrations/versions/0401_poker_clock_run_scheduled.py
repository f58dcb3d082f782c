"""The instant for which the clock's exact advance-clocks run was scheduled, so the
sweep schedules each next level change once.

Revision ID: 0401
Revises: 0400
"""

import sqlalchemy as sa
from alembic import op

revision = "0401"
down_revision = "0400"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column("poker_clock", sa.Column("run_scheduled_for", sa.DateTime(timezone=True)))


def downgrade() -> None:
    op.drop_column("poker_clock", "run_scheduled_for")
