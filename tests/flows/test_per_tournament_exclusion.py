"""Two runs of the same job on the same tournament never both do its work, and runs on different
tournaments do not wait for one another (flows/deployments.py): the services take the tournament's
row `FOR UPDATE SKIP LOCKED`; the sweeps run one at a time, the timekeeper's deployment admits its
active run and its standby.

A run is held mid-work on tournament X by real PostgreSQL: the test's own transaction holds a row the
run needs after it has taken X (X's tournament row, which inserting X's clock events checks by its
foreign key; X's registrations, which dropping its no-shows updates)."""

from __future__ import annotations

import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from datetime import timedelta

from prefect.client.orchestration import get_client
from prefect.client.schemas.responses import SetStateStatus
from prefect.states import Cancelled, Pending
from sqlalchemy import Engine, text
from sqlalchemy.orm import Session

from domain.poker.services import clock as clock_service
from flows.deployments import deployment, job
from flows.jobs.poker_moments import advance_clocks, process_no_shows
from tests.support.world import T0, enter, register, tournament


def waiting_on_locks(engine: Engine) -> int:
    with engine.connect() as conn:
        return conn.execute(
            text(
                "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'"
            )
        ).scalar_one()


def held_mid_work(engine: Engine, hold_sql: str, x: int, run: Callable[[int], dict], y: int):
    """A first run on X held mid-work; meanwhile a second run on X and a run on Y. Returns the three
    results: (first, second, other), and whether the first was still working when the others ended."""
    with engine.connect() as holder, ThreadPoolExecutor(1) as pool:
        holding = holder.begin()
        holder.execute(text(hold_sql), {"x": x})
        first = pool.submit(run, x)
        deadline = time.monotonic() + 60
        while waiting_on_locks(engine) != 1:
            assert time.monotonic() < deadline, "the first run never reached the held row"
            time.sleep(0.2)
        second, other = run(x), run(y)
        overlapped = not first.done()
        holding.rollback()
        return first.result(timeout=60), second, other, overlapped


def test_two_advance_clocks_runs_on_one_tournament_record_its_level_change_once_while_another_runs(
    prefect_api, committed
):
    """SP-8: the second run on X skips it (the first holds its clock); the run on Y is not held up."""
    start = T0 - timedelta(days=14)
    with Session(committed) as s, s.begin():
        x, y = tournament(s), tournament(s)
        for t in (x, y):
            enter(s, t)
            clock_service.act(s, t.id, "start", start)
        x, y = x.id, y.id
    now = start + timedelta(minutes=21)

    first, second, other, overlapped = held_mid_work(
        committed,
        "SELECT id FROM poker_tournaments WHERE id = :x FOR UPDATE",
        x,
        lambda tid: advance_clocks(tournament_id=tid, now=now),
        y,
    )

    assert overlapped
    assert [(r["tournament_id"], r["levels_started"]) for r in first["advanced"]] == [(x, [2])]
    assert second["advanced"] == []
    assert [(r["tournament_id"], r["levels_started"]) for r in other["advanced"]] == [(y, [2])]
    with committed.connect() as conn:
        recorded = conn.execute(
            text(
                "SELECT tournament_id, count(*) FROM poker_clock_events WHERE kind = 'level-started' AND level = 2 "
                "GROUP BY tournament_id ORDER BY tournament_id"
            )
        ).all()
    assert [tuple(r) for r in recorded] == [(x, 1), (y, 1)]


def test_two_process_no_shows_runs_on_one_tournament_drop_its_no_shows_once_while_another_runs(prefect_api, committed):
    """3.8: the second run on X skips it (the first holds it); the run on Y is not held up."""
    with Session(committed) as s, s.begin():
        x, y = tournament(s), tournament(s)
        for t in (x, y):
            enter(s, t)
            register(s, t, checked_in=False)
            register(s, t, checked_in=False)
        x, y = x.id, y.id
    now = T0 + timedelta(hours=2)

    first, second, other, overlapped = held_mid_work(
        committed,
        "SELECT id FROM poker_registrations WHERE tournament_id = :x FOR UPDATE",
        x,
        lambda tid: process_no_shows(tournament_id=tid, now=now),
        y,
    )

    assert overlapped
    assert first["processed"] == [{"tournament_id": x, "policy": "drop", "dropped": 2, "dead_stacks": 0}]
    assert second["processed"] == []
    assert other["processed"] == [{"tournament_id": y, "policy": "drop", "dropped": 2, "dead_stacks": 0}]
    with committed.connect() as conn:
        audited = conn.execute(
            text(
                "SELECT tournament_id, count(*) FROM poker_audit WHERE kind = 'no-show-dropped' "
                "GROUP BY tournament_id ORDER BY tournament_id"
            )
        ).all()
    assert [tuple(r) for r in audited] == [(x, 2), (y, 2)]


def test_the_timekeeper_admits_its_active_run_and_a_standby_and_the_sweeps_one_run_at_a_time(prefect_api):
    """The Prefect server's deployment concurrency slot (taken on Pending): `timekeeper` has none and
    admits both its runs (the active one and its standby; its active run cancels a third),
    `advance-clocks` (a sweep) makes the second wait."""
    admitted = {}
    with get_client(sync_client=True) as client:
        for name in ("timekeeper", "advance-clocks"):
            deployment(job(name)).apply()
            found = client.read_deployment_by_name(f"{name}/{name}")
            limit = found.global_concurrency_limit
            assert (limit and limit.limit) == job(name).concurrency
            runs = [client.create_flow_run_from_deployment(found.id) for _ in range(2)]
            admitted[name] = [client.set_flow_run_state(r.id, Pending()).status for r in runs]
            for r in runs:
                client.set_flow_run_state(r.id, Cancelled(), force=True)
    assert admitted == {
        "timekeeper": [SetStateStatus.ACCEPT, SetStateStatus.ACCEPT],
        "advance-clocks": [SetStateStatus.ACCEPT, SetStateStatus.REJECT],
    }
