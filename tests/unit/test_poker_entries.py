"""Registration windows, top-ups and settlement gates (Sport Poker 3.1, 3.4, 3.10; SP-2).
Edges: exactly at a deadline (closed), one second before (open), one second after (closed)."""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime, timedelta

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from domain.poker.rules.entries import (
    Window,
    addon_problems,
    addon_window_open,
    parallel_problems,
    rebuy_problems,
    reentry_problems,
    registration_problems,
    settlement_problems,
    topup_chips,
    topup_price,
)
from domain.poker.rules.settings import TournamentSettings

START = datetime(2026, 12, 4, 19, 0, tzinfo=UTC)
S = timedelta(seconds=1)
LATE = START + timedelta(hours=2)
BASE = TournamentSettings(
    name="Friday", scheduled_start=START, starting_stack=20000, currency="RUB", buy_in=150000, late_reg_deadline=LATE
)


def codes(problems) -> list[str]:
    return [p.code for p in problems]


# -- SP-2 -------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "other_start, overlaps",
    [
        (START + timedelta(hours=4) - S, True),
        (START + timedelta(hours=4), False),
        (START - timedelta(hours=4), False),
        (START - timedelta(hours=4) + S, True),
    ],
)
def test_sp_2_windows_overlap_only_when_they_share_a_second(other_start, overlaps):
    mine = Window.scheduled(START, timedelta(hours=4))
    other = Window.scheduled(other_start, timedelta(hours=4))
    assert mine.overlaps(other) is overlaps and other.overlaps(mine) is overlaps
    assert codes(parallel_problems(mine, [(7, "Other", other)])) == (["registration-overlaps"] if overlaps else [])


@settings(max_examples=80)
@given(st.integers(-10_000, 10_000), st.integers(1, 5_000), st.integers(-10_000, 10_000), st.integers(1, 5_000))
def test_sp_2_overlap_is_symmetric_and_matches_second_sets(a, la, b, lb):
    wa = Window.scheduled(START + a * S, la * S)
    wb = Window.scheduled(START + b * S, lb * S)
    shared = set(range(a, a + la)) & set(range(b, b + lb))
    assert wa.overlaps(wb) == wb.overlaps(wa) == bool(shared)


# -- 3.10 registration ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "status, now, expected",
    [
        ("draft", START, ["registration-not-open"]),
        ("registration_open", START - timedelta(days=1), []),
        ("running", LATE - S, []),
        ("running", LATE, ["late-registration-closed"]),
        ("running", LATE + S, ["late-registration-closed"]),
        ("registration_open", LATE, ["late-registration-closed"]),
        ("finished", START, ["registration-closed"]),
        ("cancelled", START, ["registration-closed"]),
    ],
)
def test_3_10_late_registration_is_open_until_one_second_before_its_deadline(status, now, expected):
    assert codes(registration_problems(status, LATE, now)) == expected


def test_3_10_without_a_late_registration_deadline_registration_closes_at_the_start():
    assert codes(registration_problems("running", None, START)) == ["late-registration-closed"]
    assert codes(registration_problems("registration_open", None, START + timedelta(days=1))) == []


# -- 3.1 rebuy ---------------------------------------------------------------------------------------

REBUY = replace(BASE, rebuy_amount=100000)


@pytest.mark.parametrize("status", ["registration_open", "running"])
def test_3_1_a_rebuy_has_no_window_only_an_unfinished_tournament(status):
    assert rebuy_problems(status, REBUY, has_active_entry=True) == []


@pytest.mark.parametrize("status", ["finished", "cancelled"])
def test_3_1_a_rebuy_after_the_finish_or_cancel_is_refused(status):
    assert codes(rebuy_problems(status, REBUY, True)) == ["rebuy-tournament-over"]


def test_3_1_a_rebuy_needs_an_amount_and_an_entry_in_play():
    assert codes(rebuy_problems("running", BASE, True)) == ["rebuy-not-offered"]
    assert codes(rebuy_problems("running", REBUY, False)) == ["no-active-entry"]


def test_3_1_rebuy_price_and_chips():
    assert (topup_price("rebuy", REBUY), topup_chips("rebuy", REBUY)) == (100000, 20000)


# -- 3.1 re-entry ------------------------------------------------------------------------------------

RE = replace(BASE, reentry_amount=120000, reentry_deadline=LATE + timedelta(hours=1))


@pytest.mark.parametrize(
    "now, expected",
    [
        (RE.reentry_deadline - S, []),
        (RE.reentry_deadline, ["reentry-window-closed"]),
        (RE.reentry_deadline + S, ["reentry-window-closed"]),
    ],
)
def test_3_1_reentry_is_open_until_one_second_before_its_deadline(now, expected):
    assert codes(reentry_problems("running", RE, "busted", now)) == expected


@pytest.mark.parametrize(
    "now, expected", [(LATE - S, []), (LATE, ["reentry-window-closed"]), (LATE + S, ["reentry-window-closed"])]
)
def test_3_1_without_its_own_deadline_reentry_follows_late_registration(now, expected):
    s = replace(BASE, reentry_amount=120000)
    assert codes(reentry_problems("running", s, "busted", now)) == expected


def test_3_1_reentry_only_after_a_bust_and_only_while_running():
    assert codes(reentry_problems("running", RE, "active", START)) == ["reentry-without-bust"]
    assert codes(reentry_problems("running", RE, None, START)) == ["no-entry"]
    assert codes(reentry_problems("registration_open", RE, "busted", START)) == ["reentry-not-running"]
    assert codes(reentry_problems("finished", RE, "busted", START)) == ["reentry-not-running"]


def test_3_1_reentry_price_is_its_amount_or_else_the_rebuy_amount():
    assert topup_price("reentry", RE) == 120000
    assert topup_price("reentry", replace(BASE, rebuy_amount=90000)) == 90000
    assert codes(reentry_problems("running", BASE, "busted", START)) == ["reentry-not-offered"]
    assert topup_chips("reentry", RE) == 20000


# -- 3.1 add-on --------------------------------------------------------------------------------------

ADD = replace(BASE, addon_amount=50000, addon_chips=30000)
DL = START + timedelta(hours=3)


def test_3_1_addon_without_deadline_or_break_is_unlimited():
    assert addon_window_open(ADD, 0, START + timedelta(days=3))


@pytest.mark.parametrize("now, open_", [(DL - S, True), (DL, False), (DL + S, False)])
def test_3_1_addon_is_open_until_one_second_before_its_deadline(now, open_):
    assert addon_window_open(replace(ADD, addon_deadline=DL), 0, now) is open_


@pytest.mark.parametrize("breaks, open_", [(1, False), (2, True), (3, True)])
def test_3_1_addon_opens_when_the_clock_reaches_the_nth_break(breaks, open_):
    assert addon_window_open(replace(ADD, addon_break=2), breaks, START) is open_


def test_3_1_addon_either_gate_opens_the_window():
    both = replace(ADD, addon_deadline=DL, addon_break=2)
    assert addon_window_open(both, 0, DL - S)
    assert addon_window_open(both, 2, DL + S)
    assert not addon_window_open(both, 1, DL)


def test_3_1_addon_outside_its_window_or_twice_is_refused():
    s = replace(ADD, addon_deadline=DL)
    assert codes(addon_problems("running", s, True, 0, 0, DL)) == ["addon-window-closed"]
    assert codes(addon_problems("running", s, True, 1, 0, DL - S)) == ["addon-already-taken"]
    assert codes(addon_problems("running", replace(s, addon_once=False), True, 1, 0, DL - S)) == []
    assert codes(addon_problems("finished", s, True, 0, 0, START)) == ["addon-tournament-over"]
    assert codes(addon_problems("running", BASE, True, 0, 0, START)) == ["addon-not-offered"]


def test_3_1_addon_chips_are_its_own_amount_or_else_the_starting_stack():
    assert topup_chips("addon", ADD) == 30000
    assert topup_chips("addon", replace(ADD, addon_chips=None)) == 20000
    assert topup_price("addon", ADD) == 50000


# -- 3.4 settlement ----------------------------------------------------------------------------------


@pytest.mark.parametrize("status", ["draft", "registration_open", "running", "finished"])
def test_3_4_settling_is_allowed_in_every_status_but_cancelled(status):
    assert settlement_problems(status, "cash", "Olga") == []


def test_3_4_settling_a_cancelled_tournament_is_refused():
    assert codes(settlement_problems("cancelled", "cash", "Olga")) == ["settlement-tournament-cancelled"]
    assert codes(settlement_problems("running", "barter", " ")) == ["settlement-method-unknown", "settled-by-blank"]


# -- SP-12 top-up limits -----------------------------------------------------------------------------

from dataclasses import replace as _replace  # noqa: E402
from datetime import timedelta as _td  # noqa: E402

from domain.poker.rules.settings import settings_problems as _settings_problems  # noqa: E402


def test_sp12_unset_limits_keep_todays_rebuy_and_reentry():
    """SP-12"""
    assert rebuy_problems("running", REBUY, True, now=START + _td(days=3), level=99, rebuys_taken=50) == []


def test_sp12_rebuy_until_closes_the_window_at_the_instant():
    """SP-12"""
    s = _replace(REBUY, rebuy_until=START + _td(hours=1))
    assert rebuy_problems("running", s, True, now=START + _td(minutes=59)) == []
    found = rebuy_problems("running", s, True, now=START + _td(hours=1))
    assert codes(found) == ["rebuy-window-closed"] and "rebuy_until" in found[0].message


def test_sp12_rebuy_until_level_closes_when_level_n_ends():
    """SP-12"""
    s = _replace(REBUY, rebuy_until_level=4)
    assert rebuy_problems("running", s, True, now=START, level=4) == []
    assert rebuy_problems("running", s, True, now=START, level=None) == []  # the clock has not started
    found = rebuy_problems("running", s, True, now=START, level=5)
    assert codes(found) == ["rebuy-window-closed"] and "level 4" in found[0].message


def test_sp12_rebuy_limit_counts_over_all_entries():
    """SP-12"""
    s = _replace(REBUY, rebuy_limit=2)
    assert rebuy_problems("running", s, True, now=START, rebuys_taken=1) == []
    found = rebuy_problems("running", s, True, now=START, rebuys_taken=2)
    assert codes(found) == ["rebuy-limit-reached"] and "limit is 2" in found[0].message


def test_sp12_reentry_limit_names_the_limit():
    """SP-12"""
    s = _replace(RE, reentry_limit=1)
    now = RE.reentry_deadline - _td(minutes=1) if RE.reentry_deadline else START
    assert "reentry-limit-reached" not in codes(reentry_problems("running", s, "busted", now, reentries_taken=0))
    found = reentry_problems("running", s, "busted", now, reentries_taken=1)
    assert "reentry-limit-reached" in codes(found)


def test_sp12_bad_limits_are_refused_each_by_name():
    """SP-12"""
    s = _replace(REBUY, rebuy_until=START - _td(minutes=1), rebuy_until_level=0, rebuy_limit=-1, reentry_limit=-2)
    assert [p.code for p in _settings_problems(s)] == [
        "rebuy-window-twice",
        "rebuy-until-before-start",
        "rebuy-until-level-bad",
        "rebuy-limit-bad",
        "reentry-limit-bad",
    ]


def test_sp12_a_series_template_sets_the_rebuy_window_as_minutes_after_the_start():
    """SP-12: a series template gives the rebuy instant as an offset, like the other deadlines."""
    from domain.series.rules.templates import poker_settings

    made = poker_settings(
        {"starting_stack": 1, "currency": "RUB", "buy_in": 0, "rebuy_amount": 1, "rebuy_until_minutes": 90},
        "Friday",
        START,
    )
    assert made.rebuy_until == START + _td(minutes=90)
    assert _settings_problems(_replace(REBUY, rebuy_until="soon")) != []  # a plain refusal, no crash
