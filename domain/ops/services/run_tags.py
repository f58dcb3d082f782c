"""The tags by which an admin finds a tournament's job runs (Prefect UI, filter by tag):

- `kind:poker` or `kind:pusoy`;
- `club:<club id>`, when the tournament belongs to a club (a Pusoy Dos tournament may not);
- `tournament:poker-<id>` (the id `tourney poker ...` takes) or `tournament:pusoy-<id>` (the Pusoy Dos
  tournament's id, never its join code: a private tournament's code is its key, and tags are shown to
  everyone who sees the runs): the two kinds number their tournaments separately, so the kind is
  part of the tag.

Plain strings read from the database; the flows put them on runs."""

from __future__ import annotations

from collections.abc import Iterable

from sqlalchemy import select
from sqlalchemy.orm import Session

from domain.poker.tables.tournaments import Tournament
from domain.pusoy.tables import PusoyTournament


def _tags(kind: str, name: str, club_id: int | None) -> tuple[str, ...]:
    return (f"kind:{kind}", *((f"club:{club_id}",) if club_id is not None else ()), f"tournament:{kind}-{name}")


def poker_tags(session: Session, ids: Iterable[int]) -> dict[int, tuple[str, ...]]:
    """Each live poker tournament's tags, by id (unknown ids are left out)."""
    ids = list(ids)
    if not ids:
        return {}
    rows = session.execute(select(Tournament.id, Tournament.club_id).where(Tournament.id.in_(ids)))
    return {tid: _tags("poker", str(tid), club_id) for tid, club_id in rows}


def pusoy_tags(session: Session, ids: Iterable[int]) -> dict[int, tuple[str, ...]]:
    """Each Pusoy Dos tournament's tags, by id (unknown ids are left out)."""
    ids = list(ids)
    if not ids:
        return {}
    rows = session.execute(select(PusoyTournament.id, PusoyTournament.club_id).where(PusoyTournament.id.in_(ids)))
    return {tid: _tags("pusoy", str(tid), club_id) for tid, club_id in rows}
