"""When a failed delivery is tried again (Players online: webhooks): 10 s, 30 s, 2 min, 10 min, 1 h,
2 h, 4 h, then every 6 h; after 10 attempts, or when the next one would fall more than 24 h after the
event, the delivery is given up (marked failed). Deterministic: `now` is passed in."""

from __future__ import annotations

from datetime import datetime, timedelta

DELAYS = tuple(
    timedelta(seconds=s) for s in (10, 30, 120, 600, 3600, 2 * 3600, 4 * 3600, 6 * 3600)
)  # after the 1st, 2nd, ... failed attempt; the last one repeats
MAX_ATTEMPTS = 10
GIVE_UP_AFTER = timedelta(hours=24)


def delay(attempts: int) -> timedelta:
    """The wait after the `attempts`-th failed attempt (1-based), capped at the last delay."""
    return DELAYS[min(max(attempts, 1), len(DELAYS)) - 1]


def next_attempt(attempts: int, event_at: datetime, now: datetime) -> datetime | None:
    """When to try again after `attempts` failed attempts, the last one at `now`; None: give up."""
    if attempts >= MAX_ATTEMPTS:
        return None
    due = now + delay(attempts)
    return None if due > event_at + GIVE_UP_AFTER else due
