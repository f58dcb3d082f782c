"""Platform seeds a test fixes (SP-13, PD-12): in place of the platform key's derivation, for one
session, so a played-through tournament draws the same every time whatever its id."""

from __future__ import annotations

from collections.abc import Callable

from sqlalchemy.orm import Session

from domain.store.db import SEEDS


def fixed_seeds(session: Session, seed_of: Callable[[int], str]) -> None:
    """The session's platform seeds from now on: `seed_of(seq)` for the draw `seq` of any
    tournament's chain (the last part of the draw's description)."""
    session.info[SEEDS] = lambda what: seed_of(int(what.rsplit("|", 1)[1]))


def played_through_seeds(seq: int) -> str:
    """The seeds the 32-player Pusoy Dos script has always drawn with: "seed-0" committed at
    creation, then "seed-32" by the join that starts it, "seed-33" by the first completion, ..."""
    return "seed-0" if seq == 1 else f"seed-{seq + 30}"
