"""The access matrix (RULES AC-1, AC-2): every operation of `/api/v1` × every actor × the object of
club A, of club B and a missing one, over a real server and PostgreSQL. What each cell must be is read
from the policy table itself (`may`): allowed, or refused exactly as the missing object is (the same
status and body, the id aside) with no row of any table changed."""

from __future__ import annotations

import json
from datetime import UTC, datetime

import pytest
from sqlalchemy.orm import Session

from domain.access.rules.policy import ANONYMOUS, POLICY, Target, may
from domain.access.services import signin, targets
from domain.store.db import unit_of_work
from flows.web.api.cups import cup_target
from tests.support.db import contents
from tests.support.world import AccessWorld, access_world

MISSING = 900_000_001
MISSING_CUP = "ZZZZZZ"
MISSING_CERTIFICATE = "SP-999999-99"
# what a refusal by the policy answers (the objects' own not-found codes, signing in, CSRF)
REFUSALS = (
    "tournament-not-found",
    "club-not-found",
    "settlement-not-found",
    "unknown-code",
    "certificate-not-found",
    "not-found",
    "sign-in",
    "csrf",
)
ACTORS = (
    "operator",
    "owner",
    "floor",
    "cashier",
    "owner_b",
    "both",
    "player",
    "server",
    "organizer",
    "nobody",
    "anonymous",
)


def _calls(w: AccessWorld) -> dict[str, tuple[str, str, dict | None, str]]:
    """operationId -> (method, path with {t} {c} {s} {cup} {a} {tok}, body, what it names)."""
    player = {"player": "anna"}
    return {
        "account.sign-in": ("POST", "/session", {"email": "x@example.org", "password": "wrong one"}, "nothing"),
        "account.reset": ("POST", "/password-resets", {"email": "x@example.org"}, "nothing"),
        "account.set-password": (
            "POST",
            "/password",
            {"link": "n" * 43, "password": "a new passphrase", "repeated": "a new passphrase"},
            "nothing",
        ),
        "account.change-password": (
            "POST",
            "/me/password",
            {"current": "not the password", "password": "a new passphrase", "repeated": "a new passphrase"},
            "nothing",
        ),
        "account.sign-up": (
            "POST",
            "/signup",
            {"email": "matrix@example.org", "handle": "matrix", "name": "Mat Rix", "birth_date": "1990-01-01"},
            "nothing",
        ),
        "account.sign-out": ("DELETE", "/session", None, "nothing"),
        "account.read": ("GET", "/me", None, "nothing"),
        "account.data": ("GET", "/me/data", None, "nothing"),
        "account.sign-out-everywhere": ("POST", "/me/sign-out-everywhere", None, "nothing"),
        "account.revoke-token": ("DELETE", f"/me/tokens/{MISSING}", None, "nothing"),
        "player.entries": ("GET", "/me/entries", None, "nothing"),
        "poker.register-self": ("POST", "/tournaments/{t}/my-registration", None, "tournament"),
        "poker.unregister-self": ("DELETE", "/tournaments/{t}/my-registration", None, "tournament"),
        "pusoy.browse": ("GET", "/pusoy", None, "nothing"),
        "public.tournaments": ("GET", f"/public/clubs/{w.club_a}/tournaments", None, "nothing"),
        "public.tournament": ("GET", f"/public/tournaments/{w.tournament_a}", None, "nothing"),
        "public.cup": ("GET", f"/public/cups/{w.cup}", None, "nothing"),
        "public.season": ("GET", f"/public/seasons/{MISSING}", None, "nothing"),
        "pusoy.join": ("POST", "/pusoy/{cup}/entries", None, "cup"),
        "pusoy.withdraw": ("DELETE", "/pusoy/{cup}/entries/me", None, "cup"),
        "pusoy.mine": ("GET", "/pusoy/{cup}/me", None, "cup"),
        "player.certificate": ("GET", "/me/certificates/{cert}", None, "certificate"),
        "club.tournaments": ("GET", "/clubs/{c}/tournaments", None, "club"),
        "club.audit": ("GET", "/clubs/{c}/audit", None, "club"),
        "club.staff": ("GET", "/clubs/{c}/staff", None, "club"),
        "club.grant": ("POST", "/clubs/{c}/staff", {"email": "spare@example.org", "role": "floor"}, "club"),
        "club.revoke": ("DELETE", "/clubs/{c}/staff/" + str(w.account_ids["spare"]) + "/floor", None, "club"),
        "club.webhooks": ("GET", "/clubs/{c}/webhooks", None, "club"),
        "club.add-webhook": (
            "POST",
            "/clubs/{c}/webhooks",
            {"url": "https://hooks.club.example/tourney", "events": ["tournament.finished"]},
            "club",
        ),
        "club.remove-webhook": ("DELETE", f"/clubs/{{c}}/webhooks/{MISSING}", None, "club"),
        "club.tokens": ("GET", "/clubs/{c}/tokens", None, "club"),
        "club.create-token": (
            "POST",
            "/clubs/{c}/tokens",
            {"email": "floor@example.org", "name": "tablet", "roles": ["floor"]},
            "club",
        ),
        "club.revoke-token": ("DELETE", f"/clubs/{{c}}/tokens/{MISSING}", None, "club"),
        "club.series": ("GET", "/clubs/{c}/series", None, "club"),
        "club.show-series": ("GET", f"/clubs/{{c}}/series/{MISSING}", None, "club"),
        "club.add-series": (
            "POST",
            "/clubs/{c}/series",
            {
                "name": "Matrix",
                "rrule": "FREQ=WEEKLY;BYDAY=FR;BYHOUR=19;BYMINUTE=0",
                "template": {"structure_id": MISSING},
            },
            "club",
        ),
        "club.edit-series": ("POST", f"/clubs/{{c}}/series/{MISSING}", {"name": "Matrix"}, "club"),
        "club.pause-series": ("POST", f"/clubs/{{c}}/series/{MISSING}/pause", None, "club"),
        "club.resume-series": ("POST", f"/clubs/{{c}}/series/{MISSING}/resume", None, "club"),
        "club.end-series": ("POST", f"/clubs/{{c}}/series/{MISSING}/end", None, "club"),
        "club.skip-series-date": ("POST", f"/clubs/{{c}}/series/{MISSING}/skips", {"local_date": "2031-01-03"}, "club"),
        "club.seasons": ("GET", "/clubs/{c}/seasons", None, "club"),
        "club.season": ("GET", f"/clubs/{{c}}/seasons/{MISSING}", None, "club"),
        "club.add-season": (
            "POST",
            "/clubs/{c}/seasons",
            {"name": "Matrix", "from": "2031-01-01", "to": "2031-04-01"},
            "club",
        ),
        "club.add-to-season": ("POST", f"/clubs/{{c}}/seasons/{MISSING}/members", {"tournaments": [MISSING]}, "club"),
        "club.edit-season": (
            "POST",
            f"/clubs/{{c}}/seasons/{MISSING}",
            {"name": "Зима", "from": "2031-01-01", "to": "2031-02-01"},
            "club",
        ),
        "club.remove-from-season": (
            "POST",
            f"/clubs/{{c}}/seasons/{MISSING}/removals",
            {"tournaments": [MISSING]},
            "club",
        ),
        "club.documents": ("GET", "/clubs/{c}/documents", None, "club"),
        "club.download-document": ("GET", f"/clubs/{{c}}/documents/{MISSING}/files/{MISSING}", None, "club"),
        "club.resend-documents": ("POST", f"/clubs/{{c}}/documents/{MISSING}/deliveries", None, "club"),
        "poker.entries": ("GET", "/tournaments/{t}/entries", None, "tournament"),
        "poker.register": ("POST", "/tournaments/{t}/registrations", player, "tournament"),
        "poker.unregister": ("DELETE", "/tournaments/{t}/registrations/anna", None, "tournament"),
        "poker.check-in": ("POST", "/tournaments/{t}/check-ins", player, "tournament"),
        "poker.re-enter": ("POST", "/tournaments/{t}/re-entries", player, "tournament"),
        "poker.rebuy": ("POST", "/tournaments/{t}/rebuys", player, "tournament"),
        "poker.add-on": ("POST", "/tournaments/{t}/add-ons", player, "tournament"),
        "poker.knock-out": ("POST", "/tournaments/{t}/knockouts", {"busted": ["anna"]}, "tournament"),
        "poker.void-knockout": ("POST", "/tournaments/{t}/knockouts/1/void", None, "tournament"),
        "poker.clock": ("POST", "/tournaments/{t}/clock", {"action": "pause"}, "tournament"),
        "poker.finish": ("POST", "/tournaments/{t}/finish", None, "tournament"),
        "poker.start": ("POST", "/tournaments/{t}/start", {"seed": "s"}, "tournament"),
        "poker.debts": ("GET", "/tournaments/{t}/debts", None, "tournament"),
        "poker.settle": ("POST", "/tournaments/{t}/settlements", player, "tournament"),
        "poker.void-settlement": ("POST", "/settlements/{s}/void", {"reason": "typed twice"}, "settlement"),
        "club.profile": ("GET", "/clubs/{c}/profile", None, "club"),
        "club.edit-profile": ("POST", "/clubs/{c}/profile", {"timezone": "Europe/Samara"}, "club"),
        "club.logo": ("GET", "/clubs/{c}/logo", None, "club"),
        "club.set-logo": ("POST", "/clubs/{c}/logo", None, "club"),  # no image: `logo-empty` for the owner
        "club.remove-logo": ("DELETE", "/clubs/{c}/logo", None, "club"),
        "club.invite": ("POST", "/clubs/{c}/invitations", {"email": "invitee@example.org", "role": "cashier"}, "club"),
        "club.set-roles": ("POST", "/clubs/{c}/staff/" + str(w.account_ids["spare"]) + "/roles", {"roles": []}, "club"),
        "club.remove-staff": ("DELETE", "/clubs/{c}/staff/" + str(w.account_ids["spare"]), None, "club"),
        "club.structures": ("GET", "/clubs/{c}/structures", None, "club"),
        "club.structure": ("GET", f"/clubs/{{c}}/structures/{MISSING}", None, "club"),
        "club.add-structure": (
            "POST",
            "/clubs/{c}/structures",
            {"name": "Matrix", "levels": [{"small_blind": 100, "big_blind": 200, "minutes": 20}]},
            "club",
        ),
        "club.import-structure": (
            "POST",
            "/clubs/{c}/structure-imports",
            {"name": "Matrix import", "content": "small_blind,big_blind,ante,minutes,break\n100,200,0,20,no\n"},
            "club",
        ),
        "club.edit-structure": (
            "POST",
            f"/clubs/{{c}}/structures/{MISSING}",
            {"name": "Matrix", "levels": [{"small_blind": 100, "big_blind": 200, "minutes": 20}]},
            "club",
        ),
        "club.copy-structure": ("POST", f"/clubs/{{c}}/structures/{MISSING}/copies", {"name": "Copy"}, "club"),
        "club.templates": ("GET", "/clubs/{c}/templates", None, "club"),
        "club.create-tournament": (
            "POST",
            "/clubs/{c}/tournaments",
            {
                "name": "Matrix",
                "scheduled_start": "2031-01-01T19:00:00+03:00",
                "structure_id": MISSING,
                "starting_stack": 10000,
                "currency": "RUB",
                "buy_in": 0,
            },
            "club",
        ),
        "club.tournament": ("GET", "/tournaments/{t}/settings", None, "tournament"),
        "club.edit-tournament": ("POST", "/tournaments/{t}/settings", {"seat_cap": 8}, "tournament"),
        "club.check-prizes": ("POST", "/clubs/{c}/prize-checks", {"lines": ["Кубок", "5 000 р"]}, "club"),
        "club.set-prizes": ("POST", "/tournaments/{t}/prizes", {"lines": ["Кубок"]}, "tournament"),
        "club.set-mystery-table": ("POST", "/tournaments/{t}/mystery-table", {"lines": ["Худи"]}, "tournament"),
        "club.open-tournament": ("POST", "/tournaments/{t}/open", None, "tournament"),
        "club.cancel-tournament": ("POST", "/tournaments/{t}/cancel", None, "tournament"),
        "desk.today": ("GET", "/desk/clubs/{c}/today", None, "club"),
        "desk.state": ("GET", "/desk/tournaments/{t}", None, "tournament"),
        "desk.players": ("GET", "/desk/tournaments/{t}/players?q=ann", None, "tournament"),
        "desk.arrive": ("POST", "/desk/tournaments/{t}/arrivals", player, "tournament"),
        "desk.settle": (
            "POST",
            "/desk/tournaments/{t}/settlements",
            {"player": "anna", "amount": "1 500"},
            "tournament",
        ),
        "desk.bust": ("POST", "/desk/tournaments/{t}/busts", {"busted": MISSING}, "tournament"),
        "desk.void-plan": ("GET", "/desk/tournaments/{t}/void", None, "tournament"),
        "desk.void": ("POST", "/desk/tournaments/{t}/void", {"bust": 1}, "tournament"),
        "desk.mystery-draw": ("POST", "/desk/tournaments/{t}/mystery-draws", {"bust": 1}, "tournament"),
        "desk.move": ("POST", "/desk/tournaments/{t}/moves", {"player": MISSING, "table": 1, "seat": 1}, "tournament"),
        "desk.break-table": ("POST", "/desk/tournaments/{t}/tables/1/break", None, "tournament"),
        "desk.final-table": ("POST", "/desk/tournaments/{t}/final-table", None, "tournament"),
        "desk.settle-all": (
            "POST",
            "/desk/tournaments/{t}/settlements/all",
            {"total": "1 500", "count": 1},
            "tournament",
        ),
        "desk.totals": ("GET", "/desk/clubs/{c}/totals", None, "club"),
        "platform.queue": ("GET", "/platform/queue", None, "nothing"),
        "platform.clubs": ("GET", "/platform/clubs?listing=listed", None, "nothing"),
        "platform.club": ("GET", "/platform/clubs/{c}", None, "club"),
        "platform.approve-club": ("POST", "/platform/clubs/{c}/approve", {"reason": "EGRUL extract checked"}, "club"),
        "platform.refuse-club": ("POST", "/platform/clubs/{c}/refuse", {"reason": "no such entity"}, "club"),
        "platform.revoke-club": ("POST", "/platform/clubs/{c}/revoke", {"reason": "liquidated"}, "club"),
        "platform.suspend-club": ("POST", "/platform/clubs/{c}/suspend", {"reason": "1.7.4"}, "club"),
        "platform.reinstate-club": ("POST", "/platform/clubs/{c}/reinstate", {"reason": "fixed"}, "club"),
        "platform.terminate-club": ("POST", "/platform/clubs/{c}/terminate", {"reason": "1.7.4"}, "club"),
        "platform.accounts": ("GET", "/platform/accounts?q=example", None, "nothing"),
        "cups.list": ("GET", "/cups", None, "nothing"),
        "cups.create": ("POST", "/cups", {"name": "Matrix Cup", "capacity": 8}, "nothing"),
        "cups.cup": ("GET", "/cups/{cup}", None, "organizer cup"),
        "cups.edit": ("POST", "/cups/{cup}/settings", {"name": "Renamed"}, "organizer cup"),
        "cups.create-token": ("POST", "/cups/{cup}/tokens", {"name": "table server"}, "organizer cup"),
        "cups.revoke-token": ("DELETE", f"/cups/{{cup}}/tokens/{MISSING}", None, "organizer cup"),
        "cups.documents": ("GET", "/cups/{cup}/documents", None, "organizer cup"),
        "cups.audit": ("GET", "/cups/{cup}/audit", None, "organizer cup"),
        "cups.download-document": ("GET", f"/cups/{{cup}}/documents/{MISSING}/files/{MISSING}", None, "organizer cup"),
        "cups.resend-documents": ("POST", f"/cups/{{cup}}/documents/{MISSING}/deliveries", None, "organizer cup"),
        "cups.cancel": ("POST", "/cups/{cup}/cancel", None, "organizer cup"),
        "pusoy.report": (
            "POST",
            "/pusoy/{cup}/reports",
            {"round": 1, "table": 1, "game": 1, "finishes": ["u1", "u2", "u3", "u4"]},
            "cup",
        ),
        "pusoy.amend": (
            "POST",
            "/pusoy/{cup}/amendments",
            {"round": 1, "table": 1, "game": 1, "finishes": ["u1", "u2", "u3", "u4"], "reason": "typo"},
            "cup",
        ),
        "platform.block-account": ("POST", "/accounts/{a}/block", {"reason": "spam"}, "account"),
        "platform.unblock-account": ("POST", "/accounts/{a}/unblock", None, "account"),
        "platform.grant-organizer": ("POST", "/accounts/{a}/organizer", None, "account"),
        "platform.revoke-organizer": ("DELETE", "/accounts/{a}/organizer", None, "account"),
    }


def _places(w, names: str) -> list[tuple[str, dict, object]]:
    """(which, path values, the id a missing one is answered with) for each object the call may name."""
    if names == "nothing":
        return [("none", {}, None)]
    if names == "account":
        spare = w.account_ids["spare"]
        return [("A", {"a": spare}, spare), ("missing", {"a": MISSING}, MISSING)]
    if names == "certificate":  # A: the player's own; B: another player's
        return [
            ("A", {"cert": w.certificate}, w.certificate),
            ("B", {"cert": w.other_certificate}, w.other_certificate),
            ("missing", {"cert": MISSING_CERTIFICATE}, MISSING_CERTIFICATE),
        ]
    if names == "organizer cup":  # A: the organizer's own; B: another organizer's
        return [
            ("A", {"cup": w.organizer_cup}, w.organizer_cup),
            ("B", {"cup": w.others_cup}, w.others_cup),
            ("missing", {"cup": MISSING_CUP}, MISSING_CUP),
        ]
    if names == "cup":
        return [
            ("A", {"cup": w.cup}, w.cup),
            ("B", {"cup": w.other_cup}, w.other_cup),
            ("missing", {"cup": MISSING_CUP}, MISSING_CUP),
        ]
    key, a, b = {
        "club": ("c", w.club_a, w.club_b),
        "tournament": ("t", w.tournament_a, w.tournament_b),
        "settlement": ("s", w.settlement_a, w.settlement_b),
    }[names]
    return [("A", {key: a}, a), ("B", {key: b}, b), ("missing", {key: MISSING}, MISSING)]


def _target(session: Session, names: str, values: dict) -> Target | None:
    if names in ("nothing", "account"):
        return Target()
    if names == "cup":
        return targets.cup(session, values["cup"])
    if names == "organizer cup":
        return cup_target(session, values["cup"])
    if names == "certificate":
        found = targets.certificate(session, values["cert"])
        return found[0] if found else None
    if names == "club":
        return targets.club(session, values["c"])
    if names == "tournament":
        return targets.tournament(session, values["t"])
    found = targets.settlement(session, values["s"])
    return found[0] if found else None


def _send(http, w, who, method, path, body):
    return http.request(method, "/api/v1" + path, json=body, headers=w.headers(who))


def _shape(response, given) -> tuple[int, str]:
    """A response with the id its words name taken out: a refusal must read as the missing object's does."""
    problem = response.json()
    problem["detail"] = problem["detail"].replace(str(given), "<id>")
    return response.status_code, json.dumps(problem, sort_keys=True)


@pytest.fixture
def world(web, committed):
    w = access_world(committed, outbox=web.outbox)
    return w


def test_ac_1_every_operation_is_an_action_of_the_policy_and_every_action_an_operation(http):
    """AC-1: the OpenAPI document's operations are exactly the policy table's actions."""
    doc = http.get("/api/v1/openapi.json").json()
    operations = {op["operationId"] for ops in doc["paths"].values() for op in ops.values()}
    assert operations == set(POLICY)


def test_ac_2_the_access_matrix(http, committed, world):
    """AC-1, AC-2: each cell allowed, or refused exactly as the missing object, writing nothing."""
    now = datetime.now(UTC)
    with Session(committed) as session:
        actors = {who: signin.token_actor(session, world.tokens[who], now) for who in world.tokens}
        actors |= {who: signin.session_actor(session, secret, now) for who, secret in world.sessions.items()}
        session.rollback()
    actors["anonymous"] = ANONYMOUS
    assert set(actors) == set(ACTORS)
    for who in set(actors) - {"anonymous"}:  # each token's last use is written now, not inside a refusal's window below
        assert _send(http, world, who, "GET", "/pusoy", None).status_code == 200
    calls = _calls(world)
    assert set(calls) == set(POLICY), f"operations with no row in the matrix: {sorted(set(POLICY) - set(calls))}"
    allowed_cells = []
    for action, (method, template, body, names) in calls.items():
        with Session(committed) as session:
            before = contents(session)
            places = [
                (which, values, given, _target(session, names, values))
                for which, values, given in _places(world, names)
            ]
            session.rollback()
        for who, actor in actors.items():
            missing = None
            for which, values, given, target in sorted(places, key=lambda p: p[0] != "missing"):
                path = template.format(**{"t": "", "c": "", "s": "", "cup": "", "a": "", "cert": "", **values})
                allowed = may(actor, action, target) is None
                if allowed:
                    allowed_cells.append((action, who, which, method, path, body))
                    continue
                response = _send(http, world, who, method, path, body)
                if which in ("missing", "none"):  # "none": a call that names no object (answered 401 or 404)
                    missing = _shape(response, given)
                    assert response.status_code in (401, 404), (action, who, response.text)
                    continue
                assert missing is not None
                assert _shape(response, given) == missing, (action, who, which, response.text)
        with Session(committed) as session:
            assert contents(session) == before, f"a refusal of {action} wrote"
    ending = ("account.sign-out", "account.sign-out-everywhere")  # they end the session the matrix signs in with
    for action, who, which, method, path, body in allowed_cells:
        response = _send(http, world, who, method, path, body)
        if action in ending and who in world.sessions:  # signed in again for the next cells
            with unit_of_work(committed) as session:
                account_id = world.account_ids[who]
                world.sessions[who] = signin.start_session(session, account_id, now, address="127.0.0.1", agent="")
        assert response.status_code < 500, (action, who, which, response.text)
        error = response.json().get("code") if response.status_code >= 400 else None
        assert error not in REFUSALS, (action, who, which, response.text)
