"""The outbox (Players online: webhooks): `emit` writes an event and one delivery per enabled endpoint
subscribed to it, in the caller's transaction, the very one that makes the change the event tells of:
a change rolled back emits nothing, a change committed has its event. One statement whatever the
number of events or endpoints (`emit_many`), so set-based jobs stay set-based.

Whose an event is: a club's endpoints hear the events of the club's tournaments; an organizer's
endpoints hear those of the Pusoy Dos cups that organizer runs (`pusoy_tournaments.organizer`, as
the operator typed it). Payloads are public data only (AC-5): ids, names of tournaments, places by
handle; never a full name or an e-mail."""

from __future__ import annotations

import json
import uuid
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import text
from sqlalchemy.orm import Session

from domain.webhooks.rules.endpoints import KINDS


@dataclass(frozen=True)
class NewEvent:
    kind: str
    club_id: int | None
    organizer: str | None
    payload: dict[str, Any]


_EMIT = text(
    """
    WITH event AS (
        INSERT INTO webhook_events (id, kind, club_id, organizer, payload, created_at)
        SELECT x.id, x.kind, x.club_id, x.organizer, x.payload, :now
        FROM jsonb_to_recordset(CAST(:events AS jsonb))
            AS x(id text, kind text, club_id bigint, organizer text, payload jsonb)
        RETURNING id, kind, club_id, organizer
    )
    INSERT INTO webhook_deliveries (event_id, endpoint_id, attempts, next_attempt_at)
    SELECT event.id, e.id, 0, :now
    FROM event JOIN webhook_endpoints e
        ON e.disabled_at IS NULL AND event.kind = ANY (e.events)
        AND (e.club_id = event.club_id OR e.organizer = event.organizer)
    """
)


def emit_many(session: Session, now: datetime, events: Sequence[NewEvent]) -> list[str]:
    """Write `events` and their deliveries; the events' ids. One statement (none for no events)."""
    if not events:
        return []
    for e in events:
        if e.kind not in KINDS:
            raise ValueError(f"unknown webhook event {e.kind!r}")
    rows = [
        {"id": str(uuid.uuid4()), "kind": e.kind, "club_id": e.club_id, "organizer": e.organizer, "payload": e.payload}
        for e in events
    ]
    session.flush()  # the change the events tell of goes first
    session.execute(_EMIT, {"now": now, "events": json.dumps(rows, default=str)})
    return [r["id"] for r in rows]


def emit(
    session: Session, kind: str, now: datetime, *, club_id: int | None, organizer: str | None, payload: dict
) -> str:
    """Write one event and its deliveries in the caller's transaction; the event's id."""
    return emit_many(session, now, [NewEvent(kind, club_id, organizer, payload)])[0]
