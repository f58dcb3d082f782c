"""Documents: a club's logo on its certificates and results sheets (PNG or JPEG, checked by
domain.clubs.rules.logo: at most 512 KiB and 2000 pixels a side).

Revision ID: 0603
Revises: 0602
"""

import sqlalchemy as sa
from alembic import op

revision = "0603"
down_revision = "0602"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "club_logos",
        sa.Column("club_id", sa.BigInteger, sa.ForeignKey("clubs.id", ondelete="CASCADE",
                  name="fk_club_logos_club_id_clubs"), primary_key=True),
        sa.Column("media_type", sa.Text, nullable=False),
        sa.Column("width", sa.Integer, nullable=False),
        sa.Column("height", sa.Integer, nullable=False),
        sa.Column("data", sa.LargeBinary, nullable=False),
        sa.Column("sha256", sa.Text, nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
        sa.CheckConstraint("media_type IN ('image/png', 'image/jpeg')", name="ck_club_logos_media_type"),
        sa.CheckConstraint("octet_length(data) BETWEEN 1 AND 524288", name="ck_club_logos_data_size"),
        sa.CheckConstraint("width BETWEEN 1 AND 2000 AND height BETWEEN 1 AND 2000", name="ck_club_logos_dimensions"),
    )


def downgrade() -> None:
    op.drop_table("club_logos")
