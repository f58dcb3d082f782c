"""What a delivery's body is (Players online: webhooks): the event as JSON, the same bytes on every
attempt (keys sorted, no spaces), so a receiver de-duplicates by `id` and checks the signature over
exactly what it received."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from typing import Any


def body(
    event_id: str, kind: str, created_at: datetime, club_id: int | None, organizer: str | None, data: Any
) -> bytes:
    document = {
        "id": event_id,
        "kind": kind,
        "created_at": created_at.astimezone(UTC).isoformat().replace("+00:00", "Z"),
        "club_id": club_id,
        "organizer": organizer,
        "data": data,
    }
    return json.dumps(document, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode()
