"""From the last bust to the PDFs in the outbox: the sweeps in a chain (the old way: `finalize-tournaments`
every minute, then `publish-results` every 5 minutes, each from a random phase as an interval schedule
has) beside the event-driven way (the timekeeper finalizes at the instant the last knockout's void
window closes and creates the tournament's `publish-results` run at once), and beside the director's
`tourney poker finish` right after the last bust (no wait for the window). The same kind of seeded
tournaments: two players, a prize table, the void window at its shortest (1 minute, SP-5).

All three through real processes: a Prefect API, a runner serving the deployments as `tourney serve`
does (its poll every 2 s, `prefect_env`), the timekeeper's run, the CLI. Time = when the results
sheet's row is written (a trigger stamps clock_timestamp()) minus the last bust's instant; for the
timekeeper also minus the instant the window closed (what the platform controls).
TOURNEY_BENCH_LAST_BUST_OLD=0 skips the old way (up to 6 minutes).

And the same for Pusoy Dos: from the last game's report (`tourney pusoy report`, a real process: the
round completes in it, `complete-rounds` at once, and the champion's cup starts its `publish-results`
run) to its results sheet's row; the target is 30 s."""

from __future__ import annotations

import os
import random
import statistics
import subprocess
import sys
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

from sqlalchemy import text

from bench.harness import Report, runner
from domain.poker.rules.knockouts import Bust
from domain.poker.services import results as results_service
from domain.poker.services.knockouts import record_knockouts
from flows import bootstrap
from infra.config import load_settings
from infra.prefect_server import prefect_env
from tests.support.world import BOUNTY, field, in_order, seating, tournament

ROOT = Path(__file__).resolve().parent.parent
WINDOW = timedelta(minutes=1)
COUNT = 3  # tournaments a way, their windows closing 10 s apart

WRITTEN = """
CREATE TABLE bench_sheets (publication_id bigint PRIMARY KEY, written_at timestamptz NOT NULL);
CREATE FUNCTION bench_sheets() RETURNS trigger LANGUAGE plpgsql AS
  'BEGIN INSERT INTO bench_sheets VALUES (NEW.publication_id, clock_timestamp()) ON CONFLICT DO NOTHING; RETURN NEW; END';
CREATE TRIGGER bench_sheets AFTER INSERT ON documents FOR EACH ROW EXECUTE FUNCTION bench_sheets()
"""

SERVE = """
from dataclasses import replace
from prefect import serve
from flows.deployments import deployment, job
from flows.jobs.timekeeper import RUNS

if __name__ == "__main__":
    # no schedules: the sweeps' runs are created by the bench as their interval schedules would
    names = ("timekeeper", "finalize-tournaments", "publish-results", "complete-rounds")
    jobs = [replace(job(n), interval=None) for n in names]
    serve(*(deployment(j) for j in jobs), limit=4 + RUNS)
"""


def _sql(script: str) -> None:
    with bootstrap.engine().begin() as conn:
        for statement in filter(str.strip, script.split(";\n")):
            conn.execute(text(statement))


def _seed(label: str, busted_at: list[datetime]) -> dict[int, datetime]:
    """One tournament a bust instant: two players with prizes, the second busted by the first then."""
    made = {}
    with bootstrap.unit_of_work() as session:
        for n, at in enumerate(busted_at):
            t = tournament(session, **BOUNTY, name=f"{label}-{n}")
            session.execute(
                text("INSERT INTO poker_knockout_settings (tournament_id, void_window_seconds) VALUES (:t, :s)"),
                {"t": t.id, "s": int(WINDOW.total_seconds())},
            )
            results_service.set_prizes(session, t.id, ["Cup", "Medal"])
            entries = field(session, t, "AB")
            record_knockouts(session, t.id, [Bust(entries["B"].id, entries["A"].id)], now=at, actor="bench")
            made[t.id] = at
    return made


def _written(ids: list[int], deadline: float, source: str = "poker") -> dict[int, datetime]:
    """The instant each tournament's results sheet was written, waiting until all are or the deadline."""
    sql = text(
        "SELECT p.tournament_id, min(w.written_at) FROM bench_sheets w JOIN document_publications p "
        "ON p.id = w.publication_id WHERE p.source = :source AND p.tournament_id = ANY(:ids) GROUP BY 1"
    )
    while True:
        with bootstrap.engine().connect() as conn:
            found = dict(conn.execute(sql, {"ids": ids, "source": source}).all())
        if len(found) == len(ids) or time.monotonic() > deadline:
            return found
        time.sleep(0.5)


def _note(report: Report, name: str, seconds: list[float], missed: int) -> None:
    report.note(name, "median s", round(statistics.median(seconds), 1) if seconds else None)
    report.note(name, "max s", round(max(seconds), 1) if seconds else None)
    report.note(name, "tournaments not published", missed)


def _timekeeper_way(report: Report) -> None:
    now = datetime.now(UTC)
    made = _seed("tk", [now - WINDOW + timedelta(seconds=10 + 10 * n) for n in range(COUNT)])
    _sql("SELECT pg_notify('tourney_timekeeper', 'last-knockout:bench')")
    found = _written(list(made), time.monotonic() + 10 + 10 * COUNT + 120)
    name = "last bust to PDFs: timekeeper at the window's close, publish run at once"
    _note(
        report,
        f"{name} (from the last bust)",
        [(found[t] - at).total_seconds() for t, at in made.items() if t in found],
        len(made) - len(found),
    )
    _note(
        report,
        f"{name} (from the window's close)",
        [(found[t] - at - WINDOW).total_seconds() for t, at in made.items() if t in found],
        len(made) - len(found),
    )


def _finish_way(report: Report, env: dict[str, str]) -> None:
    made = _seed("fin", [datetime.now(UTC)] * COUNT)
    tourney = str(Path(sys.executable).with_name("tourney"))
    asked = {}
    for tid in made:
        asked[tid] = datetime.now(UTC)
        subprocess.run(
            [tourney, "poker", "finish", str(tid), "--yes"],
            env=env,
            check=True,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            timeout=120,
        )
    found = _written(list(made), time.monotonic() + 120)
    _note(
        report,
        "last bust to PDFs: `tourney poker finish` right after it",
        [(found[t] - asked[t]).total_seconds() for t in made if t in found],
        len(made) - len(found),
    )


def _champion_way(report: Report, env: dict[str, str]) -> None:
    """COUNT 8-player cups, their first round completed; the final's one game reported by the CLI."""
    from domain.pusoy.services import rounds as pusoy_rounds
    from domain.pusoy.services import setup as pusoy_setup

    finals = {}
    with bootstrap.unit_of_work() as session:
        now = datetime.now(UTC)
        for n in range(COUNT):
            t = pusoy_setup.create(
                session, name=f"champion-{n}", organizer="bench", capacity=8, now=now, organizer_email="b@example.org"
            )
            for i in range(8):
                pusoy_setup.join(session, t.code, f"p{i}", now)
            in_order(session, t, 1, "p0", now)
            pusoy_rounds.complete_round(session, t.id, 1, now)
            [final] = seating(session, t.id, 2).values()
            finals[t.id] = (t.code, sorted(final))
    tourney = str(Path(sys.executable).with_name("tourney"))
    asked = {}
    for tid, (code, players) in finals.items():
        asked[tid] = datetime.now(UTC)
        places = [f"{p}={k}" for k, p in enumerate(players, start=1)]
        subprocess.run(
            [tourney, "pusoy", "report", code, *places, "--round", "2", "--table", "1"],
            env=env,
            check=True,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            timeout=120,
        )
    found = _written(list(finals), time.monotonic() + 120, source="pusoy")
    _note(
        report,
        "Pusoy Dos champion to PDFs: the final's last report (`tourney pusoy report`)",
        [(found[t] - asked[t]).total_seconds() for t in finals if t in found],
        len(finals) - len(found),
    )


def _sweeps_way(report: Report, client) -> None:
    from prefect.states import Scheduled

    rng = random.Random(20261201)
    now = datetime.now(UTC)
    made = _seed("old", [now - WINDOW + timedelta(seconds=10 + 10 * n) for n in range(COUNT)])
    finalize = client.read_deployment_by_name("finalize-tournaments/finalize-tournaments")
    publish = client.read_deployment_by_name("publish-results/publish-results")
    first_finalize = now + timedelta(seconds=rng.uniform(0, 60))
    first_publish = now + timedelta(seconds=rng.uniform(0, 300))
    for k in range(7):
        client.create_flow_run_from_deployment(
            finalize.id, state=Scheduled(scheduled_time=first_finalize + k * timedelta(minutes=1))
        )
    for k in range(2):
        client.create_flow_run_from_deployment(
            publish.id, state=Scheduled(scheduled_time=first_publish + k * timedelta(minutes=5))
        )
    found = _written(list(made), time.monotonic() + 60 * 11)
    _note(
        report,
        "last bust to PDFs: the old way, sweeps in a chain (finalize every 1 min, publish every 5 min)",
        [(found[t] - at).total_seconds() for t, at in made.items() if t in found],
        len(made) - len(found),
    )


def run(report: Report) -> None:
    from prefect.client.orchestration import get_client
    from prefect.settings import PREFECT_API_URL
    from prefect.states import Cancelling
    from prefect.testing.utilities import prefect_test_harness

    os.environ.setdefault("PREFECT_SERVER_ANALYTICS_ENABLED", "false")  # there is no network
    _sql(WRITTEN)
    with prefect_test_harness(server_startup_timeout=120):
        settings = load_settings()
        env = {
            **os.environ,
            **prefect_env(settings),
            "PREFECT_API_URL": PREFECT_API_URL.value(),
            "PYTHONPATH": str(ROOT),
        }
        with runner(SERVE, env=env, cwd=ROOT):
            with get_client(sync_client=True) as client:
                deadline = time.monotonic() + 120
                while time.monotonic() < deadline:
                    try:
                        timekeeper = client.read_deployment_by_name("timekeeper/timekeeper")
                        client.read_deployment_by_name("publish-results/publish-results")
                        break
                    except Exception:
                        time.sleep(1)
                client.create_flow_run_from_deployment(timekeeper.id, name="timekeeper (bench)")
                time.sleep(20)  # it takes the lock and settles
                _timekeeper_way(report)
                _finish_way(report, env)
                _champion_way(report, env)
                for _ in range(3):  # the active one may have made a new standby meanwhile
                    for r in client.read_flow_runs(limit=200):
                        if r.deployment_id == timekeeper.id and r.state and not r.state.is_final():
                            client.set_flow_run_state(r.id, Cancelling(), force=True)
                    time.sleep(5)
                if os.environ.get("TOURNEY_BENCH_LAST_BUST_OLD", "1") != "0":
                    _sweeps_way(report, client)
