"""Timekeeping: the old way (an exact flow run of `advance-clocks` per moment, served as `tourney
serve` served them: `prefect.serve(..., limit)` with deployment limit 4, runner poll 10 s) beside the
timekeeper (one warm run of its deployment, served by the same runner), on the same kind of seeded
tournaments: N level changes due within 60 s, each tournament with a dead stack to charge.

Lateness = when the change is written in the database (a trigger stamps clock_timestamp() on every
clock event) minus the instant it was due; a moment missed = no level change written by the end
(an exact run that started before its instant read the wall clock, found nothing due and did
nothing). CPU-seconds per moment: the runner process with its flow-run processes (the old way), the
timekeeper's process (its task-run reports included); the Prefect server's CPU beside. The old way
runs at 60 moments only: at ~2.3 CPU-s a moment, 1,000 would take the 2 cores most of an hour.

TOURNEY_BENCH_TIMEKEEPER_OLD ("60"; "" to skip) and TOURNEY_BENCH_TIMEKEEPER_COUNTS ("60,1000")
choose the sizes."""

from __future__ import annotations

import os
import statistics
import subprocess
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

from sqlalchemy import text

from bench.harness import Report, runner
from domain.poker.services.due import CHANNEL
from flows import bootstrap
from flows.jobs.timekeeper_loop import active_pid

SPREAD = 60.0  # seconds over which a phase's moments fall due
LEVEL = 600  # seconds a level lasts: one change a tournament within a phase
TICK = os.sysconf("SC_CLK_TCK")
ROOT = Path(__file__).resolve().parent.parent

WRITTEN = """
CREATE TABLE bench_written (event_id bigint PRIMARY KEY, written_at timestamptz NOT NULL);
CREATE FUNCTION bench_written() RETURNS trigger LANGUAGE plpgsql AS
  'BEGIN INSERT INTO bench_written VALUES (NEW.id, clock_timestamp()); RETURN NEW; END';
CREATE TRIGGER bench_written AFTER INSERT ON poker_clock_events FOR EACH ROW EXECUTE FUNCTION bench_written();
INSERT INTO clubs (name, legal_form, inn, ogrn, contact_email, timezone, created_at, updated_at)
VALUES ('Bench', 'legal_entity', '7707083893', '1027700132195', 'b@example.org', 'UTC', now(), now());
INSERT INTO poker_structures (club_id, name, ante_type, created_at) SELECT id, 'Bench', 'classic', now() FROM clubs;
INSERT INTO poker_levels (structure_id, position, small_blind, big_blind, ante, duration_seconds, is_break)
SELECT s.id, n, 100 * n, 200 * n, 25 * n, :level, false FROM poker_structures s, generate_series(1, 12) n
"""

# one phase: :count running tournaments, the i-th's level 2 due at :first + :spread * i / :count
PHASE = """
INSERT INTO poker_tournaments (club_id, name, status, scheduled_start, format, bounty_type, mystery_draw,
  starting_stack, structure_id, seat_cap, addon_once, currency, buy_in, no_show_policy, itm_percent, itm_min,
  created_at, started_at)
SELECT c.id, :label || '-' || n, 'running', :first - interval '1 hour', 'freezeout', 'none', false, 100000, s.id, 9,
  true, 'RUB', 0, 'absent_mode', 15, 1, now(), :first - interval '1 hour'
FROM clubs c, poker_structures s, generate_series(0, :count - 1) n;
INSERT INTO poker_no_show_runs (tournament_id, policy, dropped, dead_stacks, processed_at)
SELECT id, 'absent_mode', 0, 1, now() FROM poker_tournaments WHERE name LIKE :label || '-%';
INSERT INTO players (pseudonym, name, handle, birth_date, created_at)
SELECT 'P' || id, 'Player ' || id, 'p' || id, DATE '1990-01-01', now() FROM poker_tournaments WHERE name LIKE :label || '-%';
INSERT INTO poker_registrations (tournament_id, player_id, status, late, registered_at)
SELECT t.id, p.id, 'active', false, now() FROM poker_tournaments t JOIN players p ON p.handle = 'p' || t.id
WHERE t.name LIKE :label || '-%';
INSERT INTO poker_entries (tournament_id, player_id, registration_id, sequence, state, starting_chips, created_at)
SELECT r.tournament_id, r.player_id, r.id, 1, 'active', 100000, now() FROM poker_registrations r
JOIN poker_tournaments t ON t.id = r.tournament_id WHERE t.name LIKE :label || '-%';
INSERT INTO poker_tables (tournament_id, table_no, opened_at)
SELECT id, 1, now() FROM poker_tournaments WHERE name LIKE :label || '-%';
INSERT INTO poker_seats (entry_id, tournament_id, table_no, seat_no, seated_at)
SELECT e.id, e.tournament_id, 1, 1, now() FROM poker_entries e
JOIN poker_tournaments t ON t.id = e.tournament_id WHERE t.name LIKE :label || '-%';
INSERT INTO poker_dead_stacks (tournament_id, registration_id, entry_id, chips, seated_at)
SELECT e.tournament_id, e.registration_id, e.id, 100000, :first - interval '1 hour' FROM poker_entries e
JOIN poker_tournaments t ON t.id = e.tournament_id WHERE t.name LIKE :label || '-%';
INSERT INTO poker_clock (tournament_id, segments, pauses, overrides, hands_per_hour, next_change_at, updated_at)
SELECT t.id, jsonb_build_array(jsonb_build_array(0, d.due - make_interval(secs => :level))), '[]', '[]', 30,
  d.due, now()
FROM poker_tournaments t
CROSS JOIN LATERAL (SELECT CAST(:first AS timestamptz)
  + make_interval(secs => :spread * CAST(split_part(t.name, '-', 2) AS int) / :count) AS due) d
WHERE t.name LIKE :label || '-%'
"""

SERVE = """
import sys
from prefect import serve
from prefect.client.schemas.objects import ConcurrencyLimitConfig, ConcurrencyLimitStrategy
from flows.deployments import deployment, job
from flows.jobs.poker_moments import advance_clocks

if __name__ == "__main__":
    # the old way: one exact run of advance-clocks per moment, 4 at once (EXACT_RUNS_AT_ONCE), no sweep
    exact = advance_clocks.to_deployment(name="bench-exact-runs", concurrency_limit=ConcurrencyLimitConfig(
        limit=4, collision_strategy=ConcurrencyLimitStrategy.ENQUEUE))
    serve(exact, deployment(job("timekeeper")), limit=int(sys.argv[1]))
"""


def _sql(script: str, **params) -> None:
    with bootstrap.engine().begin() as conn:
        for statement in filter(str.strip, script.split(";\n")):
            conn.execute(text(statement), params)


def _cpu(pid: int, children: bool = False) -> float:
    """CPU seconds of a process (with its waited-for children's, when asked) from /proc."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    ticks = int(fields[11]) + int(fields[12]) + ((int(fields[13]) + int(fields[14])) if children else 0)
    return ticks / TICK


def _children(pid: int) -> list[int]:
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                if int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1]) == pid:
                    found.append(int(entry.name))
            except (OSError, ValueError, IndexError):
                pass
    return found


def _holder_pid() -> int | None:
    return active_pid(bootstrap.engine())


def _written(label: str) -> tuple[list[float], int]:
    """Lateness in seconds of every level change written, sorted; how many tournaments had none."""
    with bootstrap.engine().connect() as conn:
        late = (
            conn.execute(
                text(
                    "SELECT extract(epoch FROM w.written_at - e.at) FROM poker_clock_events e "
                    "JOIN bench_written w ON w.event_id = e.id JOIN poker_tournaments t ON t.id = e.tournament_id "
                    "WHERE t.name LIKE :label || '-%' AND e.kind = 'level-started' AND e.level = 2 ORDER BY 1"
                ),
                {"label": label},
            )
            .scalars()
            .all()
        )
        total = conn.execute(
            text("SELECT count(*) FROM poker_tournaments WHERE name LIKE :label || '-%'"), {"label": label}
        ).scalar_one()
    return [float(x) for x in late], total - len(late)


def _phase(label: str, count: int, lead: float) -> datetime:
    first = datetime.now(UTC) + timedelta(seconds=lead)
    _sql(PHASE, label=label, count=count, first=first, spread=SPREAD, level=LEVEL)
    _sql("SELECT pg_notify(:channel, 'clock:bench')", channel=CHANNEL)  # as starting the clocks does
    return first


def _end_phase(label: str) -> None:  # its tournaments' next changes must not fall into a later phase
    _sql("UPDATE poker_tournaments SET status = 'finished' WHERE name LIKE :label || '-%'", label=label)


def _report(
    report: Report, name: str, late: list[float], missed: int, cpu: float, server_cpu: float, moments: int
) -> None:
    q = statistics.quantiles(late, n=20, method="inclusive") if len(late) > 1 else late * 19
    report.note(name, "p50 s", round(statistics.median(late), 3) if late else None)
    report.note(name, "p95 s", round(q[18], 3) if late else None)
    report.note(name, "max s", round(max(late), 3) if late else None)
    report.note(name, "moments missed", missed)
    report.note(
        name, "CPU ms per moment (runner and flow processes / timekeeper process)", round(cpu / moments * 1e3, 1)
    )
    report.note(name, "Prefect server CPU ms per moment", round(server_cpu / moments * 1e3, 1))


def _old_way(report: Report, client, runner: subprocess.Popen, server: list[int], count: int) -> None:
    from prefect.client.schemas.filters import FlowRunFilter, FlowRunFilterId
    from prefect.states import Scheduled

    label = f"old{count}"
    first = _phase(label, count, lead=30)
    with bootstrap.engine().connect() as conn:
        moments = conn.execute(
            text(
                "SELECT c.tournament_id, c.next_change_at FROM poker_clock c JOIN poker_tournaments t ON t.id = "
                "c.tournament_id WHERE t.name LIKE :label || '-%' ORDER BY 2"
            ),
            {"label": label},
        ).all()
    deployment = client.read_deployment_by_name("advance-clocks/bench-exact-runs")
    cpu0, server0 = _cpu(runner.pid, children=True), sum(_cpu(p) for p in server)
    ids = [
        client.create_flow_run_from_deployment(
            deployment.id,
            parameters={"tournament_id": tid},
            state=Scheduled(scheduled_time=at),
            name=f"advance-clocks poker-{tid} {at:%H:%M:%S} UTC",
        ).id
        for tid, at in moments
    ]
    deadline = time.monotonic() + SPREAD + 30 + count * 15
    while time.monotonic() < deadline:
        runs = client.read_flow_runs(flow_run_filter=FlowRunFilter(id=FlowRunFilterId(any_=ids)), limit=count)
        if len(runs) == count and all(r.state and r.state.is_final() for r in runs):
            break
        time.sleep(3)
    time.sleep(3)  # the runner reaps its last flow processes
    cpu, server_cpu = _cpu(runner.pid, children=True) - cpu0, sum(_cpu(p) for p in server) - server0
    late, missed = _written(label)
    _end_phase(label)
    name = f"timekeeping, {count} level changes due within {int(SPREAD)} s: old way (an exact flow run each)"
    report.note(name, "first due", first.isoformat())
    _report(report, name, late, missed, cpu, server_cpu, count)


def _reported(client, label: str) -> int:
    """How many of the phase's moments are task runs in the Prefect API (of any timekeeper run)."""
    from prefect.client.schemas.filters import (
        FlowFilter,
        FlowFilterName,
        TaskRunFilter,
        TaskRunFilterName,
    )

    with bootstrap.engine().connect() as conn:
        ids = set(
            conn.execute(
                text("SELECT id FROM poker_tournaments WHERE name LIKE :label || '-%'"), {"label": label}
            ).scalars()
        )
    found, offset = 0, 0
    while True:
        page = client.read_task_runs(
            flow_filter=FlowFilter(name=FlowFilterName(any_=["timekeeper"])),
            task_run_filter=TaskRunFilter(name=TaskRunFilterName(like_="advance-clocks poker-")),
            limit=200,
            offset=offset,
        )
        found += sum(1 for r in page if int(r.name.split()[1].removeprefix("poker-")) in ids)
        if len(page) < 200:
            return found
        offset += 200


def _timekeeper(report: Report, client, server: list[int], count: int) -> None:
    label = f"tk{count}"
    keeper = _holder_pid()
    cpu0, server0 = _cpu(keeper), sum(_cpu(p) for p in server)
    first = _phase(label, count, lead=10)
    deadline = time.monotonic() + 10 + SPREAD + 30
    while time.monotonic() < deadline:
        late, missed = _written(label)
        if not missed:
            break
        time.sleep(2)
    time.sleep(15)  # its task-run reports reach the Prefect API (a thread, after the moments)
    cpu, server_cpu = _cpu(keeper) - cpu0, sum(_cpu(p) for p in server) - server0
    late, missed = _written(label)
    _end_phase(label)
    name = f"timekeeping, {count} level changes due within {int(SPREAD)} s: timekeeper (one warm run)"
    report.note(name, "first due", first.isoformat())
    _report(report, name, late, missed, cpu, server_cpu, count)
    report.note(name, "moments shown as task runs 15 s after the last", _reported(client, label))


def run(report: Report) -> None:
    from prefect.client.orchestration import get_client
    from prefect.settings import PREFECT_API_URL
    from prefect.states import Cancelling
    from prefect.testing.utilities import prefect_test_harness

    os.environ.setdefault("PREFECT_SERVER_ANALYTICS_ENABLED", "false")  # there is no network
    old = [int(n) for n in os.environ.get("TOURNEY_BENCH_TIMEKEEPER_OLD", "60").split(",") if n.strip()]
    counts = [int(n) for n in os.environ.get("TOURNEY_BENCH_TIMEKEEPER_COUNTS", "60,1000").split(",") if n.strip()]
    _sql(WRITTEN, level=LEVEL)
    with prefect_test_harness(server_startup_timeout=120):
        env = {**os.environ, "PREFECT_API_URL": PREFECT_API_URL.value(), "PYTHONPATH": str(ROOT)}
        with runner(SERVE, "6", env=env, cwd=ROOT) as served:
            server = [p for p in _children(os.getpid()) if p != served.pid]
            with get_client(sync_client=True) as client:
                deadline = time.monotonic() + 120
                while time.monotonic() < deadline:
                    try:
                        client.read_deployment_by_name("advance-clocks/bench-exact-runs")
                        timekeeper = client.read_deployment_by_name("timekeeper/timekeeper")
                        break
                    except Exception:
                        time.sleep(1)
                for count in old:
                    _old_way(report, client, served, server, count)
                client.create_flow_run_from_deployment(timekeeper.id, name="timekeeper (bench)")
                deadline = time.monotonic() + 120
                while _holder_pid() is None and time.monotonic() < deadline:
                    time.sleep(1)
                time.sleep(20)  # its standby run starts beside it (ensure_runs) and settles
                for count in counts:
                    _timekeeper(report, client, server, count)
                for r in client.read_flow_runs():
                    if r.state and not r.state.is_final():
                        client.set_flow_run_state(r.id, Cancelling(), force=True)
