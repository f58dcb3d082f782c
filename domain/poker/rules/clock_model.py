"""The values of a live tournament's server clock (Sport Poker 3.5, RULES SP-8): a blind structure's
`Level`s; the stored clock (`Clock`: its `Segment`s, `Pause`s and `Override`s); what it shows at an
instant (`Reading`); what happened (`ClockEvent`) and what a transition returns (`Transition`);
one tournament's clock as the services load it (`Loaded`). The rules over them are in `clock.py`.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta


@dataclass(frozen=True)
class Level:
    small: int
    big: int
    ante: int
    seconds: int
    is_break: bool = False

    @property
    def duration(self) -> timedelta:
        return timedelta(seconds=self.seconds)


@dataclass(frozen=True)
class Segment:
    """From `start` the clock runs from the beginning of `level` (a 0-based index)."""

    level: int
    start: datetime


@dataclass(frozen=True)
class Pause:
    start: datetime
    end: datetime | None = None


@dataclass(frozen=True)
class Override:
    level: int
    at: datetime
    small: int
    big: int
    ante: int


@dataclass(frozen=True)
class Clock:
    segments: tuple[Segment, ...] = ()
    pauses: tuple[Pause, ...] = ()
    overrides: tuple[Override, ...] = ()

    @property
    def started(self) -> bool:
        return bool(self.segments)

    @property
    def paused(self) -> bool:
        return bool(self.pauses) and self.pauses[-1].end is None

    @property
    def last_action_at(self) -> datetime | None:
        instants = [s.start for s in self.segments] + [o.at for o in self.overrides]
        for p in self.pauses:
            instants.append(p.end or p.start)
        return max(instants, default=None)


@dataclass(frozen=True)
class Reading:
    """What the clock shows at `at`. `level` is a 0-based index; `level_number` is 1-based."""

    at: datetime
    started: bool
    paused: bool
    exhausted: bool
    level: int | None
    is_break: bool
    small: int
    big: int
    ante: int
    elapsed: timedelta
    time_left: timedelta
    level_ends_at: datetime | None
    next_break_in: timedelta | None
    next_break_at: datetime | None
    breaks_passed: int

    @property
    def level_number(self) -> int | None:
        return None if self.level is None else self.level + 1

    @property
    def status(self) -> str:
        if not self.started:
            return "not started"
        if self.paused:
            return "paused"
        return "structure exhausted" if self.exhausted else "running"


# Order of events that share an instant.
EVENT_KINDS = ("break-ended", "level-started", "break-started", "overridden", "paused", "resumed")


@dataclass(frozen=True)
class ClockEvent:
    """One thing that happened. Its key (segment, kind, level, at) is unique in a clock's history."""

    kind: str
    at: datetime
    segment: int
    level: int
    break_number: int | None = None

    @property
    def key(self) -> tuple[int, str, int, datetime]:
        return (self.segment, self.kind, self.level, self.at)


@dataclass(frozen=True)
class Transition:
    clock: Clock
    events: tuple[ClockEvent, ...]


@dataclass(frozen=True)
class Loaded:
    """One tournament's clock with what its rules need."""

    tournament_id: int
    clock: Clock
    levels: tuple[Level, ...]
    ante_type: str
    hands_per_hour: int
