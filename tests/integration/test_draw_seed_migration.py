"""Migration 1010 (SP-13, PD-12): the pending seeds stored in plain text are discarded and each
pending draw is committed again to its seed derived from the platform key; drawn rows keep their
revealed seed. Down writes the derived seeds back. Runs on a scratch database of its own, since it
steps the schema back."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from alembic import command
from sqlalchemy import Engine, text
from sqlalchemy.orm import Session

from domain import draw
from domain.poker.services import draws
from domain.poker.services import seating as svc
from domain.store.db import make_engine
from domain.store.migrate import _config, upgrade
from domain.store.scratch import scratch_database
from flows import bootstrap
from tests.support import world as w
from tests.support.world import created

AT = datetime(2026, 11, 20, 18, 0, tzinfo=UTC)
ROWS = (
    "SELECT 'poker', tournament_id, seq, seed, commitment, committed_at, drawn_at IS NOT NULL FROM poker_seat_draws"
    " UNION ALL SELECT 'pusoy', tournament_id, seq, seed, commitment, committed_at, revealed_at IS NOT NULL"
    " FROM pusoy_draws ORDER BY 1, 2, 3"
)
CHAIN = {"poker": draw.POKER_SEAT_DRAW, "pusoy": draw.PUSOY_DRAW}


def _step(engine: Engine, how: str, target: str) -> None:
    config = _config()
    with engine.begin() as conn:
        config.attributes["connection"] = conn
        getattr(command, how)(config, target)


def _rows(engine: Engine) -> list[tuple]:
    with engine.connect() as conn:
        return [tuple(r) for r in conn.execute(text(ROWS))]


def test_sp_13_migration_1010_recommits_the_pending_seeds_to_the_key_and_keeps_the_revealed_ones(database_url):
    """SP-13, PD-12"""
    seeds = bootstrap.draw_seeds()

    def derived(game: str, tid: int, seq: int) -> str:
        return seeds(draw.description(CHAIN[game], tid, seq))

    with scratch_database(database_url, "drawseeds") as url:
        engine = make_engine(url, seeds=seeds)
        try:
            upgrade(engine)
            with Session(engine) as s, s.begin():
                drawn = w.tournament_through_services(s, now=w.NOW)
                for _ in range(3):
                    w.checked_in(s, drawn, w.player(s).id)
                svc.draw_initial(s, drawn, w.NOW + timedelta(minutes=1), seed="floor")
                fresh = w.tournament_through_services(s, now=w.NOW)
                for _ in range(2):
                    w.checked_in(s, fresh, w.player(s).id)
                cup = created(s, 8).id
            at_head = _rows(engine)
            assert [(g, t, q, seed is None, done) for g, t, q, seed, _, _, done in at_head] == [
                ("poker", drawn, 1, False, True),
                ("poker", drawn, 2, True, False),
                ("poker", fresh, 1, True, False),
                ("pusoy", cup, 1, True, False),
            ]
            revealed = at_head[0]

            _step(engine, "downgrade", "1000")
            back = _rows(engine)
            assert back[0] == revealed
            for (game, tid, seq, seed, commitment, committed_at, _), was in zip(back[1:], at_head[1:], strict=True):
                assert seed == derived(game, tid, seq) and (commitment, committed_at) == (was[4], was[5])

            # what 1000 left: random pending seeds, readable, committed long ago
            old = {}
            with engine.begin() as conn:
                for game, tid, seq, *_ in back[1:]:
                    old[(game, tid)] = seed = draw.new_seed()
                    conn.execute(
                        text(
                            f"UPDATE {'poker_seat_draws' if game == 'poker' else 'pusoy_draws'}"
                            " SET seed = :s, commitment = :c, committed_at = :at WHERE tournament_id = :t AND seq = :q"
                        ),
                        {"s": seed, "c": draw.commitment(seed), "at": AT, "t": tid, "q": seq},
                    )

            _step(engine, "upgrade", "heads")
            after = _rows(engine)
            assert after[0] == revealed  # a drawn row keeps its revealed seed
            for game, tid, seq, seed, commitment, committed_at, done in after[1:]:
                assert (seed, done) == (None, False)
                assert commitment == draw.commitment(derived(game, tid, seq)) != draw.commitment(old[(game, tid)])
                assert committed_at > AT  # committed again, when the migration ran
            assert not any(seed in str(after) for seed in old.values())
            with Session(engine) as s:
                assert [d["ok"] for d in draws.proof(s, drawn)] == [True, None]
                out = svc.draw_initial(s, fresh, w.NOW + timedelta(minutes=2), seed="later")
                assert out["draw"]["commitment"] == after[2][4]  # the new commitment's seed is revealed
                assert draw.matches(out["draw"]["platform_seed"], after[2][4])
                s.rollback()
        finally:
            engine.dispose()
