"""The Prefect server killed during a cup and a tournament (issue 41's second fault; docs/jobs.md's event
consumer): a real `tourney serve` (its runner, its timekeeper runs, its event consumer) on a Prefect
server of the test's own, which is killed (SIGKILL, its whole process group); while it is away a poker
tournament's last bust and finish and a cup's final are played, and the consumer completes the final
without it; the server is started again on the same database: both tournaments' documents are published
within 60 s of its return, one publish-results run each, one publication each, every event reacted to
once. Away 10 s and 2 minutes, both in `make soak` (about 90 s and 4 minutes); the short form in `make
test` is tests/web/test_events_prefect_away.py (the consumer's Prefect API a closed port). The second
tournament's run waits for the deployment's slot after the first (Prefect's AwaitingConcurrencySlot), then
finds its documents published by the first and completes."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

import httpx
import pytest
from sqlalchemy import text

from domain.store.db import unit_of_work
from domain.store.scratch import scratch_database
from tests.support import world
from tests.support.events import wait_for
from tests.support.faults import PrefectProcess

pytestmark = pytest.mark.integration

ROOT = Path(__file__).resolve().parents[2]
DOCUMENTS_WITHIN = timedelta(seconds=60)  # of the Prefect server's return (issue 41)


def _serve(api_url: str, home: Path) -> subprocess.Popen:
    env = {
        **os.environ,
        "TOURNEY_HOME": str(home),
        "TOURNEY_MACHINE": "faults",
        "PREFECT_API_URL": api_url,
        "PREFECT_RUNNER_POLL_FREQUENCY": "1",  # the runner looks for its runs every second, not every 10
        "PYTHONPATH": os.pathsep.join(filter(None, (str(ROOT), os.environ.get("PYTHONPATH")))),
    }
    with (home / "serve.log").open("ab") as log:
        return subprocess.Popen(
            [sys.executable, "-c", "from flows.cli.app import main; main()", "serve", "--limit", "2"],
            cwd=ROOT,
            env=env,
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )


def _served(api_url: str, engine) -> bool:
    """the runner is up (it started the timekeeper's runs: one is Running) and the event consumer holds its lock"""
    try:
        running = httpx.post(
            f"{api_url}/flow_runs/filter",
            json={
                "flow_runs": {"state": {"type": {"any_": ["RUNNING"]}}},
                "deployments": {"name": {"like_": "timekeeper"}},
            },
            timeout=5,
        ).json()
    except (httpx.HTTPError, ValueError):
        return False
    if not running:
        return False
    with engine.connect() as conn:
        return bool(
            conn.execute(
                text(
                    "SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND classid = 7411800 AND objid = 2 "
                    "AND granted AND database = (SELECT oid FROM pg_database WHERE datname = current_database())"
                )
            ).scalar_one()
        )


def _documents(engine) -> dict[tuple[str, int], tuple[int, int, datetime | None]]:
    """(source, tournament) -> (publications, documents, the last document's instant)"""
    with engine.connect() as conn:
        rows = conn.execute(
            text(
                "SELECT p.source, p.tournament_id, count(DISTINCT p.id), count(d.id), max(d.created_at) "
                "FROM document_publications p LEFT JOIN documents d ON d.publication_id = p.id GROUP BY 1, 2"
            )
        ).all()
    return {(source, tid): (pubs, docs, last) for source, tid, pubs, docs, last in rows}


@pytest.mark.parametrize(
    "away",
    [pytest.param(10, marks=pytest.mark.soak), pytest.param(120, marks=[pytest.mark.soak, pytest.mark.timeout(900)])],
    ids=["10s", "2min"],
)
def test_with_the_prefect_server_killed_play_goes_on_and_the_documents_follow_its_return_once(
    committed, database_url, tmp_path, away
):
    """Issue 41, fault 2 (DOC-1: every finished tournament's documents; SP-8: once): 0 lost, 0 twice."""
    engine = committed
    poker = world.running_poker(engine, players=3, handles="away{n}")
    with scratch_database(database_url, "prefect") as prefect_db:
        prefect = PrefectProcess(prefect_db, tmp_path / "prefect.log")
        serve = None
        try:
            prefect.start()
            serve = _serve(prefect.api_url, tmp_path)
            assert wait_for(lambda: _served(prefect.api_url, engine), 240), (tmp_path / "serve.log").read_text()[-3000:]

            prefect.kill()
            # play goes on: the last two busts and the finish at the desk, a cup's final reported
            first, second, champion = poker["entries"]
            world.knock_out(engine, poker["id"], first, champion)
            world.knock_out(engine, poker["id"], second, champion)
            world.finish(engine, poker["id"])
            with unit_of_work(engine) as session:
                cup, _, _ = world.complete_pusoy(session, crown=False)
                cup_id = cup.id
            # the consumer completes the final without Prefect: the cup has its champion while it is away
            assert wait_for(lambda: _champion(engine, cup_id) is not None, away)
            time.sleep(max(0.0, away - 0.1))
            assert _documents(engine) == {}  # nothing could publish them meanwhile
            assert serve.poll() is None, (tmp_path / "serve.log").read_text()[-3000:]  # serving survived it

            prefect.start()
            back = datetime.now(UTC)
            wanted = {("poker", poker["id"]), ("pusoy", cup_id)}
            assert wait_for(
                lambda: wanted <= {k for k, (_, docs, _) in _documents(engine).items() if docs},
                DOCUMENTS_WITHIN.total_seconds() + 30,
            ), (tmp_path / "serve.log").read_text()[-3000:]
            published = _documents(engine)
            # each event's run ends: the one whose turn came second waits for the deployment's slot
            # (Prefect's AwaitingConcurrencySlot, 30 s), then finds its documents published by the first
            # (a run publishes every tournament due) and completes; a second publication would show by then
            names = [f"publish-results {s}-{t}" for s, t in sorted(wanted)]
            assert wait_for(lambda: _ended(prefect.api_url, names), 120), _runs(prefect.api_url, names)
            runs = _runs(prefect.api_url, names)
            assert _documents(engine) == published
        finally:
            if serve is not None and serve.poll() is None:
                os.killpg(serve.pid, signal.SIGTERM)
                try:
                    serve.wait(30)
                except subprocess.TimeoutExpired:
                    os.killpg(serve.pid, signal.SIGKILL)
                    serve.wait()
            prefect.kill()
    late = {k: last - back for k, (_, _, last) in published.items()}
    print(
        "documents after the Prefect server's return:",
        {f"{s}-{t}": f"{d.total_seconds():.1f} s" for (s, t), d in late.items()},
    )
    assert set(published) == wanted
    assert all(pubs == 1 for pubs, _, _ in published.values())  # 0 twice
    assert sorted(r["name"] for r in runs) == sorted(f"publish-results {s}-{t}" for s, t in wanted), runs
    assert {r["state_type"] for r in runs} == {"COMPLETED"}
    assert max(late.values()) <= DOCUMENTS_WITHIN, late
    with engine.connect() as conn:
        finished = conn.execute(
            text(
                "SELECT payload->>'source', (payload->>'tournament_id')::bigint, count(*), count(reacted_at) "
                "FROM webhook_events WHERE kind = 'tournament.finished' GROUP BY 1, 2"
            )
        ).all()
    assert sorted((s, t, n, r) for s, t, n, r in finished) == sorted((s, t, 1, 1) for s, t in wanted)


def _runs(api_url: str, names: list[str]) -> list[dict]:
    return httpx.post(f"{api_url}/flow_runs/filter", json={"flow_runs": {"name": {"any_": names}}}, timeout=30).json()


def _ended(api_url: str, names: list[str]) -> bool:
    """every run named so has ended"""
    runs = _runs(api_url, names)
    return bool(runs) and all(r["state_type"] in ("COMPLETED", "FAILED", "CRASHED", "CANCELLED") for r in runs)


def _champion(engine, cup_id: int) -> str | None:
    with engine.connect() as conn:
        return conn.execute(
            text("SELECT player FROM pusoy_entries WHERE tournament_id = :t AND final_position = 1"), {"t": cup_id}
        ).scalar()
