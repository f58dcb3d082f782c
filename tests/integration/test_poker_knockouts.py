"""Knockouts, voids and mystery draws on the real database (Sport Poker 3.2, 3.3; SP-4, SP-5)."""

from __future__ import annotations

import threading
from datetime import timedelta

import pytest
from sqlalchemy import func, select

from domain.errors import DomainError
from domain.poker.rules.knockouts import Bust
from domain.poker.services import clock as clock_service
from domain.poker.services import desk
from domain.poker.services.knockouts import (
    record_knockouts,
    set_void_window,
    void_knockout,
)
from domain.poker.services.mystery import mystery_draw
from domain.poker.tables.knockouts_places import Knockout, KnockoutAudit, MysteryDraw
from domain.poker.tables.tournaments import Entry
from domain.store.db import unit_of_work
from tests.support import world as w
from tests.support.db import refused_call
from tests.support.world import EVENING, T0


def ko(session, t, *busts, **kw):
    return record_knockouts(session, t.id, list(busts), now=kw.pop("now", EVENING), actor="floor", **kw)


def count(session, model, *where) -> int:
    return session.scalar(select(func.count()).select_from(model).where(*where))


def test_3_2_a_knockout_puts_the_entry_out_with_the_next_bust_number(session):
    t = w.tournament(session, **w.BOUNTY | {"levels": w.LEVELS})
    e = w.field(session, t, "ABCD")
    [first] = ko(session, t, Bust(e["A"].id, e["D"].id), level=3)
    [second] = ko(session, t, Bust(e["B"].id, e["D"].id))
    assert (first.bust_number, second.bust_number) == (1, 2)
    assert first.level == 3 and first.credit_halves == 2
    session.refresh(e["A"])
    assert e["A"].state == "busted" and e["A"].busted_at == EVENING


def test_3_2_simultaneous_busts_and_a_multi_bust_group_share_one_number(session):
    """3.2: busts recorded together share a number; a group label joins the latest block."""
    t = w.tournament(session, **w.BOUNTY)
    e = w.field(session, t, "ABCDEF")
    together = ko(session, t, Bust(e["A"].id, e["F"].id), Bust(e["B"].id, e["F"].id))
    assert [k.bust_number for k in together] == [1, 1]
    [c] = ko(session, t, Bust(e["C"].id, e["E"].id), group="hand 57")
    [d] = ko(session, t, Bust(e["D"].id, e["F"].id), group="hand 57")
    assert (c.bust_number, d.bust_number) == (2, 2)


def test_3_2_a_group_closed_by_a_later_bust_is_refused(session):
    t = w.tournament(session, **w.BOUNTY)
    e = w.field(session, t, "ABCD")
    ko(session, t, Bust(e["A"].id, e["D"].id), group="h1")
    ko(session, t, Bust(e["B"].id, e["D"].id))
    refused_call(
        session,
        "knockout-group-closed",
        record_knockouts,
        session,
        t.id,
        [Bust(e["C"].id, e["D"].id)],
        now=EVENING,
        actor="floor",
        group="h1",
    )


def test_3_2_two_killers_make_one_record_with_half_credit_and_the_second_in_the_audit_only(session):
    t = w.tournament(session, **w.BOUNTY)
    e = w.field(session, t, "ABC")
    [k] = ko(session, t, Bust(e["A"].id, e["B"].id, e["C"].id))
    assert (k.killer_entry_id, k.credit_halves) == (e["B"].id, 1)
    audit = session.scalars(select(KnockoutAudit).where(KnockoutAudit.knockout_id == k.id)).one()
    assert (audit.kind, audit.second_killer_entry_id) == ("recorded", e["C"].id)


@pytest.mark.parametrize(
    "case, code",
    [
        ("self", "knockout-self"),
        ("busted", "knockout-already-out"),
        ("unknown", "knockout-unknown-entry"),
        ("last", "knockout-nobody-left"),
    ],
)
def test_3_2_bad_knockouts_are_refused_with_a_code_and_nothing_written(session, case, code):
    t = w.tournament(session, **w.BOUNTY)
    e = w.field(session, t, "ABC")
    ko(session, t, Bust(e["A"].id, e["C"].id))
    bust = {
        "self": Bust(e["B"].id, e["B"].id),
        "busted": Bust(e["A"].id, e["C"].id),
        "unknown": Bust(10**9, e["C"].id),
        "last": Bust(e["B"].id),
    }[case]
    busts = [bust, Bust(e["C"].id)] if case == "last" else [bust]
    refused_call(session, code, record_knockouts, session, t.id, busts, now=EVENING, actor="floor")


def test_3_2_a_knockout_without_a_level_records_the_level_the_clock_shows(session):
    """3.2: the floor names no level: the knockout records the clock's level at that instant (breaks
    counted as the clock numbers them; the last level once the structure is exhausted; none before
    the clock starts); a level the floor names is recorded as named."""
    t = w.tournament(session)  # LEVELS: L1 18:00 · L2 18:20 · break 18:40 · L3 18:55 · L4 19:15 · L5 19:35-19:55
    e = w.field(session, t, "ABCDEF")
    [before] = desk.knock_out(session, t.id, [Bust(e["A"].id, e["F"].id)], now=T0 + timedelta(minutes=1), actor="floor")
    clock_service.act(session, t.id, "start", T0 + timedelta(minutes=2))
    [second] = desk.knock_out(
        session, t.id, [Bust(e["B"].id, e["F"].id)], now=T0 + timedelta(minutes=25), actor="floor"
    )
    [on_break] = desk.knock_out(
        session, t.id, [Bust(e["C"].id, e["F"].id)], now=T0 + timedelta(minutes=45), actor="floor"
    )
    [named] = desk.knock_out(
        session, t.id, [Bust(e["D"].id, e["F"].id)], now=T0 + timedelta(minutes=46), actor="floor", level=2
    )
    [exhausted] = desk.knock_out(
        session, t.id, [Bust(e["E"].id, e["F"].id)], now=T0 + timedelta(hours=3), actor="floor"
    )
    assert [k.level for k in (before, second, on_break, named, exhausted)] == [None, 2, 3, 2, 5]


def test_3_2_a_level_beyond_the_structure_is_refused_and_nothing_written(session):
    """3.2: the structure has 5 levels; level 6 is refused with a plain message."""
    t = w.tournament(session)
    e = w.field(session, t, "AB")
    err = refused_call(
        session,
        "knockout-bad-level",
        desk.knock_out,
        session,
        t.id,
        [Bust(e["A"].id, e["B"].id)],
        now=EVENING,
        actor="floor",
        level=6,
    )
    assert err.message == "level 6: the tournament's blind structure has 5 levels"


def test_3_2_a_knockout_in_a_tournament_not_running_is_refused(session):
    t = w.tournament(session, **w.BOUNTY, status="registration_open")
    e = w.field(session, t, "AB")
    refused_call(
        session,
        "knockout-not-running",
        record_knockouts,
        session,
        t.id,
        [Bust(e["A"].id, e["B"].id)],
        now=EVENING,
        actor="floor",
    )


@pytest.mark.parametrize("seconds, allowed", [(299, True), (300, True), (301, False)])
def test_sp_5_a_void_within_five_minutes_brings_the_player_back_and_after_is_refused(session, seconds, allowed):
    """SP-5: the window is 5 minutes from recording, the deadline itself included."""
    t = w.tournament(session, **w.BOUNTY)
    e = w.field(session, t, "ABC")
    [k] = ko(session, t, Bust(e["A"].id, e["B"].id))
    at = EVENING + timedelta(seconds=seconds)
    if not allowed:
        refused_call(session, "void-window-closed", void_knockout, session, k.id, now=at, actor="floor")
        return
    voided = void_knockout(session, k.id, now=at, actor="floor")
    assert voided.voided_at == at
    session.refresh(e["A"])
    assert (e["A"].state, e["A"].busted_at) == ("active", None)
    assert count(session, Knockout, Knockout.id == k.id) == 1  # marked, never deleted
    [again] = ko(session, t, Bust(e["A"].id, e["C"].id), now=at)
    assert again.bust_number == 2  # SP-5: the voided bust keeps number 1; the next takes a new one


def test_sp_5_the_void_window_is_a_per_tournament_setting(session):
    t = w.tournament(session, **w.BOUNTY, status="registration_open")
    set_void_window(session, t.id, 10)
    t.status = "running"
    e = w.field(session, t, "AB")
    w.enter(session, t, "C")
    [k] = ko(session, t, Bust(e["A"].id, e["B"].id))
    void_knockout(session, k.id, now=EVENING + timedelta(minutes=9), actor="floor")
    refused_call(session, "settings-frozen", set_void_window, session, t.id, 3)


def test_3_2_a_void_after_a_reentry_is_refused(session):
    t = w.tournament(session, **w.BOUNTY)
    e = w.field(session, t, "ABC")
    [k] = ko(session, t, Bust(e["A"].id, e["B"].id))
    session.refresh(e["A"])
    w.reenter(session, e["A"])
    refused_call(session, "void-after-reentry", void_knockout, session, k.id, now=EVENING, actor="floor")


def test_3_3_a_void_after_a_mystery_draw_is_refused(session):
    t = w.tournament(session, **w.BOUNTY | {"bounty_type": "mystery"}, mystery=True)
    e = w.field(session, t, "ABC")
    [k] = ko(session, t, Bust(e["A"].id, e["B"].id))
    mystery_draw(session, k.id, now=EVENING, actor="floor", description="Dinner for 2")
    refused_call(session, "void-after-draw", void_knockout, session, k.id, now=EVENING, actor="floor")


def test_3_3_draws_are_numbered_and_one_per_killer_entry(session):
    t = w.tournament(session, **w.BOUNTY | {"bounty_type": "mystery"}, mystery=True)
    e = w.field(session, t, "ABCD")
    [k1] = ko(session, t, Bust(e["A"].id, e["C"].id))
    [k2] = ko(session, t, Bust(e["B"].id, e["D"].id))
    [k3] = ko(session, t, Bust(e["C"].id, e["D"].id))
    d1 = mystery_draw(session, k1.id, now=EVENING, actor="floor")
    d2 = mystery_draw(session, k2.id, now=EVENING, actor="floor", description="Club hoodie")
    assert (d1.draw_number, d2.draw_number) == (1, 2)
    assert (d1.killer_entry_id, d2.description) == (e["C"].id, "Club hoodie")
    refused_call(session, "mystery-already-drawn", mystery_draw, session, k3.id, now=EVENING, actor="floor")


@pytest.mark.parametrize("description", ["1000 руб.", "$50", "5 000 р", "денежный приз", "cash"])
def test_sp_4_a_mystery_description_with_money_is_refused_and_nothing_written(session, description):
    t = w.tournament(session, **w.BOUNTY | {"bounty_type": "mystery"}, mystery=True)
    e = w.field(session, t, "ABC")
    [k] = ko(session, t, Bust(e["A"].id, e["B"].id))
    refused_call(
        session, "money-wording", mystery_draw, session, k.id, now=EVENING, actor="floor", description=description
    )


def test_3_3_a_draw_with_the_feature_off_is_refused(session):
    t = w.tournament(session, **w.BOUNTY | {"bounty_type": "classic"}, mystery=False)
    e = w.field(session, t, "ABC")
    [k] = ko(session, t, Bust(e["A"].id, e["B"].id))
    refused_call(session, "mystery-off", mystery_draw, session, k.id, now=EVENING, actor="floor")


def _at_once(engine, fn) -> list:
    """Run fn(session) in two threads with their own connections at the same moment."""
    barrier = threading.Barrier(2)
    outcomes: list = []

    def worker():
        try:
            with unit_of_work(engine) as s:
                barrier.wait()
                fn(s)
            outcomes.append("ok")
        except DomainError as exc:
            outcomes.append(exc.code)

    threads = [threading.Thread(target=worker) for _ in range(2)]
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    return sorted(outcomes)


def _setup(engine, **kw):
    with unit_of_work(engine) as s:
        t = w.tournament(s, **w.BOUNTY | kw)
        e = w.field(s, t, "ABC")
        return t.id, {n: x.id for n, x in e.items()}


def test_3_2_two_floors_recording_the_same_bust_at_once_write_one_record(committed):
    """3.2: duplicate protection under concurrency: one record, the other floor refused."""
    t, e = _setup(committed)
    outcomes = _at_once(committed, lambda s: record_knockouts(s, t, [Bust(e["A"], e["B"])], now=EVENING, actor="floor"))
    assert outcomes == ["knockout-already-out", "ok"]
    with unit_of_work(committed) as s:
        assert count(s, Knockout, Knockout.tournament_id == t) == 1
        assert count(s, KnockoutAudit, KnockoutAudit.tournament_id == t) == 1


def test_3_2_concurrent_busts_of_different_players_get_sequential_numbers(committed):
    with unit_of_work(committed) as s:
        tt = w.tournament(s, **w.BOUNTY)
        e = {n: x.id for n, x in w.field(s, tt, "ABCD").items()}
        t = tt.id
    busts = iter([Bust(e["A"], e["D"]), Bust(e["B"], e["D"])])
    lock = threading.Lock()

    def one(s):
        with lock:
            bust = next(busts)
        record_knockouts(s, t, [bust], now=EVENING, actor="floor")

    assert _at_once(committed, one) == ["ok", "ok"]
    with unit_of_work(committed) as s:
        numbers = s.scalars(select(Knockout.bust_number).where(Knockout.tournament_id == t)).all()
    assert sorted(numbers) == [1, 2]


def test_3_3_two_mystery_draws_at_once_by_one_killer_entry_write_one(committed):
    """3.3: one draw per killer entry, under concurrency."""
    t, e = _setup(committed, bounty_type="mystery", mystery=True)
    with unit_of_work(committed) as s:
        [k] = record_knockouts(s, t, [Bust(e["A"], e["B"])], now=EVENING, actor="floor")
        k_id = k.id
    outcomes = _at_once(committed, lambda s: mystery_draw(s, k_id, now=EVENING, actor="floor"))
    assert outcomes == ["mystery-already-drawn", "ok"]
    with unit_of_work(committed) as s:
        assert count(s, MysteryDraw, MysteryDraw.tournament_id == t) == 1


def test_3_6_the_bust_frees_the_seat_and_a_void_seats_the_player_again(committed):
    """3.2/3.6: the knockout empties the seat; the voided knockout brings the player back seated, and
    the transaction commits."""
    from domain.poker.services.seating import draw_initial
    from domain.poker.tables.clock_seating import Seat

    with unit_of_work(committed) as s:
        t = w.tournament(s, **w.BOUNTY)
        e = {n: x.id for n, x in w.field(s, t, "ABCD").items()}
        tid = t.id
        draw_initial(s, tid, EVENING, seed="fixed")
    with unit_of_work(committed) as s:
        [k] = record_knockouts(s, tid, [Bust(e["A"], e["B"])], now=EVENING, actor="floor")
        k_id = k.id
    with unit_of_work(committed) as s:
        assert s.get(Seat, e["A"]) is None
        assert count(s, Seat, Seat.tournament_id == tid) == 3
    with unit_of_work(committed) as s:
        void_knockout(s, k_id, now=EVENING, actor="floor")
    with unit_of_work(committed) as s:
        assert s.get(Seat, e["A"]) is not None
        assert s.get(Entry, e["A"]).state == "active"


def test_3_2_a_voided_bust_puts_the_player_back_in_the_seat_they_had(committed):
    """3.2/3.6: the bust keeps the seat it emptied (its audit row); the void puts the player back at
    that seat, not where the late-seating rule would put them; when the seat has been taken since
    (a move), they are seated by the late-seating rule (docs/decisions.md)."""
    from domain.poker.services.knockouts import void_plan
    from domain.poker.services.seating import draw_initial, move
    from domain.poker.tables.clock_seating import Seat

    with unit_of_work(committed) as s:
        t = w.tournament(s, **w.BOUNTY)
        e = {n: x.id for n, x in w.field(s, t, "ABCDE").items()}
        tid = t.id
        draw_initial(s, tid, EVENING, seed="fixed")
    with unit_of_work(committed) as s:
        had = {n: (s.get(Seat, x).table_no, s.get(Seat, x).seat_no) for n, x in e.items()}
        [k] = record_knockouts(s, tid, [Bust(e["A"], e["B"])], now=EVENING, actor="floor")
        [k2] = record_knockouts(s, tid, [Bust(e["C"], e["B"])], now=EVENING, actor="floor")
        first, second = k.id, k2.id
    with unit_of_work(committed) as s:
        audit = s.scalar(select(KnockoutAudit.data).where(KnockoutAudit.knockout_id == first))
        assert audit["seat"] == list(had["A"])
        assert void_plan(s, first, EVENING) == {
            "problems": [],
            "seat_had": had["A"],
            "back_to_seat": True,
            "seat_gone": None,
            "to_tables": [],
            "new_table": None,
        }
        void_knockout(s, first, now=EVENING, actor="floor")
    with unit_of_work(committed) as s:
        assert (s.get(Seat, e["A"]).table_no, s.get(Seat, e["A"]).seat_no) == had["A"]
        voided = s.scalar(
            select(KnockoutAudit.data).where(KnockoutAudit.knockout_id == first, KnockoutAudit.kind == "voided")
        )
        assert voided["seat"] == {
            "entry_id": e["A"],
            "table": had["A"][0],
            "seat": had["A"][1],
            "opened_table": False,
            "same_seat": True,
        }
    # C's seat is taken by D's move: the void seats C by the late-seating rule, elsewhere
    with unit_of_work(committed) as s:
        move(s, tid, e["D"], *had["C"], EVENING, "floor")
        plan = void_plan(s, second, EVENING)
        assert (plan["seat_had"], plan["back_to_seat"], plan["seat_gone"]) == (had["C"], False, "seat-taken")
        void_knockout(s, second, now=EVENING, actor="floor")
    with unit_of_work(committed) as s:
        seat = s.get(Seat, e["C"])
        assert seat is not None and (seat.table_no, seat.seat_no) != had["C"]
        assert s.get(Seat, e["D"]).seat_no == had["C"][1]


def test_sp_5_a_voided_bust_keeps_its_number_and_no_number_is_given_twice(session):
    """SP-5's audit (issue 40): a void keeps its bust's number on record and the next bust takes a new
    one (never the voided one's again), however many are voided; a group still joins its block while
    it is the latest bust standing; the places follow the order of the numbers, gaps and all (SP-7)."""
    from domain.poker.rules.places import LiveKnockout, PlacedEntry, places_so_far

    t = w.tournament(session, **w.BOUNTY)
    e = w.field(session, t, "ABCDEFG")
    [a] = ko(session, t, Bust(e["A"].id, e["G"].id))
    [b] = ko(session, t, Bust(e["B"].id, e["G"].id))
    void_knockout(session, b.id, now=EVENING, actor="floor")
    [c] = ko(session, t, Bust(e["C"].id, e["G"].id))
    assert (a.bust_number, b.bust_number, c.bust_number) == (1, 2, 3)  # #2 stays the voided bust's
    void_knockout(session, c.id, now=EVENING, actor="floor")
    void_knockout(session, a.id, now=EVENING, actor="floor")  # nothing standing: still no number again
    [d] = ko(session, t, Bust(e["D"].id, e["G"].id), group="hand 9")
    [f] = ko(session, t, Bust(e["F"].id, e["G"].id), group="hand 9")  # joins the block standing latest
    assert (d.bust_number, f.bust_number) == (4, 4)
    [again] = ko(session, t, Bust(e["B"].id, e["G"].id))  # B busted again after the void: a new number
    assert again.bust_number == 5
    rows = session.scalars(select(Knockout).where(Knockout.tournament_id == t.id).order_by(Knockout.id)).all()
    assert [(k.bust_number, k.voided_at is not None) for k in rows] == [
        (1, True),
        (2, True),
        (3, True),
        (4, False),
        (4, False),
        (5, False),
    ]
    name_of = {x.player_id: n for n, x in e.items()}
    live = [LiveKnockout(k.busted_entry_id, k.bust_number) for k in rows if k.voided_at is None]
    placed = places_so_far([PlacedEntry(x.id, x.player_id, x.sequence) for x in e.values()], live)
    assert [(p.place, name_of[p.player_id]) for p in placed] == [(5, "B"), (6, "D"), (6, "F")]


def test_3_6_a_void_plan_says_the_seat_s_table_was_broken_and_where_the_player_sits(session):
    """3.2, 3.6 (issue 40): the busted player's table was broken since the bust: the plan says so (not
    "taken") and names the table the late-seating rule seats them at (the one with the fewest players
    and a free seat), or the new table when every table is full; the void seats them there."""
    from domain.poker.services.knockouts import seat_had, void_plan
    from domain.poker.services.seating import break_table, draw_initial
    from domain.poker.tables.clock_seating import Seat

    t = w.tournament(session, **w.BOUNTY | {"seat_cap": 4})
    e = w.field(session, t, "ABCDEFGHIJ")  # three tables: 4, 3 and 3
    draw_initial(session, t.id, EVENING, seed="fixed")
    [k] = ko(session, t, Bust(e["A"].id))
    had = seat_had(session, k.id)

    def table_of(name: str) -> int | None:
        seat = session.get(Seat, e[name].id)
        return seat.table_no if seat else None

    for x in [x for x in e if x != "A" and table_of(x) == had[0]][:-1]:  # one player left at A's table
        ko(session, t, Bust(e[x].id))
    break_table(session, t.id, had[0], EVENING, None, "floor")
    counts: dict[int, int] = {}
    for seat in session.scalars(select(Seat).where(Seat.tournament_id == t.id)):
        counts[seat.table_no] = counts.get(seat.table_no, 0) + 1
    open_tables = {n: c for n, c in counts.items() if c < 4}
    fewest = sorted(n for n, c in open_tables.items() if c == min(open_tables.values())) if open_tables else []
    plan = void_plan(session, k.id, EVENING)
    assert (plan["problems"], plan["seat_had"], plan["back_to_seat"], plan["seat_gone"]) == (
        [],
        had,
        False,
        "table-broken",
    )
    assert (plan["to_tables"], plan["new_table"]) == (fewest, None if fewest else max(counts) + 1)
    if len(fewest) < 2:  # a tie is drawn by lot (SP-13): any of them
        void_knockout(session, k.id, now=EVENING, actor="floor")
        assert table_of("A") == (fewest[0] if fewest else max(counts) + 1)
