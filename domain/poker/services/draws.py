"""A tournament's chain of seeds for its draws by lot (RULES SP-13, PD-12).

The first seed of the platform's is committed when the tournament is created (its SHA-256
published by `draw-proof` before anyone can give a floor seed); each draw reveals the pending seed,
combines it with the floor's optional seed (`domain.draw.combined`), records the purpose, items and
outcome, and commits the next seed. A tournament without a pending seed (written without the
tournament service) has one committed by its first draw.

The platform's seed of draw `seq` is derived, not drawn: `domain.draw.platform_seed` of
`"poker-seat-draw|<tournament id>|<seq>"` under the platform's draw key, which the database does not
hold (the session's seed source, `domain.store.db.draw_seeds`). A pending row keeps only the
commitment; the draw stores the seed it reveals, for `draw-proof`."""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from typing import Any

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from domain import draw
from domain.errors import ConfigurationError, raise_problems
from domain.poker.rules import seating as pure
from domain.poker.tables.clock_seating import SeatDraw
from domain.store.db import draw_seeds


def platform_seed(session: Session, tournament_id: int, seq: int) -> str:
    """The platform's seed of the tournament's draw `seq`, from the session's seed source."""
    return draw_seeds(session)(draw.description(draw.POKER_SEAT_DRAW, tournament_id, seq))


def commit(session: Session, tournament_id: int, now: datetime) -> SeatDraw:
    """Commit the platform's next seed: its SHA-256 is stored and published, the seed is not."""
    last = session.scalar(select(func.max(SeatDraw.seq)).where(SeatDraw.tournament_id == tournament_id))
    seq = (last or 0) + 1
    row = SeatDraw(
        tournament_id=tournament_id,
        seq=seq,
        commitment=draw.commitment(platform_seed(session, tournament_id, seq)),
        seed=None,
        committed_at=now,
    )
    session.add(row)
    session.flush()
    return row


def _revealed(session: Session, row: SeatDraw) -> str:
    """The pending row's seed, derived again; refused when it is not the one committed (the platform
    key changed since): a draw never reveals a seed other than its commitment's."""
    seed = platform_seed(session, row.tournament_id, row.seq)
    if not draw.matches(seed, row.commitment):
        raise ConfigurationError(
            "draw-key-changed",
            "the platform key does not give the seed committed for draw %(seq)s of tournament %(tournament_id)s "
            "(SP-13): the key changed since; restore the one it was committed with",
            seq=row.seq,
            tournament_id=row.tournament_id,
        )
    return seed


def pending(session: Session, tournament_id: int) -> SeatDraw | None:
    return session.scalars(
        select(SeatDraw).where(SeatDraw.tournament_id == tournament_id, SeatDraw.drawn_at.is_(None))
    ).one_or_none()


def pending_commitment(session: Session, tournament_id: int) -> str | None:
    """The published SHA-256 of the seed the tournament's next draw will use (none before its first
    draw if it was written without the tournament service)."""
    row = pending(session, tournament_id)
    return row.commitment if row else None


def run(
    session: Session,
    tournament_id: int,
    purpose: str,
    items: Any,
    floor_seed: str | None,
    now: datetime,
    apply: Callable[[str], Any],
) -> tuple[Any, dict]:
    """One draw: `apply(seed)` runs the rule with the combined seed and returns its result; the
    recorded outcome is `pure.outcome(purpose, result)`. Returns the result and what the draw shows
    at once (the commitment it revealed, both seeds, the next commitment). Call it under the
    tournament's seating lock."""
    raise_problems(pure.floor_seed_problems(floor_seed))
    row = pending(session, tournament_id) or commit(session, tournament_id, now)
    seed = _revealed(session, row)
    result = apply(draw.combined(seed, floor_seed))
    row.seed, row.purpose, row.floor_seed, row.items, row.drawn_at = seed, purpose, floor_seed, items, now
    row.outcome = pure.outcome(purpose, result)
    session.flush()
    following = commit(session, tournament_id, now)
    return result, {
        "seq": row.seq,
        "purpose": purpose,
        "commitment": row.commitment,
        "platform_seed": row.seed,
        "floor_seed": floor_seed,
        "next_commitment": following.commitment,
    }


def proof(session: Session, tournament_id: int) -> list[dict]:
    """SP-13: every draw of the tournament, in order: its purpose, the commitment and when it was
    published, the platform's seed and the floor's (once drawn), the items, the outcome, and
    whether re-running it from both seeds reproduces the outcome ("ok": true or false; null for the
    pending seed and for draws recorded before SP-13, which kept no items)."""
    rows = session.scalars(select(SeatDraw).where(SeatDraw.tournament_id == tournament_id).order_by(SeatDraw.seq)).all()
    return [_proof_row(d) for d in rows]


def _proof_row(d: SeatDraw) -> dict:
    drawn = d.drawn_at is not None
    return {
        "seq": d.seq,
        "purpose": d.purpose,
        "commitment": d.commitment,
        "committed_at": d.committed_at,
        "drawn_at": d.drawn_at,
        "platform_seed": d.seed if drawn else None,
        "floor_seed": d.floor_seed,
        "items": d.items,
        "outcome": d.outcome,
        "ok": pure.recheck(d.purpose, d.commitment, d.seed, d.floor_seed, d.items, d.outcome)
        if drawn and d.items is not None
        else None,
    }
