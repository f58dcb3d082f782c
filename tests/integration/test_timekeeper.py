"""The timekeeper on the real database (flows/jobs/timekeeper_loop.py; principle 5, SP-8, 3.8): every
moment at its instant and never before it, given that instant; a clock or deadline moved while it
sleeps honoured at the new instant; a refused moment recorded with its reason while the others of
its instant are done. Instants are built from the real now."""

from __future__ import annotations

import time
from datetime import timedelta

from sqlalchemy import text
from sqlalchemy.orm import Session

from domain.errors import DomainError
from domain.poker.rules.knockouts import Bust
from domain.poker.services import clock as clock_service
from domain.poker.services import due
from domain.poker.services import tournaments as poker_tournaments
from domain.poker.services.knockouts import record_knockouts, void_knockout
from flows.jobs.timekeeper_loop import JOBS, Job
from tests.support.timekeeper import (
    keeping_time,
    level_starts,
    now,
    quick_structure,
    running,
    wait_for,
)


def test_each_level_change_is_run_at_its_instant_never_before_and_given_that_instant(committed):
    with Session(committed) as s, s.begin():
        sid = quick_structure(s, seconds=2)
        t0 = now() + timedelta(seconds=1)
        tids = [running(s, sid, t0 + timedelta(milliseconds=300 * i)) for i in range(3)]
    with keeping_time() as (keeper, seen):
        assert wait_for(lambda: len([m for m in seen if m.outcome == "done"]) >= 6, 30)
    changes = [m for m in seen if m.job == "advance-clocks" and m.outcome == "done"]
    assert all(m.started >= m.due_at for m in changes)  # never early
    for tid in tids:
        starts = level_starts(committed, tid)
        levels = [level for _, level, _, _ in starts]
        assert levels == list(range(1, len(levels) + 1)) and len(levels) >= 3  # each once, in order
        assert all(recorded == at for _, _, at, recorded in starts)  # the service was given the instant
    assert {m.tournament_id for m in changes} == set(tids)


def test_a_clock_moved_or_paused_while_it_sleeps_is_honoured_at_the_new_instant(committed):
    """Moved: level 1 lasts 30 s, the floor goes to level 2 (2 s) at once: level 3 starts 2 s later,
    not at the old instant. Paused: nothing at the old instant; resumed: at the new one."""
    with Session(committed) as s, s.begin():
        moved = running(s, quick_structure(s, [30, 2, 30]), now())
        paused = running(s, quick_structure(s, seconds=3), now())
    with keeping_time() as (keeper, seen):
        with Session(committed) as s, s.begin():
            clock_service.act(s, paused, "pause", now())
            jumped = now()
            clock_service.act(s, moved, "next", jumped)
        assert wait_for(lambda: any(m.tournament_id == moved for m in seen), 15)
        time.sleep(max(0.0, 3.5 - (now() - jumped).total_seconds()))  # the paused clock's old instant passes
        assert [m for m in seen if m.tournament_id == paused] == []
        with Session(committed) as s, s.begin():
            resumed = now()
            clock_service.act(s, paused, "resume", resumed)
        assert wait_for(lambda: any(m.tournament_id == paused for m in seen), 15)
    [change] = [m for m in seen if m.tournament_id == moved]
    assert change.due_at == jumped + timedelta(seconds=2) <= change.started
    assert [(level, at) for _, level, at, _ in level_starts(committed, moved)][1:] == [(2, jumped), (3, change.due_at)]
    [resumed_change] = [m for m in seen if m.tournament_id == paused]
    assert resumed_change.started >= resumed_change.due_at > resumed
    assert [level for _, level, _, _ in level_starts(committed, paused)] == [1, 2]


def test_a_deadline_moved_and_a_start_while_it_sleeps_process_the_no_shows_at_the_new_close(committed):
    """3.8: the close moved from +40 s to +2 s, then the tournament starts: processed at the new close."""
    with Session(committed) as s, s.begin():
        tid = running(s, quick_structure(s, seconds=600), now() + timedelta(seconds=1), absent=2, clock=False)
        s.execute(
            text(
                "UPDATE poker_tournaments SET status = 'registration_open', started_at = NULL, "
                "late_reg_deadline = scheduled_start + interval '40 seconds' WHERE id = :id"
            ),
            {"id": tid},
        )
    with keeping_time() as (keeper, seen):
        with Session(committed) as s, s.begin():
            poker_tournaments.edit_tournament(s, tid, {"late_reg_deadline": now() + timedelta(seconds=2)}, now())
        with Session(committed) as s, s.begin():
            close = s.execute(
                text("SELECT late_reg_deadline FROM poker_tournaments WHERE id = :id"), {"id": tid}
            ).scalar_one()
            poker_tournaments.change_status(s, tid, "start", now())
        assert wait_for(lambda: any(m.job == "process-no-shows" for m in seen), 15)
    [m] = [m for m in seen if m.job == "process-no-shows"]
    assert (m.tournament_id, m.due_at, m.outcome, m.summary["dropped"]) == (tid, close, "done", 2)
    assert m.started >= close
    with committed.connect() as conn:
        processed_at = conn.execute(
            text("SELECT processed_at FROM poker_no_show_runs WHERE tournament_id = :id"), {"id": tid}
        ).scalar_one()
    assert processed_at == close


def test_a_refused_moment_is_recorded_with_its_reason_and_the_others_of_its_instant_are_done(committed):
    with Session(committed) as s, s.begin():
        sid = quick_structure(s, seconds=2)
        t0 = now()
        refused, fine, other = (running(s, sid, t0) for _ in range(3))

    def advance(session, at, ids):
        if refused in ids:
            raise DomainError("clock-test-refusal", f"tournament {refused} refuses its level change")
        return clock_service.advance_clocks(session, at, ids)

    jobs = [Job(due.CLOCKS, advance, JOBS[0].did), JOBS[1]]
    with keeping_time(jobs=jobs) as (keeper, seen):
        assert wait_for(lambda: len({m.tournament_id for m in seen if m.outcome == "done"}) == 2, 15)
        time.sleep(1)  # the refused one is not taken again and again
    first = t0 + timedelta(seconds=2)
    [refusal] = [m for m in seen if m.tournament_id == refused]
    assert (refusal.outcome, refusal.code, refusal.due_at) == ("refused", "clock-test-refusal", first)
    assert [level for _, level, _, _ in level_starts(committed, refused)] == [1]
    for tid in (fine, other):
        assert [level for _, level, at, _ in level_starts(committed, tid) if at <= first] == [1, 2]
    with Session(committed) as s:
        [failure] = due.failures(s)
    assert (failure["job"], failure["tournament_id"], failure["due_at"], failure["code"]) == (
        "advance-clocks",
        refused,
        first,
        "clock-test-refusal",
    )
    assert failure["reason"] == f"tournament {refused} refuses its level change"


def test_a_tournament_down_to_one_player_is_finalized_when_its_last_knockouts_void_window_closes(committed):
    """SP-5, SP-7: finalized at the instant the window closes, never before, given that instant; a
    knockout that leaves one player wakes the timekeeper (it was asleep on the next level change)."""
    with Session(committed) as s, s.begin():
        tid = running(s, quick_structure(s, seconds=3600), now() - timedelta(minutes=1))
    with keeping_time() as (keeper, seen):
        with Session(committed) as s, s.begin():
            loser, winner = s.scalars(
                text("SELECT id FROM poker_entries WHERE tournament_id = :t ORDER BY id"), {"t": tid}
            ).all()
            knocked = now() - timedelta(minutes=5) + timedelta(seconds=1)  # the window closes in 1 s
            record_knockouts(s, tid, [Bust(loser, winner)], now=knocked, actor="floor")
        assert wait_for(lambda: any(m.job == "finalize-tournaments" for m in seen), 15)
    [moment] = [m for m in seen if m.job == "finalize-tournaments"]
    closes = knocked + timedelta(minutes=5)
    assert (moment.tournament_id, moment.due_at, moment.outcome) == (tid, closes, "done")
    assert moment.started >= closes  # never early
    assert [row["place"] for row in moment.summary["final_table"]] == [1, 2]
    with Session(committed) as s:
        status, finished_at = s.execute(
            text("SELECT status, finished_at FROM poker_tournaments WHERE id = :t"), {"t": tid}
        ).one()
        placed = s.scalars(
            text("SELECT DISTINCT placed_at FROM poker_places WHERE tournament_id = :t"), {"t": tid}
        ).all()
    assert (status, finished_at, placed) == ("finished", closes, [closes])


def test_a_void_before_the_window_closes_leaves_the_tournament_running(committed):
    """SP-5: the knockout voided before its window closes: two players again, nothing to finalize."""
    with Session(committed) as s, s.begin():
        tid = running(s, quick_structure(s, seconds=3600), now() - timedelta(minutes=1))
        loser, winner = s.scalars(
            text("SELECT id FROM poker_entries WHERE tournament_id = :t ORDER BY id"), {"t": tid}
        ).all()
        [knockout] = record_knockouts(s, tid, [Bust(loser, winner)], now=now() - timedelta(minutes=4), actor="floor")
        assert due.due_at(s, due.FINALIZE, now() + timedelta(minutes=1)) == [
            (tid, knockout.recorded_at + timedelta(minutes=5))
        ]
        void_knockout(s, knockout.id, now=now(), actor="floor")
        assert due.due_at(s, due.FINALIZE, now() + timedelta(hours=1)) == []
