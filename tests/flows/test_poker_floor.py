"""The `advance-clocks` and `process-no-shows` sweeps on a real Prefect API and the real database:
artifacts, nothing done twice, nothing done before its instant (SP-8, 3.8)."""

from __future__ import annotations

from datetime import timedelta

from prefect.client.orchestration import get_client
from sqlalchemy import text
from sqlalchemy.orm import Session

from domain.poker.services import clock as clock_service
from flows.jobs.poker_moments import advance_clocks, process_no_shows
from tests.support.world import T0, enter, register, tournament


def latest_artifact(key: str) -> list[dict]:
    import json

    with get_client(sync_client=True) as client:
        artifacts = client.read_latest_artifacts()
    found = next(a for a in artifacts if a.key == key)
    return json.loads(found.data) if isinstance(found.data, str) else found.data


def test_advance_clocks_records_once_and_publishes(prefect_api, committed):
    """SP-8: run late, twice: the second run changes nothing."""
    with Session(committed) as s, s.begin():
        tids = []
        for _ in range(2):
            t = tournament(s)
            enter(s, t)
            clock_service.act(s, t.id, "start", T0)
            tids.append(t.id)
    now = T0 + timedelta(minutes=21)
    first = advance_clocks(now=now)
    assert [(r["tournament_id"], r["levels_started"], r["next_change_at"]) for r in first["advanced"]] == [
        (tids[0], [2], T0 + timedelta(minutes=40)),
        (tids[1], [2], T0 + timedelta(minutes=40)),
    ]
    assert [row["tournament_id"] for row in latest_artifact("advance-clocks")] == tids
    assert advance_clocks(now=now) == {"advanced": []}
    one = advance_clocks(tournament_id=tids[0], now=T0 + timedelta(minutes=40))  # one tournament, on time
    assert one["advanced"][0]["levels_started"] == [3]
    with committed.connect() as conn:
        assert conn.execute(text("SELECT count(*) FROM poker_clock_events")).scalar_one() == 2 * 2 + 2


def test_process_no_shows_processes_at_the_close_not_before_and_once(prefect_api, committed):
    """3.8: a moved deadline is the close; a second before it nothing happens; at it, once."""
    with Session(committed) as s, s.begin():
        t = tournament(s, status="registration_open", no_show_policy="drop")
        register(s, t, checked_in=False)
        tid = t.id
    with committed.begin() as conn:
        conn.execute(
            text(
                "UPDATE poker_tournaments SET late_reg_deadline = :d, status = 'running', started_at = :s "
                "WHERE id = :id"
            ),
            {"d": T0 + timedelta(hours=2), "s": T0, "id": tid},
        )
    early = process_no_shows(tournament_id=tid, now=T0 + timedelta(hours=2) - timedelta(seconds=1))
    assert early["processed"] == []
    on_time = process_no_shows(tournament_id=tid, now=T0 + timedelta(hours=2))
    assert on_time["processed"] == [{"tournament_id": tid, "policy": "drop", "dropped": 1, "dead_stacks": 0}]
    assert latest_artifact("process-no-shows") == [
        {"tournament_id": tid, "policy": "drop", "dropped": 1, "dead_stacks": 0}
    ]
    assert process_no_shows(tournament_id=tid, now=T0 + timedelta(hours=3))["processed"] == []
