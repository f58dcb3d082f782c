"""Documents: publications (one per tournament, with the delivery state) and the PDFs produced.

Revision ID: 0600
Revises: 0001
"""

import sqlalchemy as sa
from alembic import op

revision = "0600"
down_revision = "0001"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "document_publications",
        sa.Column("id", sa.BigInteger, primary_key=True),
        sa.Column("source", sa.Text, nullable=False),
        sa.Column("tournament_id", sa.BigInteger, nullable=False),
        sa.Column("tournament", sa.Text, nullable=False),
        sa.Column("club", sa.Text),
        sa.Column("folder", sa.Text, nullable=False),
        sa.Column("recipient", sa.Text),
        sa.Column("state", sa.Text, nullable=False),
        sa.Column("attempts", sa.Integer, nullable=False, server_default="0"),
        sa.Column("last_error", sa.Text),
        sa.Column("next_attempt_at", sa.DateTime(timezone=True)),
        sa.Column("sent_at", sa.DateTime(timezone=True)),
        sa.Column("message_id", sa.Text),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.UniqueConstraint("source", "tournament_id", name="uq_document_publications_source_tournament_id"),
        sa.CheckConstraint("source IN ('poker', 'pusoy')", name="ck_document_publications_source"),
        sa.CheckConstraint("state IN ('stored', 'pending', 'failed', 'sent')", name="ck_document_publications_state"),
        sa.CheckConstraint(
            "(state = 'stored') = (recipient IS NULL)", name="ck_document_publications_recipient_unless_stored"
        ),
        sa.CheckConstraint("(state = 'sent') = (sent_at IS NOT NULL)", name="ck_document_publications_sent_at_when_sent"),
        sa.CheckConstraint("attempts >= 0", name="ck_document_publications_attempts"),
    )
    op.create_index(
        "ix_document_publications_due",
        "document_publications",
        ["next_attempt_at"],
        postgresql_where=sa.text("state IN ('pending', 'failed')"),
    )
    op.create_table(
        "documents",
        sa.Column("id", sa.BigInteger, primary_key=True),
        sa.Column(
            "publication_id",
            sa.BigInteger,
            sa.ForeignKey("document_publications.id", ondelete="CASCADE", name="fk_documents_publication_id_document_publications"),
            nullable=False,
        ),
        sa.Column("kind", sa.Text, nullable=False),
        sa.Column("filename", sa.Text, nullable=False),
        sa.Column("serial", sa.Text),
        sa.Column("player", sa.Text),
        sa.Column("sha256", sa.Text, nullable=False),
        sa.Column("signature", sa.Text, nullable=False),
        sa.Column("size_bytes", sa.Integer, nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.UniqueConstraint("publication_id", "filename", name="uq_documents_publication_id_filename"),
        sa.UniqueConstraint("serial", name="uq_documents_serial"),
        sa.CheckConstraint("kind IN ('results', 'certificate')", name="ck_documents_kind"),
        sa.CheckConstraint("(kind = 'certificate') = (serial IS NOT NULL)", name="ck_documents_serial_on_certificates"),
    )


def downgrade() -> None:
    op.drop_table("documents")
    op.drop_table("document_publications")
