"""A series' calendar as an RRULE or a weekly form (domain/series/rules/recurrence.py, issue 39): read as
the cron the series keeps, every problem with its code, shown back as a rule; DST in the club's zone
through the schedule's rules."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from zoneinfo import ZoneInfo

import pytest
from hypothesis import given
from hypothesis import strategies as st

from domain.series.rules.recurrence import DAYS, as_rrule, read_rrule, weekly_rrule
from domain.series.rules.schedule import Schedule, schedule_problems, starts_between

BERLIN = ZoneInfo("Europe/Berlin")


def utc(*args: int) -> datetime:
    return datetime(*args, tzinfo=UTC)


@pytest.mark.parametrize(
    ("rule", "cron"),
    [
        ("FREQ=WEEKLY;BYDAY=FR;BYHOUR=19;BYMINUTE=0", "0 19 * * fri"),
        ("RRULE:freq=weekly;byday=su,mo;byhour=19;byminute=30;wkst=mo", "30 19 * * mon,sun"),
        ("FREQ=DAILY;BYHOUR=21,19;BYMINUTE=30,0", "0,30 19,21 * * *"),
        ("FREQ=DAILY;BYDAY=SA;BYMONTH=12;BYHOUR=12;BYMINUTE=0;BYSECOND=0", "0 12 * 12 sat"),
        ("FREQ=MONTHLY;BYMONTHDAY=15,1;BYHOUR=18;BYMINUTE=0;INTERVAL=1", "0 18 1,15 * *"),
        ("FREQ=MONTHLY;BYMONTHDAY=-1;BYMONTH=3,6;BYHOUR=18;BYMINUTE=0", "0 18 last 3,6 *"),
        ("FREQ=MONTHLY;BYDAY=FR;BYMONTHDAY=13;BYHOUR=20;BYMINUTE=0", "0 20 13 * fri"),
    ],
)
def test_a_rule_reads_as_the_cron_the_series_keeps_and_back(rule, cron):
    read = read_rrule(rule)
    assert (read.cron, read.problems) == (cron, ())
    assert read_rrule(as_rrule(cron)).cron == cron


@pytest.mark.parametrize(
    ("rule", "codes"),
    [
        ("", ["series-rrule-empty"]),
        ("FREQ=WEEKLY;BYDAY=FR", ["series-rrule-time-missing"]),
        ("FREQ=WEEKLY;BYHOUR=19;BYMINUTE=0", ["series-rrule-day-missing"]),
        ("FREQ=MONTHLY;BYHOUR=19;BYMINUTE=0", ["series-rrule-day-missing"]),
        ("BYDAY=FR;BYHOUR=19;BYMINUTE=0", ["series-rrule-freq-missing"]),
        ("FREQ=HOURLY;BYHOUR=19;BYMINUTE=0", ["series-rrule-freq-unsupported"]),
        ("FREQ=WEEKLY;INTERVAL=2;BYDAY=FR;BYHOUR=19;BYMINUTE=0", ["series-rrule-interval-unsupported"]),
        ("FREQ=WEEKLY;COUNT=4;UNTIL=20270101;BYDAY=FR;BYHOUR=19;BYMINUTE=0", ["series-rrule-part-unsupported"] * 2),
        ("FREQ=MONTHLY;BYDAY=1FR;BYHOUR=19;BYMINUTE=0", ["series-rrule-day-ordinal-unsupported"]),
        (
            "FREQ=WEEKLY;BYDAY=FX;BYHOUR=24;BYMINUTE=60",
            [
                "series-rrule-day-invalid",
                "series-rrule-hour-invalid",
                "series-rrule-minute-invalid",
            ],
        ),  # fmt: skip
        (
            "FREQ=MONTHLY;BYMONTHDAY=0,-2,32;BYMONTH=13;BYHOUR=1;BYMINUTE=0",
            [
                "series-rrule-monthday-invalid",
                "series-rrule-monthday-invalid",
                "series-rrule-monthday-invalid",
                "series-rrule-month-invalid",
            ],
        ),  # fmt: skip
        ("FREQ=WEEKLY;BYDAY=FR;BYMONTHDAY=1;BYHOUR=1;BYMINUTE=0", ["series-rrule-part-unsupported"]),
        (
            "FREQ=WEEKLY;FREQ=DAILY;X-ONE=1;nonsense;BYDAY=FR;BYHOUR=19;BYMINUTE=0;BYSECOND=30",
            [
                "series-rrule-part-repeated",
                "series-rrule-part-unknown",
                "series-rrule-syntax",
                "series-rrule-second-unsupported",
            ],
        ),  # fmt: skip
        ("FREQ=WEEKLY;BYDAY=FR;BYHOUR=19;BYMINUTE=" + "0," * 300, ["series-rrule-too-long"]),
    ],
)
def test_every_problem_of_a_rule_with_its_code_at_once(rule, codes):
    read = read_rrule(rule)
    assert read.cron is None
    assert sorted(p.code for p in read.problems) == sorted(codes)


def test_the_weekly_form_is_its_rrule():
    assert weekly_rrule(["fri", "MO", "mon"], "19:30").cron == "30 19 * * mon,fri"
    assert weekly_rrule(["SU"], "7:05").cron == "5 7 * * sun"
    bad = weekly_rrule(["friday", "xx"], "25:00")
    assert [p.code for p in bad.problems] == [
        "series-weekly-day-invalid",
        "series-weekly-day-invalid",
        "series-weekly-time-invalid",
    ]
    assert [p.code for p in weekly_rrule([], "19:00").problems] == ["series-weekly-days-empty"]


def test_a_cron_of_ranges_or_steps_has_no_rule_to_show():
    for cron in ("*/30 19 * * *", "0 19 * * 1-5", "0 19 1-7 * fri", "0 19 * *"):
        assert as_rrule(cron) is None


def test_a_weekly_rule_across_both_dst_changes_in_berlin_runs_once_each_sunday():
    """Sunday 02:30 in Berlin: on 28 March 2027 it does not exist (03:30 CEST, 01:30 UTC), on 31 October it
    happens twice (once: 02:30 CEST, 00:30 UTC); the schedule's rules, through the rule's cron."""
    cron = read_rrule("FREQ=WEEKLY;BYDAY=SU;BYHOUR=2;BYMINUTE=30").cron
    spring = starts_between(Schedule(cron, "Europe/Berlin"), utc(2027, 3, 20), utc(2027, 4, 5))
    assert spring == [utc(2027, 3, 21, 1, 30), utc(2027, 3, 28, 1, 30), utc(2027, 4, 4, 0, 30)]
    autumn = starts_between(Schedule(cron, "Europe/Berlin"), utc(2027, 10, 23), utc(2027, 11, 8))
    assert autumn == [utc(2027, 10, 24, 0, 30), utc(2027, 10, 31, 0, 30), utc(2027, 11, 7, 1, 30)]
    assert [a.astimezone(BERLIN).strftime("%H:%M %Z") for a in autumn] == ["02:30 CEST", "02:30 CEST", "02:30 CET"]


def test_a_rule_that_starts_within_the_hour_is_refused_by_the_schedule():
    cron = read_rrule("FREQ=DAILY;BYHOUR=19;BYMINUTE=0,30").cron
    codes = [p.code for p in schedule_problems(Schedule(cron, "Europe/Moscow"), utc(2027, 1, 1))]
    assert codes == ["series-cron-too-frequent"]


@given(
    days=st.lists(st.sampled_from(DAYS), min_size=1, max_size=7),
    hour=st.integers(0, 23),
    minute=st.integers(0, 59),
)
def test_a_weekly_rule_s_starts_are_its_days_at_its_time_in_the_zone(days, hour, minute):
    cron = read_rrule(f"FREQ=WEEKLY;BYDAY={','.join(days)};BYHOUR={hour};BYMINUTE={minute}").cron
    zone = ZoneInfo("Europe/Moscow")  # no DST: every start is at the wall time named
    found = starts_between(Schedule(cron, "Europe/Moscow"), utc(2027, 1, 1), utc(2027, 1, 1) + timedelta(days=14))
    assert found
    for start in found:
        local = start.astimezone(zone)
        assert (DAYS[local.weekday()] in days, local.hour, local.minute) == (True, hour, minute)
    assert len(found) == 2 * len(set(days))
