"""The registry's rate limit (REGISTRY_RATE requests a second), one budget for every thread,
process and machine sharing the database: two `verify-clubs` workers never double it.

Each request first takes the next free slot of its provider in one statement (`registry_rate`, the
row locked only for that statement): the slot is the later of the row's next free instant and the
database's clock, and the row moves one interval past it. The caller then sleeps until its slot. The
instants are the database's clock only, so the machines' clocks never need to agree."""

from __future__ import annotations

import time
from collections.abc import Callable
from datetime import datetime, timedelta

from sqlalchemy import Engine, text

_TAKE = text(
    """
    INSERT INTO registry_rate AS r (provider, next_at) VALUES (:provider, clock_timestamp() + :interval)
    ON CONFLICT (provider) DO UPDATE SET next_at = greatest(r.next_at, clock_timestamp()) + :interval
    RETURNING r.next_at - :interval AS slot, clock_timestamp() AS now
    """
)


class SharedRateLimiter:
    def __init__(self, engine: Engine, provider: str, rate: float, sleep: Callable[[float], None] = time.sleep):
        if rate <= 0:
            raise ValueError("the rate limit must be positive")
        self.engine, self.provider, self._sleep = engine, provider, sleep
        self.interval = timedelta(seconds=1 / rate)

    def acquire(self) -> datetime:
        """Wait for this caller's slot; returns it (the database's instant it may send at)."""
        with self.engine.begin() as conn:
            slot, now = conn.execute(_TAKE, {"provider": self.provider, "interval": self.interval}).one()
        if slot > now:
            self._sleep((slot - now).total_seconds())
        return slot
