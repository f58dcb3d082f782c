"""Webhooks (Players online): endpoints of clubs and Pusoy Dos organizers, the outbox of events, one
delivery per event and endpoint. No secret is stored (derived from the platform key).

Revision ID: 1020
Revises: 1010
"""

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects.postgresql import ARRAY, JSONB

revision = "1020"
down_revision = "1010"
branch_labels = None
depends_on = None

TZ = sa.DateTime(timezone=True)
KINDS_SQL = "ARRAY['round.completed', 'champion.crowned', 'tournament.finished', 'documents.ready']::text[]"
URL_CHECK = r"url ~ '^https://[^/?#\s]+' OR url ~ '^http://(127\.0\.0\.1|localhost|\[::1\])(:[0-9]{1,5})?(/|$)'"


def upgrade() -> None:
    t = "webhook_endpoints"
    op.create_table(
        t,
        sa.Column("id", sa.BigInteger, sa.Identity(), nullable=False),
        sa.Column("club_id", sa.BigInteger, sa.ForeignKey("clubs.id", name=f"fk_{t}_club_id_clubs")),
        sa.Column("organizer", sa.Text),
        sa.Column("url", sa.Text, nullable=False),
        sa.Column("events", ARRAY(sa.Text), nullable=False),
        sa.Column("created_at", TZ, nullable=False),
        sa.Column("disabled_at", TZ),
        sa.PrimaryKeyConstraint("id", name=f"pk_{t}"),
        sa.CheckConstraint("(club_id IS NULL) <> (organizer IS NULL)", name="one_owner"),
        sa.CheckConstraint(URL_CHECK, name="url"),
        sa.CheckConstraint(f"cardinality(events) > 0 AND events <@ {KINDS_SQL}", name="events"),
    )
    op.create_index(f"ix_{t}_club_id", t, ["club_id"])
    op.create_index(f"ix_{t}_organizer", t, ["organizer"])
    t = "webhook_events"
    op.create_table(
        t,
        sa.Column("id", sa.Text, nullable=False),
        sa.Column("kind", sa.Text, nullable=False),
        sa.Column("club_id", sa.BigInteger),
        sa.Column("organizer", sa.Text),
        sa.Column("payload", JSONB, nullable=False),
        sa.Column("created_at", TZ, nullable=False),
        sa.PrimaryKeyConstraint("id", name=f"pk_{t}"),
        sa.CheckConstraint(f"kind = ANY ({KINDS_SQL})", name="kind"),
    )
    op.create_index(f"ix_{t}_created_at", t, ["created_at"])
    t = "webhook_deliveries"
    op.create_table(
        t,
        sa.Column("id", sa.BigInteger, sa.Identity(), nullable=False),
        sa.Column(
            "event_id", sa.Text,
            sa.ForeignKey("webhook_events.id", name=f"fk_{t}_event_id_webhook_events", ondelete="CASCADE"),
            nullable=False,
        ),
        sa.Column(
            "endpoint_id", sa.BigInteger,
            sa.ForeignKey("webhook_endpoints.id", name=f"fk_{t}_endpoint_id_webhook_endpoints", ondelete="CASCADE"),
            nullable=False,
        ),
        sa.Column("attempts", sa.Integer, nullable=False, server_default="0"),
        sa.Column("next_attempt_at", TZ, nullable=False),
        sa.Column("delivered_at", TZ),
        sa.Column("failed_at", TZ),
        sa.Column("last_status", sa.Integer),
        sa.Column("last_error", sa.Text),
        sa.PrimaryKeyConstraint("id", name=f"pk_{t}"),
        sa.UniqueConstraint("event_id", "endpoint_id", name=f"uq_{t}_event_id_endpoint_id"),
        sa.CheckConstraint("attempts >= 0", name="attempts"),
        sa.CheckConstraint("delivered_at IS NULL OR failed_at IS NULL", name="delivered_or_failed"),
    )
    op.create_index(f"ix_{t}_endpoint_id", t, ["endpoint_id"])
    op.create_index(
        "ix_webhook_deliveries_due", t, ["next_attempt_at"],
        postgresql_where=sa.text("delivered_at IS NULL AND failed_at IS NULL"),
    )


def downgrade() -> None:
    for t in ("webhook_deliveries", "webhook_events", "webhook_endpoints"):
        op.drop_table(t)
