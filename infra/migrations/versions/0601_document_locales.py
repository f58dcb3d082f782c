"""Documents: the language of a club's documents, or of a Pusoy Dos tournament's (DOC-4).

Revision ID: 0601
Revises: 0600
"""

import sqlalchemy as sa
from alembic import op

revision = "0601"
down_revision = "0600"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "document_locales",
        sa.Column("scope", sa.Text, primary_key=True),
        sa.Column("ref_id", sa.BigInteger, primary_key=True),
        sa.Column("locale", sa.Text, nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
        sa.CheckConstraint("scope IN ('club', 'pusoy')", name="ck_document_locales_scope"),
        sa.CheckConstraint("locale IN ('ru', 'en')", name="ck_document_locales_locale"),
    )


def downgrade() -> None:
    op.drop_table("document_locales")
