"""Leagues (RULES LG-1..LG-3): seasons of a club, their series and picked tournaments. Points and
standings are derived on every read, never stored.

Revision ID: 0800
Revises: 0700
"""

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects.postgresql import ARRAY

revision = "0800"
down_revision = "0700"
branch_labels = None
depends_on = "0300"  # poker tournaments (clubs come with series, 0700)


def upgrade() -> None:
    t = "league_seasons"
    op.create_table(
        t,
        sa.Column("id", sa.BigInteger, sa.Identity(), nullable=False),
        sa.Column("club_id", sa.BigInteger, sa.ForeignKey("clubs.id", name=f"fk_{t}_club_id_clubs"), nullable=False),
        sa.Column("name", sa.Text, nullable=False),
        sa.Column("date_from", sa.Date, nullable=False),
        sa.Column("date_to", sa.Date, nullable=False),
        sa.Column("formula", sa.Text, nullable=False),
        sa.Column("points_table", ARRAY(sa.Numeric(12, 2)), nullable=False),
        sa.Column("knockout_bonus", sa.Numeric(12, 4)),
        sa.Column("shared", sa.Text, nullable=False),
        sa.Column("best_k", sa.Integer),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("id", name=f"pk_{t}"),
        sa.UniqueConstraint("club_id", "name", name=f"uq_{t}_club_id_name"),
        sa.CheckConstraint("date_from < date_to", name="range"),
        sa.CheckConstraint("formula IN ('table', 'sqrt')", name="formula"),
        sa.CheckConstraint("shared IN ('best', 'average')", name="shared"),
        sa.CheckConstraint("best_k IS NULL OR best_k >= 1", name="best_k"),
        sa.CheckConstraint("knockout_bonus IS NULL OR knockout_bonus >= 0", name="bonus"),
        sa.CheckConstraint("length(btrim(name)) > 0", name="name_not_blank"),
    )
    t = "league_season_series"
    op.create_table(
        t,
        sa.Column("season_id", sa.BigInteger, sa.ForeignKey("league_seasons.id", name=f"fk_{t}_season_id_league_seasons"),
                  nullable=False),
        sa.Column("series_id", sa.BigInteger, sa.ForeignKey("series.id", name=f"fk_{t}_series_id_series"), nullable=False),
        sa.PrimaryKeyConstraint("season_id", "series_id", name=f"pk_{t}"),
    )
    t = "league_season_tournaments"
    op.create_table(
        t,
        sa.Column("season_id", sa.BigInteger, sa.ForeignKey("league_seasons.id", name=f"fk_{t}_season_id_league_seasons"),
                  nullable=False),
        sa.Column("tournament_id", sa.BigInteger,
                  sa.ForeignKey("poker_tournaments.id", name=f"fk_{t}_tournament_id_poker_tournaments"), nullable=False),
        sa.PrimaryKeyConstraint("season_id", "tournament_id", name=f"pk_{t}"),
    )


def downgrade() -> None:
    op.drop_table("league_season_tournaments")
    op.drop_table("league_season_series")
    op.drop_table("league_seasons")
