"""`Idempotency-Key` (issue 38; RULES AC-3): a write sent again with its key within 24 hours gets the
first answer again and is done once (one change, one audit row); the key with another request is a 409;
two at once with one key make one change; past 24 hours a key is new again."""

from __future__ import annotations

import hashlib
import threading
from datetime import UTC, datetime, timedelta

import pytest
from sqlalchemy import func, select
from sqlalchemy.orm import Session

from domain.access.services import idempotency
from domain.access.tables import AuditRecord, IdempotentAnswer
from domain.poker.tables.tournaments import Registration
from domain.store.db import unit_of_work
from tests.support.world import access_world


@pytest.fixture
def world(web, committed):
    return access_world(committed)


def _count(committed, table, *where) -> int:
    with Session(committed) as session:
        return session.scalar(select(func.count()).select_from(table).where(*where))


def test_ac_3_a_write_sent_again_with_its_key_is_answered_again_and_done_once(http, committed, world):
    """The same key and request: the first answer again (`Idempotent-Replayed: true`), one registration,
    one audit row; the key with another body: 409 `idempotency-key-reused`, nothing written."""
    url = f"/api/v1/tournaments/{world.tournament_a}/registrations"
    headers = world.headers("floor") | {"idempotency-key": "2f9c1a4e-register-anna"}
    audit = _count(committed, AuditRecord)
    registrations = _count(committed, Registration, Registration.tournament_id == world.tournament_a)
    first = http.post(url, json={"player": "anna"}, headers=headers)
    again = http.post(url, json={"player": "anna"}, headers=headers)
    assert first.status_code == again.status_code == 200, (first.text, again.text)
    assert again.json() == first.json() and again.headers["idempotent-replayed"] == "true"
    assert "idempotent-replayed" not in first.headers
    assert _count(committed, AuditRecord) == audit + 1
    assert _count(committed, Registration, Registration.tournament_id == world.tournament_a) == registrations + 1
    other = http.post(url, json={"player": "nobody-else"}, headers=headers)
    assert (other.status_code, other.json()["code"]) == (409, "idempotency-key-reused")
    bad = http.post(url, json={"player": "anna"}, headers=world.headers("floor") | {"idempotency-key": "no spaces"})
    assert (bad.status_code, bad.json()["code"]) == (422, "bad-idempotency-key")
    assert _count(committed, AuditRecord) == audit + 1


def test_ac_3_a_replayed_answer_is_the_json_first_sent_its_instants_included(http, world):
    """An answer holding instants (the counter's settlement of a walk-in's fee): the replay sends them as
    the first answer's model did (`…Z`), not as the kept row's own encoding would (`+00:00`)."""
    desk = f"/api/v1/desk/tournaments/{world.tournament_a}"
    came = http.post(f"{desk}/arrivals", json={"player": "anna"}, headers=world.headers("floor")).json()
    body = {"player": str(came["player_id"]), "amount": came["owed"]["input"]}
    headers = world.headers("cashier") | {"idempotency-key": "settle-anna-once"}
    first = http.post(f"{desk}/settlements", json=body, headers=headers)
    again = http.post(f"{desk}/settlements", json=body, headers=headers)
    assert first.status_code == again.status_code == 200, (first.text, again.text)
    assert 'Z"' in first.text and "+00:00" not in first.text  # the case this proves: instants in the answer
    assert again.json() == first.json() and again.headers["idempotent-replayed"] == "true"


def test_ac_3_two_writes_at_once_with_one_key_make_one_change(web, http, committed, world):
    """Two connections at once with one key: one registration, one audit row; the other answer is the
    first's again or 409 `idempotency-key-in-use`."""
    url = f"{web.url}/api/v1/tournaments/{world.tournament_a}/registrations"
    headers = world.headers("floor") | {"idempotency-key": "at-once"}
    answers, start = [], threading.Barrier(2)
    registrations = _count(committed, Registration, Registration.tournament_id == world.tournament_a)

    def send():
        import httpx

        start.wait()
        answers.append(httpx.post(url, json={"player": "anna"}, headers=headers, timeout=10))

    threads = [threading.Thread(target=send) for _ in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sorted(a.status_code for a in answers) in ([200, 200], [200, 409]), [a.text for a in answers]
    assert _count(committed, Registration, Registration.tournament_id == world.tournament_a) == registrations + 1


def test_a_key_is_kept_exactly_24_hours(committed):
    """The window's edges, time injected: a second before 24 hours the answer is recalled; at 24 hours
    the key is new again."""
    now = datetime(2026, 3, 1, 12, tzinfo=UTC)
    asked = idempotency.Asked("token:1", "k", hashlib.sha256(b"x").digest())
    with unit_of_work(committed) as session:
        assert idempotency.recall(session, asked, now) is None
        idempotency.keep(session, asked, idempotency.Kept(201, {"id": 7}), now)
    with unit_of_work(committed) as session:
        just = idempotency.recall(session, asked, now + idempotency.WINDOW - timedelta(seconds=1))
        assert just == idempotency.Kept(201, {"id": 7})
    with unit_of_work(committed) as session:
        assert idempotency.recall(session, asked, now + idempotency.WINDOW) is None


def test_ac_4_an_answer_holding_a_secret_is_never_kept(http, committed, world):
    """AC-4: a token's secret (or a webhook's) is shown once and stored as its digest alone: a key sent
    with its creation is not honoured, so the secret never lands in the kept answers."""
    body = {"email": world.emails["floor"], "name": "tablet", "roles": ["floor"]}
    headers = world.headers("owner") | {"idempotency-key": "secret-once"}
    made = http.post(f"/api/v1/clubs/{world.club_a}/tokens", json=body, headers=headers)
    assert made.status_code == 201
    again = http.post(f"/api/v1/clubs/{world.club_a}/tokens", json=body, headers=headers)
    assert again.status_code == 201 and again.json()["token"] != made.json()["token"]
    assert _count(committed, IdempotentAnswer) == 0
    document = http.get("/api/v1/openapi.json").json()["paths"]["/clubs/{club_id}/tokens"]["post"]
    assert document["x-secret-once"] is True
    assert "Idempotency-Key" not in [p["name"] for p in document["parameters"]]
