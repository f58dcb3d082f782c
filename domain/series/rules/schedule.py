"""When a series' tournaments start: a 5-field cron expression read in the club's timezone.

Occurrences come from APScheduler 3.11's `CronTrigger` over `zoneinfo`, with three decisions of
ours on top:

- Day of week follows standard cron (0 or 7 = Sunday, 1 = Monday ... 6 = Saturday, or names
  sun..sat). APScheduler 3.x reads 0 as Monday, so numeric day-of-week fields are translated to
  names before they reach it.
- A start inside a DST gap (a wall-clock time that does not exist that day, e.g. 02:30 on the last
  Sunday of March in Berlin) moves forward by the length of the gap: 02:30 → 03:30 CEST, the same
  instant as 01:30 UTC.
- A start inside a DST overlap (a wall-clock time that happens twice, e.g. 02:30 on the last Sunday
  of October in Berlin) happens once, at its first instance (summer time, 02:30 CEST = 00:30 UTC).
  APScheduler would fire at both instances; the second is dropped.

Two starts at the same instant (a gap-shifted 02:30 and a real 03:30) are one occurrence.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta
from typing import TYPE_CHECKING
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from domain.errors import Problem

if TYPE_CHECKING:
    from apscheduler.triggers.cron import CronTrigger

UTC = UTC
DEFAULT_HORIZON_DAYS = 14
MAX_HORIZON_DAYS = 365
MIN_GAP = timedelta(hours=1)
MAX_OPENS_BEFORE = timedelta(days=MAX_HORIZON_DAYS)
_DAY_NAMES = ("sun", "mon", "tue", "wed", "thu", "fri", "sat")
_NUMERIC_DOW = re.compile(r"^(\*|\d+)(?:-(\d+))?(?:/(\d+))?$")


@dataclass(frozen=True)
class Schedule:
    """A series' calendar: cron in `timezone`, materialized `horizon_days` ahead, registration
    opening `opens_before` ahead of each start."""

    cron: str
    timezone: str
    horizon_days: int = DEFAULT_HORIZON_DAYS
    opens_before: timedelta = timedelta(hours=24)


@dataclass(frozen=True)
class Occurrence:
    starts_at: datetime  # UTC
    opens_at: datetime  # UTC: when registration opens
    local_date: date  # the start's date in the series' timezone (what `skip` names)


def _day_of_week(field: str) -> str:
    """A standard-cron day-of-week field in APScheduler's terms (names, which both read alike)."""
    parts = []
    for part in field.split(","):
        match = _NUMERIC_DOW.match(part)
        if part == "*" or not match:
            parts.append(part)  # "*" or names: APScheduler reads them as cron does
            continue
        first, last, step = match.groups()
        start = 0 if first == "*" else int(first)
        if last is not None:
            end = int(last)
        else:
            end = 6 if (first == "*" or step) else start
        if start > 7 or end > 7 or start > end or (step is not None and int(step) == 0):
            raise ValueError(f"bad day of week '{part}'")
        days = sorted({d % 7 for d in range(start, end + 1, int(step or 1))})
        parts.append(",".join(_DAY_NAMES[d] for d in days))
    return ",".join(parts)


def zone(name: str) -> ZoneInfo | None:
    """The IANA zone, or None when there is no such zone."""
    try:
        return ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError):
        return None


def trigger(cron: str, tz: ZoneInfo) -> CronTrigger:
    """The APScheduler trigger for a 5-field cron (raises ValueError when it is not valid cron)."""
    fields = cron.split()
    if len(fields) != 5:
        raise ValueError(f"a cron expression has 5 fields (minute hour day month weekday), got {len(fields)}")
    minute, hour, day, month, dow = fields
    from apscheduler.triggers.cron import (
        CronTrigger,  # here: the CLI's help needs only the defaults above
    )

    return CronTrigger(minute=minute, hour=hour, day=day, month=month, day_of_week=_day_of_week(dow), timezone=tz)


def starts_between(schedule: Schedule, after: datetime, until: datetime, limit: int | None = None) -> list[datetime]:
    """UTC start instants with after < start <= until (both UTC-aware), the first `limit` of them."""
    tz = zone(schedule.timezone)
    if tz is None:
        raise ValueError(f"unknown timezone '{schedule.timezone}'")
    cron = trigger(schedule.cron, tz)
    found: list[datetime] = []
    fire = cron.get_next_fire_time(None, (after + timedelta(microseconds=1)).astimezone(tz))
    while fire is not None and fire.astimezone(UTC) <= until and (limit is None or len(found) < limit):
        second_of_overlap = fire.fold == 1 and fire.replace(fold=0).utcoffset() != fire.utcoffset()
        instant = fire.astimezone(UTC)
        if not second_of_overlap and (not found or found[-1] != instant):
            found.append(instant)
        fire = cron.get_next_fire_time(fire, fire)
    return sorted(set(found))


def occurrences(schedule: Schedule, now: datetime, skipped: frozenset[date] = frozenset()) -> list[Occurrence]:
    """Every start after `now` up to `now + horizon` (inclusive), except on skipped local dates."""
    tz = ZoneInfo(schedule.timezone)
    result = []
    for start in starts_between(schedule, now, now + timedelta(days=schedule.horizon_days)):
        local = start.astimezone(tz).date()
        if local not in skipped:
            result.append(Occurrence(start, start - schedule.opens_before, local))
    return result


def schedule_problems(schedule: Schedule, now: datetime) -> list[Problem]:
    """Every reason the schedule is refused (an empty list: it is fine)."""
    problems = []
    tz = zone(schedule.timezone)
    if tz is None:
        problems.append(
            Problem(
                "series-timezone-unknown",
                f"unknown timezone '{schedule.timezone}' (use an IANA name such as Europe/Moscow)",
            )
        )
    if not 1 <= schedule.horizon_days <= MAX_HORIZON_DAYS:
        problems.append(
            Problem(
                "series-horizon-out-of-range",
                f"the horizon is {schedule.horizon_days} days; it must be 1 to {MAX_HORIZON_DAYS} days",
            )
        )
    if not timedelta(0) <= schedule.opens_before <= MAX_OPENS_BEFORE:
        problems.append(
            Problem(
                "series-opens-before-out-of-range",
                "registration must open between 0 minutes and 365 days before the start",
            )
        )
    try:
        trigger(schedule.cron, tz or UTC)
    except ValueError as exc:
        problems.append(Problem("series-cron-invalid", f"invalid cron expression '{schedule.cron}': {exc}"))
        return problems
    if tz is None:
        return problems
    year_ahead = starts_between(schedule, now, now + timedelta(days=MAX_HORIZON_DAYS + 1), limit=400)
    if not year_ahead:
        problems.append(
            Problem("series-cron-never-fires", f"the cron expression '{schedule.cron}' has no start in the next year")
        )
    close = next((b for a, b in zip(year_ahead, year_ahead[1:]) if b - a < MIN_GAP), None)
    if close is not None:
        problems.append(
            Problem(
                "series-cron-too-frequent",
                f"the cron expression '{schedule.cron}' starts tournaments less than an hour apart "
                f"(around {close.astimezone(tz):%Y-%m-%d %H:%M})",
            )
        )
    return problems
