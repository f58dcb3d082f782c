"""The policy and the credentials' rules (RULES AC-1, AC-2, AC-4), pure: no database."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from hypothesis import given
from hypothesis import strategies as st

from domain.access.rules import credentials
from domain.access.rules.policy import (
    ANONYMOUS,
    CLUB_ROLES,
    NOT_FOUND,
    POLICY,
    SIGN_IN,
    SUSPENDED,
    Actor,
    Role,
    Scope,
    Target,
    may,
    problems_of_grant,
)

NOW = datetime(2026, 12, 2, 20, 0, tzinfo=UTC)
roles = st.sampled_from(list(Role))
clubs = st.integers(1, 4)
actors = st.builds(
    lambda held, player, cups: Actor(
        "person", "someone", account_id=1, roles=frozenset(held), player_id=player, cups=frozenset(cups)
    ),
    st.frozensets(st.tuples(st.sampled_from(CLUB_ROLES), clubs) | st.tuples(roles, st.none()), max_size=5),
    st.none() | st.integers(1, 3),
    st.frozensets(st.sampled_from(["AAAAAA", "BBBBBB"]), max_size=2),
)
target_values = st.builds(
    Target,
    st.none() | clubs,
    st.booleans(),
    st.none() | st.integers(1, 3),
    st.none() | st.sampled_from(["AAAAAA", "BBBBBB"]),
)


def floor_of(club: int) -> Actor:
    return Actor("person", "floor", account_id=1, roles=frozenset({(Role.FLOOR, club)}))


def test_ac_1_every_action_has_a_rule_naming_roles_where_its_scope_needs_them():
    """AC-1: club, player, cup and platform actions name who may take them."""
    for action, rule in POLICY.items():
        assert (rule.scope in (Scope.PUBLIC, Scope.ACCOUNT)) == (not rule.roles), action


@given(actors, st.sampled_from(sorted(POLICY)), target_values)
def test_ac_2_staff_act_only_in_clubs_where_they_hold_the_role(actor, action, target):
    """AC-2: a club action is allowed exactly when the actor holds one of its roles in the target's club
    (and, for a write, the club is active); every other refusal of a club action is not-found."""
    rule = POLICY[action]
    problem = may(actor, action, target)
    if rule.scope is Scope.CLUB:
        holds = target.club_id is not None and any(actor.holds(r, target.club_id) for r in rule.roles)
        if not holds:
            assert problem is not None and problem.code == NOT_FOUND
        elif rule.writes and not target.club_active:
            assert problem is not None and problem.code == SUSPENDED
        else:
            assert problem is None


@given(st.sampled_from(sorted(POLICY)), target_values | st.none())
def test_ac_2_anonymous_callers_may_only_call_public_actions_and_learn_nothing_of_what_exists(action, target):
    """AC-2: anonymous gets `sign-in` for every non-public action, whether the object exists or not; a
    public action is anyone's, on an object that is there (a missing one is not found, for anyone)."""
    problem = may(ANONYMOUS, action, target)
    if POLICY[action].scope is Scope.PUBLIC:
        assert problem is None if target is not None else problem.code == NOT_FOUND
    else:
        assert problem is not None and problem.code == SIGN_IN


@given(actors, st.sampled_from(sorted(POLICY)))
def test_ac_2_a_missing_object_is_not_found_for_every_signed_in_actor(actor, action):
    """AC-2: the answer a refusal must look like, a public action's too (a public read of a club that is
    not there does not run)."""
    problem = may(actor, action, None)
    assert problem is not None and problem.code == NOT_FOUND


def test_ac_2_the_floor_of_one_club_cannot_touch_another_club_nor_take_the_cashiers_part():
    """AC-1, AC-2: exact cells."""
    assert may(floor_of(1), "poker.knock-out", Target(1)) is None
    assert may(floor_of(1), "poker.knock-out", Target(2)).code == NOT_FOUND
    assert may(floor_of(1), "poker.settle", Target(1)).code == NOT_FOUND
    assert may(floor_of(1), "club.audit", Target(1)).code == NOT_FOUND


def test_ac_4_a_suspended_clubs_staff_keep_reading_but_cannot_change_events():
    """AC-4: writes refused with club-suspended, reads allowed."""
    assert may(floor_of(1), "poker.entries", Target(1, club_active=False)) is None
    assert may(floor_of(1), "poker.knock-out", Target(1, club_active=False)).code == SUSPENDED


def test_ac_1_a_player_acts_on_their_own_entries_and_a_game_server_on_its_cups():
    """AC-1, AC-2."""
    player = Actor("person", "p", account_id=2, roles=frozenset({(Role.PLAYER, None)}), player_id=7)
    assert may(player, "poker.register-self", Target(1, player_id=7)) is None
    assert may(player, "poker.register-self", Target(1, player_id=8)).code == NOT_FOUND
    assert may(player, "poker.register", Target(1)).code == NOT_FOUND
    server = Actor("token", "s", account_id=3, roles=frozenset({(Role.GAME_SERVER, None)}), cups=frozenset({"AAAAAA"}))
    assert may(server, "pusoy.report", Target(cup="AAAAAA")) is None
    assert may(server, "pusoy.report", Target(cup="BBBBBB")).code == NOT_FOUND
    assert may(server, "pusoy.join", Target(cup="AAAAAA")).code == NOT_FOUND


def test_ac_1_roles_are_granted_in_a_club_or_on_the_platform_with_every_problem_coded():
    """AC-1: club roles need a club; operator takes none; player and game server are not granted."""
    assert problems_of_grant("floor", 1) == []
    assert problems_of_grant("operator", None) == []
    assert [p.code for p in problems_of_grant("floor", None)] == ["role-needs-club"]
    assert [p.code for p in problems_of_grant("operator", 1)] == ["role-without-club"]
    assert [p.code for p in problems_of_grant("dealer", 1)] == ["unknown-role"]
    assert [p.code for p in problems_of_grant("player", None)] == ["role-not-granted"]


def test_ac_4_the_throttle_lets_five_failures_in_then_waits_for_the_oldest_to_leave_the_window():
    """AC-4: 5 failures per account in 15 minutes; the 6th waits until the first is 15 minutes old."""
    failures = [NOW - timedelta(minutes=m) for m in (10, 8, 6, 4)]
    assert credentials.throttle(failures, [], NOW).allowed
    failures.append(NOW - timedelta(minutes=1))
    refused = credentials.throttle(failures, [], NOW)
    assert not refused.allowed and refused.retry_after_s == 5 * 60
    # exactly when the oldest leaves the window, one more may be tried; a second before, not
    at = NOW + timedelta(minutes=5)
    assert credentials.throttle(failures, [], at).allowed
    assert not credentials.throttle(failures, [], at - timedelta(seconds=1)).allowed


def test_ac_4_the_throttle_counts_twenty_failures_per_address():
    """AC-4: per address, 20 in the window."""
    nineteen = [NOW - timedelta(seconds=s) for s in range(19)]
    assert credentials.throttle([], nineteen, NOW).allowed
    assert not credentials.throttle([], [*nineteen, NOW], NOW).allowed


@given(st.lists(st.integers(0, 3600), max_size=40))
def test_ac_4_guessing_stays_under_ten_a_minute_per_account(offsets):
    """AC-4: whatever the failures so far, at most 5 are allowed in any 15 minutes (< 10 a minute)."""
    failures = sorted(NOW + timedelta(seconds=s) for s in offsets)
    allowed = []
    for at in failures:
        if credentials.throttle(allowed, [], at).allowed:
            allowed.append(at)
    for at in allowed:
        assert sum(1 for a in allowed if at <= a < at + credentials.THROTTLE_WINDOW) <= 5


def test_ac_4_a_session_ends_twelve_hours_unused_or_fourteen_days_after_it_began():
    """AC-4: idle and absolute expiry, at the edge exactly."""
    start = NOW - timedelta(days=1)
    assert not credentials.session_expired(start, NOW, NOW + timedelta(hours=12) - timedelta(seconds=1))
    assert credentials.session_expired(start, NOW, NOW + timedelta(hours=12))
    began = NOW - timedelta(days=14)
    assert not credentials.session_expired(began, NOW, NOW - timedelta(seconds=1))
    assert credentials.session_expired(began, NOW, NOW)


def test_ac_4_a_new_password_reports_every_problem():
    """AC-4: short and equal to the e-mail's name, both at once."""
    codes = [p.code for p in credentials.password_problems("anna", "anna@example.org")]
    assert codes == ["password-too-short", "password-is-email"]
    assert credentials.password_problems("correct horse battery staple", "anna@example.org") == []
