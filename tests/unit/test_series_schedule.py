"""Series calendars: cron in the club's timezone, DST gaps and overlaps, horizon, skips, refusals."""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta
from zoneinfo import ZoneInfo

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from domain.errors import DomainError
from domain.series.rules.lifecycle import transition
from domain.series.rules.schedule import (
    Schedule,
    occurrences,
    schedule_problems,
    starts_between,
)
from domain.series.rules.templates import template_problems

UTC = UTC
BERLIN = ZoneInfo("Europe/Berlin")


def utc(*args: int) -> datetime:
    return datetime(*args, tzinfo=UTC)


def starts(cron: str, tz: str, after: datetime, days: int) -> list[datetime]:
    return starts_between(Schedule(cron, tz), after, after + timedelta(days=days))


def test_a_start_inside_the_spring_gap_moves_forward_by_the_gap_in_berlin():
    """02:30 does not exist on 29 March 2026 in Berlin: that day's start is 03:30 CEST (01:30 UTC)."""
    found = starts("30 2 * * *", "Europe/Berlin", utc(2026, 3, 27, 12), 3)
    assert found == [utc(2026, 3, 28, 1, 30), utc(2026, 3, 29, 1, 30), utc(2026, 3, 30, 0, 30)]
    assert [f.astimezone(BERLIN).strftime("%H:%M %Z") for f in found] == ["02:30 CET", "03:30 CEST", "02:30 CEST"]


def test_a_start_inside_the_autumn_overlap_happens_once_at_its_first_instance_in_berlin():
    """02:30 happens twice on 25 October 2026 in Berlin: one start, at 02:30 CEST (00:30 UTC)."""
    found = starts("30 2 * * *", "Europe/Berlin", utc(2026, 10, 23, 12), 3)
    assert found == [utc(2026, 10, 24, 0, 30), utc(2026, 10, 25, 0, 30), utc(2026, 10, 26, 1, 30)]


def test_new_york_november_overlap_and_march_gap():
    assert starts("30 1 * * *", "America/New_York", utc(2026, 10, 31, 12), 2) == [
        utc(2026, 11, 1, 5, 30),  # 01:30 EDT, the first of the two 01:30s
        utc(2026, 11, 2, 6, 30),  # 01:30 EST
    ]
    assert starts("30 2 * * *", "America/New_York", utc(2026, 3, 7, 12), 2) == [
        utc(2026, 3, 8, 7, 30),  # 02:30 does not exist: 03:30 EDT
        utc(2026, 3, 9, 6, 30),
    ]


def test_a_gap_shifted_start_and_a_real_start_at_the_same_instant_are_one_occurrence():
    found = starts("30 2,3 * * *", "Europe/Berlin", utc(2026, 3, 28, 12), 1)
    assert found == [utc(2026, 3, 29, 1, 30)]


def test_every_half_hour_through_the_overlap_is_each_wall_time_once():
    found = starts("0,30 2 * * *", "Europe/Berlin", utc(2026, 10, 24, 12), 1)
    assert found == [utc(2026, 10, 25, 0, 0), utc(2026, 10, 25, 0, 30)]


def test_moscow_keeps_utc_plus_3_all_year():
    found = starts("0 19 * * *", "Europe/Moscow", utc(2026, 3, 27, 12), 3) + starts(
        "0 19 * * *", "Europe/Moscow", utc(2026, 10, 23, 12), 3
    )
    assert {f.hour for f in found} == {16}


@pytest.mark.parametrize(
    ("weekday", "expected"),
    [
        ("5", ["Fri"]),
        ("fri", ["Fri"]),
        ("0", ["Sun"]),
        ("7", ["Sun"]),
        ("1-5", ["Mon", "Tue", "Wed", "Thu", "Fri"]),
        ("*/2", ["Sun", "Tue", "Thu", "Sat"]),
        ("sat,sun", ["Sat", "Sun"]),
        ("6,0", ["Sat", "Sun"]),
    ],
)
def test_day_of_week_reads_as_standard_cron_with_sunday_0_and_7(weekday, expected):
    found = starts(f"0 19 * * {weekday}", "Europe/Moscow", utc(2026, 6, 7, 12), 7)  # Sun 7 June .. Sun 14
    days = sorted(
        {f.astimezone(ZoneInfo("Europe/Moscow")).strftime("%a") for f in found},
        key=["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"].index,
    )
    assert days == sorted(expected, key=["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"].index)


def test_the_horizon_edges_a_start_exactly_at_now_plus_horizon_is_in_one_second_later_is_not():
    schedule = Schedule("0 19 * * *", "UTC", horizon_days=14, opens_before=timedelta(hours=2))
    now = utc(2026, 6, 1, 19)  # exactly a start: not after now, so not planned
    found = occurrences(schedule, now)
    assert found[0].starts_at == utc(2026, 6, 2, 19)
    assert found[-1].starts_at == utc(2026, 6, 15, 19)  # exactly now + 14 days
    assert len(found) == 14
    assert occurrences(schedule, now - timedelta(seconds=1))[0].starts_at == now
    assert occurrences(schedule, now - timedelta(seconds=1))[-1].starts_at == utc(2026, 6, 14, 19)
    assert found[0].opens_at == utc(2026, 6, 2, 17)


def test_a_skipped_local_date_is_left_out_in_the_series_timezone():
    schedule = Schedule("30 0 * * *", "Europe/Moscow", horizon_days=3)  # 00:30 MSK = 21:30 UTC the day before
    found = occurrences(schedule, utc(2026, 6, 1, 12), frozenset({date(2026, 6, 3)}))
    assert [o.local_date for o in found] == [date(2026, 6, 2), date(2026, 6, 4)]
    assert found[0].starts_at == utc(2026, 6, 1, 21, 30)


NOW = utc(2026, 6, 1, 12)


@pytest.mark.parametrize(
    ("schedule", "code"),
    [
        (Schedule("61 19 * * *", "UTC"), "series-cron-invalid"),
        (Schedule("0 19 * *", "UTC"), "series-cron-invalid"),
        (Schedule("0 19 * * 8", "UTC"), "series-cron-invalid"),
        (Schedule("every friday", "UTC"), "series-cron-invalid"),
        (Schedule("0 19 31 2 *", "UTC"), "series-cron-never-fires"),
        (Schedule("*/30 * * * *", "UTC"), "series-cron-too-frequent"),
        (Schedule("0 19 * * *", "Europe/Atlantis"), "series-timezone-unknown"),
        (Schedule("0 19 * * *", ""), "series-timezone-unknown"),
        (Schedule("0 19 * * *", "UTC", horizon_days=366), "series-horizon-out-of-range"),
        (Schedule("0 19 * * *", "UTC", horizon_days=0), "series-horizon-out-of-range"),
        (Schedule("0 19 * * *", "UTC", opens_before=timedelta(minutes=-1)), "series-opens-before-out-of-range"),
    ],
)
def test_a_bad_schedule_is_refused_with_a_specific_code(schedule, code):
    assert [p.code for p in schedule_problems(schedule, NOW)] == [code]


def test_a_horizon_of_exactly_a_year_and_an_hourly_cron_are_accepted():
    assert schedule_problems(Schedule("0 * * * *", "UTC", horizon_days=365), NOW) == []


def test_template_kind_and_shape_are_checked():
    assert [p.code for p in template_problems("chess", {})] == ["series-kind-unknown"]
    assert [p.code for p in template_problems("pusoy", [1])] == ["series-template-invalid"]


@pytest.mark.parametrize(
    ("status", "action", "after"),
    [
        ("active", "pause", "paused"),
        ("paused", "resume", "active"),
        ("active", "end", "ended"),
        ("paused", "end", "ended"),
    ],
)
def test_series_status_moves(status, action, after):
    assert transition(status, action) == after


@pytest.mark.parametrize(
    ("status", "action", "code"),
    [
        ("paused", "pause", "series-not-active"),
        ("active", "resume", "series-not-paused"),
        ("ended", "resume", "series-ended"),
        ("ended", "end", "series-ended"),
    ],
)
def test_series_status_refusals(status, action, code):
    with pytest.raises(DomainError) as err:
        transition(status, action)
    assert err.value.code == code


ZONES = ["Europe/Berlin", "America/New_York", "Europe/Moscow", "Australia/Sydney", "Asia/Manila"]


@settings(max_examples=40, deadline=None)
@given(
    tz=st.sampled_from(ZONES),
    hour=st.integers(0, 23),
    minute=st.sampled_from([0, 15, 30, 45]),
    start=st.datetimes(min_value=datetime(2026, 1, 1), max_value=datetime(2027, 12, 1)),
)
def test_a_daily_cron_starts_once_per_local_day_strictly_increasing(tz, hour, minute, start):
    now = start.replace(tzinfo=UTC)
    found = occurrences(Schedule(f"{minute} {hour} * * *", tz, horizon_days=30), now)
    days = [o.local_date for o in found]
    assert len(days) == len(set(days))
    assert all(a.starts_at < b.starts_at for a, b in zip(found, found[1:]))
    assert all(now < o.starts_at <= now + timedelta(days=30) for o in found)
    assert len(found) in (29, 30, 31)  # 30 days of 24 h, give or take a DST hour


def test_a_poker_template_gives_deadlines_as_minutes_after_each_start():
    from domain.series.rules.templates import poker_settings

    template = {"structure_id": 1, "starting_stack": 100, "currency": "RUB", "buy_in": 0, "late_reg_minutes": 90}
    assert template_problems("poker", template) == []
    settings = poker_settings(template, "Nightly 20.10.2026", utc(2026, 10, 20, 19))
    assert (settings.scheduled_start, settings.late_reg_deadline, settings.reentry_deadline) == (
        utc(2026, 10, 20, 19),
        utc(2026, 10, 20, 20, 30),
        None,
    )


@pytest.mark.parametrize(
    ("change", "code"),
    [
        ({"late_reg_minutes": 1.5}, "series-template-offset-invalid"),
        ({"currency": "XXQ"}, None),
        ({"name": "x"}, "series-template-unknown-setting"),
    ],
)
def test_a_poker_template_is_checked_by_the_poker_rules(change, code):
    template = {"structure_id": 1, "starting_stack": 100, "currency": "RUB", "buy_in": 0, **change}
    codes = [p.code for p in template_problems("poker", template)]
    assert codes[0] == code if code else codes  # an unknown currency: the poker rules' own code
