"""Committed-seed draws (PD-12): each draw's seed is committed (its SHA-256 stored) before it is used, revealed after.

The platform's seed of draw `seq` is derived, not drawn: `domain.draw.platform_seed` of
`"pusoy-draw|<tournament id>|<seq>"` under the platform's draw key, which the database does not hold
(the session's seed source, `domain.store.db.draw_seeds`). A pending row keeps only the commitment;
the draw stores the seed it reveals, for `draw-proof`."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from sqlalchemy import select
from sqlalchemy.orm import Session

from domain import draw
from domain.errors import ConfigurationError
from domain.pusoy.tables import (
    PusoyDraw,
)
from domain.store.db import draw_seeds


def platform_seed(session: Session, tournament_id: int, seq: int) -> str:
    """The platform's seed of the tournament's draw `seq`, from the session's seed source."""
    return draw_seeds(session)(draw.description(draw.PUSOY_DRAW, tournament_id, seq))


def commit_draw(session: Session, tournament_id: int, seq: int, now: datetime) -> None:
    """Commit the seed of the tournament's draw `seq`: its SHA-256 is stored, the seed is not."""
    seed = platform_seed(session, tournament_id, seq)
    session.add(
        PusoyDraw(tournament_id=tournament_id, seq=seq, commitment=draw.commitment(seed), seed=None, committed_at=now)
    )


def reveal(session: Session, tournament_id: int, purpose: str, items: Sequence[str], now: datetime) -> str:
    """Use the committed seed for one draw (returned), record the draw for re-checking, commit the
    next seed. Refused when the seed derived now is not the one committed (the platform key changed)."""
    pending = session.scalars(
        select(PusoyDraw)
        .where(PusoyDraw.tournament_id == tournament_id, PusoyDraw.revealed_at.is_(None))
        .execution_options(populate_existing=True)
    ).one()
    seed = platform_seed(session, tournament_id, pending.seq)
    if not draw.matches(seed, pending.commitment):
        raise ConfigurationError(
            "draw-key-changed",
            f"the platform key does not give the seed committed for draw {pending.seq} of this tournament"
            " (PD-12): the key changed since; restore the one it was committed with",
        )
    outcome = draw.shuffled(seed, purpose, sorted(items))
    pending.seed, pending.purpose, pending.items = seed, purpose, sorted(items)
    pending.outcome, pending.revealed_at = outcome, now
    commit_draw(session, tournament_id, pending.seq + 1, now)
    return seed
