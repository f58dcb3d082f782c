"""Committed-seed draws (PD-12): each draw's seed is committed (its SHA-256 stored) before it is used, revealed after."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from sqlalchemy import select
from sqlalchemy.orm import Session

from domain import draw
from domain.pusoy.tables import (
    PusoyDraw,
)


def commit_draw(session: Session, tournament_id: int, seq: int, now: datetime, seed: str | None = None) -> None:
    seed = seed or draw.new_seed()
    session.add(
        PusoyDraw(tournament_id=tournament_id, seq=seq, commitment=draw.commitment(seed), seed=seed, committed_at=now)
    )


def reveal(
    session: Session, tournament_id: int, purpose: str, items: Sequence[str], now: datetime, next_seed: str | None
) -> str:
    """Use the committed seed for one draw (returned), record the draw for re-checking, commit the
    next seed."""
    pending = session.scalars(
        select(PusoyDraw)
        .where(PusoyDraw.tournament_id == tournament_id, PusoyDraw.revealed_at.is_(None))
        .execution_options(populate_existing=True)
    ).one()
    outcome = draw.shuffled(pending.seed, purpose, sorted(items))
    pending.purpose, pending.items, pending.outcome, pending.revealed_at = purpose, sorted(items), outcome, now
    commit_draw(session, tournament_id, pending.seq + 1, now, next_seed)
    return pending.seed
