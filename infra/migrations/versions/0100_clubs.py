"""Clubs: the catalog and the audit history of its decisions (CL-1..CL-4).

Revision ID: 0100
Revises: 0001
"""

import sqlalchemy as sa
from alembic import op

revision = "0100"
down_revision = "0001"
branch_labels = None
depends_on = None

TZ = sa.DateTime(timezone=True)


def upgrade() -> None:
    op.create_table(
        "clubs",
        sa.Column("id", sa.BigInteger, sa.Identity(), primary_key=True),
        sa.Column("name", sa.Text, nullable=False),
        sa.Column("legal_form", sa.Text, nullable=False),
        sa.Column("inn", sa.Text, nullable=False),
        sa.Column("ogrn", sa.Text, nullable=False),
        sa.Column("contact_email", sa.Text, nullable=False),
        sa.Column("timezone", sa.Text, nullable=False),
        sa.Column("listing_status", sa.Text, nullable=False, server_default="listed"),
        sa.Column("listing_reason", sa.Text),
        sa.Column("verification_status", sa.Text, nullable=False, server_default="unverified"),
        sa.Column("verification_reason", sa.Text),
        sa.Column("application_no", sa.Integer, nullable=False, server_default="0"),
        sa.Column("applied_at", TZ),
        sa.Column("attempts", sa.Integer, nullable=False, server_default="0"),
        sa.Column("last_error", sa.Text),
        sa.Column("queued_at", TZ),
        sa.Column("claimed_until", TZ),
        sa.Column("verified_at", TZ),
        sa.Column("last_checked_at", TZ),
        sa.Column("created_at", TZ, nullable=False),
        sa.Column("updated_at", TZ, nullable=False),
        sa.PrimaryKeyConstraint("id", name="pk_clubs"),
        sa.UniqueConstraint("inn", name="uq_clubs_inn"),
        sa.UniqueConstraint("ogrn", name="uq_clubs_ogrn"),
        sa.CheckConstraint("length(btrim(name)) > 0", name="ck_clubs_name_given"),
        sa.CheckConstraint("legal_form IN ('legal_entity', 'entrepreneur')", name="ck_clubs_legal_form"),
        sa.CheckConstraint(
            "(legal_form = 'legal_entity' AND inn ~ '^[0-9]{10}$' AND ogrn ~ '^[0-9]{13}$')"
            " OR (legal_form = 'entrepreneur' AND inn ~ '^[0-9]{12}$' AND ogrn ~ '^[0-9]{15}$')",
            name="ck_clubs_identifiers_match_form",
        ),
        sa.CheckConstraint("position('@' in contact_email) > 1", name="ck_clubs_contact_email"),
        sa.CheckConstraint(
            "listing_status IN ('listed', 'suspended', 'terminated')", name="ck_clubs_listing_status"
        ),
        sa.CheckConstraint(
            "verification_status IN ('unverified', 'pending', 'verified', 'refused', 'revoked')",
            name="ck_clubs_verification_status",
        ),
        sa.CheckConstraint(
            "queued_at IS NULL OR verification_status = 'pending'", name="ck_clubs_queue_is_pending"
        ),
        sa.CheckConstraint("attempts >= 0 AND application_no >= 0", name="ck_clubs_counters"),
    )
    op.create_index(
        "ix_clubs_pending",
        "clubs",
        ["applied_at"],
        postgresql_where=sa.text("verification_status = 'pending' AND queued_at IS NULL"),
    )
    op.create_index(
        "ix_clubs_verified_checked",
        "clubs",
        ["last_checked_at"],
        postgresql_where=sa.text("verification_status = 'verified'"),
    )
    op.create_table(
        "club_decisions",
        sa.Column("id", sa.BigInteger, sa.Identity(), primary_key=True),
        sa.Column("club_id", sa.BigInteger, nullable=False),
        sa.Column("application_no", sa.Integer, nullable=False),
        sa.Column("action", sa.Text, nullable=False),
        sa.Column("verification_status", sa.Text, nullable=False),
        sa.Column("listing_status", sa.Text, nullable=False),
        sa.Column("source", sa.Text, nullable=False),
        sa.Column("actor", sa.Text, nullable=False),
        sa.Column("reason", sa.Text),
        sa.Column("raw_answer", sa.Text),
        sa.Column("decided_at", TZ, nullable=False),
        sa.PrimaryKeyConstraint("id", name="pk_club_decisions"),
        sa.ForeignKeyConstraint(["club_id"], ["clubs.id"], name="fk_club_decisions_club_id_clubs"),
        sa.CheckConstraint(
            "action IN ('create', 'apply', 'queue', 'verify', 'refuse', 'revoke', 'recheck',"
            " 'suspend', 'terminate')",
            name="ck_club_decisions_action",
        ),
        sa.CheckConstraint(
            "source IN ('registry', 'moderator', 'operator', 'club')", name="ck_club_decisions_source"
        ),
    )
    op.create_index("ix_club_decisions_club_id", "club_decisions", ["club_id"])
    op.create_index(
        "uq_club_decisions_once",
        "club_decisions",
        ["club_id", "application_no", "action"],
        unique=True,
        postgresql_where=sa.text("action <> 'recheck'"),
    )


def downgrade() -> None:
    op.drop_table("club_decisions")
    op.drop_table("clubs")
