"""What the demo's owner sets up for next week (domain/simulate/rules/owner.py): next Friday 19:00 in the
club's zone, at least four days ahead; prize lines and a mystery table the rules accept (SP-4, SP-12)."""

from __future__ import annotations

from datetime import UTC, date, datetime
from zoneinfo import ZoneInfo

import pytest
from hypothesis import given
from hypothesis import strategies as st

from domain.poker.rules.prizes import prize_line_problems
from domain.simulate.rules.owner import next_friday, next_week


@pytest.mark.parametrize(
    ("today", "friday"),
    [
        (date(2026, 12, 7), date(2026, 12, 11)),  # a Monday: that week's Friday, four days on
        (date(2026, 12, 8), date(2026, 12, 18)),  # a Tuesday: four days on is Saturday, so the Friday after
        (date(2026, 12, 10), date(2026, 12, 18)),  # a Thursday
        (date(2026, 12, 11), date(2026, 12, 18)),  # a Friday: the one a week on
        (date(2026, 12, 13), date(2026, 12, 18)),  # a Sunday
    ],
)
def test_next_friday_is_the_first_friday_at_least_four_days_on(today, friday):
    assert next_friday(today) == friday


@given(st.dates(min_value=date(2000, 1, 1), max_value=date(2100, 1, 1)))
def test_next_friday_is_a_friday_four_to_ten_days_on(today):
    friday = next_friday(today)
    assert friday.weekday() == 4 and 4 <= (friday - today).days <= 10


def test_next_week_starts_at_19_in_the_clubs_zone_whatever_utc_day_it_is():
    """Sunday 22:30 UTC is already Monday in Moscow: that Monday's Friday, 19:00 Moscow (16:00 UTC)."""
    plan = next_week(datetime(2026, 12, 6, 22, 30, tzinfo=UTC), ZoneInfo("Europe/Moscow"))
    assert plan.start == datetime(2026, 12, 11, 19, tzinfo=ZoneInfo("Europe/Moscow"))
    assert plan.start.astimezone(UTC) == datetime(2026, 12, 11, 16, tzinfo=UTC)


def test_sp_4_the_owners_prize_lines_and_mystery_table_name_no_money():
    plan = next_week(datetime(2026, 12, 7, tzinfo=UTC), ZoneInfo("Europe/Moscow"))
    assert prize_line_problems(plan.prizes()["lines"]) == []
    assert prize_line_problems(plan.mystery_table()["lines"]) == []
    body = plan.tournament(structure_id=7)
    assert (body["structure_id"], body["bounty_type"], body["mystery_draw"]) == (7, "mystery", True)
    levels = plan.structure()["levels"]
    assert [level["break"] for level in levels].count(True) == 1 and len(levels) == 9
