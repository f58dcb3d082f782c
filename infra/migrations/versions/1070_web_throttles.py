"""The web's throttles shared by every web process and host (docs/web.md#processes): one row per counted
ask (a join code looked up, a reset link or a sign-up asked for) of a client, by the throttle's bucket.

Revision ID: 1070
Revises: 1060
"""

import sqlalchemy as sa
from alembic import op

revision = "1070"
down_revision = "1060"
branch_labels = None
depends_on = None

T = "web_throttle_hits"


def upgrade() -> None:
    op.create_table(
        T,
        sa.Column("id", sa.BigInteger, sa.Identity(), nullable=False),
        sa.Column("bucket", sa.Text, nullable=False),
        sa.Column("client", sa.Text, nullable=False),
        sa.Column("key", sa.Text, nullable=False),
        sa.Column("at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("id", name=f"pk_{T}"),
    )
    op.create_index(f"ix_{T}_bucket_client_at", T, ["bucket", "client", "at"])
    op.create_index(f"ix_{T}_bucket_at", T, ["bucket", "at"])


def downgrade() -> None:
    op.drop_table(T)
