"""Migration 0513 (SP-13): every tournament that exists gets its pending platform seed, committed; the
draws made before keep their seed, in order, and are shown but not re-checked. Runs on a scratch
database of its own, since it steps the schema back."""

from __future__ import annotations

import re
from datetime import UTC, datetime

from alembic import command
from sqlalchemy import Engine, text
from sqlalchemy.orm import Session

from domain import draw
from domain.poker.services import draws
from domain.store.db import make_engine
from domain.store.migrate import _config, upgrade
from domain.store.scratch import scratch_database
from tests.support import world as w

AT = datetime(2026, 11, 20, 18, 0, tzinfo=UTC)


def _step(engine: Engine, how: str, target: str) -> None:
    config = _config()
    with engine.begin() as conn:
        config.attributes["connection"] = conn
        getattr(command, how)(config, target)


def test_sp_13_migration_0513_commits_a_seed_for_every_tournament_and_keeps_the_old_draws(database_url):
    """SP-13"""
    with scratch_database(database_url, "seatdraws") as url:
        engine = make_engine(url)
        try:
            upgrade(engine)
            with Session(engine) as s, s.begin():
                drawn, fresh = w.tournament(s, **w.BOUNTY).id, w.tournament(s, **w.BOUNTY).id
            _step(engine, "downgrade", "0512")
            with Session(engine) as s, s.begin():
                for purpose, seed in (("initial-seating", "demo"), ("final-table", "x"), ("final-table-2", "y")):
                    s.execute(
                        text(
                            "INSERT INTO poker_seat_draws (tournament_id, purpose, commitment, seed, drawn_at)"
                            " VALUES (:t, :p, :c, :s, :at)"
                        ),
                        {"t": drawn, "p": purpose, "c": draw.commitment(seed), "s": seed, "at": AT},
                    )
            _step(engine, "upgrade", "0513")  # 1010 takes the pending seeds out again (test_draw_seed_migration.py)
            with Session(engine) as s:
                old = draws.proof(s, drawn)
                new = draws.proof(s, fresh)
                pending = dict(
                    s.execute(text("SELECT tournament_id, seed FROM poker_seat_draws WHERE drawn_at IS NULL")).all()
                )
            assert [(d["seq"], d["purpose"], d["platform_seed"], d["committed_at"], d["ok"]) for d in old[:3]] == [
                (1, "initial-seating", "demo", AT, None),
                (2, "final-table", "x", AT, None),
                (3, "final-table-2", "y", AT, None),
            ]
            assert [(d["seq"], d["purpose"], d["platform_seed"]) for d in (old[3], *new)] == [
                (4, None, None),
                (1, None, None),
            ]
            assert sorted(pending) == sorted((drawn, fresh))
            assert all(re.fullmatch("[0-9a-f]{64}", seed) for seed in pending.values())
            assert (old[3]["commitment"], new[0]["commitment"]) == (
                draw.commitment(pending[drawn]),
                draw.commitment(pending[fresh]),
            )
        finally:
            engine.dispose()
