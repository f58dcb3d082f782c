"""Where the documents' data comes from, one module per source: finished live poker tournaments
(`poker`), complete Pusoy Dos tournaments (`pusoy`) and the seasons' standings (`season`), each
with its club's name, contact address and timezone (area clubs); `shared`: what they share.

Set-based: a constant number of statements for any number of tournaments. Each tournament comes
back as a Bundle, or as a Skipped with the reason it cannot be published yet. This package's
interface is the names below: what is due, one tournament's bundle, the seasons' standings due.
"""

from __future__ import annotations

from sqlalchemy.orm import Session

from domain.documents.rules.model import Bundle
from domain.documents.services.sources.poker import due_poker_ids, poker_bundles
from domain.documents.services.sources.pusoy import due_pusoy_ids, pusoy_bundles
from domain.documents.services.sources.season import pending_seasons, season_bundles
from domain.documents.services.sources.shared import Skipped
from domain.errors import DomainError, NotFound

__all__ = [
    "Skipped",
    "bundle",
    "due",
    "due_poker_ids",
    "due_pusoy_ids",
    "pending_seasons",
    "season_bundles",
]


def bundle(session: Session, source: str, tournament_id: int) -> Bundle:
    """One tournament's bundle (for `tourney documents render`), or a clear refusal."""
    if source == "poker":
        found = poker_bundles(session, [tournament_id])
    elif source == "pusoy":
        found = pusoy_bundles(session, [tournament_id])
    else:
        raise DomainError("bad-source", f"source must be poker or pusoy, not {source!r}")
    if not found:
        raise NotFound("tournament-unknown", f"no {source} tournament {tournament_id}")
    if isinstance(found[0], Skipped):
        raise DomainError("not-publishable", found[0].reason)
    return found[0]


def due(session: Session) -> list[Bundle | Skipped]:
    """Every finished poker and complete Pusoy Dos tournament not yet published."""
    return poker_bundles(session, due_poker_ids(session)) + pusoy_bundles(session, due_pusoy_ids(session))
