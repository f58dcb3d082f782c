"""The server clock of a live tournament (Sport Poker 3.5, RULES SP-8).

The clock is stored, never ticked: a `Clock` is the instants at which it was started or moved by
hand (`Segment`s: from that instant it runs from the start of that level), the pauses, and the
blind overrides. Everything a floor manager sees — level, blinds, time left, next break, breaks
passed — is computed for any instant by `read`, and the history of level changes and break
events by `events_until`. Transitions (`start`, `pause`, `resume`, `next_level`, `prev_level`,
`reset_level`, `override`) are pure: they take the state and `now` and return the new state and the
events they raise, at instants strictly after the clock's last change. They never rewrite the
past: every event up to `now` of the old state is an event of the new state, so recording events
is idempotent (each is recorded once, by its key). The values all this works on are in
`clock_model.py`.

Choices where the rules are silent:
- at the exact instant a level's time runs out, the next level has begun;
- when the last level's time runs out the clock stays on it with no time left ("structure
  exhausted"); it does not advance and `next` is refused;
- `next`/`prev`/`reset` while paused keep the clock paused, the new level at its full time;
- an override belongs to the level it was made on and stays until overridden again (a reset keeps
  it); on a break level the values need only be non-negative;
- breaks passed = the break levels of the structure up to and including the current level, so the
  add-on's "at the N-th break" gate opens as the clock enters the N-th break.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from datetime import datetime, timedelta

from domain.errors import DomainError, Problem, raise_problems
from domain.poker.rules.clock_model import (
    EVENT_KINDS,
    Clock,
    ClockEvent,
    Level,
    Override,
    Pause,
    Reading,
    Segment,
    Transition,
)

ZERO = timedelta(0)


# -- computing -------------------------------------------------------------------------------------


def _paused_between(pauses: Sequence[Pause], a: datetime, b: datetime) -> timedelta:
    total = ZERO
    for p in pauses:
        lo = max(p.start, a)
        hi = b if p.end is None else min(p.end, b)
        if hi > lo:
            total += hi - lo
    return total


def _wall_at(pauses: Sequence[Pause], start: datetime, offset: timedelta) -> datetime | None:
    """The instant at which the clock, running from `start`, has run for `offset`; None when an
    open pause stops it first."""
    at, left = start, offset
    for p in pauses:
        if p.end is not None and p.end <= at:
            continue
        lo = max(p.start, at)
        if lo >= at + left:
            break
        left -= lo - at
        if p.end is None:
            return None
        at = p.end
    return at + left


def _segment_index(clock: Clock, at: datetime) -> int | None:
    found = None
    for i, seg in enumerate(clock.segments):
        if seg.start <= at:
            found = i
        else:
            break
    return found


def breaks_passed(levels: Sequence[Level], level: int) -> int:
    """Break levels of the structure up to and including `level`."""
    return sum(1 for lv in levels[: level + 1] if lv.is_break)


def blinds_at(clock: Clock, levels: Sequence[Level], level: int, at: datetime) -> tuple[int, int, int]:
    """(small, big, ante) of `level` as they stand at `at`: the latest override made on it, else the
    structure's."""
    chosen = None
    for o in clock.overrides:
        if o.level == level and o.at <= at:
            chosen = o
    if chosen:
        return chosen.small, chosen.big, chosen.ante
    lv = levels[level]
    return lv.small, lv.big, lv.ante


def next_play_level(levels: Sequence[Level], level: int | None) -> int | None:
    """The next level that is not a break after `level` (0-based; the first such level when the clock
    has not started, `level` None); None when the structure has none left."""
    first = 0 if level is None else level + 1
    return next((i for i in range(first, len(levels)) if not levels[i].is_break), None)


def read(clock: Clock, levels: Sequence[Level], at: datetime) -> Reading:
    """The clock at any instant (UTC, timezone-aware)."""
    i = _segment_index(clock, at)
    if i is None:
        return Reading(at, False, False, False, None, False, 0, 0, 0, ZERO, ZERO, None, None, None, 0)
    seg = clock.segments[i]
    running = (at - seg.start) - _paused_between(clock.pauses, seg.start, at)
    level, last = seg.level, len(levels) - 1
    while level < last and running >= levels[level].duration:
        running -= levels[level].duration
        level += 1
    duration = levels[level].duration
    exhausted = level == last and running >= duration
    elapsed = min(running, duration)
    time_left = duration - elapsed
    paused = any(p.start <= at and (p.end is None or p.end > at) for p in clock.pauses)
    next_break_in = None
    if not exhausted:
        ahead = time_left
        for lv in levels[level + 1 :]:
            if lv.is_break:
                next_break_in = ahead
                break
            ahead += lv.duration
    running_on = not paused and not exhausted
    small, big, ante = blinds_at(clock, levels, level, at)
    return Reading(
        at=at,
        started=True,
        paused=paused,
        exhausted=exhausted,
        level=level,
        is_break=levels[level].is_break,
        small=small,
        big=big,
        ante=ante,
        elapsed=elapsed,
        time_left=time_left,
        level_ends_at=at + time_left if running_on else None,
        next_break_in=next_break_in,
        next_break_at=at + next_break_in if running_on and next_break_in is not None else None,
        breaks_passed=breaks_passed(levels, level),
    )


def furthest_level(clock: Clock, levels: Sequence[Level], at: datetime) -> int | None:
    """The number (1-based) of the furthest level the clock has reached by `at`, whatever it shows
    now (a step back does not lower it); the level count + 1 once the structure was exhausted; None
    before the start. The `rebuy_until_level` window (SP-12) is judged by it."""
    best: int | None = None
    last = len(levels) - 1
    for i, seg in enumerate(clock.segments):
        if seg.start > at:
            break
        end = at if i + 1 == len(clock.segments) else min(at, clock.segments[i + 1].start)
        running = (end - seg.start) - _paused_between(clock.pauses, seg.start, end)
        level = seg.level
        while level < last and running >= levels[level].duration:
            running -= levels[level].duration
            level += 1
        number = level + 1 + (1 if level == last and running >= levels[last].duration else 0)
        best = number if best is None else max(best, number)
    return best


def level_starts(clock: Clock, levels: Sequence[Level], until: datetime) -> list[tuple[int, int, datetime]]:
    """(segment, level, instant) of every level start up to and including `until`, in order."""
    starts: list[tuple[int, int, datetime]] = []
    for i, seg in enumerate(clock.segments):
        if seg.start > until:
            break
        end = clock.segments[i + 1].start if i + 1 < len(clock.segments) else None
        starts.append((i, seg.level, seg.start))
        offset = ZERO
        for level in range(seg.level + 1, len(levels)):
            offset += levels[level - 1].duration
            at = _wall_at(clock.pauses, seg.start, offset)
            if at is None or at > until or (end is not None and at > end):
                break
            starts.append((i, level, at))
    return starts


def events_until(clock: Clock, levels: Sequence[Level], until: datetime) -> tuple[ClockEvent, ...]:
    """Every event of the clock's history up to and including `until`, in order."""
    events: list[ClockEvent] = []
    previous: int | None = None
    for segment, level, at in level_starts(clock, levels, until):
        if previous is not None and previous != level and levels[previous].is_break:
            events.append(ClockEvent("break-ended", at, segment, previous, breaks_passed(levels, previous)))
        events.append(ClockEvent("level-started", at, segment, level))
        if levels[level].is_break and previous != level:
            events.append(ClockEvent("break-started", at, segment, level, breaks_passed(levels, level)))
        previous = level

    def located(kind: str, at: datetime) -> ClockEvent:
        return ClockEvent(kind, at, _segment_index(clock, at) or 0, read(clock, levels, at).level or 0)

    for p in clock.pauses:
        if p.start <= until:
            events.append(located("paused", p.start))
        if p.end is not None and p.end <= until:
            events.append(located("resumed", p.end))
    for o in clock.overrides:
        if o.at <= until:
            events.append(ClockEvent("overridden", o.at, _segment_index(clock, o.at) or 0, o.level))
    return tuple(sorted(events, key=lambda e: (e.at, e.segment, EVENT_KINDS.index(e.kind))))


def next_change_at(clock: Clock, levels: Sequence[Level], after: datetime) -> datetime | None:
    """When the clock next changes level by itself (None when not started, paused or exhausted)."""
    return read(clock, levels, after).level_ends_at


# -- transitions -----------------------------------------------------------------------------------


def _transition(old: Clock, new: Clock, levels: Sequence[Level], now: datetime) -> Transition:
    before = set(events_until(old, levels, now))
    return Transition(new, tuple(e for e in events_until(new, levels, now) if e not in before))


def _check_time(clock: Clock, now: datetime) -> None:
    if now.tzinfo is None:
        raise DomainError("clock-naive-time", "the clock takes timezone-aware UTC instants")
    last = clock.last_action_at
    if last is not None and now <= last:
        raise DomainError(
            "clock-time-backwards",
            "the clock was last changed at %(last)s; a change at %(now)s must come later",
            last=last,
            now=now,
        )


def _running(clock: Clock, levels: Sequence[Level], now: datetime) -> Reading:
    _check_time(clock, now)
    if not clock.started:
        raise DomainError("clock-not-started", "the clock has not been started")
    return read(clock, levels, now)


def start(clock: Clock, levels: Sequence[Level], now: datetime) -> Transition:
    _check_time(clock, now)
    if clock.started:
        raise DomainError("clock-already-started", "the clock is already started")
    if not levels:
        raise DomainError("clock-no-levels", "the blind structure has no levels")
    return _transition(clock, Clock(segments=(Segment(0, now),)), levels, now)


def pause(clock: Clock, levels: Sequence[Level], now: datetime) -> Transition:
    _running(clock, levels, now)
    if clock.paused:
        raise DomainError("clock-already-paused", "the clock is already paused")
    return _transition(clock, replace(clock, pauses=clock.pauses + (Pause(now),)), levels, now)


def resume(clock: Clock, levels: Sequence[Level], now: datetime) -> Transition:
    _running(clock, levels, now)
    if not clock.paused:
        raise DomainError("clock-not-paused", "the clock is not paused")
    pauses = clock.pauses[:-1] + (Pause(clock.pauses[-1].start, now),)
    return _transition(clock, replace(clock, pauses=pauses), levels, now)


def _go_to(clock: Clock, levels: Sequence[Level], now: datetime, level: int) -> Transition:
    return _transition(clock, replace(clock, segments=clock.segments + (Segment(level, now),)), levels, now)


def next_level(clock: Clock, levels: Sequence[Level], now: datetime) -> Transition:
    level = _running(clock, levels, now).level or 0
    if level + 1 >= len(levels):
        raise DomainError(
            "clock-last-level",
            "level %(n)s is the last level of the structure; there is no next level",
            n=level + 1,
        )
    return _go_to(clock, levels, now, level + 1)


def prev_level(clock: Clock, levels: Sequence[Level], now: datetime) -> Transition:
    level = _running(clock, levels, now).level or 0
    if level == 0:
        raise DomainError("clock-first-level", "the clock is on the first level; there is no previous level")
    return _go_to(clock, levels, now, level - 1)


def reset_level(clock: Clock, levels: Sequence[Level], now: datetime) -> Transition:
    return _go_to(clock, levels, now, _running(clock, levels, now).level or 0)


def override_problems(is_break: bool, small: int, big: int, ante: int) -> list[Problem]:
    problems = []
    if min(small, big, ante) < 0:
        problems.append(Problem("clock-bad-blinds", "blinds and ante cannot be negative"))
    elif not is_break and small <= 0:
        problems.append(Problem("clock-bad-blinds", "the small blind must be above 0 (got %(small)s)", small=small))
    elif not is_break and big < small:
        problems.append(
            Problem(
                "clock-bad-blinds",
                "the big blind (%(big)s) cannot be below the small blind (%(small)s)",
                big=big,
                small=small,
            )
        )
    return problems


def override(clock: Clock, levels: Sequence[Level], now: datetime, small: int, big: int, ante: int) -> Transition:
    """Override the current level's blinds and ante (3.5: for a play level small > 0, big >= small)."""
    level = _running(clock, levels, now).level or 0
    raise_problems(override_problems(levels[level].is_break, small, big, ante))
    new = replace(clock, overrides=clock.overrides + (Override(level, now, small, big, ante),))
    return _transition(clock, new, levels, now)
