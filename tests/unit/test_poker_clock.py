"""The server clock (Sport Poker 3.5, SP-8) against hand-computed timelines."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from domain.errors import DomainError
from domain.poker.rules import clock as c
from domain.poker.rules.clock_model import Clock, Level

# L1 10:00-10:20 · L2 10:20-10:40 · break 10:40-10:55 · L3 10:55-11:15 · L4 11:15-11:35, then exhausted
LEVELS = (
    Level(100, 200, 0, 20 * 60),
    Level(200, 400, 50, 20 * 60),
    Level(0, 0, 0, 15 * 60, is_break=True),
    Level(300, 600, 75, 20 * 60),
    Level(400, 800, 100, 20 * 60),
)


def t(hhmm: str, seconds: int = 0) -> datetime:
    h, m = map(int, hhmm.split(":"))
    return datetime(2026, 11, 29, h, m, seconds, tzinfo=UTC)


def started() -> Clock:
    return c.start(Clock(), LEVELS, t("10:00")).clock


def summary(events) -> list[tuple[str, str, int]]:
    return [(e.kind, e.at.strftime("%H:%M:%S"), e.level + 1) for e in events]


@pytest.mark.parametrize(
    ("at", "level", "left", "status", "breaks"),
    [
        (t("10:00"), 1, 20 * 60, "running", 0),
        (t("10:19", 59), 1, 1, "running", 0),
        (t("10:20"), 2, 20 * 60, "running", 0),
        (t("10:20", 1), 2, 20 * 60 - 1, "running", 0),
        (t("10:40"), 3, 15 * 60, "running", 1),
        (t("10:55"), 4, 20 * 60, "running", 1),
        (t("11:34", 59), 5, 1, "running", 1),
        (t("11:35"), 5, 0, "structure exhausted", 1),
        (t("12:00"), 5, 0, "structure exhausted", 1),
    ],
)
def test_sp_8_the_level_and_time_left_are_computed_for_any_instant(at, level, left, status, breaks):
    """SP-8: exactly at a level's end the next level has begun; the last level does not advance."""
    reading = c.read(started(), LEVELS, at)
    assert (
        reading.level_number,
        reading.time_left.total_seconds(),
        reading.status,
        reading.breaks_passed,
    ) == (
        level,
        left,
        status,
        breaks,
    )


def test_before_the_start_the_clock_shows_nothing():
    assert c.read(started(), LEVELS, t("09:59", 59)).status == "not started"
    assert c.read(Clock(), LEVELS, t("10:00")).level is None


def test_the_next_level_to_play_skips_breaks_and_is_the_first_before_the_start():
    """3.5: what a break's screen announces: the level after the break (the clock numbers the break
    level 3, so the next play level is 4); before the start, level 1; after the last, none."""
    assert [c.next_play_level(LEVELS, level) for level in (None, 0, 1, 2, 3, 4)] == [0, 1, 3, 3, 4, None]


def test_the_next_break_is_counted_from_the_current_instant():
    reading = c.read(started(), LEVELS, t("10:05"))
    assert reading.next_break_in == timedelta(minutes=35)
    assert reading.next_break_at == t("10:40")
    assert reading.level_ends_at == t("10:20")
    assert c.read(started(), LEVELS, t("10:45")).next_break_in is None  # no break after this one


def test_sp_8_a_pause_shifts_every_later_change_by_its_length():
    """SP-8: L1 10:00, pause 10:10-10:15, so L2 10:25, break 10:45-11:00, L3 11:00, L4 11:20."""
    clock = started()
    clock = c.pause(clock, LEVELS, t("10:10")).clock
    paused = c.read(clock, LEVELS, t("10:14"))
    assert (paused.status, paused.time_left, paused.level_ends_at) == ("paused", timedelta(minutes=10), None)
    clock = c.resume(clock, LEVELS, t("10:15")).clock
    assert summary(c.events_until(clock, LEVELS, t("12:00"))) == [
        ("level-started", "10:00:00", 1),
        ("paused", "10:10:00", 1),
        ("resumed", "10:15:00", 1),
        ("level-started", "10:25:00", 2),
        ("level-started", "10:45:00", 3),
        ("break-started", "10:45:00", 3),
        ("break-ended", "11:00:00", 3),
        ("level-started", "11:00:00", 4),
        ("level-started", "11:20:00", 5),
    ]
    assert c.next_change_at(clock, LEVELS, t("10:30")) == t("10:45")
    assert c.next_change_at(clock, LEVELS, t("11:45")) is None


def test_sp_8_manual_moves_overrides_and_the_end_of_the_structure():
    """SP-8: next at 10:05 (L2 to 10:25), pause 10:10, next while paused (break, frozen), resume
    10:30 (break to 10:45), prev at 10:35 (L2 again to 10:55), override 10:36, reset 10:40 (L2 to
    11:00), then break 11:00, L3 11:15, L4 11:35, exhausted 11:55."""
    clock = started()
    first = c.next_level(clock, LEVELS, t("10:05"))
    assert summary(first.events) == [("level-started", "10:05:00", 2)]
    clock = c.pause(first.clock, LEVELS, t("10:10")).clock
    into_break = c.next_level(clock, LEVELS, t("10:20"))
    assert summary(into_break.events) == [("level-started", "10:20:00", 3), ("break-started", "10:20:00", 3)]
    assert c.read(into_break.clock, LEVELS, t("10:29")).time_left == timedelta(minutes=15)
    clock = c.resume(into_break.clock, LEVELS, t("10:30")).clock
    back = c.prev_level(clock, LEVELS, t("10:35"))
    assert summary(back.events) == [("break-ended", "10:35:00", 3), ("level-started", "10:35:00", 2)]
    over = c.override(back.clock, LEVELS, t("10:36"), 250, 500, 50)
    assert summary(over.events) == [("overridden", "10:36:00", 2)]
    reading = c.read(over.clock, LEVELS, t("10:37"))
    assert (reading.small, reading.big, reading.ante) == (250, 500, 50)
    reset = c.reset_level(over.clock, LEVELS, t("10:40"))
    assert summary(reset.events) == [("level-started", "10:40:00", 2)]
    clock = reset.clock
    assert c.read(clock, LEVELS, t("10:41")).big == 500  # the override stays with the level
    assert summary(c.events_until(clock, LEVELS, t("12:00")))[-5:] == [
        ("level-started", "11:00:00", 3),
        ("break-started", "11:00:00", 3),
        ("break-ended", "11:15:00", 3),
        ("level-started", "11:15:00", 4),
        ("level-started", "11:35:00", 5),
    ]
    end = c.read(clock, LEVELS, t("11:55"))
    assert (end.status, end.level_number, end.time_left) == ("structure exhausted", 5, timedelta(0))
    with pytest.raises(DomainError) as err:
        c.next_level(clock, LEVELS, t("11:55"))
    assert err.value.code == "clock-last-level"


def test_the_add_on_gate_reads_breaks_passed_as_the_clock_enters_the_break():
    clock = started()
    assert c.read(clock, LEVELS, t("10:39", 59)).breaks_passed == 0
    assert c.read(clock, LEVELS, t("10:40")).breaks_passed == 1


@pytest.mark.parametrize(
    ("action", "code"),
    [
        (lambda k: c.pause(c.pause(k, LEVELS, t("10:01")).clock, LEVELS, t("10:02")), "clock-already-paused"),
        (lambda k: c.resume(k, LEVELS, t("10:01")), "clock-not-paused"),
        (lambda k: c.start(k, LEVELS, t("10:01")), "clock-already-started"),
        (lambda k: c.prev_level(k, LEVELS, t("10:01")), "clock-first-level"),
        (lambda k: c.override(k, LEVELS, t("10:01"), 200, 100, 0), "clock-bad-blinds"),
        (lambda k: c.override(k, LEVELS, t("10:01"), 0, 100, 0), "clock-bad-blinds"),
        (lambda k: c.override(k, LEVELS, t("10:01"), 100, 200, -1), "clock-bad-blinds"),
        (lambda k: c.pause(k, LEVELS, t("09:59")), "clock-time-backwards"),
        (lambda k: c.pause(k, LEVELS, t("10:00")), "clock-time-backwards"),
        (lambda k: c.pause(Clock(), LEVELS, t("10:01")), "clock-not-started"),
        (lambda k: c.pause(k, LEVELS, datetime(2026, 11, 29, 10, 1)), "clock-naive-time"),
    ],
)
def test_bad_clock_requests_are_refused_with_a_specific_code(action, code):
    with pytest.raises(DomainError) as err:
        action(started())
    assert err.value.code == code


def test_an_override_of_a_break_needs_no_blind_ratio():
    clock = started()
    on_break = c.read(clock, LEVELS, t("10:41"))
    assert on_break.is_break
    assert c.override(clock, LEVELS, t("10:41"), 0, 0, 0).clock.overrides[-1].level == 2


# -- invariants ------------------------------------------------------------------------------------

ACTIONS = {
    "pause": c.pause,
    "resume": c.resume,
    "next": c.next_level,
    "prev": c.prev_level,
    "reset": c.reset_level,
    "override": lambda k, lv, now: c.override(k, lv, now, 300, 700, 25),
}


@settings(max_examples=150, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 40 * 60), st.sampled_from(sorted(ACTIONS))), max_size=12))
def test_sp_8_transitions_never_rewrite_the_past_and_each_event_happens_once(steps):
    """SP-8: every event up to `now` survives any transition; a transition's events are the new ones,
    all at `now`; no event key repeats; the reading agrees with the last level start."""
    clock = started()
    now = t("10:00")
    for gap, name in steps:
        now += timedelta(seconds=gap)
        before = c.events_until(clock, LEVELS, now)
        try:
            step = ACTIONS[name](clock, LEVELS, now)
        except DomainError:
            continue
        after = c.events_until(step.clock, LEVELS, now)
        assert set(before) <= set(after)
        assert set(step.events) == set(after) - set(before)
        assert all(e.at == now for e in step.events)
        clock = step.clock
    history = c.events_until(clock, LEVELS, now + timedelta(hours=3))
    assert len({e.key for e in history}) == len(history)
    assert [e.at for e in history] == sorted(e.at for e in history)
    for probe in (now, now + timedelta(minutes=17), now + timedelta(hours=3)):
        starts = [e for e in c.events_until(clock, LEVELS, probe) if e.kind == "level-started"]
        reading = c.read(clock, LEVELS, probe)
        assert reading.level == starts[-1].level
        assert timedelta(0) <= reading.time_left <= LEVELS[reading.level].duration


def test_sp12_the_furthest_level_reached_does_not_go_back_with_the_clock():
    """SP-12: the `rebuy_until_level` window is judged by the furthest level the clock has reached:
    `prev` and `reset` show an earlier level, but level 2 has ended once level 3 was reached; the
    structure's exhaustion counts as level count + 1; pauses hold it."""
    clock = started()
    assert c.furthest_level(Clock(), LEVELS, t("10:00")) is None
    assert c.furthest_level(clock, LEVELS, t("10:19", 59)) == 1
    assert c.furthest_level(clock, LEVELS, t("10:40")) == 3  # the break, by time
    back = c.prev_level(clock, LEVELS, t("10:41")).clock
    assert c.read(back, LEVELS, t("10:42")).level == 1  # level 2 shown again
    assert c.furthest_level(back, LEVELS, t("10:42")) == 3
    stepped = c.next_level(started(), LEVELS, t("10:05")).clock  # level 2 early
    stepped = c.prev_level(stepped, LEVELS, t("10:06")).clock
    assert c.furthest_level(stepped, LEVELS, t("10:07")) == 2
    paused = c.pause(started(), LEVELS, t("10:10")).clock
    assert c.furthest_level(paused, LEVELS, t("12:00")) == 1
    assert c.furthest_level(clock, LEVELS, t("11:35")) == 6  # exhausted
    assert c.furthest_level(c.reset_level(clock, LEVELS, t("11:40")).clock, LEVELS, t("11:41")) == 6
