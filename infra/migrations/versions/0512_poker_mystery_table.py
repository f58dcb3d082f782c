"""The mystery prize table (RULES SP-11).

- `poker_tournaments.mystery_phase` (start | itm | level:N) and `mystery_draw_per`
  (per_killer_entry, today's rule | per_knockout);
- `poker_mystery_prizes`: the declared prizes, each with the domain's SP-4 seal, checked as on prize lines (0501);
- `poker_mystery_phases`: the committed seed of the phase (PD-12), append-only;
- `poker_mystery_draws.per_killer`, `prize_position`: the one-draw-per-killer-entry unique becomes
  a partial unique index over the draws made per killer entry (all of today's), and one draw per
  prize of the table.

Revision ID: 0512
Revises: 0511
"""

import sqlalchemy as sa
from alembic import op

revision = "0512"
down_revision = "0511"
branch_labels = None
depends_on = None

# the seal's recipe in SQL, frozen as written in 0501 (domain/poker/tables/results.py: sealed_sql)
_CHECKER = "split_part(wording_seal, ':', 1)"
_SEALED = (
    f"(wording_seal IS NOT NULL AND description IS NOT NULL AND wording_seal = {_CHECKER} || ':' || "
    f"encode(sha256(convert_to({_CHECKER} || ':' || description, 'UTF8')), 'hex'))"
)


def upgrade() -> None:
    t = "poker_tournaments"
    op.add_column(t, sa.Column("mystery_phase", sa.Text, nullable=False, server_default=sa.text("'start'")))
    op.add_column(
        t, sa.Column("mystery_draw_per", sa.Text, nullable=False, server_default=sa.text("'per_killer_entry'"))
    )
    op.create_check_constraint("mystery_phase", t, "mystery_phase ~ '^(start|itm|level:[1-9][0-9]*)$'")
    op.create_check_constraint("mystery_draw_per", t, "mystery_draw_per IN ('per_killer_entry', 'per_knockout')")

    t = "poker_mystery_prizes"
    op.create_table(
        t,
        sa.Column(
            "tournament_id", sa.BigInteger,
            sa.ForeignKey("poker_tournaments.id", name=f"fk_{t}_tournament_id_poker_tournaments"), nullable=False,
        ),
        sa.Column("position", sa.Integer, nullable=False),
        sa.Column("description", sa.Text, nullable=False),
        sa.Column("wording_seal", sa.Text, nullable=False),
        sa.PrimaryKeyConstraint("tournament_id", "position", name=f"pk_{t}"),
        sa.CheckConstraint("position BETWEEN 1 AND 200", name="position"),
        sa.CheckConstraint(
            f"length(btrim(description)) > 0 AND char_length(description) <= 500 AND {_SEALED}", name="description"
        ),
    )
    t = "poker_mystery_phases"
    op.create_table(
        t,
        sa.Column(
            "tournament_id", sa.BigInteger,
            sa.ForeignKey("poker_tournaments.id", name=f"fk_{t}_tournament_id_poker_tournaments"), nullable=False,
        ),
        sa.Column("seed", sa.Text, nullable=False),
        sa.Column("commitment", sa.Text, nullable=False),
        sa.Column("prize_count", sa.Integer, nullable=False),
        sa.Column("started_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("tournament_id", name=f"pk_{t}"),
        sa.CheckConstraint("prize_count >= 1", name="prize_count"),
    )
    op.execute(
        f"CREATE TRIGGER {t}_append_only BEFORE UPDATE OR DELETE ON {t}"
        " FOR EACH ROW EXECUTE FUNCTION poker_results_append_only()"
    )
    t = "poker_mystery_draws"
    op.add_column(t, sa.Column("per_killer", sa.Boolean, nullable=False, server_default=sa.text("true")))
    op.add_column(t, sa.Column("prize_position", sa.Integer))
    op.drop_constraint("uq_poker_mystery_draws_killer", t)
    op.create_index(
        "uq_poker_mystery_draws_killer", t, ["tournament_id", "killer_entry_id"], unique=True,
        postgresql_where=sa.text("per_killer"),
    )
    op.create_unique_constraint("uq_poker_mystery_draws_prize", t, ["tournament_id", "prize_position"])


def downgrade() -> None:
    t = "poker_mystery_draws"
    op.drop_constraint("uq_poker_mystery_draws_prize", t)
    op.drop_index("uq_poker_mystery_draws_killer", t)
    op.create_unique_constraint("uq_poker_mystery_draws_killer", t, ["tournament_id", "killer_entry_id"])
    op.drop_column(t, "prize_position")
    op.drop_column(t, "per_killer")
    op.execute("DROP TRIGGER poker_mystery_phases_append_only ON poker_mystery_phases")
    op.drop_table("poker_mystery_phases")
    op.drop_table("poker_mystery_prizes")
    op.drop_constraint("ck_poker_tournaments_mystery_draw_per", "poker_tournaments")
    op.drop_constraint("ck_poker_tournaments_mystery_phase", "poker_tournaments")
    op.drop_column("poker_tournaments", "mystery_draw_per")
    op.drop_column("poker_tournaments", "mystery_phase")
