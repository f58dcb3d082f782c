"""`tourney poker clock|seat|arrive` as the floor runs them: real processes, --json, and each bad
request from the issue exits 2 with one line and writes nothing."""

from __future__ import annotations

from domain.poker.tables.tournaments import Player
from domain.store.db import unit_of_work
from tests.support.cli import j, refused
from tests.support.world import enter, recent_start, register, tournament


def test_the_floor_runs_clock_and_seating_from_the_command_line(committed):
    start = recent_start()  # the `tourney` processes check in and run the clock at the real now
    with unit_of_work(committed) as session:
        t = tournament(session, seat_cap=3, start=start)
        for _ in range(5):
            enter(session, t)
        late = register(session, t, checked_in=False)
        handle = session.get(Player, late.player_id).handle
        stranger = str(register(session, tournament(session, start=start)).player_id)
        tid = str(t.id)
    drawn = j("poker", "seat", "draw", tid, "--seed", "demo")
    assert [x["players"] for x in drawn["tables"]] == [3, 2]
    seated = j("poker", "checkin", tid, handle)  # the seating hook: seated in the check-in's transaction
    assert (seated["table"], seated["seat"]) == (2, 3)
    started = j("poker", "clock", "start", tid)
    assert (started["level"], started["status"], started["time_left_s"]) == (1, "running", 1200)
    j("poker", "clock", "pause", tid)
    assert refused(committed, "poker", "clock", "pause", tid) == "error: the clock is already paused"
    assert refused(committed, "poker", "clock", "override", tid, "--small", "400", "--big", "200") == (
        "error: the big blind (200) cannot be below the small blind (400)"
    )
    show = j("poker", "seat", "show", tid)
    mover = next(s for s in show["seats"] if s["table"] == 1)
    occupied = next(s for s in show["seats"] if s["table"] == 2)
    assert refused(committed, "poker", "seat", "move", tid, str(mover["entry_id"]), "2", str(occupied["seat"])) == (
        f"error: table 2 seat {occupied['seat']} is taken by entry {occupied['entry_id']}"
    )
    assert refused(committed, "poker", "seat", "break-table", tid, "1", "--yes") == (
        "error: table 1 has 3 players but the other tables have only 0 free seats"
    )
    assert refused(committed, "poker", "arrive", tid, stranger) == (
        f"error: player {stranger} is not registered in tournament {tid}"
    )


def test_sp_8_clock_status_of_a_finished_tournament_stays_at_its_finish(committed, monkeypatch):
    """SP-8 (issue 40): `tourney poker clock status` of a tournament finished five minutes into level 1
    says level 1 with 15:00 left, finished, an hour and a day later (the instant handed to the service,
    the CLI's clock, is set here): the clock never advances after the finish."""
    from datetime import timedelta

    from domain.poker.services import clock as clock_service
    from flows.cli import poker_clock_seating
    from tests.support.world import T0

    with unit_of_work(committed) as session:
        t = tournament(session, start=T0)
        enter(session, t)
        clock_service.act(session, t.id, "start", T0)
        t.status, t.finished_at = "finished", T0 + timedelta(minutes=5)
        tid = str(t.id)
    for later in (timedelta(hours=1), timedelta(days=1)):
        monkeypatch.setattr(poker_clock_seating, "_now", lambda later=later: T0 + later)
        status = j("poker", "clock", "status", tid)
        assert (status["status"], status["level"], status["time_left_s"], status["level_ends_at"]) == (
            "finished",
            1,
            15 * 60,
            None,
        )
