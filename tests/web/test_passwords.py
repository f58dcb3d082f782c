"""A password reset (the pages and `/api/v1`) and a password change write an audit row each (RULES
AC-3), never the password or the link's secret; the change is throttled as a sign-in is (AC-4). Over
real HTTP and PostgreSQL."""

from __future__ import annotations

import json
import re

import httpx
import pytest
from sqlalchemy import select, text

from domain.access.tables import AuditRecord
from domain.store.db import unit_of_work
from flows import bootstrap
from flows.web.auth import COOKIE, CSRF_HEADER
from tests.support.world import PASSWORD, access_world
from tests.web.test_account_pages import _client, _csrf, _link_from_outbox, _sign_in

NEW = "a brand new passphrase for anna"
NEWER = "and a newer passphrase still"


@pytest.fixture
def world(web, committed):
    return access_world(committed, bootstrap.password_hasher(), passwords=("player",))


def _trail(engine) -> list[tuple]:
    with unit_of_work(engine) as session:
        rows = session.execute(
            select(
                AuditRecord.actor_kind,
                AuditRecord.actor_label,
                AuditRecord.account_id,
                AuditRecord.action,
                AuditRecord.target,
                AuditRecord.data,
            )
            .where(AuditRecord.action.like("account.%"))
            .order_by(AuditRecord.id)
        ).all()
        return [tuple(r) for r in rows]


def _everything(engine) -> str:
    """Every row of the audit trail, as the database holds it."""
    with engine.connect() as conn:
        return "\n".join(conn.scalars(text("SELECT row_to_json(a)::text FROM audit_trail a")))


def test_ac_3_a_reset_by_the_pages_writes_a_row_for_the_link_and_one_for_the_password(web, world, committed):
    player, pid = world.emails["player"], world.account_ids["player"]
    with _client(web) as client:
        client.post("/reset", data={"email": "no-such-person@example.org"}, headers={"origin": web.url})
        assert _trail(committed) == []  # no account: nothing changed, nothing recorded
        assert client.post("/reset", data={"email": player}, headers={"origin": web.url}).status_code == 200
        secret = _link_from_outbox(web, player)
        r = client.post(f"/reset/{secret}", data={"password": NEW, "repeated": NEW}, headers={"origin": web.url})
        assert r.status_code == 303
    assert _trail(committed) == [
        ("anonymous", "anonymous", None, "account.reset", f"account {pid}", {"by": "e-mail"}),
        ("person", player, pid, "account.set-password", f"account {pid}", {"by": "reset link"}),
    ]
    assert secret not in _everything(committed) and NEW not in _everything(committed)


def test_ac_3_a_reset_by_the_api_writes_the_same_rows_and_signs_in_afresh(web, http, world, committed):
    player, pid = world.emails["player"], world.account_ids["player"]
    assert http.post("/api/v1/password-resets", json={"email": "no-such-person@example.org"}).json() == {"sent": True}
    asked = http.post("/api/v1/password-resets", json={"email": player.upper()})
    assert (asked.status_code, asked.json()) == (202, {"sent": True})
    secret = _link_from_outbox(web, player)
    bad = http.post("/api/v1/password", json={"link": secret, "password": "short", "repeated": "other"})
    assert bad.status_code == 409 and [p["code"] for p in bad.json()["problems"]] == [
        "password-too-short",
        "passwords-differ",
    ]
    done = http.post("/api/v1/password", json={"link": secret, "password": NEW, "repeated": NEW})
    assert done.status_code == 200 and set(done.json()) == {"csrf"} and COOKIE in done.headers["set-cookie"]
    again = http.post("/api/v1/password", json={"link": secret, "password": NEWER, "repeated": NEWER})
    assert (again.status_code, again.json()["code"]) == (410, "link-expired")
    assert _trail(committed) == [
        ("anonymous", "anonymous", None, "account.reset", f"account {pid}", {"by": "e-mail"}),
        ("person", player, pid, "account.set-password", f"account {pid}", {"by": "reset link"}),
    ]
    assert secret not in _everything(committed) and NEW not in _everything(committed)
    with _client(web) as client:
        assert _sign_in(client, web, player, NEW).status_code == 303


def test_ac_3_a_change_by_the_api_is_audited_and_a_wrong_current_password_is_throttled(web, http, world, committed):
    player, pid = world.emails["player"], world.account_ids["player"]
    with _client(web) as elsewhere:  # another device, signed out by the change
        assert _sign_in(elsewhere, web, player).status_code == 303
        signed = http.post("/api/v1/session", json={"email": player, "password": PASSWORD})
        headers = {CSRF_HEADER: signed.json()["csrf"]}
        body = {"current": PASSWORD, "password": NEW, "repeated": NEW}
        assert http.post("/api/v1/me/password", json=body).json()["code"] == "csrf"
        wrong = http.post("/api/v1/me/password", json=body | {"current": "not it at all"}, headers=headers)
        assert (wrong.status_code, wrong.json()["code"]) == (401, "wrong-password")
        assert _trail(committed) == []  # a miss changes nothing; its attempt is kept for the throttle
        done = http.post("/api/v1/me/password", json=body, headers=headers)
        assert done.status_code == 200 and done.json()["changed"] is True, done.text
        assert http.get("/api/v1/me").status_code == 200  # this browser: signed in afresh
        assert elsewhere.get("/account").status_code == 303
        fresh = {CSRF_HEADER: done.json()["csrf"]}
        for _ in range(4):  # 5 failures per account in 15 minutes (the sign-in's throttle), then it waits
            assert http.post("/api/v1/me/password", json=body | {"current": "x" * 12}, headers=fresh).status_code == 401
        waited = http.post("/api/v1/me/password", json=body | {"current": NEW}, headers=fresh)
        assert waited.status_code == 429 and waited.json()["code"] == "too-many-attempts"
    assert _trail(committed) == [
        ("person", player, pid, "account.change-password", f"account {pid}", {"by": "current password"}),
    ]
    assert NEW not in _everything(committed) and PASSWORD not in _everything(committed)


def test_ac_3_a_change_by_the_account_page_is_audited_and_signs_in_afresh(web, world, committed):
    player, pid = world.emails["player"], world.account_ids["player"]
    with _client(web, **{"accept-language": "en"}) as client:
        assert client.get("/account/password").headers["location"] == "/signin?next=/account/password"
        _sign_in(client, web, player)
        assert 'href="/account/password"' in client.get("/account").text
        form = client.get("/account/password")
        csrf = re.search(r'name="csrf" value="([0-9a-f]+)"', form.text).group(1)
        assert form.status_code == 200 and csrf == _csrf(client)
        fields = {"csrf": csrf, "current": PASSWORD, "password": NEW, "repeated": NEW}
        assert client.post("/account/password", data=fields | {"csrf": "0" * 64}).status_code == 403
        wrong = client.post("/account/password", data=fields | {"current": "nope nope nope"})
        assert wrong.status_code == 401 and "That is not your current password." in wrong.text
        short = client.post("/account/password", data=fields | {"password": "short", "repeated": "short"})
        assert short.status_code == 422 and "at least 10 characters" in short.text
        done = client.post("/account/password", data=fields)
        assert done.status_code == 303 and done.headers["location"] == "/account"
        assert client.get("/account").status_code == 200
    assert _trail(committed) == [
        ("person", player, pid, "account.change-password", f"account {pid}", {"by": "current password"}),
    ]
    assert NEW not in json.dumps(_everything(committed))
    with httpx.Client(base_url=web.url) as client:
        assert _sign_in(client, web, player, NEW).status_code == 303
