"""`verify-clubs` and `reverify-clubs` runs against a real local registry server and real commits
(CL-2, CL-3, CL-4): outcomes, attempts, idempotency when run twice and twice at once."""

from __future__ import annotations

import threading
from datetime import UTC, datetime, timedelta

import pytest
from sqlalchemy import func, select

from domain.clubs.rules.catalog import NewClub
from domain.clubs.rules.verification import Check
from domain.clubs.services import clubs as service
from domain.clubs.tables import Club, ClubDecision
from domain.store.db import unit_of_work
from flows.jobs.clubs import queue_without_provider, run_checks
from infra.registry_http import HttpPartyProvider
from infra.registry_rate import SharedRateLimiter
from tests.clubs_registry_data import inn10, ogrn13, party
from tests.clubs_registry_server import RegistryServer

NOW = datetime(2026, 11, 29, 12, 0, tzinfo=UTC)


@pytest.fixture
def registry():
    with RegistryServer(slow_seconds=1.5) as server:  # a slow answer outlasts the provider's time-out
        yield server


@pytest.fixture
def provider(registry, committed):
    limiter = SharedRateLimiter(committed, "registry", 500.0)
    with HttpPartyProvider(
        registry.url, registry.token, limiter=limiter, timeout=1.0, retries=1, sleep=lambda s: None
    ) as p:
        yield p


def _club(engine, name: str, inn: str, ogrn: str, *, apply: bool = True) -> int:
    with unit_of_work(engine) as session:
        club = service.add_club(
            session, NewClub(name, "legal_entity", inn, ogrn, "r@club.example", "Europe/Moscow"), NOW
        )
        if apply:
            service.apply(session, club.id, NOW, provider_configured=True)
        return club.id


def _get(engine, club_id: int) -> Club:
    with unit_of_work(engine) as session:
        return session.get_one(Club, club_id)


def _decisions(engine, club_id: int) -> list[tuple]:
    with unit_of_work(engine) as session:
        return [(d.action, d.source, d.reason, d.raw_answer) for d in service.history(session, club_id)]


def _decision_count(engine) -> int:
    with unit_of_work(engine) as session:
        return session.scalar(
            select(func.count()).select_from(ClubDecision).where(ClubDecision.action.in_(["verify", "refuse", "queue"]))
        )


def test_cl_2_a_run_verifies_refuses_and_queues_each_with_its_reason_and_raw_answer(committed, registry, provider):
    sber = _club(committed, "Sber", "7707083893", "1027700132195")
    yandex = _club(committed, "Yandex", "7736207543", "1027700229193")
    ghost = _club(committed, "Ghost", inn10(1), ogrn13(1))
    broken = _club(committed, "Broken", inn10(2), ogrn13(2))
    registry.add(party("7707083893", "1027700132195"))
    registry.add(party("7736207543", "1027700229193", status="LIQUIDATED", name="ООО ЯНДЕКС"))
    registry.script(inn10(2), "malformed")

    rows = run_checks(committed, provider, lambda: NOW)

    assert [(r["club"], r["outcome"]) for r in rows] == [
        (sber, "verify"),
        (yandex, "refuse"),
        (ghost, "refuse"),
        (broken, "queue"),
    ]
    club = _get(committed, sber)
    assert (club.verification_status, club.verified_at, club.last_checked_at) == ("verified", NOW, NOW)
    assert _get(committed, yandex).verification_reason == "ООО ЯНДЕКС has been liquidated (LIQUIDATED)"
    assert _get(committed, ghost).verification_reason == f"INN {inn10(1)} is not found in the registry"
    action, source, reason, raw = _decisions(committed, broken)[-1]
    assert (action, source, raw) == ("queue", "registry", '{"suggestions": [{"data": ')
    assert reason.startswith("the registry's answer is malformed: not JSON")
    assert _get(committed, broken).queued_at == NOW
    assert '"1027700132195"' in _decisions(committed, sber)[-1][3]


def test_cl_3_a_registry_that_keeps_failing_leaves_the_application_pending_then_queues_it(
    committed, registry, provider
):
    club_id = _club(committed, "Flaky", "7707083893", "1027700132195")
    registry.script("7707083893", 500, 500, 429, 503, "slow", "slow")

    first = run_checks(committed, provider, lambda: NOW, max_attempts=3)
    second = run_checks(committed, provider, lambda: NOW, max_attempts=3)
    assert [r["outcome"] for r in first + second] == ["retry", "retry"]
    club = _get(committed, club_id)
    assert (club.verification_status, club.attempts, club.queued_at) == ("pending", 2, None)
    assert club.last_error == 'the registry answered HTTP 503: {"message": "scripted 503"} (after 2 tries)'

    third = run_checks(committed, provider, lambda: NOW, max_attempts=3)
    assert [r["outcome"] for r in third] == ["queue"]
    club = _get(committed, club_id)
    assert (club.verification_status, club.attempts, club.queued_at) == ("pending", 3, NOW)
    assert club.verification_reason == (
        "the registry kept failing (3 attempts): the registry did not answer in time (after 2 tries)"
    )
    assert run_checks(committed, provider, lambda: NOW) == []


def test_cl_3_without_a_provider_the_run_moves_every_pending_application_to_the_queue(committed):
    ids = [_club(committed, f"Club {n}", inn10(n), ogrn13(n)) for n in range(3)]
    assert queue_without_provider(committed, NOW) == [{"outcome": "queue", "count": 3, "reason": service.NO_PROVIDER}]
    assert queue_without_provider(committed, NOW) == []
    with unit_of_work(committed) as session:
        assert [c.id for c in service.moderation_queue(session)] == ids


def test_running_verification_twice_decides_each_application_once(committed, registry, provider):
    ids = [_club(committed, f"Club {n}", inn10(n), ogrn13(n)) for n in range(5)]
    for n in range(5):
        registry.add(party(inn10(n), ogrn13(n)))
    assert [r["outcome"] for r in run_checks(committed, provider, lambda: NOW, batch_size=2)] == ["verify"] * 5
    assert run_checks(committed, provider, lambda: NOW) == []
    assert _decision_count(committed) == 5
    assert len(registry.seen) == 5
    assert all(_get(committed, i).verification_status == "verified" for i in ids)


def test_two_runs_at_once_decide_each_application_once_with_one_audit_entry(committed, registry, provider):
    count = 40
    for n in range(count):
        _club(committed, f"Club {n}", inn10(n), ogrn13(n))
        registry.add(party(inn10(n), ogrn13(n)))
    results: list[list[dict]] = [[], []]

    def run(slot: int) -> None:
        results[slot] = run_checks(committed, provider, lambda: NOW, concurrency=4, batch_size=5)

    threads = [threading.Thread(target=run, args=(slot,)) for slot in (0, 1)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    decided = [r["club"] for r in results[0] + results[1] if r["outcome"] == "verify"]
    assert sorted(decided) == sorted(set(decided)) and len(decided) == count
    assert _decision_count(committed) == count
    with unit_of_work(committed) as session:
        per_club = session.execute(
            select(ClubDecision.club_id, func.count())
            .where(ClubDecision.action == "verify")
            .group_by(ClubDecision.club_id)
        ).all()
    assert {n for _, n in per_club} == {1}


def test_a_decision_lands_once_even_when_a_lease_ran_out_and_two_runs_checked_the_same_row(
    committed, registry, provider
):
    club_id = _club(committed, "Sber", "7707083893", "1027700132195")
    registry.add(party("7707083893", "1027700132195"))
    with unit_of_work(committed) as session:
        (first,) = service.claim(session, NOW, lease=timedelta(minutes=1))
    later = NOW + timedelta(minutes=1)  # exactly when the lease ends: claimable again
    with unit_of_work(committed) as session:
        (second,) = service.claim(session, later)
    raw = provider.lookup("7707083893")
    with unit_of_work(committed) as session:
        assert service.record(session, [Check(first, raw)], NOW, provider.name, 3) == {
            club_id: ("verify", "matches the registry: ПАО СБЕРБАНК, ACTIVE")
        }
    with unit_of_work(committed) as session:
        assert service.record(session, [Check(second, raw)], later, provider.name, 3) == {
            club_id: ("skipped", "decided by another run")
        }
    assert [a for a, *_ in _decisions(committed, club_id)] == ["create", "apply", "verify"]


def test_a_lease_held_one_second_longer_keeps_other_runs_away(committed):
    _club(committed, "Sber", "7707083893", "1027700132195")
    with unit_of_work(committed) as session:
        assert len(service.claim(session, NOW, lease=timedelta(minutes=1))) == 1
    with unit_of_work(committed) as session:
        assert service.claim(session, NOW + timedelta(seconds=59)) == []


def _verified(engine, registry, provider, n: int, checked_at: datetime) -> int:
    club_id = _club(engine, f"Club {n}", inn10(n), ogrn13(n))
    registry.add(party(inn10(n), ogrn13(n)))
    run_checks(engine, provider, lambda: checked_at)
    assert _get(engine, club_id).verification_status == "verified"
    return club_id


def test_cl_4_rechecks_are_due_exactly_at_the_age_and_not_a_second_before(committed, registry, provider):
    age = timedelta(days=30)
    due = _verified(committed, registry, provider, 1, NOW - age)
    fresh = _verified(committed, registry, provider, 2, NOW - age + timedelta(seconds=1))
    rows = run_checks(committed, provider, lambda: NOW, recheck=True, max_age=age)
    assert [(r["club"], r["outcome"]) for r in rows] == [(due, "recheck")]
    assert _get(committed, due).last_checked_at == NOW
    assert _get(committed, fresh).last_checked_at == NOW - age + timedelta(seconds=1)


def test_cl_4_a_verified_club_no_longer_active_loses_the_status_with_the_reason(committed, registry, provider):
    club_id = _verified(committed, registry, provider, 3, NOW - timedelta(days=40))
    registry.records[inn10(3)] = [party(inn10(3), ogrn13(3), status="BANKRUPT", name="ООО ТРИ")]
    rows = run_checks(committed, provider, lambda: NOW, recheck=True)
    assert [r["outcome"] for r in rows] == ["revoke"]
    club = _get(committed, club_id)
    assert (club.verification_status, club.verification_reason) == (
        "revoked",
        "no longer matches the registry: ООО ТРИ is bankrupt (BANKRUPT)",
    )
    assert _decisions(committed, club_id)[-1][:2] == ("revoke", "registry")


def test_cl_4_a_recheck_that_gets_no_usable_answer_keeps_the_status_and_tries_again_later(
    committed, registry, provider
):
    club_id = _verified(committed, registry, provider, 4, NOW - timedelta(days=40))
    registry.script(inn10(4), "malformed")
    assert [r["outcome"] for r in run_checks(committed, provider, lambda: NOW, recheck=True)] == ["retry"]
    club = _get(committed, club_id)
    assert (club.verification_status, club.last_checked_at, club.attempts) == ("verified", NOW - timedelta(days=40), 0)
    assert [r["outcome"] for r in run_checks(committed, provider, lambda: NOW, recheck=True)] == ["recheck"]
