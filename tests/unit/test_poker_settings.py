"""Tournament settings and lifecycle (Sport Poker 3.1, 3.6, 3.9; SP-1)."""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime, timedelta
from decimal import Decimal

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from domain.poker.rules.lifecycle import STATUSES, edit_problems, transition
from domain.poker.rules.settings import (
    TournamentSettings,
    amount_from_text,
    setting_from_text,
    settings_problems,
)

START = datetime(2026, 12, 4, 19, 0, tzinfo=UTC)
SECOND = timedelta(seconds=1)
BASE = TournamentSettings(
    name="Friday Deepstack", scheduled_start=START, starting_stack=20000, currency="RUB", buy_in=150000
)


def codes(s: TournamentSettings) -> list[str]:
    return [p.code for p in settings_problems(s)]


def test_default_settings_are_valid():
    assert codes(BASE) == []


@pytest.mark.parametrize("cap", [1, 11, 0, -3])
def test_3_6_a_seat_cap_outside_2_to_10_is_refused_not_clamped(cap):
    assert codes(replace(BASE, seat_cap=cap)) == ["seat-cap-out-of-range"]


@pytest.mark.parametrize("cap", [2, 10])
def test_3_6_seat_caps_2_and_10_are_accepted(cap):
    assert codes(replace(BASE, seat_cap=cap)) == []


@pytest.mark.parametrize(
    "offset, expected",
    [(-SECOND, ["late-registration-before-start"]), (timedelta(0), ["late-registration-before-start"]), (SECOND, [])],
)
def test_3_9_late_registration_must_fall_after_the_start(offset, expected):
    assert codes(replace(BASE, late_reg_deadline=START + offset)) == expected


@pytest.mark.parametrize(
    "offset, expected", [(-SECOND, ["reentry-before-late-registration"]), (timedelta(0), []), (SECOND, [])]
)
def test_3_9_reentry_deadline_is_no_earlier_than_late_registration(offset, expected):
    late = START + timedelta(hours=2)
    assert codes(replace(BASE, late_reg_deadline=late, reentry_deadline=late + offset)) == expected


def test_3_9_a_reentry_deadline_without_late_registration_must_follow_the_start():
    assert codes(replace(BASE, reentry_deadline=START)) == ["reentry-deadline-before-start"]
    assert codes(replace(BASE, addon_deadline=START - SECOND)) == ["addon-deadline-before-start"]


@pytest.mark.parametrize(
    "field, value, code",
    [
        ("buy_in", -1, "amount-negative"),
        ("rebuy_amount", -100, "amount-negative"),
        ("reentry_amount", Decimal("150.5"), "amount-fractional"),
        ("addon_amount", 0.5, "amount-fractional"),
        ("buy_in", Decimal("NaN"), "amount-not-a-number"),
        ("currency", "XYZ", "currency-unknown"),
        ("currency", "rub", "currency-unknown"),
        ("format", "turbo", "format-unknown"),
        ("bounty_type", "progressive", "bounty-type-unknown"),
        ("no_show_policy", "kick", "no-show-policy-unknown"),
        ("starting_stack", 0, "starting-stack-not-positive"),
        ("addon_chips", 0, "addon-chips-not-positive"),
        ("addon_break", 0, "addon-break-not-positive"),
        ("itm_percent", 101, "itm-percent-out-of-range"),
        ("itm_min", 0, "itm-min-below-one"),
        ("name", "  ", "name-blank"),
        ("scheduled_start", datetime(2026, 12, 4, 19, 0), "time-not-aware"),
    ],
)
def test_sp_1_and_3_1_each_bad_setting_has_its_own_code(field, value, code):
    assert codes(replace(BASE, **{field: value})) == [code]


def test_3_3_the_mystery_draw_needs_the_mystery_bounty_type():
    assert codes(replace(BASE, mystery_draw=True)) == ["mystery-draw-without-mystery-bounty"]
    assert codes(replace(BASE, mystery_draw=True, bounty_type="mystery")) == []


def test_every_problem_is_returned_at_once():
    bad = replace(BASE, seat_cap=11, buy_in=-5, currency="ZZZ", late_reg_deadline=START - SECOND)
    assert codes(bad) == [
        "seat-cap-out-of-range",
        "amount-negative",
        "currency-unknown",
        "late-registration-before-start",
    ]


@pytest.mark.parametrize("raw, value", [("150000", 150000), (" 0 ", 0), ("-5", -5), ("1e3", 1000)])
def test_sp_1_whole_cli_amounts_become_ints(raw, value):
    assert amount_from_text(raw) == value and isinstance(amount_from_text(raw), int)


def test_sp_1_fractional_and_garbage_cli_amounts_are_named():
    assert codes(replace(BASE, buy_in=amount_from_text("1500.50"))) == ["amount-fractional"]
    assert codes(replace(BASE, buy_in=amount_from_text("lots"))) == ["amount-not-a-number"]


@settings(max_examples=60)
@given(st.integers(min_value=0, max_value=10**15))
def test_sp_1_any_non_negative_integer_amount_is_valid(amount):
    assert codes(replace(BASE, buy_in=amount, rebuy_amount=amount)) == []


# -- 3.9 lifecycle ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "status, action, target",
    [
        ("draft", "open", "registration_open"),
        ("registration_open", "start", "running"),
        ("running", "finish", "finished"),
        ("draft", "cancel", "cancelled"),
        ("registration_open", "cancel", "cancelled"),
        ("running", "cancel", "cancelled"),
    ],
)
def test_3_9_the_lifecycle_moves_forward(status, action, target):
    assert transition(status, action) == (target, [])


@pytest.mark.parametrize(
    "status, action",
    [
        ("draft", "start"),
        ("running", "open"),
        ("finished", "cancel"),
        ("cancelled", "open"),
        ("registration_open", "finish"),
    ],
)
def test_3_9_other_moves_are_refused(status, action):
    target, problems = transition(status, action)
    assert target is None and [p.code for p in problems] == [f"cannot-{action}"]


@pytest.mark.parametrize("status", STATUSES)
def test_3_9_settings_change_only_in_draft_and_registration_open(status):
    expected = [] if status in ("draft", "registration_open") else ["settings-frozen"]
    assert [p.code for p in edit_problems(status)] == expected


def test_sp_1_an_amount_beyond_bigint_is_refused():
    assert codes(replace(BASE, buy_in=2**63)) == ["amount-too-large"]


@pytest.mark.parametrize(
    "field, raw, value",
    [
        ("seat_cap", "8", 8),
        ("currency", "rub", "RUB"),
        ("addon_once", "false", False),
        ("rebuy_amount", "none", None),
        ("late_reg_deadline", "2026-12-04T22:00+03:00", datetime(2026, 12, 4, 19, 0, tzinfo=UTC)),
        ("late_reg_deadline", "2026-12-04T19:00Z", datetime(2026, 12, 4, 19, 0, tzinfo=UTC)),
    ],
)
def test_settings_typed_in_a_command_get_their_types(field, raw, value):
    assert setting_from_text(field, raw) == (value, [])


@pytest.mark.parametrize(
    "field, raw, code",
    [
        ("late_reg_deadline", "2026-12-04T22:00", "time-not-aware"),
        ("late_reg_deadline", "tonight", "time-invalid"),
        ("seat_cap", "eight", "setting-not-a-number"),
        ("addon_once", "maybe", "setting-not-a-flag"),
        ("colour", "red", "setting-unknown"),
    ],
)
def test_settings_typed_badly_are_named(field, raw, code):
    assert [p.code for p in setting_from_text(field, raw)[1]] == [code]
