"""Delivering (Players online: webhooks): `attempt_next` takes the next delivery due `FOR UPDATE SKIP
LOCKED`, POSTs the event signed under the endpoint's secret, and records the outcome in the same
transaction, which the caller commits (the job's loop gives each delivery its own). While one run
holds a delivery no other run sees it; a 2xx answer marks it delivered; anything else counts an
attempt and sets the next one by the back-off (domain/webhooks/rules/retry.py), or gives up.

At least once: the outcome is written after the POST, so a process that dies after the endpoint
answered and before the commit leaves the delivery pending, and it is sent again (the same event id
and body: the receiver de-duplicates by `Tourney-Event-Id`). Never twice at once."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import select
from sqlalchemy.orm import Session

from domain.webhooks.ports import Sender, SendError
from domain.webhooks.rules import events, retry, signing
from domain.webhooks.tables import Delivery, Endpoint, Event

MAX_ERROR = 500


def _due(now: datetime):
    return (
        Delivery.delivered_at.is_(None),
        Delivery.failed_at.is_(None),
        Delivery.next_attempt_at <= now,
    )


def attempt_next(session: Session, sender: Sender, platform_key: bytes, now: datetime) -> dict | None:
    """Attempt the next delivery due at `now` (its row locked until the caller commits); its outcome, or
    None when nothing is due (or every due one is held by another run)."""
    found = session.execute(
        select(Delivery, Event, Endpoint)
        .join(Event, Event.id == Delivery.event_id)
        .join(Endpoint, Endpoint.id == Delivery.endpoint_id)
        .where(*_due(now))
        .order_by(Delivery.next_attempt_at, Delivery.id)
        .limit(1)
        .with_for_update(of=Delivery, skip_locked=True)
    ).first()
    if found is None:
        return None
    delivery, event, endpoint = found
    outcome = {"delivery": delivery.id, "event": event.id, "kind": event.kind, "endpoint": endpoint.id}
    if endpoint.disabled_at is not None:
        delivery.failed_at, delivery.last_error = now, "endpoint disabled"
        return outcome | {"state": "failed", "status": None, "attempts": delivery.attempts}
    body = events.body(event.id, event.kind, event.created_at, event.club_id, event.organizer, event.payload)
    secret = signing.derive_secret(platform_key, endpoint.id, endpoint.created_at)
    headers = {
        "Content-Type": "application/json",
        signing.EVENT_ID_HEADER: event.id,
        signing.EVENT_HEADER: event.kind,
        signing.SIGNATURE_HEADER: signing.sign(secret, int(now.timestamp()), body),
    }
    status, error = None, None
    try:
        status = sender.post(endpoint.url, body, headers)
    except SendError as exc:
        error = str(exc)[:MAX_ERROR] or type(exc).__name__
    delivery.attempts += 1
    delivery.last_status = status
    if status is not None and 200 <= status < 300:
        delivery.delivered_at, delivery.last_error = now, None
        state = "delivered"
    else:
        delivery.last_error = error or f"answered {status}"
        again = retry.next_attempt(delivery.attempts, event.created_at, now)
        if again is None:
            delivery.failed_at, state = now, "failed"
        else:
            delivery.next_attempt_at, state = again, "retrying"
    session.flush()
    return outcome | {"state": state, "status": status, "attempts": delivery.attempts}
