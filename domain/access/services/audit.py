"""The audit trail (RULES AC-3): one row per change, written in the change's own transaction, with the
actor, the instant, the action, its target, the club and what was asked and changed. A club's owner
reads the club's rows; the operator reads all."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from domain.access.rules.policy import Actor
from domain.access.tables import AuditRecord

TRAIL_PAGE = 200


def record(
    session: Session,
    actor: Actor,
    action: str,
    now: datetime,
    *,
    target: str,
    club_id: int | None = None,
    data: dict[str, Any] | None = None,
) -> None:
    session.add(
        AuditRecord(
            at=now,
            actor_kind=actor.kind,
            actor_label=actor.label,
            account_id=actor.account_id,
            token_id=actor.token_id,
            club_id=club_id,
            action=action,
            target=target,
            data=data or {},
        )
    )


def trail(
    session: Session, club_id: int | None, *, before_id: int | None = None, limit: int = TRAIL_PAGE
) -> list[dict]:
    """The newest changes first (of one club, or all of them for `club_id=None`), a page at a time."""
    query = select(AuditRecord).order_by(AuditRecord.id.desc()).limit(min(limit, TRAIL_PAGE))
    if club_id is not None:
        query = query.where(AuditRecord.club_id == club_id)
    if before_id is not None:
        query = query.where(AuditRecord.id < before_id)
    return _rows(session, query)


def by_account(session: Session, account_id: int) -> list[dict]:
    """Every change an account made (part of its own data, AC-5), newest first."""
    return _rows(
        session, select(AuditRecord).where(AuditRecord.account_id == account_id).order_by(AuditRecord.id.desc())
    )


def _rows(session: Session, query) -> list[dict]:
    return [
        {
            "id": r.id,
            "at": r.at,
            "actor": r.actor_label,
            "actor_kind": r.actor_kind,
            "action": r.action,
            "target": r.target,
            "club_id": r.club_id,
            "data": r.data,
        }
        for r in session.scalars(query)
    ]
