"""Credentials, CSRF, the audit trail and bad input through `/api/v1` (RULES AC-3, AC-4), over a real
server and PostgreSQL."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, datetime, timedelta

import httpx
import pytest
from sqlalchemy import select, text, update
from sqlalchemy.orm import Session

from domain.access.services import signin
from domain.access.tables import Account, SignInAttempt
from domain.clubs.tables import Club
from domain.store.db import unit_of_work
from flows import bootstrap
from flows.web.auth import COOKIE, CSRF_HEADER
from tests.support.db import contents
from tests.support.world import PASSWORD, access_world, enter, player, web_auth


@pytest.fixture
def world(web, committed):
    return access_world(committed, bootstrap.password_hasher(), passwords=("floor", "player"))


def _sign_in(http, email, password=PASSWORD):
    return http.post("/api/v1/session", json={"email": email, "password": password})


def _all_text(engine) -> str:
    with Session(engine) as session:
        return " ".join(v or "" for v in _dump(session))


def _dump(session):
    from domain.tables import metadata

    for t in metadata.sorted_tables:
        yield session.scalar(text(f"SELECT string_agg(r::text, '|') FROM \"{t.name}\" r"))


def test_ac_4_a_sign_in_sets_an_httponly_samesite_cookie_and_the_password_is_kept_only_as_argon2id(
    http, committed, world
):
    """AC-4: one argon2id hash per account; no table holds the password or the session's secret."""
    response = _sign_in(http, world.emails["floor"])
    assert response.status_code == 200, response.text
    cookie = response.headers["set-cookie"]
    assert cookie.startswith(f"{COOKIE}=") and "HttpOnly" in cookie and "SameSite=lax" in cookie
    assert http.get("/api/v1/me").json()["roles"] == [f"floor@{world.club_a}"]
    with Session(committed) as session:
        hashed = session.scalar(select(Account.password_hash).where(Account.email == world.emails["floor"]))
    assert hashed.startswith("$argon2id$v=19$m=19456,t=2,p=1$")
    secret = http.cookies[COOKIE].split(".")[0]
    everything = _all_text(committed)
    assert PASSWORD not in everything and secret not in everything
    for token in world.tokens.values():
        assert token not in everything


def test_ac_4_a_wrong_password_and_an_unknown_email_get_the_same_answer(http, world):
    """AC-4: nobody learns which e-mails have accounts."""
    wrong = _sign_in(http, world.emails["floor"], "not the password")
    unknown = _sign_in(http, "nobody-at-all@example.org", "not the password")
    assert (wrong.status_code, wrong.json()) == (unknown.status_code, unknown.json())
    assert {k: wrong.json()[k] for k in ("code", "detail", "status")} == {
        "code": "wrong-password",
        "detail": "That e-mail and password do not match.",
        "status": 401,
    }
    assert wrong.headers["content-type"] == "application/problem+json"


def test_ac_4_twenty_concurrent_guesses_make_five_attempts_and_the_rest_wait(web, committed, world):
    """AC-4: the throttle holds under 20 guesses at once: 5 failures are tried, 15 are told to wait,
    and then even the right password waits."""
    email = world.emails["player"]

    def guess(n):
        with httpx.Client(base_url=web.url, timeout=60) as client:
            return _sign_in(client, email, f"guess number {n}")

    with ThreadPoolExecutor(20) as pool:
        answers = list(pool.map(guess, range(20)))
    assert sorted(a.status_code for a in answers) == [401] * 5 + [429] * 15
    assert all(int(a.headers["retry-after"]) > 0 for a in answers if a.status_code == 429)
    with Session(committed) as session:
        tried = session.scalar(
            select(text("count(*)")).select_from(SignInAttempt).where(SignInAttempt.email_key == email)
        )
    assert tried == 5
    with httpx.Client(base_url=web.url) as client:
        assert _sign_in(client, email).status_code == 429


def test_ac_4_a_cookie_write_without_its_csrf_token_is_refused_and_writes_nothing(http, committed, world):
    """AC-4 (CSRF): the session's token is needed on every cookie-authenticated write."""
    csrf = _sign_in(http, world.emails["floor"]).json()["csrf"]
    with Session(committed) as session:
        before = contents(session)
    refused = http.post(f"/api/v1/tournaments/{world.tournament_a}/clock", json={"action": "pause"})
    assert refused.status_code == 403 and refused.json()["code"] == "csrf"
    forged = http.post(
        f"/api/v1/tournaments/{world.tournament_a}/clock", json={"action": "pause"}, headers={CSRF_HEADER: "0" * 32}
    )
    assert forged.status_code == 403
    with Session(committed) as session:
        assert contents(session) == before
    done = http.post("/api/v1/me/sign-out-everywhere", headers={CSRF_HEADER: csrf})
    assert done.status_code == 200 and done.json() == {"ended": 1}
    assert http.get("/api/v1/me").status_code == 401


def test_ac_4_expired_ended_revoked_and_blocked_credentials_stop_at_the_next_request(http, committed, world):
    """AC-4: an idle session, a revoked token and a blocked account are anonymous at once."""
    now = datetime.now(UTC)
    with unit_of_work(committed) as session:
        idle = signin.start_session(
            session, world.account_ids["floor"], now - timedelta(hours=12), address=None, agent=None
        )
    auth = web_auth()
    assert http.get("/api/v1/me", headers={"cookie": f"{COOKIE}={auth.cookie(idle)}"}).status_code == 401
    assert http.get("/api/v1/me", headers=world.headers("cashier")).status_code == 200
    with unit_of_work(committed) as session:
        token_id = signin.tokens_of(session, world.account_ids["cashier"])[0]["id"]
        signin.revoke_token(session, token_id, now)
    assert http.get("/api/v1/me", headers=world.headers("cashier")).status_code == 401
    assert http.get("/api/v1/me", headers=world.headers("owner")).status_code == 200
    blocked = http.post(
        f"/api/v1/accounts/{world.account_ids['owner']}/block",
        json={"reason": "left"},
        headers=world.headers("operator"),
    )
    assert blocked.status_code == 200, blocked.text
    assert http.get("/api/v1/me", headers=world.headers("owner")).status_code == 401
    assert _sign_in(http, world.emails["floor"]).status_code == 200  # others unaffected


def test_ac_4_a_suspended_clubs_staff_read_but_cannot_change_events(http, committed, world):
    """AC-4 (1.7.4): reads answer, writes are refused with club-suspended and write nothing."""
    with unit_of_work(committed) as session:
        session.execute(update(Club).where(Club.id == world.club_a).values(listing_status="suspended"))
    floor = world.headers("floor")
    assert http.get(f"/api/v1/tournaments/{world.tournament_a}/entries", headers=floor).status_code == 200
    refused = http.post(f"/api/v1/tournaments/{world.tournament_a}/clock", json={"action": "pause"}, headers=floor)
    assert refused.status_code == 403 and refused.json()["code"] == "club-suspended"


def test_ac_3_a_shared_bust_is_audited_with_its_actor_instant_and_second_killer(http, committed, world):
    """AC-3 (3.2): the change and its audit row commit together; the owner reads it; the cashier cannot."""
    with unit_of_work(committed) as session:
        from domain.poker.tables.tournaments import Tournament

        t = session.get(Tournament, world.tournament_a)
        for handle in ("ann", "bob", "cid"):
            p = player(session, handle=handle)
            enter(session, t, player_id=p.id)
    before = datetime.now(UTC)
    made = http.post(
        f"/api/v1/tournaments/{world.tournament_a}/knockouts",
        json={"busted": ["ann"], "killer": "bob", "second_killer": "cid", "level": 1},
        headers=world.headers("floor"),
    )
    assert made.status_code == 200, made.text
    trail = http.get(f"/api/v1/clubs/{world.club_a}/audit", headers=world.headers("owner")).json()
    [row] = [r for r in trail if r["action"] == "poker.knock-out"]
    assert row["actor"].startswith("token ") and row["actor"].endswith(world.emails["floor"])
    assert row["data"]["second_killer"] == "cid" and row["club_id"] == world.club_a
    assert datetime.fromisoformat(row["at"]) >= before
    assert http.get(f"/api/v1/clubs/{world.club_a}/audit", headers=world.headers("cashier")).status_code == 404
    assert http.get(f"/api/v1/clubs/{world.club_b}/audit", headers=world.headers("owner")).status_code == 404


def test_ac_1_bad_input_gets_422_with_every_problem_and_changes_nothing(http, committed, world):
    """Bad input: every problem at once, one JSON shape, never a 500."""
    with Session(committed) as session:
        before = contents(session)
    response = http.post(
        f"/api/v1/tournaments/{world.tournament_a}/knockouts",
        json={"busted": [], "level": 0, "extra": 1},
        headers=world.headers("floor"),
    )
    assert response.status_code == 422
    body = response.json()
    assert body["code"] == "bad-input"
    assert sorted(p["field"] for p in body["problems"]) == ["busted", "extra", "level"]
    for bad in (
        "/api/v1/tournaments/0/entries",
        "/api/v1/tournaments/99999999999999999999/entries",
        "/api/v1/pusoy/%00/entries",
    ):
        answer = http.get(bad, headers=world.headers("floor"))
        assert answer.status_code in (404, 405, 422) and "code" in answer.json()
    with Session(committed) as session:
        assert contents(session) == before
