"""The Pusoy Dos organizer's cups over `/api/v1` (flows/web/api/cups.py, issue 39): create a cup (PD-1,
PD-2, PD-3, PD-5, DOC-4), watch it fill, amend it while the rules allow, cancel it (PD-11), a game
server's token bound to it (AC-4: shown once); over a real server and PostgreSQL. Each answer is read
back whole; each refusal writes nothing; another organizer's cup is the missing cup's 404 (AC-2); each
change is one audit row (AC-3)."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from sqlalchemy import select
from sqlalchemy.orm import Session

from domain.access.rules.policy import Role
from domain.access.services import signin
from domain.access.tables import AuditRecord
from domain.documents.services import locales
from domain.pusoy.tables import PusoyTournament
from tests.support.db import contents
from tests.support.world import access_world

CREDENTIALS = ("account_tokens", "account_sessions")
MISSING_CUP = "ZZZZZZ"


@pytest.fixture
def world(web, committed):
    return access_world(committed)


def _call(http, world, who: str, method: str, path: str, body=None):
    return http.request(method, "/api/v1" + path, json=body, headers=world.headers(who))


def _rows(engine) -> dict:
    with Session(engine) as session:
        return {k: v for k, v in contents(session).items() if k not in CREDENTIALS}


def _trail(engine) -> tuple[str, str]:
    with Session(engine) as session:
        row = session.scalars(select(AuditRecord).order_by(AuditRecord.id.desc()).limit(1)).one()
        return row.action, row.target


def _codes(response) -> list[str]:
    return [p["code"] for p in response.json().get("problems", [])] or [response.json()["code"]]


def _refused(http, world, committed, who, method, path, body, status, codes):
    before = _rows(committed)
    r = _call(http, world, who, method, path, body)
    assert r.status_code == status, r.text
    assert _codes(r) == codes, r.text
    assert _rows(committed) == before
    return r


def _cup(engine, code: str) -> PusoyTournament:
    with Session(engine) as session:
        return session.scalars(select(PusoyTournament).where(PusoyTournament.code == code)).one()


def _made(http, world, body: dict) -> dict:
    r = _call(http, world, "organizer", "POST", "/cups", body)
    assert r.status_code == 201, r.text
    return r.json()


def test_pd_1_an_organizer_creates_a_cup_in_their_name_and_language(http, committed, world):
    """PD-1, PD-2, PD-3, PD-5, DOC-4: the cup in Setup with its bracket stored, by code only when
    private; the organizer's e-mail on it (the documents go there), their last cup's name by default,
    their account's language unless another is chosen; one audit row."""
    made = _made(http, world, {"name": " Sunday Cup ", "capacity": 16, "games_per_round": 2, "private": True})
    code = made["code"]
    assert made == {
        "code": code,
        "name": "Sunday Cup",
        "status": "setup",
        "capacity": 16,
        "entrants": 0,
        "seats_left": 16,
        "private": True,
        "games_per_round": 2,
        "bracket": [16, 8, 4],
        "custom_bracket": False,
        "organizer": "maria",  # the name of the organizer's cup the world made
        "club_id": None,
        "locale": "ru",  # the account's language
        "current_round": None,
        "champion": None,
        "created_at": made["created_at"],
        "started_at": None,
        "finished_at": None,
        "editable": True,
        "terms_editable": True,
        "entries": [],
        "tokens": [],
    }
    assert _trail(committed) == ("cups.create", f"cup {code}")
    t = _cup(committed, code)
    assert (t.organizer_email, t.custom_bracket) == (world.emails["organizer"], False)
    custom = _made(
        http, world, {"name": "Big", "capacity": 32, "advancing": [12, 4], "locale": "en", "organizer": "maria"}
    )
    assert (custom["bracket"], custom["custom_bracket"], custom["locale"], custom["private"]) == (
        [32, 12, 4],
        True,
        "en",
        False,
    )
    with Session(committed) as session:
        assert locales.pusoy_tournament_locale(session, _cup(committed, custom["code"]).id) == "en"
    listed = _call(http, world, "organizer", "GET", "/cups").json()
    assert [c["code"] for c in listed] == [custom["code"], code, world.organizer_cup]  # newest first; never another's
    assert [c["code"] for c in _call(http, world, "organizer", "GET", "/cups?status=cancelled").json()] == []
    page = _call(http, world, "organizer", "GET", "/cups?limit=2")
    assert len(page.json()) == 2 and 'rel="next"' in page.headers["link"]


def test_pd_2_every_problem_of_a_new_cup_at_once_and_nothing_written(http, committed, world):
    """PD-1, PD-2, PD-5: each problem by its code at once, the bad round named; another organizer's name
    is theirs (`organizer-name-taken`); nothing written."""
    r = _refused(
        http, world, committed, "organizer", "POST", "/cups",
        {"name": "  ", "capacity": 12, "games_per_round": 11, "organizer": "two words"},
        409, ["bad-capacity", "bad-games-per-round", "bad-organizer", "bad-name"],
    )  # fmt: skip
    assert "capacity must be 8, 16 or 32 players, not 12" in r.json()["detail"]
    bracket = _refused(
        http, world, committed, "organizer", "POST", "/cups", {"name": "Cup", "capacity": 32, "advancing": [12, 6]},
        409, ["bad-bracket", "bad-bracket"],
    )  # fmt: skip
    assert "the last round (round 3) has 6 players" in bracket.json()["detail"]
    taken = _refused(
        http, world, committed, "organizer", "POST", "/cups", {"name": "Cup", "organizer": "royal"}, 409,
        ["organizer-name-taken"],
    )  # fmt: skip
    assert taken.json()["detail"] == "Another organizer's cups bear the name royal."
    _refused(
        http, world, committed, "organizer", "POST", "/cups", {"name": "Cup", "locale": "de"}, 422, ["literal_error"]
    )


def test_pd_4_the_organizer_sees_the_cup_fill_and_amends_it_while_the_rules_allow(http, committed, world):
    """PD-4, PD-11: the entrants as they join; the name, listing and language while the cup fills; its
    terms (capacity, games, bracket) only while nobody has joined (`terms-fixed`); the same again is 204
    with nothing written."""
    code = _made(http, world, {"name": "Filling", "capacity": 16})["code"]
    terms = _call(http, world, "organizer", "POST", f"/cups/{code}/settings", {"advancing": [4], "games_per_round": 3})
    assert terms.status_code == 200, terms.text
    assert (terms.json()["bracket"], terms.json()["custom_bracket"], terms.json()["games_per_round"]) == (
        [16, 4],
        True,
        3,
    )
    assert _trail(committed) == ("cups.edit", f"cup {code}")
    back = _call(http, world, "organizer", "POST", f"/cups/{code}/settings", {"advancing": None, "capacity": 8})
    assert (back.json()["bracket"], back.json()["custom_bracket"], back.json()["capacity"]) == ([8, 4], False, 8)
    _refused(
        http, world, committed, "organizer", "POST", f"/cups/{code}/settings", {"capacity": 12}, 409, ["bad-capacity"]
    )
    joined = _call(http, world, "player", "POST", f"/pusoy/{code}/entries")
    assert joined.status_code == 200, joined.text
    seen = _call(http, world, "organizer", "GET", f"/cups/{code}").json()
    assert (seen["entrants"], seen["seats_left"], seen["terms_editable"]) == (1, 7, False)
    assert [(e["player"], e["final_position"]) for e in seen["entries"]] == [("anna", None)]
    _refused(
        http,
        world,
        committed,
        "organizer",
        "POST",
        f"/cups/{code}/settings",
        {"games_per_round": 2},
        409,
        ["terms-fixed"],
    )
    renamed = _call(
        http, world, "organizer", "POST", f"/cups/{code}/settings", {"name": "Friday", "private": True, "locale": "en"}
    )
    assert (renamed.json()["name"], renamed.json()["private"], renamed.json()["locale"]) == ("Friday", True, "en")
    before = _rows(committed)
    same = _call(http, world, "organizer", "POST", f"/cups/{code}/settings", {"name": "Friday", "capacity": 8})
    assert (same.status_code, same.content) == (204, b"")
    assert _rows(committed) == before


def test_pd_11_the_organizer_cancels_while_the_cup_fills_and_nothing_after(http, committed, world):
    """PD-11: Setup → Cancelled by its organizer; then nothing changes it (`bad-status-change`,
    `cup-not-filling`), no token is made for it (`cup-over`)."""
    code = world.organizer_cup
    cancelled = _call(http, world, "organizer", "POST", f"/cups/{code}/cancel")
    assert cancelled.status_code == 200, cancelled.text
    assert (cancelled.json()["status"], cancelled.json()["editable"]) == ("cancelled", False)
    assert cancelled.json()["finished_at"] is not None
    assert _trail(committed) == ("cups.cancel", f"cup {code}")
    _refused(http, world, committed, "organizer", "POST", f"/cups/{code}/cancel", None, 409, ["bad-status-change"])
    _refused(
        http, world, committed, "organizer", "POST", f"/cups/{code}/settings", {"name": "x"}, 409, ["cup-not-filling"]
    )
    _refused(http, world, committed, "organizer", "POST", f"/cups/{code}/tokens", {"name": "late"}, 409, ["cup-over"])
    _refused(http, world, committed, "player", "POST", f"/pusoy/{code}/entries", None, 409, ["tournament-cancelled"])


def test_ac_4_a_game_server_s_token_bound_to_the_cup_shown_once_and_revoked(http, committed, world):
    """AC-1, AC-4: the token reports this cup's games only (its scope `cup:CODE`); its secret is in
    the answer once, the cup lists it without; revoked, it stops at its next request."""
    code = world.organizer_cup
    made = _call(http, world, "organizer", "POST", f"/cups/{code}/tokens", {"name": " table server "})
    assert made.status_code == 201, made.text
    token = made.json()
    assert token["token"].startswith("tny_") and (token["name"], token["scopes"]) == ("table server", [f"cup:{code}"])
    assert _trail(committed) == ("cups.create-token", f"token 'table server' of cup {code}")
    with Session(committed) as session:
        actor = signin.token_actor(session, token["token"], datetime.now(UTC))
        session.rollback()
    assert (actor.roles, actor.cups) == (frozenset({(Role.GAME_SERVER, None)}), frozenset({code}))
    listed = _call(http, world, "organizer", "GET", f"/cups/{code}").json()["tokens"]
    assert [(t["id"], t["name"], t["revoked_at"]) for t in listed] == [(token["id"], "table server", None)]
    assert "token" not in listed[0]
    server = {"authorization": f"Bearer {token['token']}"}
    report = {"round": 1, "table": 1, "game": 1, "finishes": ["a", "b", "c", "d"]}
    bound = http.post(f"/api/v1/pusoy/{code}/reports", json=report, headers=server)
    assert (bound.status_code, bound.json()["code"]) == (409, "tournament-not-active")  # its cup: it is heard
    other = http.post(f"/api/v1/pusoy/{world.others_cup}/reports", json=report, headers=server)
    assert (other.status_code, other.json()["code"]) == (404, "unknown-code")  # another cup: not there
    revoked = _call(http, world, "organizer", "DELETE", f"/cups/{code}/tokens/{token['id']}")
    assert revoked.status_code == 200 and revoked.json()["id"] == token["id"]
    assert http.post(f"/api/v1/pusoy/{code}/reports", json=report, headers=server).status_code == 401
    _refused(
        http,
        world,
        committed,
        "organizer",
        "DELETE",
        f"/cups/{code}/tokens/{token['id']}",
        None,
        409,
        ["token-revoked"],
    )
    theirs = _call(http, world, "organizer", "POST", f"/cups/{code}/tokens", {"name": "second"}).json()["id"]
    _refused(
        http, world, committed, "organizer", "DELETE", f"/cups/{world.others_cup}/tokens/{theirs}", None, 404,
        ["unknown-code"],
    )  # fmt: skip


def test_ac_2_another_organizer_s_cup_is_answered_as_a_missing_one(http, committed, world):
    """AC-2: another organizer's cup (and one the operator made with no organizer's e-mail) reads, changes
    and cancels exactly as a cup that is not there, writing nothing; staff and players are not organizers."""
    for code in (world.others_cup, world.cup):
        for method, path, body in (
            ("GET", "/cups/{}", None),
            ("POST", "/cups/{}/settings", {"name": "mine now"}),
            ("POST", "/cups/{}/cancel", None),
            ("POST", "/cups/{}/tokens", {"name": "x"}),
        ):
            theirs = _refused(
                http, world, committed, "organizer", method, path.format(code), body, 404, ["unknown-code"]
            )
            missing = _call(http, world, "organizer", method, path.format(MISSING_CUP), body)
            assert theirs.json()["detail"].replace(code, "<c>") == missing.json()["detail"].replace(MISSING_CUP, "<c>")
    for who in ("owner", "player", "operator", "server"):
        _refused(http, world, committed, who, "GET", f"/cups/{world.organizer_cup}", None, 404, ["unknown-code"])
        _refused(http, world, committed, who, "POST", "/cups", {"name": "Cup"}, 404, ["not-found"])
    _refused(http, world, committed, "anonymous", "GET", "/cups", None, 401, ["sign-in"])
