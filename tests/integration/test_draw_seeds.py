"""Seeds nobody can read before their draw (SP-13, PD-12): the platform's seed of a pending draw is
derived from the platform key, outside the database; the database holds its commitment only, and the
draw reveals a seed whose SHA-256 is that commitment."""

from __future__ import annotations

import os
from datetime import timedelta

import pytest
from sqlalchemy import text
from sqlalchemy.orm import Session

from domain import draw
from domain.errors import ConfigurationError
from domain.poker.services import draws
from domain.poker.services import seating as svc
from domain.pusoy.services import draws as pusoy_draws
from domain.pusoy.services import setup as pusoy_setup
from domain.pusoy.services import views as pusoy_views
from domain.store.db import SEEDS
from domain.tables import metadata
from tests.support import world as w
from tests.support.world import created


def everything(session: Session) -> str:
    """Every row of every table as text, as this session sees it."""
    session.flush()
    rows = [
        session.scalar(text(f"SELECT string_agg(r::text, '|') FROM \"{t.name}\" r")) or ""
        for t in metadata.sorted_tables
    ]
    return "\n".join(rows)


def draw_key() -> bytes:
    return draw.seed_key(os.environ["TOURNEY_SECRET_KEY"].encode())


def test_sp_13_pending_seed_is_not_readable_from_the_database(session):
    """SP-13: after the commitment, no column of any table holds the pending seed; the seed derived
    with the platform key reproduces the published commitment; the draw reveals it (its SHA-256 is
    the commitment) and the next pending seed is again nowhere in the database."""
    tid = w.tournament_through_services(session, now=w.NOW)
    for _ in range(6):
        w.checked_in(session, tid, w.player(session).id)
    seed = draw.platform_seed(draw_key(), f"poker-seat-draw|{tid}|1")
    assert draws.platform_seed(session, tid, 1) == seed
    [published] = draws.proof(session, tid)
    assert published["commitment"] == draws.pending_commitment(session, tid) == draw.commitment(seed)
    assert published["platform_seed"] is None
    assert seed not in everything(session)
    out = svc.draw_initial(session, tid, w.NOW + timedelta(minutes=1), seed="floor")
    assert out["draw"]["platform_seed"] == seed and draw.matches(seed, out["draw"]["commitment"])
    following = draws.platform_seed(session, tid, 2)
    assert out["draw"]["next_commitment"] == draw.commitment(following)
    stored = everything(session)
    assert seed in stored and following not in stored  # revealed once drawn; the next stays secret
    first, pending = draws.proof(session, tid)
    assert (first["platform_seed"], first["ok"], pending["platform_seed"]) == (seed, True, None)


def test_sp_13_another_platform_key_gives_another_seed_and_a_pending_draw_is_refused(session):
    """SP-13: the seed is the platform key's: another key gives another seed, which is not the
    committed one, so a draw under a changed key is refused (no seed other than the commitment's is
    ever revealed) and writes nothing."""
    tid = w.tournament_through_services(session, now=w.NOW)
    for _ in range(4):
        w.checked_in(session, tid, w.player(session).id)
    other = draw.keyed(draw.seed_key(b"another-platform-secret-of-32-bytes-or-more"))
    seed, elsewhere = draws.platform_seed(session, tid, 1), other(f"poker-seat-draw|{tid}|1")
    assert seed != elsewhere and not draw.matches(elsewhere, draws.pending_commitment(session, tid))
    before = everything(session)
    session.info[SEEDS] = other
    savepoint = session.begin_nested()
    with pytest.raises(ConfigurationError) as refused:
        svc.draw_initial(session, tid, w.NOW + timedelta(minutes=1), seed="floor")
    savepoint.rollback()
    assert refused.value.code == "draw-key-changed"
    del session.info[SEEDS]
    assert everything(session) == before


def test_sp_13_a_session_without_a_seed_source_draws_nothing(engine):
    """SP-13: a session on an engine the composition root did not give a seed source refuses to
    commit a draw rather than fall back to a seed the database would keep."""
    from domain.store.db import make_engine

    bare = make_engine(engine.url)
    try:
        with bare.connect() as conn, Session(bind=conn) as s:
            with pytest.raises(ConfigurationError) as refused:
                draws.platform_seed(s, 1, 1)
            assert refused.value.code == "no-draw-key"
    finally:
        bare.dispose()


def test_pd_12_pending_seed_is_not_readable_from_the_database(session):
    """PD-12: a Pusoy Dos tournament's pending seed is in no table either; the start reveals the
    committed one and commits the next without storing it."""
    t = created(session, 8)
    seed = draw.platform_seed(draw_key(), f"pusoy-draw|{t.id}|1")
    assert pusoy_draws.platform_seed(session, t.id, 1) == seed
    assert pusoy_views.show(session, t.code)["next_draw_commitment"] == draw.commitment(seed)
    assert seed not in everything(session)
    for i in range(8):
        pusoy_setup.join(session, t.code, f"u{i:02d}", w.NOW)
    first, pending = pusoy_views.draw_proof(session, t.code)
    following = pusoy_draws.platform_seed(session, t.id, 2)
    assert (first["seed"], first["verified"], pending["seed"]) == (seed, True, None)
    assert pending["commitment"] == draw.commitment(following)
    stored = everything(session)
    assert seed in stored and following not in stored
