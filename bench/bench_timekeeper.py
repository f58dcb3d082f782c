"""Timekeeping: the CPU one moment costs all-in, the bare loop (`python -m flows.jobs.timekeeper_loop`, no
Prefect) beside the timekeeper's deployment flow (flows/jobs/timekeeper.py: a flow run, each moment a
Prefect event sent in batches), alternating, on the same kind of seeded tournaments: N level changes
due within 60 s, each tournament with a dead stack to charge. The Prefect server is a real `prefect
server start` on a PostgreSQL database of its own, as `make run`'s.

CPU over a phase (from 5 s before the first instant until the last change is written and the events
had 5 s to arrive), per moment:
- the timekeeper's process;
- the Prefect server: its processes and its database's PostgreSQL backends. In the bare loop's phases
  the server does nothing for the moments: that is its idle cost, and the difference is its share of
  the moments;
- the PostgreSQL backends of the timekeeper's own connections (the moments' domain work, the same in
  both ways), beside.
All-in = the timekeeper's process + the Prefect server's. Lateness = when the change is written in the
database (a trigger stamps clock_timestamp() on every clock event) minus the instant it was due.

TOURNEY_BENCH_TIMEKEEPER_MOMENTS ("1000") and TOURNEY_BENCH_TIMEKEEPER_REPEAT ("2", phases a way)
choose the sizes."""

from __future__ import annotations

import os
import signal
import statistics
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime, timedelta
from pathlib import Path

from sqlalchemy import text
from sqlalchemy.engine import make_url

from bench.harness import Report
from domain.poker.services.due import CHANNEL
from flows import bootstrap
from flows.jobs.timekeeper_loop import active_pid, active_run

SPREAD = 60.0  # seconds over which a phase's moments fall due
LEAD = 5.0  # seconds from the start of a phase's measure to its first instant
SETTLE = 5.0  # seconds after the last change is written, for the events to arrive
LEVEL = 600  # seconds a level lasts: one change a tournament within a phase
TICK = os.sysconf("SC_CLK_TCK")
ROOT = Path(__file__).resolve().parent.parent
APP = "bench-timekeeper"  # the application name of the timekeeper's pooled connections (PGAPPNAME)
WAYS = {
    "bare loop (no Prefect)": [sys.executable, "-m", "flows.jobs.timekeeper_loop"],
    "deployment flow, moments as Prefect events": [
        sys.executable,
        "-c",
        "from flows.jobs.timekeeper import timekeeper; timekeeper(poll_seconds=1.0)",
    ],
}
BACKENDS = "SELECT pid FROM pg_stat_activity WHERE datname = :db AND (:app = '' OR application_name = :app OR application_name LIKE 'tourney-timekeeper pid %')"

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


def _sql(script: str, **params) -> None:
    with bootstrap.engine().begin() as conn:
        for statement in filter(str.strip, script.split(";\n")):
            conn.execute(text(statement), params)


def _cpu(pid: int) -> float:
    """CPU seconds of a process from /proc (0 when it is gone)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / TICK


def _tree(pid: int) -> list[int]:
    """A process and all its descendants."""
    parents: dict[int, int] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                parents[int(entry.name)] = int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1])
            except (OSError, ValueError, IndexError):
                pass
    found, todo = [], [pid]
    while todo:
        found.append(todo.pop())
        todo += [child for child, parent in parents.items() if parent == found[-1]]
    return found


def _backends(db: str, app: str = "") -> dict[int, float]:
    """CPU seconds of the PostgreSQL backends serving database `db` (with `app`, the timekeeper's only)."""
    with bootstrap.engine().connect() as conn:
        return {pid: _cpu(pid) for pid in conn.execute(text(BACKENDS), {"db": db, "app": app}).scalars()}


def _grew(before: dict[int, float], after: dict[int, float]) -> float:
    """CPU spent between two samples by the backends alive at the second (new ones: all of theirs)."""
    return sum(cpu - before.get(pid, 0.0) for pid, cpu in after.items())


class Meter:
    """The CPU of the timekeeper's process, the Prefect server (its processes and its database's
    backends) and the timekeeper's backends, from `start` to `stop`."""

    def __init__(self, keeper: int, server: int, prefect_db: str, db: str):
        self.keeper, self.server, self.prefect_db, self.db = keeper, server, prefect_db, db

    def sample(self) -> tuple[float, dict[int, float], dict[int, float], dict[int, float]]:
        return (
            _cpu(self.keeper),
            {p: _cpu(p) for p in _tree(self.server)},
            _backends(self.prefect_db),
            _backends(self.db, APP),
        )

    def start(self) -> None:
        self.first = self.sample()

    def stop(self) -> dict[str, float]:
        (k0, s0, p0, t0), (k1, s1, p1, t1) = self.first, self.sample()
        return {"timekeeper": k1 - k0, "server": _grew(s0, s1) + _grew(p0, p1), "backends": _grew(t0, t1)}


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


def _phase(label: str, count: int) -> datetime:
    first = datetime.now(UTC) + timedelta(seconds=LEAD)
    _sql(PHASE, label=label, count=count, first=first, spread=SPREAD, level=LEVEL)
    _sql("SELECT pg_notify(:channel, 'clock:bench')", channel=CHANNEL)  # as starting the clocks does
    return first


def _end_phase(label: str) -> None:  # its tournaments' next changes must not fall into a later phase
    _sql("UPDATE poker_tournaments SET status = 'finished' WHERE name LIKE :label || '-%'", label=label)


@contextmanager
def _timekeeper(command: list[str], env: dict[str, str]) -> Iterator[subprocess.Popen]:
    """One way's timekeeper process, once it holds the lock; ended (SIGTERM, then SIGKILL) on the way out."""
    process = subprocess.Popen(
        command, env=env, cwd=ROOT, start_new_session=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    try:
        deadline = time.monotonic() + 120
        while active_pid(bootstrap.engine()) != process.pid:
            if process.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(f"{' '.join(command)} did not take the timekeeper's lock")
            time.sleep(0.5)
        time.sleep(3)  # its threads start and settle
        yield process
    finally:
        process.send_signal(signal.SIGTERM)
        try:
            process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


def _events_of(run) -> int:
    """How many moment events of the flow run `run` the Prefect API holds."""
    from prefect.client.orchestration import get_client
    from prefect.events.filters import EventFilter, EventNameFilter, EventOccurredFilter, EventRelatedFilter

    now = datetime.now(UTC)
    with get_client(sync_client=True) as client:
        return client.read_events(
            filter=EventFilter(
                occurred=EventOccurredFilter(since=now - timedelta(hours=1), until=now + timedelta(hours=1)),
                event=EventNameFilter(prefix=["tourney.moment."]),
                related=EventRelatedFilter(id=[f"prefect.flow-run.{run}"]),
            ),
            limit=1,
        ).total


def _one_phase(way: str, label: str, count: int, env: dict[str, str], server: int, prefect_db: str) -> dict:
    with _timekeeper(WAYS[way], env) as process:
        run = active_run(bootstrap.engine())
        meter = Meter(process.pid, server, prefect_db, bootstrap.engine().url.database)
        meter.start()
        _phase(label, count)
        deadline = time.monotonic() + LEAD + SPREAD + 60
        while _written(label)[1] and time.monotonic() < deadline:
            time.sleep(1)
        time.sleep(SETTLE)
        spent = meter.stop()
        time.sleep(SETTLE)  # the server stores what it received every few seconds
        shown = _events_of(run) if run is not None else None
    late, missed = _written(label)
    _end_phase(label)
    return {**spent, "late": late, "missed": missed, "events": shown}


def _quantiles(late: list[float]) -> tuple[float, float, float]:
    q = statistics.quantiles(late, n=20, method="inclusive") if len(late) > 1 else late * 19
    return round(statistics.median(late), 3), round(q[18], 3), round(max(late), 3)


def run(report: Report) -> None:
    from prefect.settings import PREFECT_API_URL, temporary_settings

    from tests.support.net import free_port
    from tests.support.prefect_server import prefect_server

    count = int(os.environ.get("TOURNEY_BENCH_TIMEKEEPER_MOMENTS", "1000"))
    repeat = int(os.environ.get("TOURNEY_BENCH_TIMEKEEPER_REPEAT", "2"))
    _sql(WRITTEN, level=LEVEL)
    url = bootstrap.database_url()
    api = f"http://127.0.0.1:{free_port()}/api"
    with prefect_server(url, api_url=api), temporary_settings({PREFECT_API_URL: api}):
        [server] = [p for p in _tree(os.getpid()) if b"server\x00start" in Path(f"/proc/{p}/cmdline").read_bytes()]
        prefect_db = _prefect_database(url)
        env = {
            **os.environ,
            "PREFECT_API_URL": api,
            "PYTHONPATH": str(ROOT),
            "PGAPPNAME": APP,
            "PREFECT_SERVER_ANALYTICS_ENABLED": "false",
        }
        phases: dict[str, list[dict]] = {way: [] for way in WAYS}
        for n in range(repeat):
            for i, way in enumerate(WAYS):
                phases[way].append(_one_phase(way, f"tk{n}{i}", count, env, server, prefect_db))
    name = f"timekeeping, {count} level changes due within {int(SPREAD)} s"
    per = {way: [(p["timekeeper"] + p["server"]) / count for p in done] for way, done in phases.items()}
    bare, events = WAYS
    report.compared(
        f"{name}: CPU a moment all-in (timekeeper + Prefect server)", (bare, per[bare]), (events, per[events])
    )
    idle = statistics.median(p["server"] for p in phases[bare])
    for way, done in phases.items():
        label = f"{name}: {way}"
        ms = lambda key: round(statistics.median(p[key] for p in done) / count * 1e3, 2)  # noqa: E731
        report.note(label, "CPU ms a moment all-in (median of the phases)", round(statistics.median(per[way]) * 1e3, 2))
        report.note(label, "timekeeper process CPU ms a moment", ms("timekeeper"))
        report.note(label, "Prefect server CPU ms a moment (its processes and database)", ms("server"))
        report.note(
            label,
            "of which beyond its idle cost (the bare loop's phases)",
            round((statistics.median(p["server"] for p in done) - idle) / count * 1e3, 2),
        )
        report.note(label, "PostgreSQL CPU ms a moment (the timekeeper's connections)", ms("backends"))
        late = sorted(x for p in done for x in p["late"])
        p50, p95, worst = _quantiles(late) if late else (None, None, None)
        report.note(label, "lateness p50 / p95 / max s", f"{p50} / {p95} / {worst}")
        report.note(label, "moments missed", sum(p["missed"] for p in done))
        if way == events:
            report.note(label, "moment events in the Prefect API, a phase", [p["events"] for p in done])


def _prefect_database(url: str) -> str:
    """The Prefect server's database: the scratch one beside the bench's (tests/support/prefect_server.py)."""
    base = make_url(url).database
    with bootstrap.engine().connect() as conn:
        return conn.execute(
            text("SELECT datname FROM pg_database WHERE datname LIKE :p ORDER BY oid DESC LIMIT 1"),
            {"p": f"{base}_prefect_%"},
        ).scalar_one()
