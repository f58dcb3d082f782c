"""`/api/v1` as a contract (issue 38; RULES AC-1, AC-2, AC-4): a token acts only within its scopes, a
no-op writes nothing, every unclean string is a 422 that changes nothing, who asks is checked before what
is asked, and reads carry HEAD, ETag/304, Cache-Control; every error is an RFC 9457 problem."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from sqlalchemy import func, select
from sqlalchemy.orm import Session

from domain.access.services import accounts, signin
from domain.access.tables import AuditRecord
from domain.store.db import unit_of_work
from tests.support.db import contents
from tests.support.world import access_world, tournament


@pytest.fixture
def world(web, committed):
    return access_world(committed)


def _token(committed, world, who: str, scopes: list[str]) -> dict[str, str]:
    with unit_of_work(committed) as session:
        account = accounts.find(session, world.emails[who])
        _, secret = signin.create_token(session, account, "narrow", scopes, datetime.now(UTC))
    return {"authorization": f"Bearer {secret}"}


def _unchanged(committed):
    with Session(committed) as session:
        return contents(session)


def _audit_rows(committed) -> int:
    with Session(committed) as session:
        return session.scalar(select(func.count()).select_from(AuditRecord))


@pytest.mark.parametrize(
    ("method", "path", "body"),
    [
        ("GET", "/api/v1/me", None),
        ("GET", "/api/v1/me/data", None),
        ("POST", "/api/v1/me/sign-out-everywhere", None),
        (
            "POST",
            "/api/v1/me/password",
            {"current": "x", "password": "a long new one 1", "repeated": "a long new one 1"},
        ),
        ("DELETE", "/api/v1/me/tokens/{token}", None),
    ],
)
def test_ac_4_a_token_without_the_account_scope_cannot_act_on_its_account(http, committed, world, method, path, body):
    """AC-4: a `floor@A` token (and a game server's `cup:` token) is scoped: its account's tokens,
    password, data and sessions answer 404 as for nothing there, and nothing is written (no sign-in
    attempt spent, no token revoked)."""
    with Session(committed) as session:
        sibling = signin.tokens_of(session, world.account_ids["floor"])[0]["id"]
    for headers in (
        _token(committed, world, "floor", [f"floor@{world.club_a}"]),
        {"authorization": f"Bearer {world.tokens['server']}"},
    ):
        before = _unchanged(committed)
        answer = http.request(method, path.format(token=sibling), json=body, headers=headers)
        assert (answer.status_code, answer.json()["code"]) == (404, "not-found"), answer.text
        after = _unchanged(committed)
        changed = {t for t in before if before[t] != after[t]}
        assert changed <= {"account_tokens"}, changed  # at most the calling token's last use
    with Session(committed) as session:
        assert signin.tokens_of(session, world.account_ids["floor"])[0]["revoked_at"] is None


def test_ac_4_a_token_with_the_account_scope_reads_its_account(http, world):
    """AC-4: the `account` scope is what lets a token act on its account (the world's tokens hold it)."""
    answer = http.get("/api/v1/me", headers=world.headers("floor"))
    assert answer.status_code == 200 and answer.json()["email"] == world.emails["floor"]


def test_ac_3_no_ops_answer_204_or_409_and_write_no_audit_row(http, committed, world):
    """AC-3: a sign-out with no session, a sign-out everywhere with none open, a revoked token revoked
    again, an unblock of an account not blocked: nothing changes, so no audit row is written."""
    floor = world.headers("floor")
    before = _audit_rows(committed)
    assert http.delete("/api/v1/session", headers=floor).status_code == 204
    assert http.post("/api/v1/me/sign-out-everywhere", headers=floor).status_code == 204
    spare = _token(committed, world, "floor", [f"floor@{world.club_a}"])
    with Session(committed) as session:
        spare_id = max(t["id"] for t in signin.tokens_of(session, world.account_ids["floor"]))
    first = http.delete(f"/api/v1/me/tokens/{spare_id}", headers=floor)
    assert first.status_code == 200 and first.json()["id"] == spare_id
    assert _audit_rows(committed) == before + 1
    again = http.delete(f"/api/v1/me/tokens/{spare_id}", headers=floor)
    assert (again.status_code, again.json()["code"]) == (409, "token-revoked")
    unblock = http.post(f"/api/v1/accounts/{world.account_ids['spare']}/unblock", headers=world.headers("operator"))
    assert unblock.status_code == 204 and unblock.content == b""
    assert _audit_rows(committed) == before + 1
    assert http.get("/api/v1/me", headers=spare).status_code == 401  # revoked: anonymous at once


@pytest.mark.parametrize(
    ("path", "body"),
    [
        ("/api/v1/desk/tournaments/{t}/players?q=%00", None),
        ("/api/v1/desk/tournaments/{t}/players?q=%ff%fe", None),
        ("/api/v1/tournaments/{t}/registrations", {"player": "an\u0000na"}),
        ("/api/v1/tournaments/{t}/registrations", {"player": "\ud800"}),
        ("/api/v1/session", {"email": "floor\u0000@example.org", "password": "x"}),
    ],
)
def test_ac_1_every_unclean_string_is_a_422_that_changes_nothing(http, committed, world, path, body):
    """AC-1 (bad input changes nothing): a NUL, a lone surrogate or bytes that are not UTF-8, in the
    query or a JSON body, are refused at the edge, never a 500 from the database."""
    before = _unchanged(committed)
    url = path.format(t=world.tournament_a)
    if body is None:
        answer = http.get(url, headers=world.headers("floor"))
    else:  # json.dumps keeps a lone surrogate as its \\ud800 escape: the server decodes it to one
        import json

        answer = http.post(
            url, content=json.dumps(body), headers=world.headers("floor") | {"content-type": "application/json"}
        )
    assert answer.status_code == 422, answer.text
    assert answer.headers["content-type"] == "application/problem+json"
    problem = answer.json()
    assert (problem["code"], problem["status"], problem["type"]) == ("bad-input", 422, "urn:tourney:problem:bad-input")
    assert [p["code"] for p in problem["problems"]] == ["bad-text"]
    assert _unchanged(committed) == before


def test_ac_1_an_anonymous_caller_is_asked_to_sign_in_before_its_input_is_read(http, committed, world):
    """AC-1: who asks is checked before what is asked: 401, not 422, for a bad body, a bad path and
    bad JSON to an operation that needs a sign-in; a public operation still says 422."""
    t = world.tournament_a
    for answer in (
        http.post(f"/api/v1/tournaments/{t}/knockouts", json={"busted": []}),
        http.get("/api/v1/tournaments/0/entries"),
        http.post(
            f"/api/v1/tournaments/{t}/knockouts", content=b"{not json", headers={"content-type": "application/json"}
        ),
        http.get(f"/api/v1/desk/tournaments/{t}/players?q=%00"),
    ):
        assert (answer.status_code, answer.json()["code"]) == (401, "sign-in"), answer.text
        assert answer.headers["www-authenticate"] == "Bearer"
    public = http.post("/api/v1/session", json={"email": "x"})
    assert (public.status_code, public.json()["code"]) == (422, "bad-input")


def test_ac_2_a_draft_tournament_is_not_found_by_a_player(http, committed, world):
    """AC-2: a player registering for a draft tournament (of any club) gets the very answer of a
    missing one, where it answered 409 `registration-not-open`, and nothing is written."""
    with unit_of_work(committed) as session:
        draft = tournament(session, club_id=world.club_b, status="draft")
    before = _unchanged(committed)
    player = world.headers("player")
    found = http.post(f"/api/v1/tournaments/{draft.id}/my-registration", headers=player)
    missing = http.post("/api/v1/tournaments/900000001/my-registration", headers=player)
    assert found.status_code == missing.status_code == 404
    assert found.json()["code"] == missing.json()["code"] == "tournament-not-found"
    assert _unchanged(committed) == before


def test_http_405_names_what_is_allowed_and_head_answers_every_get(http, world):
    """HTTP (RFC 9110): a 405 carries `Allow`; HEAD is a GET without its body."""
    wrong = http.put("/api/v1/me", headers=world.headers("floor"))
    assert wrong.status_code == 405 and wrong.headers["allow"] == "GET, HEAD"
    get = http.get("/api/v1/pusoy")
    head = http.head("/api/v1/pusoy")
    assert head.status_code == 200 and head.content == b""
    assert head.headers["etag"] == get.headers["etag"]


def test_http_reads_carry_an_etag_and_answer_304_when_it_matches(http, world):
    """A read's ETag comes back as 304 with no body while nothing changed; a credentialed read is
    private and revalidated, a public one may be cached 5 s by anyone."""
    floor = world.headers("floor")
    url = f"/api/v1/clubs/{world.club_a}/tournaments"
    first = http.get(url, headers=floor)
    tag = first.headers["etag"]
    assert first.headers["cache-control"] == "private, no-cache"
    again = http.get(url, headers=floor | {"if-none-match": tag})
    assert again.status_code == 304 and again.content == b"" and again.headers["etag"] == tag
    other = http.get(url, headers=floor | {"if-none-match": '"something-else"'})
    assert other.status_code == 200 and other.json() == first.json()
    public = http.get("/api/v1/pusoy")
    assert public.headers["cache-control"] == "public, max-age=5"
    assert "Authorization" in public.headers["vary"]


def test_ac_4_an_operator_cannot_block_their_own_account(http, committed, world):
    """AC-4 (1.5.3): blocking one's own account is refused (409), nothing written: the platform would
    lose the one who can lift it."""
    before = _unchanged(committed)
    own = http.post(
        f"/api/v1/accounts/{world.account_ids['operator']}/block",
        json={"reason": "x"},
        headers=world.headers("operator"),
    )
    assert (own.status_code, own.json()["code"]) == (409, "cannot-block-self")
    after = _unchanged(committed)
    assert {t for t in before if before[t] != after[t]} <= {"account_tokens"}


def _rate_limited(answer, limit: int | None) -> None:
    assert answer.status_code == 429, answer.text
    wait = int(answer.headers["retry-after"])
    assert 1 <= wait <= 15 * 60
    assert answer.headers["ratelimit-remaining"] == "0"
    assert answer.headers["ratelimit-reset"] == str(wait)
    assert answer.headers.get("ratelimit-limit") == (str(limit) if limit else None)


def test_ac_4_every_429_says_when_to_try_again(http, world):
    """AC-4 (throttles): a 429 carries `Retry-After` and `RateLimit-*` (the limit where it is one
    number): join codes guessed (10 a minute here), sign-ups (10 per address in 15 minutes), wrong
    passwords (5, then a wait)."""
    player = world.headers("player")
    answers = [http.get(f"/api/v1/pusoy/{code}AAAAA/me", headers=player) for code in "23456789ABC"]
    assert [a.status_code for a in answers[:10]] == [404] * 10
    _rate_limited(answers[10], 10)
    for n in range(10):
        http.post("/api/v1/signup", json={"email": "bad", "handle": f"h{n}", "name": "N N", "birth_date": "x"})
    _rate_limited(http.post("/api/v1/signup", json={"email": "bad", "handle": "h", "name": "N", "birth_date": "x"}), 10)
    wrong = {"email": world.emails["floor"], "password": "not the password"}
    last = [http.post("/api/v1/session", json=wrong) for _ in range(6)][-1]
    _rate_limited(last, None)
