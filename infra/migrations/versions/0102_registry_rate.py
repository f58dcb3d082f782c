"""Clubs: the registry's rate limit shared across processes and machines (REGISTRY_RATE): one row
per provider, its next free instant.

Revision ID: 0102
Revises: 0101
"""

import sqlalchemy as sa
from alembic import op

revision = "0102"
down_revision = "0101"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "registry_rate",
        sa.Column("provider", sa.Text(), primary_key=True),
        sa.Column("next_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("provider", name="pk_registry_rate"),
    )


def downgrade() -> None:
    op.drop_table("registry_rate")
