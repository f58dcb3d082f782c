"""Prizes, ITM, final places and finalizing on the real database (3.4, 3.7; SP-3, SP-4, SP-7)."""

from __future__ import annotations

import threading
from datetime import timedelta
from fractions import Fraction

import pytest
from sqlalchemy import func, select

from domain.errors import DomainError
from domain.ops.services.status import PENDING_WORK
from domain.poker.rules.knockouts import Bust
from domain.poker.services.knockouts import record_knockouts, void_knockout
from domain.poker.services.results import (
    apply_preset,
    finalize_tournaments,
    itm_status,
    places,
    prizes,
    set_prizes,
)
from domain.poker.tables.knockouts_places import FinalPlace, Prize
from domain.poker.tables.tournaments import Tournament
from domain.store.db import StatementCounter, unit_of_work
from tests.support import world as w
from tests.support.world import EVENING

LATER = EVENING + timedelta(minutes=5)


def test_3_4_prize_lines_are_stored_by_place_and_replaced_whole(session):
    t = w.tournament(session, **w.BOUNTY)
    set_prizes(session, t.id, ["Cup and a free entry", " Medal "])
    assert prizes(session, t.id) == ("Cup and a free entry", "Medal")
    set_prizes(session, t.id, [])
    assert prizes(session, t.id) == ()  # a tournament without prizes


@pytest.mark.parametrize(
    "lines, code",
    [
        (["Cup", "1000 руб."], "money-wording"),
        (["$50"], "money-wording"),
        (["5 000 р"], "money-wording"),
        (["денежный приз"], "money-wording"),
        (["cash"], "money-wording"),
        (["Medal"] * 201, "prizes-too-many-lines"),
        (["x" * 501], "prize-line-too-long"),
    ],
)
def test_sp_4_bad_prize_lists_are_refused_and_the_old_list_stays(session, lines, code):
    t = w.tournament(session, **w.BOUNTY)
    set_prizes(session, t.id, ["Cup"])
    with pytest.raises(DomainError) as refused:
        set_prizes(session, t.id, lines)
    assert refused.value.code == code
    assert prizes(session, t.id) == ("Cup",)


def test_3_4_a_preset_is_trimmed_to_the_field(session):
    t = w.tournament(session, **w.BOUNTY)
    w.field(session, t, "AB")
    assert apply_preset(session, t.id, "merch", "en") == ("Club hoodie", "Club T-shirt")
    assert session.scalar(select(func.count()).select_from(Prize).where(Prize.tournament_id == t.id)) == 2


def test_3_4_the_freerolls_preset_counts_re_entries_in_the_field(session):
    """3.4 + SP-3: 10% of 15 entries = 1.5 → 2 free entries."""
    t = w.tournament(session, **w.BOUNTY)
    e = w.field(session, t, "ABCDEFGHIJKLM")
    record_knockouts(session, t.id, [Bust(e["A"].id, e["M"].id), Bust(e["B"].id, e["M"].id)], now=EVENING, actor="f")
    for name in "AB":
        session.refresh(e[name])
        w.reenter(session, e[name])
    assert len(apply_preset(session, t.id, "freerolls", "ru")) == 2


def test_sp_3_itm_counts_entries_and_remaining_players(session):
    """SP-3: 12 entries at 25% pay 3; 5 remain → two to the money; 4 → the bubble; 3 → in the money."""
    t = w.tournament(session, **w.BOUNTY, itm_percent=25)
    e = w.field(session, t, "ABCDEFGHIJ")
    record_knockouts(session, t.id, [Bust(e[n].id, e["J"].id) for n in "AB"], now=EVENING, actor="f")
    for name in "AB":
        session.refresh(e[name])
        w.reenter(session, e[name])
    status = itm_status(session, t.id)
    assert (status.paid_places, status.remaining) == (3, 10)
    record_knockouts(session, t.id, [Bust(e[n].id, e["J"].id) for n in "CDEFG"], now=EVENING, actor="f")
    session.expire_all()
    status = itm_status(session, t.id)
    assert (status.remaining, status.remaining_to_money, status.on_bubble, status.in_money) == (5, 2, False, False)
    record_knockouts(session, t.id, [Bust(e["H"].id, e["J"].id)], now=EVENING, actor="f")
    assert itm_status(session, t.id).on_bubble
    record_knockouts(session, t.id, [Bust(e["I"].id, e["J"].id)], now=EVENING, actor="f")
    assert itm_status(session, t.id).in_money


def test_sp_7_worked_example_through_the_services(session):
    """SP-7: K 1 · J 2 · I 3 · H 4 · B 5 · G 6 · F 7 · D and E 8 · C 10."""
    t = w.sp7_played(session)
    set_prizes(session, t.id, ["Cup", "Medal", "Cap"])
    found = {p.name: p.place for p in places(session, t.id)}
    assert {n: p.place for n, p in found.items()} == {
        "K": 1,
        "J": 2,
        "I": 3,
        "H": 4,
        "B": 5,
        "G": 6,
        "F": 7,
        "D": 8,
        "E": 8,
        "C": 10,
    }
    assert (found["K"].prize, found["J"].prize, found["I"].prize, found["H"].prize) == ("Cup", "Medal", "Cap", None)
    assert found["K"].credit == Fraction(6) and found["B"].credit == Fraction(2)


def test_3_7_places_are_refused_while_two_players_remain(session):
    t = w.tournament(session, **w.BOUNTY)
    e = w.field(session, t, "ABC")
    record_knockouts(session, t.id, [Bust(e["A"].id, e["C"].id)], now=EVENING, actor="f")
    with pytest.raises(DomainError) as refused:
        places(session, t.id)
    assert refused.value.code == "places-players-remain"


def test_3_7_a_voided_knockout_does_not_count_in_places(session):
    t = w.tournament(session, **w.BOUNTY)
    e = w.field(session, t, "ABC")
    [wrong] = record_knockouts(session, t.id, [Bust(e["B"].id, e["C"].id)], now=EVENING, actor="f")
    void_knockout(session, wrong.id, now=EVENING, actor="f")
    record_knockouts(session, t.id, [Bust(e["A"].id, e["C"].id)], now=EVENING, actor="f")
    record_knockouts(session, t.id, [Bust(e["B"].id, e["C"].id)], now=EVENING, actor="f")
    assert [(p.name, p.place.place, p.place.bust_number) for p in places(session, t.id)] == [
        ("C", 1, None),
        ("B", 2, 3),  # SP-5: the voided bust keeps #1; the places go by the order of the numbers
        ("A", 3, 2),
    ]


def test_finalize_waits_for_one_player_and_the_void_window_then_writes_places_once(session):
    """The job: one player left and the last bust past its void window → places, prizes, finished."""
    t = w.sp7_played(session)
    set_prizes(session, t.id, ["Cup", "Medal"])
    assert finalize_tournaments(session, EVENING + timedelta(minutes=5) - timedelta(seconds=1)) == []
    [done] = finalize_tournaments(session, LATER)
    assert done.tournament_id == t.id
    assert [(p.name, p.place.place, p.place.prize) for p in done.places][:3] == [
        ("K", 1, "Cup"),
        ("J", 2, "Medal"),
        ("I", 3, None),
    ]
    session.refresh(t)
    assert (t.status, t.finished_at) == ("finished", LATER)
    assert finalize_tournaments(session, LATER + timedelta(hours=1)) == []  # idempotent
    stored = session.scalar(select(func.count()).select_from(FinalPlace).where(FinalPlace.tournament_id == t.id))
    assert stored == 10
    assert {p.name: p.place.place for p in places(session, t.id)}["D"] == 8  # read back from the table


def test_finalize_leaves_a_tournament_with_two_players_in_running(session):
    t = w.tournament(session, **w.BOUNTY)
    e = w.field(session, t, "ABC")
    record_knockouts(session, t.id, [Bust(e["A"].id, e["C"].id)], now=EVENING, actor="f")
    assert finalize_tournaments(session, LATER + timedelta(hours=1)) == []
    assert session.get(Tournament, t.id).status == "running"


def test_prizes_of_a_finished_tournament_are_frozen(session):
    t = w.tournament(session, **w.BOUNTY, status="finished")
    with pytest.raises(DomainError) as refused:
        set_prizes(session, t.id, ["Cup"])
    assert refused.value.code == "prizes-frozen"


def test_3_2_without_bounty_knockouts_are_still_recorded_for_places_and_statistics(session):
    """3.2: bounty type none — the records carry their credit; places and counts still come from them."""
    t = w.tournament(session, **w.BOUNTY | {"bounty_type": "none"})
    e = w.field(session, t, "ABCD")
    record_knockouts(session, t.id, [Bust(e["A"].id, e["D"].id)], now=EVENING, actor="f")
    record_knockouts(session, t.id, [Bust(e["B"].id, e["C"].id, e["D"].id)], now=EVENING, actor="f")
    record_knockouts(session, t.id, [Bust(e["C"].id, e["D"].id)], now=EVENING, actor="f")
    assert [(p.name, p.place.place, p.place.knockouts, p.place.credit) for p in places(session, t.id)] == [
        ("D", 1, 2, Fraction(2)),
        ("C", 2, 1, Fraction(1, 2)),
        ("B", 3, 0, Fraction(0)),
        ("A", 4, 0, Fraction(0)),
    ]


def test_finalize_is_set_based_the_same_statements_for_one_tournament_or_three(session, engine):
    """The job: a constant number of statements, not one round per tournament or player."""

    def finished_down_to_one(n: int) -> None:
        for _ in range(n):
            t = w.tournament(session, **w.BOUNTY)
            e = w.field(session, t, "ABCD")
            record_knockouts(session, t.id, [Bust(e[x].id, e["D"].id) for x in "ABC"], now=EVENING, actor="f")

    finished_down_to_one(1)
    with StatementCounter(engine) as one:
        assert len(finalize_tournaments(session, LATER)) == 1
    finished_down_to_one(3)
    with StatementCounter(engine) as three:
        assert len(finalize_tournaments(session, LATER)) == 3
    assert (
        one.count == three.count == 11
    )  # lock+pick, entries, shares (SP-9, SP-10), knockouts, prizes, insert, update, names, webhook events,
    # the events' NOTIFY to the event consumer and the streams' NOTIFY (one each for the batch)


def test_finalize_run_twice_at_once_finishes_a_tournament_once(committed):
    """The job is safe to run concurrently: SKIP LOCKED and the status guard, one set of places."""
    with unit_of_work(committed) as s:
        t = w.tournament(s, **w.BOUNTY)
        e = w.field(s, t, "ABC")
        record_knockouts(s, t.id, [Bust(e["A"].id, e["C"].id), Bust(e["B"].id, e["C"].id)], now=EVENING, actor="f")
        tid = t.id
    barrier = threading.Barrier(2)
    finished: list[int] = []

    def run() -> None:
        with unit_of_work(committed) as s:
            barrier.wait()
            finished.extend(done.tournament_id for done in finalize_tournaments(s, LATER))

    threads = [threading.Thread(target=run) for _ in range(2)]
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    assert finished == [tid]
    with unit_of_work(committed) as s:
        count = s.scalar(select(func.count()).select_from(FinalPlace).where(FinalPlace.tournament_id == tid))
        assert count == 3


def test_the_status_report_counts_tournaments_ready_to_finalize(session, engine):
    """Pending work of `finalize-tournaments`: down to one player, the void window past (by now())."""
    before = session.scalar(PENDING_WORK["finalize-tournaments"])
    t = w.tournament(session, **w.BOUNTY)
    e = w.field(session, t, "AB")
    long_ago = EVENING - timedelta(days=3650)
    record_knockouts(session, t.id, [Bust(e["A"].id, e["B"].id)], now=long_ago, actor="f")
    assert session.scalar(PENDING_WORK["finalize-tournaments"]) == before + 1
