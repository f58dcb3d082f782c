"""Poker top-up limits (RULES SP-12): a rebuy window by instant or level, rebuys and
re-entries per player. NULL everywhere: today's behaviour.

Revision ID: 0502
Revises: 0501
"""

import sqlalchemy as sa
from alembic import op

revision = "0511"
down_revision = "0510"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column("poker_tournaments", sa.Column("rebuy_until", sa.DateTime(timezone=True)))
    op.add_column("poker_tournaments", sa.Column("rebuy_until_level", sa.Integer))
    op.add_column("poker_tournaments", sa.Column("rebuy_limit", sa.Integer))
    op.add_column("poker_tournaments", sa.Column("reentry_limit", sa.Integer))
    op.create_check_constraint(
        "topup_limits", "poker_tournaments",
        "(rebuy_until IS NULL OR rebuy_until_level IS NULL) AND (rebuy_until IS NULL OR rebuy_until > scheduled_start)"
        " AND coalesce(rebuy_until_level, 1) >= 1 AND coalesce(rebuy_limit, 0) >= 0 AND coalesce(reentry_limit, 0) >= 0",
    )


def downgrade() -> None:
    op.drop_constraint("ck_poker_tournaments_topup_limits", "poker_tournaments")
    for column in ("reentry_limit", "rebuy_limit", "rebuy_until_level", "rebuy_until"):
        op.drop_column("poker_tournaments", column)
