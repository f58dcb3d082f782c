"""A series' calendar written as an RFC 5545 recurrence rule (RRULE) or a simple weekly form (days and
a time), read as the 5-field cron the series keeps (domain/series/rules/schedule.py: the club's
timezone, DST gaps and overlaps, the checks of frequency).

The rule has no DTSTART (a series starts now, in its timezone), so the time of day is named in it:
`BYHOUR` and `BYMINUTE` are required, and the days too (`BYDAY`, or `BYMONTHDAY` for a monthly rule).
Read exactly, part for part, as the cron the scheduler reads (every field restricts, as APScheduler
does and as RFC 5545's BYxxx parts limit or expand here):

| RRULE | cron |
| --- | --- |
| `FREQ=WEEKLY;BYDAY=FR;BYHOUR=19;BYMINUTE=0` | `0 19 * * fri` |
| `FREQ=DAILY;BYHOUR=19,21;BYMINUTE=0,30` | `0,30 19,21 * * *` |
| `FREQ=MONTHLY;BYMONTHDAY=1,15;BYHOUR=18;BYMINUTE=0` | `0 18 1,15 * *` |
| `FREQ=MONTHLY;BYMONTHDAY=-1;BYMONTH=3,6;BYHOUR=18;BYMINUTE=0` | `0 18 last 3,6 *` |

What a cron cannot say is refused, each part with its code (every problem at once): `INTERVAL` other
than 1, `COUNT`, `UNTIL`, `BYSETPOS`, `BYWEEKNO`, `BYYEARDAY`, a day with an ordinal (`1FR`), a negative
month day other than -1, seconds other than 0, the frequencies `YEARLY`, `HOURLY`, `MINUTELY`,
`SECONDLY`. `WKST` is read and has no effect (it matters only with an interval). Pure: no I/O."""

from __future__ import annotations

import re
from dataclasses import dataclass

from domain.errors import Problem

DAYS = ("MO", "TU", "WE", "TH", "FR", "SA", "SU")
CRON_DAYS = {"MO": "mon", "TU": "tue", "WE": "wed", "TH": "thu", "FR": "fri", "SA": "sat", "SU": "sun"}
FREQUENCIES = ("DAILY", "WEEKLY", "MONTHLY")
UNSUPPORTED = ("COUNT", "UNTIL", "BYSETPOS", "BYWEEKNO", "BYYEARDAY")
KNOWN = ("FREQ", "INTERVAL", "BYDAY", "BYHOUR", "BYMINUTE", "BYSECOND", "BYMONTHDAY", "BYMONTH", "WKST", *UNSUPPORTED)
MAX_LENGTH = 500
_NUMBER = re.compile(r"^[+-]?\d{1,4}$")
_ORDINAL_DAY = re.compile(r"^([+-]?\d{1,2})(MO|TU|WE|TH|FR|SA|SU)$")
_TIME = re.compile(r"^(\d{1,2}):(\d{2})$")


@dataclass(frozen=True)
class Read:
    """A rule read: its cron (None when refused) and every problem found."""

    cron: str | None
    problems: tuple[Problem, ...]


def _numbers(part: str, raw: str, low: int, high: int, code: str) -> tuple[list[int], list[Problem]]:
    values, problems = [], []
    for item in raw.split(","):
        if not _NUMBER.match(item.strip()) or not low <= int(item) <= high:
            problems.append(
                Problem(
                    code,
                    "%(part)s: '%(value)s' is not a number from %(low)s to %(high)s",
                    part=part,
                    value=item.strip(),
                    low=low,
                    high=high,
                )  # fmt: skip
            )
            continue
        if int(item) not in values:
            values.append(int(item))
    return values, problems


def _list(values: list[int]) -> str:
    return ",".join(str(v) for v in sorted(values))


def read_rrule(text: str) -> Read:
    """An RRULE (with or without its `RRULE:` prefix, parts in any order, any case) as the series' cron,
    or every problem with it."""
    raw = text.strip()
    if raw.upper().startswith("RRULE:"):
        raw = raw[len("RRULE:") :]
    problems: list[Problem] = []
    if not raw:
        return Read(None, (Problem("series-rrule-empty", "the recurrence rule is empty"),))
    if len(raw) > MAX_LENGTH:
        return Read(
            None, (Problem("series-rrule-too-long", "the recurrence rule is over %(n)s characters", n=MAX_LENGTH),)
        )
    parts: dict[str, str] = {}
    for piece in raw.split(";"):
        if not piece.strip():
            continue
        name, sep, value = piece.partition("=")
        name, value = name.strip().upper(), value.strip().upper()
        if not sep or not name or not value:
            problems.append(Problem("series-rrule-syntax", "'%(part)s' is not NAME=VALUE", part=piece.strip()))
        elif name not in KNOWN:
            problems.append(Problem("series-rrule-part-unknown", "RRULE has no part %(part)s", part=name))
        elif name in parts:
            problems.append(Problem("series-rrule-part-repeated", "%(part)s is given twice", part=name))
        else:
            parts[name] = value
    for name in UNSUPPORTED:
        if name in parts:
            problems.append(
                Problem(
                    "series-rrule-part-unsupported",
                    "%(part)s is not supported: a series runs until it is ended",
                    part=name,
                )  # fmt: skip
            )
    freq = parts.get("FREQ")
    if freq is None:
        problems.append(Problem("series-rrule-freq-missing", "the rule needs FREQ (DAILY, WEEKLY or MONTHLY)"))
    elif freq not in FREQUENCIES:
        problems.append(
            Problem("series-rrule-freq-unsupported", "FREQ=%(freq)s: use DAILY, WEEKLY or MONTHLY", freq=freq)
        )
    if parts.get("INTERVAL", "1") != "1":
        problems.append(
            Problem(
                "series-rrule-interval-unsupported",
                "INTERVAL=%(value)s: only every period (INTERVAL=1) is supported",
                value=parts["INTERVAL"],
            )  # fmt: skip
        )
    if "WKST" in parts and parts["WKST"] not in DAYS:
        problems.append(
            Problem("series-rrule-day-invalid", "WKST: '%(value)s' is not a day (MO..SU)", value=parts["WKST"])
        )
    days: list[str] = []
    for item in parts.get("BYDAY", "").split(",") if "BYDAY" in parts else []:
        item = item.strip()
        if item in DAYS:
            if CRON_DAYS[item] not in days:
                days.append(CRON_DAYS[item])
        elif _ORDINAL_DAY.match(item):
            problems.append(
                Problem(
                    "series-rrule-day-ordinal-unsupported",
                    "BYDAY=%(value)s: a day's ordinal (the first, the last) is not supported",
                    value=item,
                )  # fmt: skip
            )
        else:
            problems.append(Problem("series-rrule-day-invalid", "BYDAY: '%(value)s' is not a day (MO..SU)", value=item))
    hours, found = (
        _numbers("BYHOUR", parts["BYHOUR"], 0, 23, "series-rrule-hour-invalid") if "BYHOUR" in parts else ([], [])
    )
    problems += found
    minutes, found = (
        _numbers("BYMINUTE", parts["BYMINUTE"], 0, 59, "series-rrule-minute-invalid")
        if "BYMINUTE" in parts
        else ([], [])
    )
    problems += found
    if "BYHOUR" not in parts or "BYMINUTE" not in parts:
        problems.append(Problem("series-rrule-time-missing", "name the time of day: BYHOUR and BYMINUTE"))
    if "BYSECOND" in parts and parts["BYSECOND"] not in ("0", "00"):
        problems.append(Problem("series-rrule-second-unsupported", "BYSECOND: a start is on a whole minute (0)"))
    month_days: list[str] = []
    if "BYMONTHDAY" in parts:
        if freq == "WEEKLY":
            problems.append(
                Problem(
                    "series-rrule-part-unsupported", "%(part)s is not supported with FREQ=WEEKLY", part="BYMONTHDAY"
                )
            )
        numbers, found = _numbers("BYMONTHDAY", parts["BYMONTHDAY"], -31, 31, "series-rrule-monthday-invalid")
        problems += found
        for n in numbers:
            if n == 0 or n < -1:
                problems.append(
                    Problem(
                        "series-rrule-monthday-invalid",
                        "BYMONTHDAY: '%(value)s': a day of the month 1 to 31, or -1 (the last)",
                        value=n,
                    )  # fmt: skip
                )
        month_days = [_list([n for n in numbers if n > 0])] if any(n > 0 for n in numbers) else []
        month_days += ["last"] if -1 in numbers else []
    months, found = (
        _numbers("BYMONTH", parts["BYMONTH"], 1, 12, "series-rrule-month-invalid") if "BYMONTH" in parts else ([], [])
    )
    problems += found
    if freq == "WEEKLY" and "BYDAY" not in parts:
        problems.append(Problem("series-rrule-day-missing", "a weekly rule names its days: BYDAY (MO..SU)"))
    if freq == "MONTHLY" and "BYDAY" not in parts and "BYMONTHDAY" not in parts:
        problems.append(Problem("series-rrule-day-missing", "a monthly rule names its days: BYMONTHDAY or BYDAY"))
    if problems:
        return Read(None, tuple(problems))
    cron = " ".join(
        [
            _list(minutes),
            _list(hours),
            ",".join(month_days) or "*",
            _list(months) or "*",
            ",".join(d for d in CRON_DAYS.values() if d in days) or "*",
        ]
    )
    return Read(cron, ())


def weekly_rrule(days: list[str], time: str) -> Read:
    """The simple weekly form (days MO..SU or mon..sun, a time HH:MM in the club's time) as its RRULE's
    cron; every problem with it."""
    problems = []
    wanted = []
    for day in days:
        key = day.strip().upper()[:2]
        if day.strip().upper() not in DAYS and day.strip().lower() not in CRON_DAYS.values():
            problems.append(Problem("series-weekly-day-invalid", "'%(value)s' is not a day (mon..sun)", value=day))
        elif key not in wanted:
            wanted.append(key)
    if not days:
        problems.append(Problem("series-weekly-days-empty", "choose at least one day of the week"))
    match = _TIME.match(time.strip())
    if not match or int(match.group(1)) > 23 or int(match.group(2)) > 59:
        problems.append(Problem("series-weekly-time-invalid", "'%(value)s' is not a time such as 19:00", value=time))
    if problems:
        return Read(None, tuple(problems))
    rule = f"FREQ=WEEKLY;BYDAY={','.join(d for d in DAYS if d in wanted)};BYHOUR={int(match.group(1))};BYMINUTE={int(match.group(2))}"
    return read_rrule(rule)


_CRON_NUMBERS = re.compile(r"^\d{1,2}(,\d{1,2})*$")
_CRON_NAMES = {v: k for k, v in CRON_DAYS.items()}


def as_rrule(cron: str) -> str | None:
    """The RRULE of a cron this module could have written (lists of numbers, day names, `last`), for
    showing a series' calendar as a rule; None for another cron (ranges, steps: the CLI's)."""
    fields = cron.split()
    if len(fields) != 5:
        return None
    minute, hour, day, month, dow = fields
    if not (_CRON_NUMBERS.match(minute) and _CRON_NUMBERS.match(hour)):
        return None
    parts = []
    month_days = []
    if day != "*":
        for item in day.split(","):
            if item == "last":
                month_days.append("-1")
            elif item.isascii() and item.isdigit() and 1 <= int(item) <= 31:
                month_days.append(str(int(item)))
            else:
                return None
    days = []
    if dow != "*":
        for item in dow.split(","):
            if item.lower() not in _CRON_NAMES:
                return None
            days.append(_CRON_NAMES[item.lower()])
    if month != "*" and not _CRON_NUMBERS.match(month):
        return None
    freq = "MONTHLY" if month_days else "WEEKLY" if days else "DAILY"
    parts.append(f"FREQ={freq}")
    if month != "*":
        parts.append(f"BYMONTH={month}")
    if month_days:
        parts.append(f"BYMONTHDAY={','.join(month_days)}")
    if days:
        parts.append(f"BYDAY={','.join(d for d in DAYS if d in days)}")
    parts += [f"BYHOUR={hour}", f"BYMINUTE={minute}"]
    return ";".join(parts)
