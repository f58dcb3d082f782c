"""`advance-clocks` and `process-no-shows` on a real Prefect API and the real database: artifacts,
exact scheduled runs with idempotency keys, moved runs, nothing done twice (SP-8, 3.8)."""

from __future__ import annotations

from datetime import timedelta

from prefect.client.orchestration import get_client
from prefect.client.schemas.filters import DeploymentFilter, DeploymentFilterId
from sqlalchemy import text
from sqlalchemy.orm import Session

from domain.poker.services import clock as clock_service
from flows.deployments import job
from flows.jobs.poker_floor import advance_clocks, process_no_shows
from tests.integration.poker_floor_world import T0, enter, register, tournament


def scheduled_runs(name: str) -> list[tuple[dict, object]]:
    with get_client(sync_client=True) as client:
        deployment = client.read_deployment_by_name(f"{name}/{name}")
        runs = client.read_flow_runs(
            deployment_filter=DeploymentFilter(id=DeploymentFilterId(any_=[deployment.id]))
        )
    return sorted(
        ((r.parameters, r.state.state_details.scheduled_time) for r in runs if r.state.is_scheduled()),
        key=lambda x: x[0]["tournament_id"],
    )


def latest_artifact(key: str) -> list[dict]:
    import json

    with get_client(sync_client=True) as client:
        artifacts = client.read_latest_artifacts()
    found = next(a for a in artifacts if a.key == key)
    return json.loads(found.data) if isinstance(found.data, str) else found.data


def serve(name: str) -> None:
    chosen = job(name)
    chosen.flow.to_deployment(name=chosen.name).apply()


def test_advance_clocks_records_once_publishes_and_schedules_each_next_change_once(prefect_api, committed):
    """SP-8: run late, twice: the second run changes nothing and schedules nothing again."""
    with Session(committed) as s, s.begin():
        tids = []
        for _ in range(2):
            t = tournament(s)
            enter(s, t)
            clock_service.act(s, t.id, "start", T0)
            tids.append(t.id)
    serve("advance-clocks")
    now = T0 + timedelta(minutes=21)
    first = advance_clocks(now=now)
    assert [(r["tournament_id"], r["levels_started"]) for r in first["advanced"]] == [
        (tids[0], [2]),
        (tids[1], [2]),
    ]
    assert [r["at"] for r in first["scheduled"]] == [T0 + timedelta(minutes=40)] * 2
    assert [row["tournament_id"] for row in latest_artifact("advance-clocks")] == tids
    second = advance_clocks(now=now)
    assert second == {"advanced": [], "scheduled": []}
    runs = scheduled_runs("advance-clocks")
    assert [(p["tournament_id"], at.timestamp()) for p, at in runs] == [
        (tid, (T0 + timedelta(minutes=40)).timestamp()) for tid in tids
    ]
    exact = advance_clocks(tournament_id=tids[0], now=T0 + timedelta(minutes=40))  # the exact run, on time
    assert exact["advanced"][0]["levels_started"] == [3]
    with committed.connect() as conn:
        assert conn.execute(text("SELECT count(*) FROM poker_clock_events")).scalar_one() == 2 * 2 + 2


def test_process_no_shows_schedules_one_run_at_the_close_and_moves_it_with_the_deadline(
    prefect_api, committed
):
    """3.8: the exact run sits at the late-registration close; a moved deadline moves it."""
    with Session(committed) as s, s.begin():
        t = tournament(s, status="registration_open", no_show_policy="drop")
        register(s, t, checked_in=False)
        tid = t.id
    serve("process-no-shows")
    before = T0 - timedelta(hours=2)
    assert process_no_shows(now=before)["scheduled"] == [
        {"tournament_id": tid, "at": T0 + timedelta(hours=1)}
    ]
    with committed.begin() as conn:
        conn.execute(
            text("UPDATE poker_tournaments SET late_reg_deadline = :d WHERE id = :id"),
            {"d": T0 + timedelta(hours=2), "id": tid},
        )
    process_no_shows(now=before)
    process_no_shows(now=before)
    runs = [(p, at) for p, at in scheduled_runs("process-no-shows") if p["tournament_id"] == tid]
    assert [at.timestamp() for _, at in runs] == [(T0 + timedelta(hours=2)).timestamp()]
    with committed.begin() as conn:
        conn.execute(text("UPDATE poker_tournaments SET status = 'running' WHERE id = :id"), {"id": tid})
    early = process_no_shows(tournament_id=tid, now=T0 + timedelta(hours=2) - timedelta(seconds=1))
    assert early["processed"] == []
    on_time = process_no_shows(tournament_id=tid, now=T0 + timedelta(hours=2))
    assert on_time["processed"] == [{"tournament_id": tid, "policy": "drop", "dropped": 1, "dead_stacks": 0}]
    assert latest_artifact("process-no-shows") == [
        {"tournament_id": tid, "policy": "drop", "dropped": 1, "dead_stacks": 0}
    ]
    assert process_no_shows(tournament_id=tid, now=T0 + timedelta(hours=3))["processed"] == []
