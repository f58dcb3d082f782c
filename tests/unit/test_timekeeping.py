"""The timekeeper's decision (domain/poker/rules/timekeeping.py): run at the instant that was due, passing that
instant; never early; late instants one after the other; nothing due: the longest sleep."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from domain.poker.rules.timekeeping import Run, Sleep, next_step

NOW = datetime(2026, 3, 1, 18, 0, tzinfo=UTC)
LONGEST = timedelta(seconds=60)
MS = timedelta(milliseconds=1)


def test_an_instant_ahead_is_slept_for_even_when_it_is_a_millisecond_away():
    assert next_step({"advance-clocks": NOW + MS, "process-no-shows": None}, NOW, LONGEST) == Sleep(0.001)


def test_at_its_instant_the_kind_runs_with_that_instant():
    assert next_step({"advance-clocks": NOW, "process-no-shows": NOW + MS}, NOW, LONGEST) == Run(
        NOW, ("advance-clocks",)
    )


def test_a_late_instant_runs_at_once_with_its_own_instant_not_now():
    earlier = NOW - timedelta(minutes=3)
    step = next_step({"advance-clocks": NOW - timedelta(minutes=1), "process-no-shows": earlier}, NOW, LONGEST)
    assert step == Run(earlier, ("process-no-shows",))


def test_kinds_due_at_the_same_instant_run_together():
    assert next_step({"a": NOW, "b": NOW}, NOW + MS, LONGEST) == Run(NOW, ("a", "b"))


def test_nothing_due_or_far_ahead_sleeps_at_most_the_longest():
    assert next_step({"a": None, "b": None}, NOW, LONGEST) == Sleep(60.0)
    assert next_step({"a": NOW + timedelta(hours=2)}, NOW, LONGEST) == Sleep(60.0)
