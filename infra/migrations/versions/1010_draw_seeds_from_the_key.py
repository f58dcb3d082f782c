"""Draw seeds nobody can read (RULES SP-13, PD-12): a pending draw keeps its commitment, not its seed.

The platform's seed of a draw is now derived from a key the database does not hold
(`domain.draw.platform_seed`: an HMAC-SHA256 of `"poker-seat-draw|<tournament>|<seq>"`, or
`"pusoy-draw|..."`, under a key derived from the platform secret). `poker_seat_draws.seed` and
`pusoy_draws.seed` become NULL while the draw is pending and hold the seed once it is revealed
(constraint `seed_revealed`).

The pending seeds already stored were random and readable by whoever held a connection: they are
discarded, never revealed. Nothing was drawn with them (a floor seed is only given at the draw), so
each pending draw is committed again, to its derived seed: a new commitment, `committed_at` the
migration's time, so `draw-proof` shows when the commitment in force was published. This needs the
platform secret (TOURNEY_SECRET_KEY or TOURNEY_HOME/secret.key), read only when a pending row
exists: run the upgrade where the application runs. Drawn rows keep their revealed seed unchanged.

Down: each pending row gets its derived seed written back (the commitment stays: it is that seed's),
the constraints go and the columns are NOT NULL again.

Revision ID: 1010
Revises: 1000
"""

import sqlalchemy as sa
from alembic import op

from domain import draw

revision = "1010"
down_revision = "1000"
branch_labels = None
depends_on = None

CHAINS = (
    # table, chain of the seed's description, the column that says the draw is done
    ("poker_seat_draws", draw.POKER_SEAT_DRAW, "drawn_at"),
    ("pusoy_draws", draw.PUSOY_DRAW, "revealed_at"),
)


def _pending(table: str, done: str) -> list[tuple[int, int]]:
    return [
        tuple(r) for r in op.get_bind().execute(sa.text(f"SELECT tournament_id, seq FROM {table} WHERE {done} IS NULL"))
    ]


def _key() -> bytes:
    from infra.config import load_settings

    return draw.seed_key(load_settings().secret_key())


def upgrade() -> None:
    for table, chain, done in CHAINS:
        op.alter_column(table, "seed", nullable=True)
        pending = _pending(table, done)
        if pending:
            key = _key()
            op.get_bind().execute(
                sa.text(
                    f"UPDATE {table} SET seed = NULL, commitment = :commitment, committed_at = now()"
                    " WHERE tournament_id = :t AND seq = :seq"
                ),
                [
                    {
                        "t": t,
                        "seq": seq,
                        "commitment": draw.commitment(draw.platform_seed(key, draw.description(chain, t, seq))),
                    }
                    for t, seq in pending
                ],
            )
        op.create_check_constraint("seed_revealed", table, f"(seed IS NULL) = ({done} IS NULL)")


def downgrade() -> None:
    for table, chain, done in CHAINS:
        op.drop_constraint(f"ck_{table}_seed_revealed", table)
        pending = _pending(table, done)
        if pending:
            key = _key()
            op.get_bind().execute(
                sa.text(f"UPDATE {table} SET seed = :seed WHERE tournament_id = :t AND seq = :seq"),
                [
                    {"t": t, "seq": seq, "seed": draw.platform_seed(key, draw.description(chain, t, seq))}
                    for t, seq in pending
                ],
            )
        op.alter_column(table, "seed", nullable=False)
