"""The timekeeper's one decision, pure: given the next due instant of every kind of moment and `now`,
run the kinds due at the earliest instant — passing that instant, never `now` — or sleep until it.

Never early: an instant still ahead, by however little, is slept for (a wake-up a little early
sleeps again). An instant in the past (the timekeeper was busy, down, or just took over) is run at
once, with its own instant: each late moment is still done as of the instant it was due, one
instant after the other in order. Nothing due: sleep `longest`, the safety net under the
notifications."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime, timedelta


@dataclass(frozen=True)
class Run:
    at: datetime  # the instant that was due: what the services are given as `now`
    jobs: tuple[str, ...]  # the kinds due at it


@dataclass(frozen=True)
class Sleep:
    seconds: float


def next_step(due: Mapping[str, datetime | None], now: datetime, longest: timedelta) -> Run | Sleep:
    instants = [at for at in due.values() if at is not None]
    if not instants:
        return Sleep(longest.total_seconds())
    earliest = min(instants)
    if earliest > now:
        return Sleep(min(earliest - now, longest).total_seconds())
    return Run(earliest, tuple(job for job, at in due.items() if at == earliest))
