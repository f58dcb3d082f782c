"""Players online: webhooks through `/api/v1`: a club's owner registers an endpoint (the secret answered
once, the one the platform signs with, and in no table), lists the club's endpoints (no secret) and
removes one; the floor cannot, nor the owner of another club (AC-2); a private host is refused."""

from __future__ import annotations

import pytest
from sqlalchemy import text
from sqlalchemy.orm import Session

from domain.webhooks.rules.signing import derive_secret
from domain.webhooks.tables import Endpoint
from infra.config import load_settings
from tests.support.world import access_world


@pytest.fixture
def world(web, committed):
    return access_world(committed)


def _base(w):
    return f"/api/v1/clubs/{w.club_a}/webhooks"


def test_webhook_the_owner_registers_lists_and_removes_an_endpoint(http, committed, world):
    """Players online: webhooks; AC-3: the registration is audited, its secret is not."""
    body = {"url": "https://hooks.club.example/tourney", "events": ["round.completed", "documents.ready"]}
    made = http.post(_base(world), json=body, headers=world.headers("owner"))
    assert made.status_code == 201, made.text
    answer = made.json()
    secret = answer["secret"]
    with Session(committed) as session:
        endpoint = session.get(Endpoint, answer["id"])
        assert derive_secret(load_settings().secret_key(), endpoint.id, endpoint.created_at) == secret
        dump = session.scalar(
            text(
                "SELECT string_agg(r::text, '|') FROM (SELECT row_to_json(x)::text AS r FROM webhook_endpoints x"
                " UNION ALL SELECT row_to_json(a)::text FROM audit_trail a) r"
            )
        )
    assert secret.removeprefix("whsec_") not in dump and "hooks.club.example" in dump
    listed = http.get(_base(world), headers=world.headers("owner"))
    assert listed.status_code == 200 and "secret" not in listed.text and "whsec_" not in listed.text
    [row] = listed.json()
    assert row["events"] == body["events"] and row["deliveries"] == {"pending": 0, "delivered": 0, "failed": 0}
    assert row["recent"] == []  # the newest deliveries, none yet (the console's page shows them)
    removed = http.delete(f"{_base(world)}/{answer['id']}", headers=world.headers("owner"))
    assert removed.status_code == 200 and removed.json()["disabled_at"]
    other = http.delete(f"/api/v1/clubs/{world.club_b}/webhooks/{answer['id']}", headers=world.headers("owner_b"))
    assert other.status_code == 404 and other.json()["code"] == "webhook-not-found"


def test_webhook_the_floor_and_another_clubs_owner_are_answered_as_for_a_missing_club(http, world):
    """Players online: webhooks; AC-2."""
    body = {"url": "https://hooks.club.example/tourney", "events": ["tournament.finished"]}
    missing = http.post("/api/v1/clubs/900000001/webhooks", json=body, headers=world.headers("owner"))
    for who in ("floor", "owner_b", "cashier"):
        refused = http.post(_base(world), json=body, headers=world.headers(who))
        assert refused.status_code == missing.status_code == 404
        assert refused.json()["code"] == missing.json()["code"] == "club-not-found"


def test_webhook_a_private_or_plain_http_url_and_an_unknown_event_are_refused(http, world):
    """Players online: webhooks."""
    for url, events, status, code in (
        ("http://127.0.0.1:8000/hook", ["round.completed"], 409, "webhook-private-host"),
        ("https://192.168.1.10/hook", ["round.completed"], 409, "webhook-private-host"),
        ("http://hooks.club.example/hook", ["round.completed"], 409, "webhook-https"),
        ("https://hooks.club.example/hook", ["round.done"], 422, "bad-input"),
        ("https://hooks.club.example/hook", [], 422, "bad-input"),
    ):
        response = http.post(_base(world), json={"url": url, "events": events}, headers=world.headers("owner"))
        assert (response.status_code, response.json()["code"]) == (status, code), (url, response.text)
    assert http.get(_base(world), headers=world.headers("owner")).json() == []
