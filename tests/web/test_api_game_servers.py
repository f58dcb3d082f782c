"""Game servers report Pusoy Dos games through `/api/v1` (RULES PD-5, PD-6, AC-1, AC-2): a token bound to
its cups, reports idempotent by the game, the round completed after its last report by the event
consumer."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, datetime

import httpx
import pytest
from sqlalchemy import func, select
from sqlalchemy.orm import Session

from domain.access.services import accounts, signin
from domain.pusoy.services import setup as pusoy_setup
from domain.pusoy.tables import PusoyGame, PusoyRound
from domain.store.db import unit_of_work
from tests.support.db import contents
from tests.support.events import consuming, wait_for
from tests.support.world import seating


@pytest.fixture
def cup(web, committed, prefect_api):
    """A filled 8-player cup (2 tables), a game server's token bound to it, and another cup."""
    now = datetime.now(UTC)
    with unit_of_work(committed) as session:
        t = pusoy_setup.create(session, name="Cup", capacity=8, games_per_round=1, now=now, organizer="org")
        other = pusoy_setup.create(session, name="Other", capacity=8, games_per_round=1, now=now, organizer="org")
        for n in range(8):
            pusoy_setup.join(session, t.code, f"p{n}", now)
        server = accounts.add(session, "games@example.org", now)
        _, token = signin.create_token(session, server, "table host", [f"cup:{t.code}"], now)
        tables = seating(session, t.id, 1)
    return {
        "code": t.code,
        "id": t.id,
        "other": other.code,
        "tables": tables,
        "headers": {"authorization": f"Bearer {token}"},
    }


def _report(client, cup, table, order=None, code=None):
    body = {"round": 1, "table": table, "game": 1, "finishes": order or cup["tables"][table]}
    return client.post(f"/api/v1/pusoy/{code or cup['code']}/reports", json=body, headers=cup["headers"])


def test_pd_5_the_same_report_sent_five_times_at_once_is_counted_once(web, committed, cup):
    """PD-5: a game server's retries meet one game row; each is answered; one is the first."""

    def send(_):
        with httpx.Client(base_url=web.url, timeout=60) as client:
            return _report(client, cup, 1)

    with ThreadPoolExecutor(5) as pool:
        answers = list(pool.map(send, range(5)))
    assert [a.status_code for a in answers] == [200] * 5
    assert sorted(a.json()["repeated"] for a in answers) == [False, True, True, True, True]
    with Session(committed) as session:
        assert session.scalar(select(func.count()).select_from(PusoyGame)) == 1


def test_pd_5_another_result_for_a_reported_game_is_refused_with_what_was_reported(http, committed, cup):
    """PD-5, PD-6: a conflicting second report is refused (409) with its reason, and changes nothing."""
    assert _report(http, cup, 1).status_code == 200
    with Session(committed) as session:
        before = contents(session)
    first, second, *rest = cup["tables"][1]
    refused = _report(http, cup, 1, [second, first, *rest])
    assert refused.status_code == 409
    assert refused.json()["code"] == "already-reported" and ", ".join(cup["tables"][1]) in refused.json()["detail"]
    with Session(committed) as session:
        assert contents(session) == before


def test_ac_2_a_server_reporting_for_a_cup_it_is_not_bound_to_gets_the_missing_cups_answer(http, cup):
    """AC-1, AC-2: not bound = not found, word for word."""
    other = _report(http, cup, 1, code=cup["other"])
    missing = _report(http, cup, 1, code="ZZZZZZ")
    assert other.status_code == missing.status_code == 404
    assert other.json()["detail"].replace(cup["other"], "?") == missing.json()["detail"].replace("ZZZZZZ", "?")


def test_pd_5_the_last_report_answers_at_once_and_the_event_consumer_completes_the_round(http, committed, cup):
    """PD-5, PD-8, issue 41: the round's last game, reported by the server, is answered `round_ready`
    without a flow run and before the round locks (no consumer is running yet); the event consumer then
    locks and advances the round."""
    assert _report(http, cup, 1).json()["round_ready"] is False
    last = _report(http, cup, 2)
    assert last.status_code == 200
    assert last.json() == {"tournament_id": cup["id"], "round_ready": True, "repeated": False}
    assert _round_status(committed, cup) == "playing"
    assert _runs_named(f"complete-rounds pusoy-{cup['id']}") == []
    with consuming():
        assert wait_for(lambda: _round_status(committed, cup) == "locked")
    amend = http.post(
        f"/api/v1/pusoy/{cup['code']}/amendments",
        json={"round": 1, "table": 1, "game": 1, "finishes": cup["tables"][1], "reason": "late"},
        headers=cup["headers"],
    )
    assert amend.status_code == 409 and amend.json()["code"] == "round-locked"


def _round_status(engine, cup) -> str:
    with Session(engine) as session:
        return session.scalar(
            select(PusoyRound.status).where(PusoyRound.tournament_id == cup["id"], PusoyRound.number == 1)
        )


def _runs_named(name: str) -> list:
    from prefect.client.orchestration import get_client
    from prefect.client.schemas.filters import FlowRunFilter, FlowRunFilterName

    with get_client(sync_client=True) as client:
        return client.read_flow_runs(flow_run_filter=FlowRunFilter(name=FlowRunFilterName(any_=[name])))


# a report's budget: who the token is, the cup named, the cup, the game (not yet reported), the round (locked),
# the table's players, the game again (under the lock), the game's row, its finishes, its audit, the games
# counted, the audit row
REPORT_STATEMENTS = 13  # the NOTIFY of the change to its followers included


def test_pd_5_a_report_keeps_to_its_statement_budget(http, committed, cup):
    """PD-5, AC-3: a game server's report sends at most REPORT_STATEMENTS SQL statements (none per player;
    the token's last use is written at most once a minute, here by a call before), and its game, its
    finishes, the game's audit and the audit trail's row are all written."""
    from domain.access.tables import AuditRecord
    from domain.pusoy.tables import PusoyFinish, PusoyGameAudit
    from domain.store.db import StatementCounter

    assert http.get("/api/v1/pusoy", headers=cup["headers"]).status_code == 200  # the token's last use, written
    with StatementCounter(committed) as counted:
        r = _report(http, cup, 1)
    assert r.status_code == 200 and r.json() == {"tournament_id": cup["id"], "round_ready": False, "repeated": False}
    assert counted.count <= REPORT_STATEMENTS
    with Session(committed) as session:
        assert session.scalar(select(func.count()).select_from(PusoyGame)) == 1
        assert session.scalar(select(func.count()).select_from(PusoyFinish)) == 4
        audit = session.scalars(select(PusoyGameAudit)).one()
        assert (audit.table_no, audit.action, audit.before, audit.reason) == (1, "report", None, None)
        assert audit.after == {"finishes": {p: n for n, p in enumerate(cup["tables"][1], 1)}, "two_of_diamonds": None}
        trail = session.scalars(select(AuditRecord).order_by(AuditRecord.id)).all()[-1]
        assert (trail.action, trail.target, trail.data["table"]) == ("pusoy.report", f"cup {cup['code']}", 1)
