"""The operator's queue over `/api/v1` (flows/web/api/platform.py, issue 39): the applications waiting
for a decision, approved or refused with a reason (CL-2, CL-3), a club suspended, reinstated or
terminated (CL-4) taking effect at its staff's next request (AC-4), the catalog by status a page at a
time, the accounts; over a real server and PostgreSQL. Each answer is read back whole; each refusal
writes nothing; anyone but the operator gets the missing club's answer (AC-2); each change is one
audit row in the club's trail and one decision in its history (AC-3, CL-3)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from sqlalchemy import select
from sqlalchemy.orm import Session

from domain.access.tables import AuditRecord, Token
from domain.clubs.services import clubs as club_service
from domain.clubs.tables import Club
from domain.store.db import unit_of_work
from tests.support.db import contents
from tests.support.world import access_world

CREDENTIALS = ("account_tokens", "account_sessions")
MISSING = 900_000_001


@pytest.fixture
def world(web, committed):
    w = access_world(committed)
    now = datetime.now(UTC)
    with unit_of_work(committed) as session:  # A waits for a moderator (no provider), B for the registry
        club_service.apply(session, w.club_a, now - timedelta(hours=2), provider_configured=False)
        club_service.apply(session, w.club_b, now - timedelta(hours=1), provider_configured=True)
    return w


def _call(http, world, who: str, method: str, path: str, body=None, **kw):
    return http.request(method, "/api/v1" + path, json=body, headers=world.headers(who), **kw)


def _rows(engine) -> dict:
    with Session(engine) as session:
        return {k: v for k, v in contents(session).items() if k not in CREDENTIALS}


def _trail(engine, n: int = 1) -> list[tuple[str, str, int | None, str]]:
    with Session(engine) as session:
        rows = session.scalars(select(AuditRecord).order_by(AuditRecord.id.desc()).limit(n))
        return [(r.action, r.target, r.club_id, r.actor_label) for r in rows]


def _label(engine, world, who: str) -> str:
    """How the audit trail and the club's history name `who` acting by their token (AC-3)."""
    with Session(engine) as session:
        token = session.scalars(select(Token.id).where(Token.account_id == world.account_ids[who])).one()
    return f"token {token} (tests) of {world.emails[who]}"


def _refused(http, world, committed, who, method, path, body, status, codes):
    before = _rows(committed)
    r = _call(http, world, who, method, path, body)
    assert r.status_code == status, r.text
    assert ([p["code"] for p in r.json().get("problems", [])] or [r.json()["code"]]) == codes, r.text
    assert _rows(committed) == before
    return r


def _club(engine, club_id: int) -> Club:
    with Session(engine) as session:
        return session.get_one(Club, club_id)


def test_cl_3_the_queue_lists_every_pending_application_with_the_registry_s_last_word(http, committed, world):
    """CL-2, CL-3: the moderator queue first (with why it is there), then those the registry is still to
    check; a club that has not applied is not in it."""
    r = _call(http, world, "operator", "GET", "/platform/queue")
    assert r.status_code == 200, r.text
    rows = r.json()
    assert [(c["id"], c["in_moderation_queue"], c["verification_status"]) for c in rows] == [
        (world.club_a, True, "pending"),
        (world.club_b, False, "pending"),
    ]
    a, b = rows
    assert a["registry"] | {"at": None} == {
        "at": None,
        "action": "queue",
        "actor": "none configured",
        "reason": club_service.NO_PROVIDER,
        "raw_answer": None,
    }
    assert (
        a["application_no"] == 1 and a["queued_at"] is not None and a["verification_reason"] == club_service.NO_PROVIDER
    )
    assert b["registry"] is None and b["queued_at"] is None and b["applied_at"] is not None
    page = _call(http, world, "operator", "GET", "/platform/queue?limit=1")
    assert [c["id"] for c in page.json()] == [world.club_a]
    following = page.headers["link"].split(";")[0].strip("<>")
    assert [c["id"] for c in http.get(following, headers=world.headers("operator")).json()] == [world.club_b]


def test_cl_3_the_operator_approves_and_refuses_applications_with_a_reason(http, committed, world):
    """CL-3: a moderator's decision by hand, with what was checked; the history keeps who, when, why;
    one audit row in the club's trail (AC-3); a decision the status does not allow writes nothing."""
    a, b = world.club_a, world.club_b
    approved = _call(
        http, world, "operator", "POST", f"/platform/clubs/{a}/approve", {"reason": "EGRUL extract checked"}
    )
    assert approved.status_code == 200, approved.text
    assert {
        k: approved.json()[k] for k in ("id", "verification_status", "verification_reason", "in_moderation_queue")
    } == {
        "id": a,
        "verification_status": "verified",
        "verification_reason": "EGRUL extract checked",
        "in_moderation_queue": False,
    }
    assert approved.json()["verified_at"] is not None
    assert _trail(committed) == [("platform.approve-club", f"club {a}", a, _label(committed, world, "operator"))]
    detail = _call(http, world, "operator", "GET", f"/platform/clubs/{a}").json()
    assert [(d["action"], d["source"], d["actor"], d["reason"]) for d in detail["history"]] == [
        ("apply", "club", "club", None),
        ("queue", "registry", "none configured", club_service.NO_PROVIDER),
        ("verify", "moderator", _label(committed, world, "operator"), "EGRUL extract checked"),
    ]
    _refused(http, world, committed, "operator", "POST", f"/platform/clubs/{a}/approve", None, 409, ["cannot-verify"])
    # a refusal needs its reason: blank is refused, nothing written
    _refused(
        http,
        world,
        committed,
        "operator",
        "POST",
        f"/platform/clubs/{b}/refuse",
        {"reason": "  "},
        409,
        ["reason-missing"],
    )
    _refused(http, world, committed, "operator", "POST", f"/platform/clubs/{b}/refuse", {}, 422, ["missing"])
    refused = _call(
        http, world, "operator", "POST", f"/platform/clubs/{b}/refuse", {"reason": "the OGRN names another entity"}
    )
    assert refused.status_code == 200, refused.text
    assert (refused.json()["verification_status"], refused.json()["verification_reason"]) == (
        "refused",
        "the OGRN names another entity",
    )
    assert _trail(committed) == [("platform.refuse-club", f"club {b}", b, _label(committed, world, "operator"))]
    assert _call(http, world, "operator", "GET", "/platform/queue").json() == []
    # approving without a reason says it was checked by hand; revoking takes the status away
    revoked = _call(http, world, "operator", "POST", f"/platform/clubs/{a}/revoke", {"reason": "registry: liquidated"})
    assert (revoked.json()["verification_status"], revoked.json()["verification_reason"]) == (
        "revoked",
        "registry: liquidated",
    )


def test_ac_4_a_suspended_club_s_staff_read_but_change_nothing_from_their_next_request(http, committed, world):
    """CL-4, AC-4: suspended at once (the next request of its staff is refused `club-suspended`, reads
    still answer), reinstated, terminated for good; a move the listing does not allow writes nothing."""
    a = world.club_a
    before = _call(http, world, "owner", "POST", f"/clubs/{a}/profile", {"timezone": "Europe/Samara"})
    assert before.status_code == 200, before.text
    suspended = _call(http, world, "operator", "POST", f"/platform/clubs/{a}/suspend", {"reason": "1.7.4: unpaid"})
    assert (suspended.json()["listing_status"], suspended.json()["listing_reason"]) == ("suspended", "1.7.4: unpaid")
    assert _trail(committed) == [("platform.suspend-club", f"club {a}", a, _label(committed, world, "operator"))]
    _refused(
        http,
        world,
        committed,
        "owner",
        "POST",
        f"/clubs/{a}/profile",
        {"timezone": "Europe/Moscow"},
        403,
        ["club-suspended"],
    )
    _refused(
        http,
        world,
        committed,
        "floor",
        "POST",
        f"/tournaments/{world.tournament_a}/clock",
        {"action": "pause"},
        403,
        ["club-suspended"],
    )
    assert _call(http, world, "owner", "GET", f"/clubs/{a}/profile").status_code == 200  # reads still answer
    _refused(
        http,
        world,
        committed,
        "operator",
        "POST",
        f"/platform/clubs/{a}/suspend",
        {"reason": "again"},
        409,
        ["cannot-suspend"],
    )
    listed = _call(http, world, "operator", "POST", f"/platform/clubs/{a}/reinstate", {"reason": "paid"})
    assert (listed.json()["listing_status"], listed.json()["listing_reason"]) == ("listed", "paid")
    assert _call(http, world, "owner", "POST", f"/clubs/{a}/profile", {"timezone": "Europe/Moscow"}).status_code == 200
    ended = _call(http, world, "operator", "POST", f"/platform/clubs/{a}/terminate", {"reason": "1.7.4: closed"})
    assert ended.json()["listing_status"] == "terminated"
    assert _club(committed, a).listing_reason == "1.7.4: closed"
    _refused(
        http,
        world,
        committed,
        "operator",
        "POST",
        f"/platform/clubs/{a}/reinstate",
        {"reason": "no"},
        409,
        ["cannot-reinstate"],
    )
    _refused(
        http,
        world,
        committed,
        "owner",
        "POST",
        f"/clubs/{a}/profile",
        {"timezone": "Europe/Samara"},
        403,
        ["club-suspended"],
    )


def test_the_catalog_by_status_a_page_at_a_time(http, committed, world):
    """The clubs by id, filtered by listing and verification; a bad status is bad input (422)."""
    everyone = _call(http, world, "operator", "GET", "/platform/clubs").json()
    assert [c["id"] for c in everyone] == sorted(c["id"] for c in everyone) and {world.club_a, world.club_b} <= {
        c["id"] for c in everyone
    }
    _call(http, world, "operator", "POST", f"/platform/clubs/{world.club_b}/suspend", {"reason": "1.7.4"})
    suspended = _call(http, world, "operator", "GET", "/platform/clubs?listing=suspended").json()
    assert [(c["id"], c["listing_status"]) for c in suspended] == [(world.club_b, "suspended")]
    pending = _call(http, world, "operator", "GET", "/platform/clubs?verification=pending&listing=listed").json()
    assert [c["id"] for c in pending] == [world.club_a]
    first = _call(http, world, "operator", "GET", "/platform/clubs?limit=1")
    assert len(first.json()) == 1 and 'rel="next"' in first.headers["link"]
    assert _call(http, world, "operator", "GET", "/platform/clubs?listing=gone").status_code == 422


def test_ac_2_anyone_but_the_operator_is_answered_as_for_a_missing_club(http, committed, world):
    """AC-2: the club's own owner, a player, an organizer: the missing club's 404, nothing written;
    anonymous: sign in first."""
    a = world.club_a
    for who in ("owner", "player", "organizer", "nobody"):
        mine = _refused(
            http,
            world,
            committed,
            who,
            "POST",
            f"/platform/clubs/{a}/suspend",
            {"reason": "x"},
            404,
            ["club-not-found"],
        )
        missing = _call(http, world, who, "POST", f"/platform/clubs/{MISSING}/suspend", {"reason": "x"})
        assert mine.json()["detail"].replace(str(a), "<id>") == missing.json()["detail"].replace(str(MISSING), "<id>")
        assert _call(http, world, who, "GET", "/platform/queue").status_code == 404
    _refused(http, world, committed, "anonymous", "GET", "/platform/queue", None, 401, ["sign-in"])
    _refused(
        http, world, committed, "operator", "POST", f"/platform/clubs/{MISSING}/approve", None, 404, ["club-not-found"]
    )


def test_ac_4_the_operator_finds_accounts_blocks_and_unblocks_them(http, committed, world):
    """AC-4: the accounts by e-mail with their roles and blocks; a block through `platform.block-account`
    shows in the list; a player's account is marked so."""
    found = _call(http, world, "operator", "GET", "/platform/accounts?q=SPARE").json()
    spare = world.account_ids["spare"]
    assert found == [
        {
            "id": spare,
            "email": "spare@example.org",
            "roles": [],
            "player_id": None,
            "verified": False,
            "password_set": False,
            "blocked": None,
        }
    ]
    organizer = _call(http, world, "operator", "GET", "/platform/accounts?q=organizer@").json()
    assert [a["roles"] for a in organizer] == [["organizer"]]
    assert (
        _call(http, world, "operator", "POST", f"/accounts/{spare}/block", {"reason": "1.5.3: spam"}).status_code == 200
    )
    assert _call(http, world, "operator", "GET", "/platform/accounts?q=spare").json()[0]["blocked"] == "1.5.3: spam"
    assert _call(http, world, "operator", "POST", f"/accounts/{spare}/unblock").json() == {
        "account_id": spare,
        "blocked": None,
    }
    assert _call(http, world, "operator", "GET", "/platform/accounts?q=spare").json()[0]["blocked"] is None
    player = _call(http, world, "operator", "GET", "/platform/accounts?q=player@").json()
    assert [(a["roles"], a["player_id"]) for a in player] == [(["player"], world.players["player"])]
    everyone = _call(http, world, "operator", "GET", "/platform/accounts?limit=2")
    assert len(everyone.json()) == 2 and 'rel="next"' in everyone.headers["link"]


def test_ac_1_the_operator_makes_an_account_an_organizer_and_takes_the_role_back(http, committed, world):
    """AC-1 (the organizer, docs/cups.md): `platform.grant-organizer` gives an account the platform's
    organizer role; again, 204 and nothing written; `platform.revoke-organizer` takes it back, again 204;
    a missing account is 404; anyone but the operator gets the missing one's answer and writes nothing
    (AC-2); each change one audit row of the operator's (AC-3)."""
    spare = world.account_ids["spare"]
    operator = _label(committed, world, "operator")
    count = len(_trail(committed, 10_000))
    granted = _call(http, world, "operator", "POST", f"/accounts/{spare}/organizer")
    assert (granted.status_code, granted.json()) == (200, {"account_id": spare, "roles": ["organizer"]})
    assert _call(http, world, "operator", "POST", f"/accounts/{spare}/organizer").status_code == 204
    assert _trail(committed) == [("platform.grant-organizer", f"account {spare}", None, operator)]
    listed = _call(http, world, "operator", "GET", "/platform/accounts?q=spare@").json()
    assert [a["roles"] for a in listed] == [["organizer"]]
    taken = _call(http, world, "operator", "DELETE", f"/accounts/{spare}/organizer")
    assert (taken.status_code, taken.json()) == (200, {"account_id": spare, "roles": []})
    assert _call(http, world, "operator", "DELETE", f"/accounts/{spare}/organizer").status_code == 204
    assert _trail(committed) == [("platform.revoke-organizer", f"account {spare}", None, operator)]
    missing = _call(http, world, "operator", "POST", f"/accounts/{MISSING}/organizer")
    assert (missing.status_code, missing.json()["code"]) == (404, "account-not-found")
    for who in ("owner", "organizer", "player"):
        refused = _call(http, world, who, "POST", f"/accounts/{spare}/organizer")
        assert refused.status_code == 404, (who, refused.text)
    assert len(_trail(committed, 10_000)) == count + 2
