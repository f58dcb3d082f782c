"""A club's tokens (AC-4, AC-2, AC-3): the owner makes a staff account's token narrowed to its roles in
the club, sees its secret once (stored as a digest, in no table), lists the club's tokens (never a
secret), revokes one (it stops at once, a second revocation is 409); another club's token, a platform
token and an account that is not the club's staff are not found, and a refusal writes nothing."""

from __future__ import annotations

import hashlib

import pytest
from sqlalchemy import text
from sqlalchemy.orm import Session

from tests.support.db import contents
from tests.support.world import access_world


@pytest.fixture
def world(web, committed):
    return access_world(committed)


def test_ac_4_the_owner_makes_lists_and_revokes_the_club_s_tokens(http, committed, world):
    owner = world.headers("owner")
    base = f"/api/v1/clubs/{world.club_a}/tokens"
    made = http.post(base, json={"email": world.emails["floor"], "name": "tablet 3", "roles": ["floor"]}, headers=owner)
    assert made.status_code == 201, made.text
    secret = made.json()["token"]
    assert made.json()["scopes"] == [f"floor@{world.club_a}"] and made.json()["name"] == "tablet 3"
    with Session(committed) as session:
        dump = session.scalar(text("SELECT string_agg(row_to_json(t)::text, '|') FROM account_tokens t"))
        trail = session.scalar(text("SELECT string_agg(row_to_json(a)::text, '|') FROM audit_trail a"))
        assert secret not in dump and secret not in trail
        assert hashlib.sha256(secret.encode()).hexdigest() in dump  # its digest alone
    tablet = {"authorization": f"Bearer {secret}"}
    assert http.get(f"/api/v1/tournaments/{world.tournament_a}/entries", headers=tablet).status_code == 200
    assert http.get("/api/v1/me", headers=tablet).status_code == 404  # no account scope
    listed = http.get(base, headers=owner).json()
    assert made.json()["id"] in [t["id"] for t in listed]
    assert all(all(s.endswith(f"@{world.club_a}") for s in t["scopes"]) for t in listed)
    assert "token" not in listed[0]
    gone = http.delete(f"{base}/{made.json()['id']}", headers=owner)
    assert gone.status_code == 200 and gone.json()["id"] == made.json()["id"]
    assert http.get(f"/api/v1/tournaments/{world.tournament_a}/entries", headers=tablet).status_code == 401
    again = http.delete(f"{base}/{made.json()['id']}", headers=owner)
    assert (again.status_code, again.json()["code"]) == (409, "token-revoked")


def test_ac_2_no_other_club_s_token_nor_account_is_the_owner_s(http, committed, world):
    owner = world.headers("owner")
    base = f"/api/v1/clubs/{world.club_a}/tokens"
    with Session(committed) as session:
        before = contents(session)
        operator_token = session.scalar(
            text("SELECT t.id FROM account_tokens t JOIN accounts a ON a.id = t.account_id WHERE a.email = :e"),
            {"e": world.emails["operator"]},
        )
    missing = http.delete(f"{base}/900000001", headers=owner)
    platform = http.delete(f"{base}/{operator_token}", headers=owner)
    assert missing.status_code == platform.status_code == 404
    assert missing.json()["code"] == platform.json()["code"] == "token-not-found"
    stranger = http.post(base, json={"email": world.emails["owner_b"], "name": "x", "roles": ["owner"]}, headers=owner)
    nobody = http.post(base, json={"email": "no-such@example.org", "name": "x", "roles": ["owner"]}, headers=owner)
    assert stranger.status_code == nobody.status_code == 404
    assert stranger.json()["code"] == nobody.json()["code"] == "account-not-found"
    not_held = http.post(base, json={"email": world.emails["cashier"], "name": "x", "roles": ["floor"]}, headers=owner)
    assert (not_held.status_code, not_held.json()["code"]) == (409, "scope-not-held")
    other_owner = http.get(base, headers=world.headers("owner_b"))
    assert (other_owner.status_code, other_owner.json()["code"]) == (404, "club-not-found")
    with Session(committed) as session:
        after = contents(session)
    assert {t for t in before if before[t] != after[t]} <= {"account_tokens"}  # the callers' last use
