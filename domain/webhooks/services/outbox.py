"""The outbox (Players online: webhooks): `emit` writes an event and one delivery per enabled endpoint
subscribed to it, in the caller's transaction, the very one that makes the change the event tells of:
a change rolled back emits nothing, a change committed has its event. One statement whatever the
number of events or endpoints (`emit_many`), so set-based jobs stay set-based.

Whose an event is: a club's endpoints hear the events of the club's tournaments; an organizer's
endpoints hear those of the Pusoy Dos cups that organizer runs (`pusoy_tournaments.organizer`, as
the operator typed it). Payloads are public data only (AC-5): ids, names of tournaments, places by
handle; never a full name or an e-mail.

The outbox is also the platform's bus: `emit` sends `NOTIFY tourney_events` in the same transaction,
which wakes the event consumer when it commits (flows/jobs/events.py); the consumer takes each event
still to do (`next_to_react`, locked), reacts, and records its reaction (`reacted`) in that
transaction. `round.ready` is the platform's own event: no endpoint hears it."""

from __future__ import annotations

import json
import uuid
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import text
from sqlalchemy.orm import Session

from domain.webhooks.rules.endpoints import EVENT_KINDS

CHANNEL = "tourney_events"  # emit's wake-up of the event consumer


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


_WAKE = text(f"SELECT pg_notify('{CHANNEL}', '')")


def emit_many(session: Session, now: datetime, events: Sequence[NewEvent]) -> list[str]:
    """Write `events` and their deliveries; the events' ids. One statement (none for no events)."""
    if not events:
        return []
    for e in events:
        if e.kind not in EVENT_KINDS:
            raise ValueError(f"unknown webhook event {e.kind!r}")
    rows = [
        {"id": str(uuid.uuid4()), "kind": e.kind, "club_id": e.club_id, "organizer": e.organizer, "payload": e.payload}
        for e in events
    ]
    session.flush()  # the change the events tell of goes first
    session.execute(_EMIT, {"now": now, "events": json.dumps(rows, default=str)})
    session.execute(_WAKE)
    return [r["id"] for r in rows]


def emit(
    session: Session, kind: str, now: datetime, *, club_id: int | None, organizer: str | None, payload: dict
) -> str:
    """Write one event and its deliveries in the caller's transaction; the event's id."""
    return emit_many(session, now, [NewEvent(kind, club_id, organizer, payload)])[0]


@dataclass(frozen=True)
class ToReact:
    """An event still to react to, as the consumer reads it: `delivering` when a delivery of it is due."""

    id: str
    kind: str
    payload: dict[str, Any]
    created_at: datetime
    delivering: bool


_NEXT = text(
    """
    SELECT e.id, e.kind, e.payload, e.created_at,
           EXISTS (SELECT FROM webhook_deliveries d
                   WHERE d.event_id = e.id AND d.delivered_at IS NULL AND d.failed_at IS NULL) AS delivering
    FROM webhook_events e
    WHERE e.reacted_at IS NULL AND (CAST(:kinds AS text[]) IS NULL OR e.kind = ANY (CAST(:kinds AS text[])))
      AND NOT e.id = ANY (CAST(:skip AS text[]))
    ORDER BY e.created_at, e.id
    LIMIT 1
    FOR UPDATE OF e SKIP LOCKED
    """
)
_REACTED = text(
    "UPDATE webhook_events SET reacted_at = :now, reaction = :reaction WHERE id = :id AND reacted_at IS NULL"
)


def next_to_react(session: Session, kinds: Sequence[str] | None = None, skip: Sequence[str] = ()) -> ToReact | None:
    """The oldest event still to react to (of `kinds`, when given; none of `skip`), locked for this
    transaction; one another transaction holds is passed over."""
    row = session.execute(_NEXT, {"kinds": list(kinds) if kinds is not None else None, "skip": list(skip)}).first()
    return ToReact(*row) if row else None


def reacted(session: Session, event_id: str, now: datetime, reaction: str) -> None:
    """Record the reaction to an event, in the transaction of its effect: once."""
    session.execute(_REACTED, {"id": event_id, "now": now, "reaction": reaction})
