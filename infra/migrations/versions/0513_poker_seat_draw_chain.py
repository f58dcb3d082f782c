"""Seat draws nobody can steer (RULES SP-13, PD-12): `poker_seat_draws` becomes each tournament's
chain of platform seeds.

- rows are keyed by (tournament_id, seq); `committed_at` is when the seed's SHA-256 was published;
  `purpose` and `drawn_at` stay empty while the seed is pending; a drawn row records the floor's
  seed (`floor_seed`), the draw's `items` and `outcome`; one pending row a tournament at most;
- the draws made before keep their seed (it was used as given) and have no items or outcome;
- every tournament gets its pending seed now, from the database's cryptographic generator
  (`gen_random_uuid`, 122 random bits each, two of them hashed to 64 hex digits).

Revision ID: 0513
Revises: 0512
"""

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects.postgresql import JSONB

revision = "0513"
down_revision = "0512"
branch_labels = None
depends_on = "0400"  # poker_seat_draws

TZ = sa.DateTime(timezone=True)
T = "poker_seat_draws"


def upgrade() -> None:
    op.add_column(T, sa.Column("seq", sa.Integer))
    op.execute(
        f"UPDATE {T} d SET seq = n.seq FROM (SELECT id, row_number() OVER"
        f" (PARTITION BY tournament_id ORDER BY id) AS seq FROM {T}) n WHERE n.id = d.id"
    )
    op.alter_column(T, "seq", nullable=False)
    op.drop_constraint("uq_poker_seat_draws_tournament_id_purpose", T)
    op.drop_constraint("pk_poker_seat_draws", T)
    op.drop_column(T, "id")
    op.create_primary_key("pk_poker_seat_draws", T, ["tournament_id", "seq"])
    op.add_column(T, sa.Column("committed_at", TZ))
    op.execute(f"UPDATE {T} SET committed_at = drawn_at")
    op.alter_column(T, "committed_at", nullable=False)
    op.alter_column(T, "purpose", nullable=True)
    op.alter_column(T, "drawn_at", nullable=True)
    op.add_column(T, sa.Column("floor_seed", sa.Text))
    op.add_column(T, sa.Column("items", JSONB))
    op.add_column(T, sa.Column("outcome", JSONB))
    op.create_check_constraint("seq", T, "seq >= 1")
    op.create_check_constraint("drawn", T, "(drawn_at IS NULL) = (purpose IS NULL)")
    op.create_check_constraint(
        "pending_empty", T, "drawn_at IS NOT NULL OR (floor_seed IS NULL AND items IS NULL AND outcome IS NULL)"
    )
    op.create_check_constraint("recorded", T, "(items IS NULL) = (outcome IS NULL)")
    op.create_index(
        "ix_poker_seat_draws_pending", T, ["tournament_id"], unique=True, postgresql_where=sa.text("drawn_at IS NULL")
    )
    op.execute(
        f"""
        WITH fresh AS (
            SELECT t.id,
                   encode(sha256(convert_to(gen_random_uuid()::text || gen_random_uuid()::text, 'UTF8')), 'hex')
                       AS seed,
                   (SELECT coalesce(max(d.seq), 0) + 1 FROM {T} d WHERE d.tournament_id = t.id) AS seq
            FROM poker_tournaments t
        )
        INSERT INTO {T} (tournament_id, seq, commitment, seed, committed_at)
        SELECT id, seq, encode(sha256(convert_to(seed, 'UTF8')), 'hex'), seed, now() FROM fresh
        """
    )


def downgrade() -> None:
    op.execute(f"DELETE FROM {T} WHERE drawn_at IS NULL")
    # before the chain, a tournament's draws had distinct purposes: later assemblies of the final
    # table were "final-table-2", "final-table-3", ...
    op.execute(
        f"UPDATE {T} d SET purpose = d.purpose || '-' || n.n FROM (SELECT tournament_id, seq, row_number() OVER"
        f" (PARTITION BY tournament_id, purpose ORDER BY seq) AS n FROM {T}) n"
        " WHERE n.tournament_id = d.tournament_id AND n.seq = d.seq AND n.n > 1"
    )
    op.drop_index("ix_poker_seat_draws_pending", T)
    for name in ("recorded", "pending_empty", "drawn", "seq"):
        op.drop_constraint(f"ck_{T}_{name}", T)
    for column in ("outcome", "items", "floor_seed", "committed_at"):
        op.drop_column(T, column)
    op.alter_column(T, "drawn_at", nullable=False)
    op.alter_column(T, "purpose", nullable=False)
    op.drop_constraint("pk_poker_seat_draws", T)
    op.add_column(T, sa.Column("id", sa.BigInteger, sa.Identity(), nullable=False))
    op.create_primary_key("pk_poker_seat_draws", T, ["id"])
    op.create_unique_constraint("uq_poker_seat_draws_tournament_id_purpose", T, ["tournament_id", "purpose"])
    op.drop_column(T, "seq")
