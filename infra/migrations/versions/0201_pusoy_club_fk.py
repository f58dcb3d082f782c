"""Pusoy Dos: a tournament's club_id references clubs.id (results go to the club).

Revision ID: 0201
Revises: 0200
Depends on: 0100 (the clubs table)
"""

from alembic import op

revision = "0201"
down_revision = "0200"
branch_labels = None
depends_on = "0100"


def upgrade() -> None:
    op.create_foreign_key(
        "fk_pusoy_tournaments_club_id_clubs", "pusoy_tournaments", "clubs", ["club_id"], ["id"]
    )
    op.create_index("ix_pusoy_tournaments_club_id", "pusoy_tournaments", ["club_id"])


def downgrade() -> None:
    op.drop_index("ix_pusoy_tournaments_club_id", "pusoy_tournaments")
    op.drop_constraint("fk_pusoy_tournaments_club_id_clubs", "pusoy_tournaments", type_="foreignkey")
