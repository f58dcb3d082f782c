"""Two timekeeper hosts in network namespaces made by the test, one partitioned (issue 41's third fault;
docs/timekeeper.md "One active across machines"): each namespace a machine with one veth link to this
host, where a PostgreSQL cluster of the test's own listens on the link's address; a timekeeper process
(`python -m flows.jobs.timekeeper_loop`) on each machine. The active one's link is taken down: the
server's keepalives end its session, its advisory lock goes with it, and the other machine's standby
takes over within 10 s; every level change, no-show run and dead-stack charge is recorded once, none
missing. Once in `make test`; in `make soak`, four partitions, each healed before the next, the
partitioned machine coming back as the standby."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from datetime import timedelta
from pathlib import Path

import pytest
from sqlalchemy import text
from sqlalchemy.engine import make_url
from sqlalchemy.orm import Session

from domain.store.migrate import upgrade
from flows import bootstrap
from flows.jobs.timekeeper_loop import active_pid
from tests.support.faults import Host, hosts, listen_for, own_cluster
from tests.support.timekeeper import nothing_due, now, quick_structure, running, wait_for

pytestmark = pytest.mark.integration

TAKEOVER = 10.0  # seconds


def _timekeeper(machine: Host, url: str, log: Path) -> subprocess.Popen:
    """The timekeeper on `machine`, reaching the database at the machine's gateway."""
    there = make_url(url).set(host=machine.gateway).render_as_string(hide_password=False)
    env = {**os.environ, "DATABASE_URL": there, "TOURNEY_TIMEKEEPER_POLL": "0.2"}
    with log.open("ab") as out:
        return subprocess.Popen(
            machine.run([sys.executable, "-m", "flows.jobs.timekeeper_loop"]),
            env=env,
            stdout=out,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )


@pytest.mark.parametrize(
    "partitions", [1, pytest.param(4, marks=[pytest.mark.soak, pytest.mark.timeout(900)])], ids=["once", "four"]
)
def test_the_partitioned_machines_timekeeper_is_replaced_within_10_s_and_every_moment_is_once(
    monkeypatch, tmp_path, partitions
):
    """Issue 41, fault 3 (SP-8: every moment once): takeover within 10 s of a partition."""
    with hosts(2) as machines, own_cluster(monkeypatch.setenv) as cluster:
        listen_for(cluster, machines)
        url = cluster.url()
        monkeypatch.setenv("DATABASE_URL", url)
        bootstrap.dispose()
        engine = bootstrap.engine()
        procs: list[subprocess.Popen] = []
        try:
            upgrade(engine)
            seconds = 2 if partitions == 1 else 4
            with Session(engine) as s, s.begin():
                sid = quick_structure(s, seconds=seconds, count=200)
                t0 = now() + timedelta(seconds=2)
                tids = [
                    running(
                        s,
                        sid,
                        t0 + timedelta(seconds=i / 6),
                        late_reg=timedelta(seconds=5),
                        policy="absent_mode" if i % 2 else "drop",
                        absent=2,
                    )
                    for i in range(12)
                ]
            log = tmp_path / "timekeepers.log"
            procs.append(_timekeeper(machines[0], url, log))
            assert wait_for(lambda: active_pid(engine) == procs[0].pid, 30), log.read_text()[-2000:]
            procs.append(_timekeeper(machines[1], url, log))
            assert wait_for(lambda: _standbys(engine) == 1, 30)
            takeovers = []
            for n in range(partitions):
                holder = active_pid(engine)
                machine = machines[[p.pid for p in procs].index(holder)]
                time.sleep(1.0 + n % 3 * 0.4)  # at work: asleep between moments, or in one
                machine.partition()
                cut = time.monotonic()
                assert wait_for(lambda holder=holder: active_pid(engine) not in (None, holder), 30)
                takeovers.append(time.monotonic() - cut)
                machine.heal()
                if n + 1 < partitions:  # the partitioned machine finds its session gone, comes back as the standby
                    assert wait_for(lambda: _standbys(engine) == 1, 60), log.read_text()[-2000:]
            assert wait_for(lambda: now() > t0 + timedelta(seconds=8), 30)  # every late registration closed
            assert wait_for(lambda: nothing_due(engine, overdue_s=1), 30)
        finally:
            for p in procs:
                if p.poll() is None:
                    os.killpg(p.pid, signal.SIGTERM)
            for p in procs:
                try:
                    p.wait(10)
                except subprocess.TimeoutExpired:
                    os.killpg(p.pid, signal.SIGKILL)
                    p.wait()
            bootstrap.dispose()
        print("takeovers after a partition (s):", " ".join(f"{t:.2f}" for t in takeovers))
        assert len(takeovers) == partitions and max(takeovers) <= TAKEOVER, takeovers
        _every_moment_once(engine, tids, seconds)
        bootstrap.dispose()


def _standbys(engine) -> int:
    """Timekeeper connections that do not hold the lock (each process keeps one lock connection)."""
    with engine.connect() as conn:
        return conn.execute(
            text(
                "SELECT count(*) FROM pg_stat_activity a WHERE a.datname = current_database() "
                "AND a.application_name LIKE 'tourney-timekeeper pid %' AND NOT EXISTS (SELECT 1 FROM pg_locks l "
                "WHERE l.pid = a.pid AND l.locktype = 'advisory' AND l.classid = 7411800 AND l.granted)"
            )
        ).scalar_one()


def _every_moment_once(engine, tids: list[int], seconds: int) -> None:
    with engine.connect() as conn:
        starts = conn.execute(
            text(
                "SELECT e.tournament_id, array_agg(e.level ORDER BY e.at), max(e.at), c.next_change_at "
                "FROM poker_clock_events e JOIN poker_clock c USING (tournament_id) WHERE e.kind = 'level-started' "
                "GROUP BY e.tournament_id, c.next_change_at ORDER BY 1"
            )
        ).all()
        no_show_runs = conn.execute(text("SELECT tournament_id FROM poker_no_show_runs ORDER BY 1")).scalars().all()
        charges = conn.execute(
            text(
                "SELECT d.id, count(g.event_id), (SELECT count(*) FROM poker_clock_events e WHERE e.tournament_id = "
                "d.tournament_id AND e.kind = 'level-started' AND e.at >= d.seated_at) FROM poker_dead_stacks d "
                "LEFT JOIN poker_dead_stack_charges g ON g.dead_stack_id = d.id GROUP BY d.id ORDER BY d.id"
            )
        ).all()
    assert [r[0] for r in starts] == tids
    for _, levels, last, next_change in starts:
        assert levels == list(range(1, len(levels) + 1))  # every level change once, in order, none missing
        assert next_change - last == timedelta(seconds=seconds)  # and none after the last one recorded
    assert no_show_runs == tids
    assert len(charges) == 12 and all(made == level_starts for _, made, level_starts in charges)
