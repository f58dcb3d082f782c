"""The poker audit trail: one row per event, ids and amounts only, never personal data."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy.orm import Session

from domain.poker.tables.tournaments import AuditEvent


def audit(
    session: Session,
    event: str,
    now: datetime,
    *,
    tournament_id: int | None = None,
    player_id: int | None = None,
    actor: str | None = None,
    **data: Any,
) -> None:
    """Append one event to the audit trail (ids and amounts only, never personal data)."""
    session.add(
        AuditEvent(tournament_id=tournament_id, player_id=player_id, kind=event, actor=actor, at=now, data=data)
    )
