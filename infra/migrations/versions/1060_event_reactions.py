"""The outbox is the bus (docs/jobs.md#the-event-consumer): every event records when the event consumer
reacted to it and what it did, in the transaction of the reaction (NULL: still to do); a partial index
finds those still to do. `round.ready` joins the kinds: the platform's own event, which no endpoint
hears. The events written before the consumer existed were handled by the old paths: marked reacted.

Revision ID: 1060
Revises: 1050
"""

import sqlalchemy as sa
from alembic import op

revision = "1060"
down_revision = "1050"
branch_labels = None
depends_on = None

T = "webhook_events"
KINDS = "'round.completed', 'champion.crowned', 'tournament.finished', 'documents.ready'"


def upgrade() -> None:
    op.add_column(T, sa.Column("reacted_at", sa.DateTime(timezone=True)))
    op.add_column(T, sa.Column("reaction", sa.Text))
    op.execute(f"UPDATE {T} SET reacted_at = created_at, reaction = 'before the event consumer'")
    op.create_check_constraint(op.f(f"ck_{T}_reacted"), T, "(reacted_at IS NULL) = (reaction IS NULL)")
    op.create_index(f"ix_{T}_to_react", T, ["created_at"], postgresql_where=sa.text("reacted_at IS NULL"))
    op.drop_constraint(op.f(f"ck_{T}_kind"), T, type_="check")
    op.create_check_constraint(op.f(f"ck_{T}_kind"), T, f"kind = ANY (ARRAY[{KINDS}, 'round.ready']::text[])")


def downgrade() -> None:
    op.execute(f"DELETE FROM {T} WHERE kind = 'round.ready'")
    op.drop_constraint(op.f(f"ck_{T}_kind"), T, type_="check")
    op.create_check_constraint(op.f(f"ck_{T}_kind"), T, f"kind = ANY (ARRAY[{KINDS}]::text[])")
    op.drop_index(f"ix_{T}_to_react", T)
    op.drop_constraint(op.f(f"ck_{T}_reacted"), T, type_="check")
    op.drop_column(T, "reaction")
    op.drop_column(T, "reacted_at")
