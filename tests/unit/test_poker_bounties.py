"""Progressive and shared knockouts, the pure arithmetic (RULES SP-9, SP-10)."""

from __future__ import annotations

from fractions import Fraction

from hypothesis import given
from hypothesis import strategies as st

from domain.poker.rules.bounties import (
    CREDIT_UNIT,
    KnockoutShares,
    classic_shares,
    ledger,
    pko_halves,
    pko_shares,
    pko_totals_by_player,
    pko_void_problems,
    record,
    shared_killer_problems,
    split_evenly,
    units_as_credit,
    units_text,
)


def test_sp10_split_evenly_gives_the_remainder_to_the_first_named():
    """SP-10"""
    assert split_evenly(50, 3) == (17, 17, 16)
    assert split_evenly(51, 3) == (17, 17, 17)
    assert split_evenly(7, 4) == (2, 2, 2, 1)


@given(st.integers(0, 10**9), st.integers(1, 9))
def test_sp10_split_shares_always_add_up_and_differ_by_at_most_one(total, k):
    """SP-10"""
    parts = split_evenly(total, k)
    assert sum(parts) == total and len(parts) == k
    assert max(parts) - min(parts) <= 1
    assert list(parts) == sorted(parts, reverse=True)  # the remainder to the first named


@given(st.integers(2, 10**9))
def test_sp9_halves_add_up_to_the_head(head):
    """SP-9"""
    credited, added = pko_halves(head)
    assert credited + added == head
    assert credited == -(-head // 2) and added == head // 2


@given(st.integers(2, 9))
def test_sp10_classic_share_is_exactly_one_kth(k):
    """SP-10: 1/k of 1.0, exactly, for every k a table allows."""
    shares = classic_shares(list(range(1, k + 1)), shared=True)
    assert all(units_as_credit(s.credit_units) == Fraction(1, k) for s in shares)
    assert sum(s.credit_units for s in shares) == CREDIT_UNIT


def test_sp10_off_keeps_todays_half_for_the_primary_only():
    """SP-10: default off, 0.5 for the primary killer, the second only in the audit (3.2)."""
    shares = classic_shares([7, 8], shared=False)
    assert [(s.killer_entry_id, units_as_credit(s.credit_units)) for s in shares] == [(7, Fraction(1, 2))]
    assert [units_as_credit(s.credit_units) for s in classic_shares([7], shared=False)] == [1]


def test_sp10_more_than_two_killers_need_the_setting():
    """SP-10"""
    assert [p.code for p in shared_killer_problems([1, 2, 3], shared=False)] == ["knockout-shared-off"]
    assert shared_killer_problems([1, 2, 3], shared=True) == []
    assert [p.code for p in shared_killer_problems([1, 2, 1], shared=True)] == ["knockout-same-killers"]


def test_sp9_sp10_worked_example_progressive_heads():
    """SP-9/SP-10, the worked example "progressive heads" of RULES.md."""
    a, b, c = 1, 2, 3
    player_of = {a: 10, b: 20, c: 30}
    kos: list[KnockoutShares] = []
    head, shares = record(100, ledger(100, player_of, kos), b, [a], shared=False)
    assert head == 100 and (shares[0].pko_points, shares[0].head_added) == (50, 50)
    kos.append(KnockoutShares(1, b, head, shares))
    assert ledger(100, player_of, kos).head(a) == 150
    head, shares = record(100, ledger(100, player_of, kos), a, [c], shared=False)
    assert head == 150 and (shares[0].pko_points, shares[0].head_added) == (75, 75)
    kos.append(KnockoutShares(2, a, head, shares))
    now = ledger(100, player_of, kos)
    assert now.head(c) == 175
    totals = pko_totals_by_player(now, player_of, champion_entry_id=c)
    assert totals == {10: 50, 20: 0, 30: 250}
    assert sum(totals.values()) == 300

    # shared: a head of 101 taken by X, Y, Z
    three = pko_shares([7, 8, 9], 101, shared=True)
    assert [s.pko_points for s in three] == [17, 17, 17]
    assert [s.head_added for s in three] == [17, 17, 16]


@st.composite
def tournaments(draw, dead_stacks=False):
    """A random tournament played to its end: entries 1..n, each bust by 1..3 of those still in (or,
    with `dead_stacks`, by none: a dead stack's bust has no killer)."""
    n = draw(st.integers(2, 12))
    head = draw(st.integers(2, 1000))
    shared = draw(st.booleans())
    alive = list(range(1, n + 1))
    plan = []
    while len(alive) > 1:
        busted = draw(st.sampled_from(alive))
        others = [e for e in alive if e != busted]
        k = draw(st.integers(0 if dead_stacks else 1, min(3 if shared else 2, len(others))))
        killers = draw(st.permutations(others))[:k]
        plan.append((busted, killers))
        alive.remove(busted)
    return n, head, shared, plan, alive[0]


def _play(n, head, shared, plan):
    entries = list(range(1, n + 1))
    kos: list[KnockoutShares] = []
    states = [ledger(head, entries, kos)]
    for i, (busted, killers) in enumerate(plan, 1):
        taken, shares = record(head, states[-1], busted, killers, shared=shared)
        kos.append(KnockoutShares(i, busted, taken, shares))
        states.append(ledger(head, entries, kos))
    return entries, kos, states


@given(tournaments())
def test_sp9_heads_and_credits_always_add_up(t):
    """SP-9, SP-10: at every step, live heads plus credited points are the heads handed out; at the
    end, with the champion credited its own head, the totals are n × head exactly."""
    n, head, shared, plan, champion = t
    entries, kos, states = _play(n, head, shared, plan)
    for state in states:
        assert sum(state.heads.values()) + sum(state.points.values()) == n * head
    totals = pko_totals_by_player(states[-1], {e: e for e in entries}, champion)
    assert sum(totals.values()) == n * head
    for ko in kos:
        assert sum(s.pko_points + s.head_added for s in ko.shares) == ko.head_taken


@given(tournaments())
def test_sp9_voiding_the_last_knockout_restores_the_state_before(t):
    """SP-9: a void reverses exactly its credit and head addition."""
    n, head, shared, plan, _ = t
    entries, kos, states = _play(n, head, shared, plan)
    for i in range(len(kos)):
        # void knockout i when its killers have not been knocked out since: drop it from the live set
        later = {ko.busted_entry_id for ko in kos[i + 1 :]}
        killers = [s.killer_entry_id for s in kos[i].shares]
        if pko_void_problems(kos[i].knockout_id, killers, later):
            continue
        after = ledger(head, entries, kos[:i] + kos[i + 1 :])
        final, ko = states[-1], kos[i]
        added = {s.killer_entry_id: s.head_added for s in ko.shares}
        credited = {s.killer_entry_id: s.pko_points for s in ko.shares}
        for e in entries:
            assert after.points[e] == final.points[e] - credited.get(e, 0)
            if e == ko.busted_entry_id:
                assert after.heads[e] == ko.head_taken == states[i].heads[e]  # back in with its head
            else:
                assert after.heads[e] == final.heads[e] - (added.get(e, 0) if final.heads[e] else 0)
        assert sum(after.heads.values()) + sum(after.points.values()) == n * head


def test_sp9_void_refused_once_the_killer_was_knocked_out():
    """SP-9"""
    assert [p.code for p in pko_void_problems(1, [5], busted_later=[5])] == ["void-killer-knocked-out"]
    assert pko_void_problems(1, [5], busted_later=[6]) == []


def test_sp10_credit_text_is_exact():
    """SP-10"""
    assert units_text(CREDIT_UNIT) == "1"
    assert units_text(CREDIT_UNIT // 2) == "0.5"
    assert units_text(5 * CREDIT_UNIT // 2) == "2.5"
    assert units_text(CREDIT_UNIT // 3) == "1/3"
    assert units_text(CREDIT_UNIT + CREDIT_UNIT // 3) == "1 1/3"


# -- the settings ---------------------------------------------------------------------------------

from dataclasses import replace  # noqa: E402
from datetime import UTC, datetime  # noqa: E402

import pytest  # noqa: E402

from domain.poker.rules.settings import (  # noqa: E402
    TournamentSettings,
    setting_from_text,
    settings_problems,
)

BASE = TournamentSettings(
    name="Friday", scheduled_start=datetime(2026, 12, 4, 19, tzinfo=UTC), starting_stack=20000, currency="RUB", buy_in=0
)


def test_sp9_pko_without_a_head_is_refused():
    """SP-9: bounty_type=pko needs a pko_head (without one it would record classic credits under the
    PKO label); the other bounty types need none."""
    assert BASE.pko_head is None and BASE.shared_knockouts is False
    problems = settings_problems(replace(BASE, bounty_type="pko"))
    assert [(p.code, p.message) for p in problems] == [
        (
            "pko-head-missing",
            "bounty type pko needs a PKO head: set pko_head to a whole number of points, at least 2 (SP-9)",
        )
    ]
    assert settings_problems(replace(BASE, bounty_type="pko", pko_head=100)) == []
    assert settings_problems(replace(BASE, bounty_type="classic")) == []


@pytest.mark.parametrize(
    "head, bounty, code",
    [(1, "pko", "pko-head-bad"), (0, "pko", "pko-head-bad"), (100, "classic", "pko-head-without-pko")],
)
def test_sp9_a_bad_pko_head_is_refused(head, bounty, code):
    """SP-9"""
    assert [p.code for p in settings_problems(replace(BASE, bounty_type=bounty, pko_head=head))] == [code]


def test_sp9_sp10_settings_from_text():
    """SP-9, SP-10"""
    assert setting_from_text("pko_head", "100") == (100, [])
    assert setting_from_text("pko_head", "none") == (None, [])
    assert setting_from_text("shared_knockouts", "true") == (True, [])


@given(st.integers(2, 500), st.integers(2, 500), st.booleans())
def test_sp9_a_block_by_one_killer_is_the_same_in_any_order(h1, h2, reverse):
    """SP-9: several entries busted by one killer in one hand are each handled from the heads
    before the hand; the order does not change any total."""
    from domain.poker.rules.bounties import PkoLedger

    before = PkoLedger({1: 100, 2: h1, 3: h2}, {1: 0, 2: 0, 3: 0})
    busted = [3, 2] if reverse else [2, 3]
    kos = []
    for i, b in enumerate(busted, 1):
        taken, shares = record(100, before, b, [1], shared=False)
        kos.append(KnockoutShares(i, b, taken, shares))
    after = ledger(100, [1, 2, 3], kos)
    # the ledger starts every entry at 100; compare the killer's gains only
    gained = sum(s.pko_points for k in kos for s in k.shares), sum(s.head_added for k in kos for s in k.shares)
    assert gained == (h1 - h1 // 2 + h2 - h2 // 2, h1 // 2 + h2 // 2)
    assert after.points[1] == gained[0]


@given(tournaments(dead_stacks=True))
def test_sp9_a_bust_with_no_killer_leaves_its_head_to_the_champion_and_the_credits_add_up(t):
    """SP-9, SP-6: a dead stack's bust has no killer; its head (with what the entry had won) is
    unclaimed until the end and credited to the champion with its own, so at every step heads,
    points and unclaimed heads are the heads handed out, and the totals are n × head exactly."""
    n, head, shared, plan, champion = t
    entries, kos, states = _play(n, head, shared, plan)
    for state in states:
        assert sum(state.heads.values()) + sum(state.points.values()) + state.unclaimed == n * head
    totals = pko_totals_by_player(states[-1], {e: e for e in entries}, champion)
    assert sum(totals.values()) == n * head


def test_sp9_a_dead_stack_head_goes_to_the_champion_in_the_final_places():
    """SP-9, SP-6: heads of 100; D's dead stack busts (no killer); C knocks out B (C +50, head 150); A
    knocks out C (A +75, head 175); A, the champion, is credited its own head and D's (175 + 100):
    A 350, B 0, C 50, D 0 — the 400 points of the four heads."""
    from domain.poker.rules.places import LiveKnockout, PlacedEntry, final_places

    entries = [PlacedEntry(e, e, 1) for e in (1, 2, 3, 4)]  # A B C D
    knockouts = []
    for number, (busted, killer) in enumerate([(4, None), (2, 3), (3, 1)], 1):
        state = ledger(100, [1, 2, 3, 4], [KnockoutShares(0, k.busted_entry_id, 0, k.shares) for k in knockouts])
        _, shares = record(100, state, busted, [killer] if killer else [], shared=False)
        knockouts.append(LiveKnockout(busted, number, killer, 2 if killer else 0, shares))
    places = final_places(entries, knockouts, pko_head=100)
    assert {p.player_id: p.pko_points for p in places} == {1: 350, 2: 0, 3: 50, 4: 0}
    assert sum(p.pko_points for p in places) == 400
