"""Seating on the real database (3.6, PD-12): the draw, late entries in the entry's transaction,
moves and undo, table breaking, the final table, and the constraints behind them."""

from __future__ import annotations

import re
import threading
from datetime import timedelta

import pytest
from sqlalchemy import func, select, text
from sqlalchemy.orm import Session

from domain import draw
from domain.errors import DomainError
from domain.poker.rules import seating as pure
from domain.poker.services import draws
from domain.poker.services import seating as svc
from domain.poker.tables.clock_seating import Move, Seat, SeatDraw
from domain.poker.tables.clock_seating import Table as TableRow
from domain.poker.tables.tournaments import Entry, Tournament
from tests.support.db import refused, refused_by
from tests.support.world import T0, bust, enter, register, tournament

LATER = T0 + timedelta(minutes=30)


def unseated_entry(session, tid: int) -> Entry:
    """A registered player's active entry written directly, without the seating that the entry
    services do in the same transaction (what a forgetful code path would leave)."""
    r = register(session, session.get(Tournament, tid))
    entry = Entry(
        tournament_id=tid,
        player_id=r.player_id,
        registration_id=r.id,
        sequence=1,
        state="active",
        starting_chips=1000,
        created_at=LATER,
    )
    session.add(entry)
    session.flush()
    return entry


def seats(session, tid) -> dict[int, tuple[int, int]]:
    rows = session.execute(select(Seat.entry_id, Seat.table_no, Seat.seat_no).where(Seat.tournament_id == tid)).all()
    return {e: (t, s) for e, t, s in rows}


def test_sp_13_the_draw_seats_every_active_entry_evenly_from_both_seeds_and_records_itself(session):
    """SP-13, PD-12, 3.6"""
    t = tournament(session, seat_cap=9)
    entries = [enter(session, t).id for _ in range(19)]
    draws.commit(session, t.id, T0)
    platform, following = draws.platform_seed(session, t.id, 1), draws.platform_seed(session, t.id, 2)
    out = svc.draw_initial(session, t.id, T0, seed="s33d")
    assert [x["players"] for x in out["tables"]] == [7, 6, 6]
    expected = pure.initial_seating(entries, 9, draw.combined(platform, "s33d"))
    assert seats(session, t.id) == {s.entry: (s.table, s.seat) for s in expected.seats}
    assert out["draw"] == {
        "seq": 1,
        "purpose": "initial-seating",
        "commitment": draw.commitment(platform),
        "platform_seed": platform,
        "floor_seed": "s33d",
        "next_commitment": draw.commitment(following),
    }
    stored = session.scalars(select(SeatDraw).where(SeatDraw.tournament_id == t.id).order_by(SeatDraw.seq)).all()
    assert [(d.seq, d.purpose, d.seed, d.floor_seed, d.items) for d in stored] == [
        (1, "initial-seating", platform, "s33d", {"seat_cap": 9, "entries": entries}),
        (2, None, None, None, None),  # SP-13: a pending draw's seed is not stored
    ]
    with pytest.raises(DomainError) as err:
        svc.draw_initial(session, t.id, T0)
    assert err.value.code == "seating-already-drawn"


def test_a_late_entry_is_seated_at_the_table_with_fewest_players(session):
    t = tournament(session, seat_cap=3)
    for _ in range(5):
        enter(session, t)
    svc.draw_initial(session, t.id, T0, seed="x")
    late = enter(session, t)
    assert svc.seat_new_entry(session, late.id, LATER) == {
        "entry_id": late.id,
        "table": 2,
        "seat": 3,
        "opened_table": False,
    }
    again = enter(session, t)
    assert svc.seat_new_entry(session, again.id, LATER)["opened_table"] is True


def test_moves_and_undo_are_recorded_and_bad_moves_change_nothing(session):
    t = tournament(session, seat_cap=3)
    ids = [enter(session, t).id for _ in range(4)]
    svc.draw_initial(session, t.id, T0, seed="x")
    layout = seats(session, t.id)
    mover = next(e for e, (tb, _) in layout.items() if tb == 1)
    free = next(n for n in (1, 2, 3) if (2, n) not in layout.values())
    done = svc.move(session, t.id, mover, 2, free, LATER, actor="floor")
    assert (done["to_table"], done["to_seat"]) == (2, free)
    taken = next(e for e in ids if seats(session, t.id)[e][0] == 2 and e != mover)
    for target, code in (
        ((2, seats(session, t.id)[taken][1]), "seating-seat-taken"),
        ((7, 1), "seating-no-such-table"),
    ):
        before = (seats(session, t.id), session.execute(select(func.count()).select_from(Move)).scalar_one())
        with pytest.raises(DomainError) as err:
            svc.move(session, t.id, mover, *target, LATER)
        assert err.value.code == code
        assert (
            seats(session, t.id),
            session.execute(select(func.count()).select_from(Move)).scalar_one(),
        ) == before
    back = svc.undo(session, t.id, LATER)
    assert (back["to_table"], back["to_seat"]) == layout[mover]
    assert seats(session, t.id) == layout
    with pytest.raises(DomainError) as err:
        svc.undo(session, t.id, LATER)
    assert err.value.code == "seating-nothing-to-undo"


def test_a_broken_table_is_never_used_again_and_breaking_without_room_changes_nothing(session):
    t = tournament(session, seat_cap=4)
    for _ in range(5):
        enter(session, t)
    svc.draw_initial(session, t.id, T0, seed="x")  # table 1: 3 players, table 2: 2
    before = seats(session, t.id)
    with pytest.raises(DomainError) as err:
        svc.break_table(session, t.id, 2, LATER, seed="b")
    assert err.value.code == "seating-no-room"
    assert str(err.value) == "table 2 has 2 players but the other tables have only 1 free seats"
    assert seats(session, t.id) == before
    assert session.execute(select(func.count()).where(SeatDraw.drawn_at.is_not(None))).scalar_one() == 1
    bust(session, next(e for e, (tb, _) in before.items() if tb == 1), LATER)
    out = svc.break_table(session, t.id, 2, LATER, seed="b")
    assert sorted(m["to_table"] for m in out["moves"]) == [1, 1]
    assert session.get(TableRow, (t.id, 2)).broken_at == LATER
    entry = next(iter(seats(session, t.id)))
    before = (seats(session, t.id), session.execute(select(func.count()).select_from(Move)).scalar_one())
    with pytest.raises(DomainError) as err:
        svc.move(session, t.id, entry, 2, 4, LATER)
    assert err.value.code == "seating-table-broken"
    assert (
        seats(session, t.id),
        session.execute(select(func.count()).select_from(Move)).scalar_one(),
    ) == before
    with pytest.raises(DomainError) as err:
        svc.break_table(session, t.id, 2, LATER)
    assert err.value.code == "seating-table-broken"
    assert svc.seat_new_entry(session, enter(session, t).id, LATER)["table"] == 3  # table 1 full: a new one


def test_a_bust_frees_the_seat_and_the_final_table_is_proposed_then_assembled(session):
    t = tournament(session, seat_cap=3)
    for _ in range(5):
        enter(session, t)
    svc.draw_initial(session, t.id, T0, seed="x")  # table 1: 3 players, table 2: 2
    assert svc.final_table(session, t.id, LATER, confirm=False)["proposed"] is False
    with pytest.raises(DomainError) as err:
        svc.final_table(session, t.id, LATER, confirm=True)
    assert err.value.code == "seating-no-final-table"
    at_one = sorted(e for e, (tb, _) in seats(session, t.id).items() if tb == 1)
    for gone in at_one[:2]:
        bust(session, gone, LATER)
    assert sorted(seats(session, t.id)) == sorted(set(seats(session, t.id)))
    assert len(seats(session, t.id)) == 3
    proposal = svc.final_table(session, t.id, LATER, confirm=False)
    assert (proposal["stage"], proposal["proposed"], proposal["table"]) == ("final-table-proposed", True, 1)
    done = svc.final_table(session, t.id, LATER, confirm=True, seed="f")
    assert done["stage"] == "final-table"
    assert sorted(seats(session, t.id).values()) == [(1, 1), (1, 2), (1, 3)]
    assert svc.show(session, t.id)["broken"] == [2]


def test_the_database_refuses_two_players_in_one_seat(session):
    t = tournament(session, seat_cap=3)
    a, b = enter(session, t), enter(session, t)
    svc.draw_initial(session, t.id, T0, seed="x")
    refused(
        session,
        "uq_poker_seats_tournament_id_table_no_seat_no",
        "UPDATE poker_seats SET table_no = 1, seat_no = 1 WHERE entry_id IN (:a, :b)",
        a=a.id,
        b=b.id,
    )


def test_3_6_the_database_refuses_to_commit_a_late_entry_without_a_seat(committed):
    """3.6: the gap the seed listed as a known risk is closed by a deferred check."""
    with Session(committed) as s, s.begin():
        t = tournament(s, seat_cap=3)
        enter(s, t)
        enter(s, t)
        svc.draw_initial(s, t.id, T0, seed="x")
        tid = t.id
    with refused_by(re.compile(rf"entry \d+ of tournament {tid} has no seat")):
        with Session(committed) as s, s.begin():
            unseated_entry(s, tid)
    with Session(committed) as s, s.begin():
        svc.seat_new_entry(s, unseated_entry(s, tid).id, LATER)
    with committed.connect() as conn:
        assert (
            conn.execute(text("SELECT count(*) FROM poker_entries WHERE tournament_id = :t"), {"t": tid}).scalar_one()
            == 3
        )
        assert (
            conn.execute(text("SELECT count(*) FROM poker_seats WHERE tournament_id = :t"), {"t": tid}).scalar_one()
            == 3
        )


def test_concurrent_late_entries_never_share_a_seat(committed):
    """3.6: eight late entries seated at once from eight connections."""
    with Session(committed) as s, s.begin():
        t = tournament(s, seat_cap=4)
        for _ in range(3):
            enter(s, t)
        svc.draw_initial(s, t.id, T0, seed="x")
        tid = t.id
    barrier = threading.Barrier(8)
    errors: list[Exception] = []

    def worker() -> None:
        try:
            with Session(committed) as s, s.begin():
                e = unseated_entry(s, tid)
                barrier.wait()
                svc.seat_new_entry(s, e.id, LATER)
        except Exception as exc:  # noqa: BLE001
            errors.append(exc)

    threads = [threading.Thread(target=worker) for _ in range(8)]
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    assert errors == []
    with committed.connect() as conn:
        rows = conn.execute(
            text("SELECT table_no, count(*) FROM poker_seats WHERE tournament_id = :t GROUP BY table_no ORDER BY 1"),
            {"t": tid},
        ).all()
        tables = conn.execute(
            text("SELECT count(*) FROM poker_tables WHERE tournament_id = :t"), {"t": tid}
        ).scalar_one()
    assert [n for _, n in rows] == [4, 4, 3] and tables == 3


def test_two_floors_moving_two_players_into_one_free_seat_at_once_seat_one(committed):
    """3.6: the second move finds the seat taken and writes nothing."""
    with Session(committed) as s, s.begin():
        t = tournament(s, seat_cap=3)
        for _ in range(4):
            enter(s, t)
        svc.draw_initial(s, t.id, T0, seed="x")  # 2 and 2: one free seat at each table
        tid = t.id
        layout = seats(s, tid)
    free = next(n for n in (1, 2, 3) if (2, n) not in layout.values())
    movers = [e for e, (tb, _) in layout.items() if tb == 1]
    barrier = threading.Barrier(2)
    outcomes: list[str] = []

    def worker(entry: int) -> None:
        try:
            with Session(committed) as s, s.begin():
                barrier.wait()
                svc.move(s, tid, entry, 2, free, LATER)
            outcomes.append("moved")
        except DomainError as exc:
            outcomes.append(exc.code)

    threads = [threading.Thread(target=worker, args=(e,)) for e in movers]
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    assert sorted(outcomes) == ["moved", "seating-seat-taken"]
    with committed.connect() as conn:
        assert conn.execute(text("SELECT count(*) FROM poker_moves")).scalar_one() == 1
        assert conn.execute(text("SELECT count(*) FROM poker_seats WHERE table_no = 2")).scalar_one() == 3


def test_a_second_final_table_after_a_late_entry_reopened_a_table_is_drawn_and_recorded(session):
    """3.6, SP-13: every assembly of the final table is its own committed draw."""
    t = tournament(session, seat_cap=3)
    for _ in range(5):
        enter(session, t)
    svc.draw_initial(session, t.id, T0, seed="x")
    for gone in sorted(e for e, (tb, _) in seats(session, t.id).items() if tb == 1)[:2]:
        bust(session, gone, LATER)
    svc.final_table(session, t.id, LATER, confirm=True, seed="f1")
    late = enter(session, t)
    assert svc.seat_new_entry(session, late.id, LATER)["opened_table"] is True
    bust(session, late.id, LATER)
    bust(session, sorted(seats(session, t.id))[0], LATER)
    svc.seat_new_entry(session, enter(session, t).id, LATER)
    assert len({tb for tb, _ in seats(session, t.id).values()}) == 2
    done = svc.final_table(session, t.id, LATER, confirm=True, seed="f2")
    assert done["stage"] == "final-table"
    purposes = session.scalars(
        select(SeatDraw.purpose).where(SeatDraw.tournament_id == t.id).order_by(SeatDraw.seq)
    ).all()
    assert purposes == ["initial-seating", "final-table", "final-table", None]
