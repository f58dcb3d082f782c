"""Clubs: the operator may reinstate a suspended club's listing (CL-4), an audited decision.

Revision ID: 0101
Revises: 0100
"""

from alembic import op

revision = "0101"
down_revision = "0100"
branch_labels = None
depends_on = None

_BEFORE = "'create', 'apply', 'queue', 'verify', 'refuse', 'revoke', 'recheck', 'suspend', 'terminate'"


def _actions(values: str) -> None:
    op.drop_constraint("ck_club_decisions_action", "club_decisions", type_="check")
    op.create_check_constraint("ck_club_decisions_action", "club_decisions", f"action IN ({values})")


def upgrade() -> None:
    _actions(_BEFORE + ", 'reinstate'")


def downgrade() -> None:
    op.execute("DELETE FROM club_decisions WHERE action = 'reinstate'")
    _actions(_BEFORE)
