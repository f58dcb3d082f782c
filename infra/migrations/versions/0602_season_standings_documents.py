"""Documents: a season's standings after each of its tournaments (LG-3, DOC-1..DOC-4), one
publication per (season, tournament that triggered it); results sheets stay one per tournament.

Revision ID: 0602
Revises: 0601
"""

import sqlalchemy as sa
from alembic import op

revision = "0602"
down_revision = "0601"
branch_labels = None
depends_on = None

T = "document_publications"


def upgrade() -> None:
    op.add_column(T, sa.Column("season_id", sa.BigInteger))
    op.add_column(T, sa.Column("season", sa.Text))
    op.drop_constraint(f"uq_{T}_source_tournament_id", T, type_="unique")
    op.create_unique_constraint(f"uq_{T}_source_tournament_id_season_id", T, ["source", "tournament_id", "season_id"],
                                postgresql_nulls_not_distinct=True)
    op.drop_constraint(f"ck_{T}_source", T, type_="check")
    op.create_check_constraint(f"ck_{T}_source", T, "source IN ('poker', 'pusoy', 'season')")
    op.create_check_constraint(f"ck_{T}_season_when_season", T,
                               "(source = 'season') = (season_id IS NOT NULL AND season IS NOT NULL)")
    op.drop_constraint("ck_documents_kind", "documents", type_="check")
    op.create_check_constraint("ck_documents_kind", "documents", "kind IN ('results', 'certificate', 'standings')")


def downgrade() -> None:
    op.execute(f"DELETE FROM {T} WHERE source = 'season'")
    op.drop_constraint("ck_documents_kind", "documents", type_="check")
    op.create_check_constraint("ck_documents_kind", "documents", "kind IN ('results', 'certificate')")
    op.drop_constraint(f"ck_{T}_season_when_season", T, type_="check")
    op.drop_constraint(f"ck_{T}_source", T, type_="check")
    op.create_check_constraint(f"ck_{T}_source", T, "source IN ('poker', 'pusoy')")
    op.drop_constraint(f"uq_{T}_source_tournament_id_season_id", T, type_="unique")
    op.create_unique_constraint(f"uq_{T}_source_tournament_id", T, ["source", "tournament_id"])
    op.drop_column(T, "season")
    op.drop_column(T, "season_id")
