"""`verify-clubs` and `reverify-clubs` on a real Prefect API, the real database and a real local
registry server; applying triggers a `verify-clubs` run of the deployment at once (CL-2, CL-3)."""

from __future__ import annotations

import asyncio
import threading
from datetime import UTC, datetime, timedelta

import pytest
from prefect.client.orchestration import get_client
from prefect.client.schemas.filters import DeploymentFilter, DeploymentFilterName
from sqlalchemy import select, update

from domain.clubs.rules.catalog import NewClub
from domain.clubs.services import clubs as service
from domain.clubs.tables import Club, ClubDecision
from domain.store.db import unit_of_work
from flows.jobs.clubs import reverify_clubs, trigger_verification, verify_clubs
from tests.clubs_registry_data import inn10, ogrn13, party
from tests.clubs_registry_server import RegistryServer

NOW = datetime.now(UTC)


@pytest.fixture
def registry(monkeypatch):
    with RegistryServer() as server:
        monkeypatch.setenv("REGISTRY_URL", server.url)
        monkeypatch.setenv("REGISTRY_TOKEN", server.token)
        monkeypatch.setenv("REGISTRY_RATE", "200")
        yield server


def _apply(engine, n: int) -> int:
    with unit_of_work(engine) as session:
        club = service.add_club(
            session, NewClub(f"Club {n}", "legal_entity", inn10(n), ogrn13(n), "r@club.example", "Europe/Moscow"), NOW
        )
        service.apply(session, club.id, NOW, provider_configured=True)
        return club.id


async def _artifact(key: str):
    async with get_client() as client:
        return next(a for a in await client.read_latest_artifacts() if a.key == key)


def test_cl_2_verify_clubs_decides_every_pending_application_and_publishes_a_table(prefect_api, committed, registry):
    ids = [_apply(committed, n) for n in range(3)]
    registry.add(party(inn10(0), ogrn13(0)), party(inn10(1), ogrn13(1), status="LIQUIDATING"))
    assert verify_clubs() == {"refuse": 2, "verify": 1}
    assert verify_clubs() == {}  # a second run finds nothing left to decide
    artifact = asyncio.run(_artifact("verify-clubs"))
    assert artifact.type == "table"
    assert len(registry.seen) == 3
    with unit_of_work(committed) as session:
        assert [session.get_one(Club, i).verification_status for i in ids] == ["verified", "refused", "refused"]


def test_cl_4_reverify_clubs_revokes_a_club_no_longer_active(prefect_api, committed, registry):
    club_id = _apply(committed, 5)
    registry.add(party(inn10(5), ogrn13(5)))
    verify_clubs()
    with unit_of_work(committed) as session:
        session.execute(update(Club).values(last_checked_at=NOW - timedelta(days=31)))
    registry.records[inn10(5)] = [party(inn10(5), ogrn13(5), status="LIQUIDATED")]
    assert reverify_clubs() == {"revoke": 1}
    with unit_of_work(committed) as session:
        assert session.get_one(Club, club_id).verification_status == "revoked"


def test_cl_3_verify_clubs_without_a_provider_queues_every_pending_application(prefect_api, committed, monkeypatch):
    monkeypatch.delenv("REGISTRY_URL", raising=False)
    _apply(committed, 7)
    assert verify_clubs() == {"queue": 1}


def test_applying_starts_a_verify_clubs_run_of_the_deployment_once(prefect_api):
    async def run_names():
        async with get_client() as client:
            runs = await client.read_flow_runs(
                deployment_filter=DeploymentFilter(name=DeploymentFilterName(any_=["verify-clubs"]))
            )
            return [r.name for r in runs]

    deployment_id = verify_clubs.to_deployment(name="verify-clubs").apply()
    assert deployment_id
    first = trigger_verification(41, 1)
    again = trigger_verification(41, 1)
    assert first == "verify-clubs run verify-clubs club-41 application 1 started"  # named by what it is for
    assert again == first  # the same application never starts a second run
    assert asyncio.run(run_names()) == ["verify-clubs club-41 application 1"]


def test_two_verify_clubs_runs_at_once_decide_each_application_once(prefect_api, committed, registry):
    ids = [_apply(committed, n) for n in range(10, 30)]
    for n in range(10, 30):
        registry.add(party(inn10(n), ogrn13(n)))
    results: list[dict] = []
    threads = [threading.Thread(target=lambda: results.append(verify_clubs(concurrency=2))) for _ in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sum(r.get("verify", 0) for r in results) == 20
    with unit_of_work(committed) as session:
        decisions = session.scalars(select(ClubDecision.club_id).where(ClubDecision.action == "verify")).all()
    assert sorted(decisions) == ids
