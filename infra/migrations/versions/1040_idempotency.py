"""The answers of writes sent with an `Idempotency-Key` (docs/api.md): one row per caller and key,
kept 24 hours, written in the change's own transaction.

Revision ID: 1040
Revises: 1030
"""

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects.postgresql import JSONB

revision = "1040"
down_revision = "1030"
branch_labels = None
depends_on = None

TZ = sa.DateTime(timezone=True)


def upgrade() -> None:
    op.create_table(
        "api_idempotency",
        sa.Column("id", sa.BigInteger, sa.Identity(), primary_key=True),
        sa.Column("caller", sa.Text, nullable=False),
        sa.Column("key", sa.Text, nullable=False),
        sa.Column("fingerprint", sa.LargeBinary, nullable=False),
        sa.Column("status", sa.BigInteger, nullable=False),
        sa.Column("answer", JSONB),
        sa.Column("created_at", TZ, nullable=False),
        sa.PrimaryKeyConstraint("id", name="pk_api_idempotency"),
        sa.CheckConstraint("length(key) BETWEEN 1 AND 255", name="key_length"),
    )
    op.create_index("uq_api_idempotency_caller_key", "api_idempotency", ["caller", "key"], unique=True)
    op.create_index("ix_api_idempotency_created_at", "api_idempotency", ["created_at"])


def downgrade() -> None:
    op.drop_table("api_idempotency")
