"""Recurring series: series, skipped dates, materialized occurrences.

Revision ID: 0700
Revises: 0001
Depends on: 0100 (clubs)
"""

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects.postgresql import JSONB

revision = "0700"
down_revision = "0001"
branch_labels = None
depends_on = "0100"  # clubs.id


def upgrade() -> None:
    op.create_table(
        "series",
        sa.Column("id", sa.BigInteger, sa.Identity(), primary_key=True),
        sa.Column("club_id", sa.BigInteger, sa.ForeignKey("clubs.id", name="fk_series_club_id_clubs"), nullable=False),
        sa.Column("name", sa.Text, nullable=False),
        sa.Column("kind", sa.Text, nullable=False),
        sa.Column("cron", sa.Text, nullable=False),
        sa.Column("timezone", sa.Text, nullable=False),
        sa.Column("horizon_days", sa.Integer, nullable=False),
        sa.Column("opens_before_minutes", sa.Integer, nullable=False),
        sa.Column("template", JSONB, nullable=False),
        sa.Column("status", sa.Text, nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
        sa.UniqueConstraint("club_id", "name", name="uq_series_club_id_name"),
        sa.CheckConstraint("kind IN ('poker', 'pusoy')", name="ck_series_kind"),
        sa.CheckConstraint("status IN ('active', 'paused', 'ended')", name="ck_series_status"),
        sa.CheckConstraint("horizon_days BETWEEN 1 AND 365", name="ck_series_horizon"),
        sa.CheckConstraint("opens_before_minutes BETWEEN 0 AND 525600", name="ck_series_opens_before"),
        sa.CheckConstraint("jsonb_typeof(template) = 'object'", name="ck_series_template_object"),
    )
    op.create_table(
        "series_skip",
        sa.Column("series_id", sa.BigInteger, sa.ForeignKey("series.id", ondelete="CASCADE"), primary_key=True),
        sa.Column("local_date", sa.Date, primary_key=True),
    )
    op.create_table(
        "series_occurrence",
        sa.Column("id", sa.BigInteger, sa.Identity(), primary_key=True),
        sa.Column("series_id", sa.BigInteger, sa.ForeignKey("series.id", ondelete="CASCADE"), nullable=False),
        sa.Column("starts_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("opens_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("local_date", sa.Date, nullable=False),
        sa.Column("status", sa.Text, nullable=False),
        sa.Column("settings", JSONB, nullable=False),
        sa.Column("tournament_id", sa.BigInteger, nullable=True),
        sa.Column("problem", sa.Text, nullable=True),
        sa.Column("opened_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), server_default=sa.func.now(), nullable=False),
        sa.UniqueConstraint("series_id", "starts_at", name="uq_series_occurrence_series_id_starts_at"),
        sa.CheckConstraint("status IN ('planned', 'open', 'missed', 'failed')", name="ck_series_occurrence_status"),
        sa.CheckConstraint("(status = 'failed') = (problem IS NOT NULL)", name="ck_series_occurrence_problem"),
        sa.CheckConstraint("opens_at <= starts_at", name="ck_series_occurrence_opens_before_start"),
        sa.CheckConstraint("(status = 'open') = (opened_at IS NOT NULL)", name="ck_series_occurrence_opened_at"),
    )
    op.create_index(
        "ix_series_occurrence_planned_opens_at",
        "series_occurrence",
        ["opens_at"],
        postgresql_where=sa.text("status = 'planned'"),
    )


def downgrade() -> None:
    op.drop_table("series_occurrence")
    op.drop_table("series_skip")
    op.drop_table("series")
