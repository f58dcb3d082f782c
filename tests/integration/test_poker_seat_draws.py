"""Seat draws nobody can steer (SP-13): the platform's seed is committed before the floor's seed is
given, the draw is a function of both, and `draw-proof` re-checks every draw (and catches a tampered one)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from sqlalchemy import select, text, update

from domain import draw
from domain.poker.rules import seating as pure
from domain.poker.services import draws
from domain.poker.services import seating as svc
from domain.poker.tables.clock_seating import Seat, SeatDraw
from domain.store.db import unit_of_work
from tests.support import world as w
from tests.support.cli import fingerprint, j, refused, run
from tests.support.world import T0, enter, tournament

LATER = T0 + timedelta(minutes=30)


def seats(session, tid) -> dict[int, tuple[int, int]]:
    rows = session.execute(select(Seat.entry_id, Seat.table_no, Seat.seat_no).where(Seat.tournament_id == tid))
    return {e: (t, s) for e, t, s in rows}


def test_sp_13_the_commitment_is_published_at_creation_and_does_not_change_with_the_floor_seed(session):
    """SP-13: the platform's seed is committed when the tournament is created, before any floor seed
    exists; whichever floor seed is given, the draw reveals that same commitment's seed."""
    tid = w.tournament_through_services(session, now=w.NOW)
    entries = []
    for _ in range(12):
        entries.append(w.checked_in(session, tid, w.player(session).id).id)
    [published] = draws.proof(session, tid)
    assert (published["seq"], published["committed_at"], published["platform_seed"], published["ok"]) == (
        1,
        w.NOW,
        None,
        None,
    )
    assert session.scalars(select(SeatDraw.seed).where(SeatDraw.tournament_id == tid)).one() is None
    platform = draws.platform_seed(session, tid, 1)
    outcomes = {}
    for floor in ("heads", "tails"):
        savepoint = session.begin_nested()
        out = svc.draw_initial(session, tid, w.NOW + timedelta(minutes=1), seed=floor)
        assert (out["draw"]["commitment"], out["draw"]["platform_seed"], out["draw"]["floor_seed"]) == (
            published["commitment"],
            platform,
            floor,
        )
        outcomes[floor] = seats(session, tid)
        expected = pure.initial_seating(sorted(entries), 9, draw.combined(platform, floor))
        assert outcomes[floor] == {s.entry: (s.table, s.seat) for s in expected.seats}
        savepoint.rollback()
    assert draws.proof(session, tid) == [published]  # rolled back: still pending, still the same


def test_sp_13_the_same_floor_seed_with_another_platform_seed_draws_differently(session):
    """SP-13: the floor's seed alone does not decide the draw (two tournaments, two platform seeds)."""
    drawn, platforms = [], []
    for _ in range(2):
        t = tournament(session, seat_cap=4)
        entries = [enter(session, t).id for _ in range(8)]
        draws.commit(session, t.id, T0)
        platforms.append(draws.platform_seed(session, t.id, 1))
        svc.draw_initial(session, t.id, T0, seed="lucky")
        rank = {e: n for n, e in enumerate(entries, 1)}  # the n-th entry of each tournament
        drawn.append({rank[e]: place for e, place in seats(session, t.id).items()})
    assert platforms[0] != platforms[1] and drawn[0] != drawn[1]
    for platform, got in zip(platforms, drawn, strict=True):
        expected = pure.initial_seating(list(range(1, 9)), 4, draw.combined(platform, "lucky"))
        assert got == {s.entry: (s.table, s.seat) for s in expected.seats}


def bust(session, entry_id: int) -> None:
    session.execute(
        text("UPDATE poker_entries SET state = 'busted', busted_at = :at WHERE id = :id"), {"at": LATER, "id": entry_id}
    )


def _played(session) -> int:
    """Seven players at three tables of three seats, table 3 broken, then the final table: three draws."""
    t = tournament(session, seat_cap=3)
    for _ in range(7):
        enter(session, t)
    draws.commit(session, t.id, T0)
    svc.draw_initial(session, t.id, T0, seed="open")  # 3, 2, 2
    bust(session, min(e for e, (tb, _) in seats(session, t.id).items() if tb == 1))
    svc.break_table(session, t.id, 3, LATER)  # 3, 3
    for gone in sorted(e for e, (tb, _) in seats(session, t.id).items() if tb == 1)[:2]:
        bust(session, gone)
    bust(session, min(e for e, (tb, _) in seats(session, t.id).items() if tb == 2))  # 1, 2
    svc.final_table(session, t.id, LATER, confirm=True, seed="final")
    return t.id


def test_sp_13_a_proof_rechecks_every_draw_and_a_tampered_one_fails(session):
    """SP-13: every revealed draw re-checks from its two seeds; changing the outcome, the floor seed
    or the platform seed makes it fail."""
    tid = _played(session)
    proof = draws.proof(session, tid)
    assert [(d["seq"], d["purpose"], d["floor_seed"], d["ok"]) for d in proof] == [
        (1, "initial-seating", "open", True),
        (2, "break-table-3", None, True),
        (3, "final-table", "final", True),
        (4, None, None, None),
    ]
    platform = [draws.platform_seed(session, tid, seq) for seq in (1, 2, 3, 4)]
    assert [d["platform_seed"] for d in proof] == [*platform[:3], None]
    assert [d["commitment"] for d in proof] == [draw.commitment(p) for p in platform]
    assert proof[1]["items"]["seats"] and proof[1]["outcome"]
    # a floor seed that steers this draw elsewhere (the draw's ids differ run to run, and a small draw may
    # land the same for some other seed: that one would rightly re-check)
    d = proof[1]
    steered = next(
        f"steered-{n}"
        for n in range(100)
        if pure.redraw(d["purpose"], draw.combined(d["platform_seed"], f"steered-{n}"), d["items"]) != d["outcome"]
    )
    for change in ({"outcome": list(reversed(d["outcome"]))}, {"floor_seed": steered}, {"seed": "9" * 64}):
        savepoint = session.begin_nested()
        session.execute(update(SeatDraw).where(SeatDraw.tournament_id == tid, SeatDraw.seq == 2).values(**change))
        session.expire_all()
        assert [d["ok"] for d in draws.proof(session, tid)] == [True, False, True, None], change
        savepoint.rollback()


def test_sp_13_draw_proof_on_the_command_line_and_a_bad_floor_seed_refused(committed):
    """SP-13: `draw-proof` shows each draw with its re-check; a floor seed that is empty or has control
    characters is refused in one line, nothing written."""
    now = datetime.now(UTC)
    with unit_of_work(committed) as session:
        tid = w.tournament_through_services(
            session,
            start=now - timedelta(minutes=30),
            status="running",
            late_reg_deadline=now + timedelta(hours=1),
            now=now - timedelta(hours=1),
        )
        for _ in range(4):
            w.checked_in(session, tid, w.player(session).id, now - timedelta(hours=1))
    t = str(tid)
    [pending] = j("poker", "draw-proof", t)
    before = fingerprint(committed)
    assert refused(committed, "poker", "seat", "draw", t, "--seed", "") == (
        "error: a floor seed is 1 to 200 printable characters"
    )
    assert refused(committed, "poker", "seat", "draw", t, "--seed", "x\x1b[2J") == (
        "error: a floor seed is 1 to 200 printable characters"
    )
    assert fingerprint(committed) == before
    drawn = j("poker", "seat", "draw", t, "--seed", "floor")
    assert (drawn["draw"]["commitment"], drawn["draw"]["floor_seed"]) == (pending["commitment"], "floor")
    first, following = j("poker", "draw-proof", t)
    assert (first["purpose"], first["commitment"], first["floor_seed"], first["ok"]) == (
        "initial-seating",
        pending["commitment"],
        "floor",
        True,
    )
    assert draw.matches(first["platform_seed"], first["commitment"])
    assert (following["commitment"], following["platform_seed"], following["ok"]) == (
        drawn["draw"]["next_commitment"],
        None,
        None,
    )
    shown = " ".join(run("poker", "seat", "show", t).stdout.split())  # the line wraps in 80 columns
    assert shown.endswith(f"─┘ next draw commits to {following['commitment']}")
    assert refused(committed, "poker", "draw-proof", "999999999") == "error: no tournament 999999999"


def test_sp_13_a_late_seating_tie_is_a_draw_of_the_chain_and_draw_proof_shows_it(session):
    """SP-13: a late entry with two tables tied (4 and 4 players) goes to the table drawn by lot with
    the tournament's committed seed, recorded and re-checked by `draw-proof`; seating without a tie
    draws nothing."""
    t = tournament(session, seat_cap=5)
    for _ in range(8):
        enter(session, t)
    draws.commit(session, t.id, T0)
    svc.draw_initial(session, t.id, T0, seed="open")  # 4, 4
    before = pure.from_snapshot(pure.snapshot(svc.load(session, t.id, 5)))
    late = enter(session, t)
    out = svc.seat_new_entry(session, late.id, LATER)
    second = draws.platform_seed(session, t.id, 2)
    table = draw.rng(draw.combined(second, None), "late-seating").choice((1, 2))
    assert (out["table"], out["seat"], out["opened_table"]) == (table, 5, False)
    assert (out["draw"]["seq"], out["draw"]["purpose"], out["draw"]["platform_seed"]) == (2, "late-seating", second)
    proof = draws.proof(session, t.id)
    assert [(d["seq"], d["purpose"], d["ok"]) for d in proof] == [
        (1, "initial-seating", True),
        (2, "late-seating", True),
        (3, None, None),
    ]
    assert proof[1]["items"] == pure.snapshot(before) | {"entry": late.id}
    assert proof[1]["outcome"] == [[late.id, table, 5]]
    other = enter(session, t)  # 5 and 4: no tie, no draw
    assert "draw" not in svc.seat_new_entry(session, other.id, LATER)
    assert len(draws.proof(session, t.id)) == 3


def test_sp_13_dead_stacks_seated_together_draw_each_tie(session):
    """SP-13: entries seated one after another (dead stacks, `seat_new_entries`) draw each tie by lot:
    three tables of 4 take three entries with two draws (a three-way tie, then a two-way one)."""
    t = tournament(session, seat_cap=5)
    for _ in range(12):
        enter(session, t)
    svc.draw_initial(session, t.id, T0)  # 4, 4, 4
    news = [w.enter(session, t).id for _ in range(3)]
    placed = svc.seat_new_entries(session, t.id, news, LATER)
    assert sorted(p.table for p in placed) == [1, 2, 3]
    proof = draws.proof(session, t.id)
    assert [(d["purpose"], d["ok"]) for d in proof] == [
        ("initial-seating", True),
        ("late-seating", True),
        ("late-seating", True),
        (None, None),
    ]
    assert [d["outcome"][0][0] for d in proof[1:3]] == news[:2]
