"""Progressive and shared knockouts on the real database (RULES SP-9, SP-10)."""

from __future__ import annotations

from datetime import timedelta
from fractions import Fraction

import pytest
from sqlalchemy import func, select

from domain.errors import DomainError
from domain.poker.rules.knockouts import Bust
from domain.poker.services.knockouts import record_knockouts, void_knockout
from domain.poker.services.results import compute_places, finalize_tournaments, places
from domain.poker.tables.knockouts_places import Knockout, KnockoutShare
from tests.support import world as w
from tests.support.world import EVENING

pytestmark = pytest.mark.integration


def ko(session, t, *busts, now=EVENING):
    return record_knockouts(session, t.id, list(busts), now=now, actor="floor")


def pko(session, head=100, shared=False):
    t = w.tournament(session, **w.BOUNTY | {"bounty_type": "pko"})
    t.pko_head = head
    t.shared_knockouts = shared
    session.flush()
    return t


def by_name(session, t):
    return {p.name: p.place for p in places(session, t.id)}


def test_sp9_worked_example_progressive_heads_on_the_database(session):
    """SP-9: heads of 100; A knocks out B, C knocks out A, C last: A 50, B 0, C 250."""
    t = pko(session)
    e = w.field(session, t, "ABC")
    [first] = ko(session, t, Bust(e["B"].id, e["A"].id))
    [second] = ko(session, t, Bust(e["A"].id, e["C"].id), now=EVENING + timedelta(seconds=1))
    shares = session.execute(
        select(KnockoutShare.knockout_id, KnockoutShare.pko_points, KnockoutShare.head_added)
        .order_by(KnockoutShare.knockout_id)
        .where(KnockoutShare.knockout_id.in_([first.id, second.id]))
    ).all()
    assert [(s.pko_points, s.head_added) for s in shares] == [(50, 50), (75, 75)]
    got = by_name(session, t)
    assert {n: p.pko_points for n, p in got.items()} == {"A": 50, "B": 0, "C": 250}
    assert [p.place for p in compute_places(session, t.id)] == [1, 2, 3]


def test_sp9_a_reentry_starts_a_fresh_head(session):
    """SP-9"""
    t = pko(session)
    e = w.field(session, t, "AB")
    ko(session, t, Bust(e["B"].id, e["A"].id))  # A: credited 50, head 150
    b2 = w.reenter(session, e["B"])
    [k] = ko(session, t, Bust(e["A"].id, b2.id), now=EVENING + timedelta(seconds=1))  # B2 takes A's 150
    assert session.scalar(select(KnockoutShare.pko_points).where(KnockoutShare.knockout_id == k.id)) == 75
    got = by_name(session, t)
    # B: 75 credited, and as the champion its own head 100 + 75
    assert got["B"].pko_points == 250 and got["A"].pko_points == 50


def test_sp9_void_reverses_exactly_and_is_refused_once_the_killer_is_out(session):
    """SP-9"""
    t = pko(session)
    e = w.field(session, t, "ABCD")
    [first] = ko(session, t, Bust(e["B"].id, e["A"].id))
    [second] = ko(session, t, Bust(e["C"].id, e["D"].id), now=EVENING + timedelta(seconds=1))
    void_knockout(session, second.id, now=EVENING + timedelta(seconds=2), actor="floor")
    [third] = ko(session, t, Bust(e["A"].id, e["C"].id), now=EVENING + timedelta(seconds=3))
    # C takes A's head of 150 (100 + B's 50): the void of D's knockout left nothing behind
    assert session.scalar(select(KnockoutShare.pko_points).where(KnockoutShare.knockout_id == third.id)) == 75
    with pytest.raises(DomainError) as caught:
        with session.begin_nested():
            void_knockout(session, first.id, now=EVENING + timedelta(seconds=4), actor="floor")
    assert caught.value.code == "void-killer-knocked-out"


def test_sp10_three_killers_split_credit_and_heads_exactly(session):
    """SP-10: a head of 101 taken by X, Y, Z: 17/17/17 credited, 17/17/16 to the heads; 1/3 each."""
    t = pko(session, head=101, shared=True)
    e = w.field(session, t, "WXYZ")
    [k] = ko(session, t, Bust(e["W"].id, e["X"].id, e["Y"].id, (e["Z"].id,)))
    rows = (
        session.execute(select(KnockoutShare).where(KnockoutShare.knockout_id == k.id).order_by(KnockoutShare.position))
        .scalars()
        .all()
    )
    assert [r.pko_points for r in rows] == [17, 17, 17]
    assert [r.head_added for r in rows] == [17, 17, 16]
    assert [Fraction(r.credit_units, 2520) for r in rows] == [Fraction(1, 3)] * 3


def test_sp10_places_count_every_share(session):
    """SP-10: classic bounty, two killers with shared knockouts on: 0.5 each and one knockout each."""
    t = w.tournament(session, **w.BOUNTY)
    t.shared_knockouts = True
    session.flush()
    e = w.field(session, t, "ABC")
    ko(session, t, Bust(e["C"].id, e["A"].id, e["B"].id))
    ko(session, t, Bust(e["B"].id, e["A"].id), now=EVENING + timedelta(seconds=1))
    got = by_name(session, t)
    assert (got["A"].knockouts, got["A"].credit) == (2, Fraction(3, 2))
    assert (got["B"].knockouts, got["B"].credit) == (1, Fraction(1, 2))
    finalize_tournaments(session, EVENING + timedelta(minutes=10))
    stored = by_name(session, t)
    assert stored["A"].credit == Fraction(3, 2) and stored["A"].credit_units == 3780


def test_sp10_off_refuses_a_third_killer_and_keeps_todays_half(session):
    """SP-10: default off."""
    t = w.tournament(session, **w.BOUNTY)
    e = w.field(session, t, "ABCD")
    with pytest.raises(DomainError) as caught:
        with session.begin_nested():
            ko(session, t, Bust(e["D"].id, e["A"].id, e["B"].id, (e["C"].id,)))
    assert caught.value.code == "knockout-shared-off"
    assert session.scalar(select(func.count()).select_from(Knockout).where(Knockout.tournament_id == t.id)) == 0
    [k] = ko(session, t, Bust(e["D"].id, e["A"].id, e["B"].id))
    assert k.credit_halves == 1
    assert session.scalar(select(func.count()).select_from(KnockoutShare).where(KnockoutShare.knockout_id == k.id)) == 0
