"""The club's operations of `/api/v1` (flows/web/api/club.py), each declared once with its typed answer
(issue 38): the owner's staff and audit trail, the floor's steps from registration to the finish and
the counter's settlements, every answer read back through its model's fields. A write that changes
nothing writes nothing, not even its audit row (AC-3): a role held already or not held (204), a
settlement of nothing owed (409 `nothing-owed`)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from sqlalchemy import func, select
from sqlalchemy.orm import Session

from domain.access.tables import AuditRecord
from domain.poker.tables.tournaments import Tournament
from domain.store.db import unit_of_work
from tests.support.db import contents
from tests.support.world import access_world, poker

CREDENTIALS = ("account_tokens", "account_sessions")  # a call's token use is written, whatever it does


@pytest.fixture
def world(web, committed):
    return access_world(committed)


def _trail(engine) -> int:
    with Session(engine) as session:
        return session.scalar(select(func.count()).select_from(AuditRecord))


def _rows(engine) -> dict:
    with Session(engine) as session:
        return {k: v for k, v in contents(session).items() if k not in CREDENTIALS}


def _call(http, world, who: str, method: str, path: str, body=None):
    return http.request(method, "/api/v1" + path, json=body, headers=world.headers(who))


def test_ac_3_a_role_held_already_or_not_held_answers_204_and_writes_no_audit_row(http, committed, world):
    """AC-1, AC-3 (issue 38): `club.grant` of a role held and `club.revoke` of a role not held change
    nothing: 204 with no body, no row of any table (the audit trail's neither); each change is one row."""
    owner, staff = "owner", f"/clubs/{world.club_a}/staff"
    spare = world.account_ids["spare"]
    grant = {"email": "spare@example.org", "role": "floor"}
    trail = _trail(committed)
    made = _call(http, world, owner, "POST", staff, grant)
    assert made.status_code == 200, made.text
    assert made.json() == {"account_id": spare, "email": "spare@example.org", "role": "floor", "club_id": world.club_a}
    assert _trail(committed) == trail + 1
    listed = {m["email"]: m for m in _call(http, world, owner, "GET", staff).json()}
    assert listed["spare@example.org"]["roles"] == [f"floor@{world.club_a}"]

    before = _rows(committed)
    again = _call(http, world, owner, "POST", staff, grant)
    assert (again.status_code, again.content) == (204, b"")
    assert _rows(committed) == before

    gone = _call(http, world, owner, "DELETE", f"{staff}/{spare}/floor")
    assert gone.status_code == 200, gone.text
    assert gone.json() == {"account_id": spare, "email": "spare@example.org", "role": "floor", "club_id": world.club_a}
    assert _trail(committed) == trail + 2

    before = _rows(committed)
    for role in ("floor", "cashier"):  # no longer held; never held
        again = _call(http, world, owner, "DELETE", f"{staff}/{spare}/{role}")
        assert (again.status_code, again.content) == (204, b""), role
    assert _rows(committed) == before
    actions = [r["action"] for r in _call(http, world, owner, "GET", f"/clubs/{world.club_a}/audit").json()]
    assert actions[:2] == ["club.revoke", "club.grant"] and actions.count("club.grant") == 1


def test_ac_1_a_revoked_role_is_a_club_role_or_the_call_is_bad_input(http, committed, world):
    """AC-1 (issue 38): `club.revoke`'s role is owner, floor or cashier; any other is 422, writing nothing."""
    spare = world.account_ids["spare"]
    before = _rows(committed)
    for role in ("operator", "player", "game-server", "FLOOR", "boss"):
        refused = _call(http, world, "owner", "DELETE", f"/clubs/{world.club_a}/staff/{spare}/{role}")
        assert (refused.status_code, refused.json()["code"]) == (422, "bad-input"), (role, refused.text)
        assert refused.json()["problems"][0]["field"] == "role"
    assert _rows(committed) == before


def test_sp_3_4_a_settlement_of_nothing_owed_is_refused_and_writes_no_audit_row(http, committed, world):
    """3.4, AC-3 (issue 38): settling a player who owes nothing is refused (409 `nothing-owed`), with no
    row written, audit row included; a debt is settled once, its settlement voided once."""
    t = world.tournament_a
    with unit_of_work(committed) as session:
        nothing = poker.player(session, "Nil Owing", handle="nil")
        poker.register(session, session.get(Tournament, t), checked_in=False, player_id=nothing.id)
        poker.checked_in(session, t, poker.player(session, "Debra Owing", handle="debra").id, datetime.now(UTC))
    debts = _call(http, world, "cashier", "GET", f"/tournaments/{t}/debts")
    assert debts.status_code == 200, debts.text
    [debt] = debts.json()
    assert set(debt) == {"player_id", "player", "owed", "currency", "fees", "kinds"}
    assert (debt["player"], debt["owed"], debt["fees"], debt["kinds"]) == ("Debra Owing", 150000, 1, ["buy_in"])

    before, trail = _rows(committed), _trail(committed)
    for who in ("nil", str(nothing.id)):  # registered, owing nothing
        refused = _call(http, world, "cashier", "POST", f"/tournaments/{t}/settlements", {"player": who})
        assert refused.status_code == 409, refused.text
        assert refused.json()["code"] == "nothing-owed"
    assert _rows(committed) == before and _trail(committed) == trail

    settled = _call(http, world, "cashier", "POST", f"/tournaments/{t}/settlements", {"player": str(debt["player_id"])})
    assert settled.status_code == 200, settled.text
    made = settled.json()
    assert (made["amount"], made["currency"], made["method"], made["voided_at"]) == (150000, "RUB", "cash", None)
    assert _trail(committed) == trail + 1
    before = _rows(committed)
    again = _call(http, world, "cashier", "POST", f"/tournaments/{t}/settlements", {"player": str(debt["player_id"])})
    assert (again.status_code, again.json()["code"]) == (409, "nothing-owed")
    assert _rows(committed) == before and _trail(committed) == trail + 1
    assert _call(http, world, "cashier", "GET", f"/tournaments/{t}/debts").json() == []

    voided = _call(http, world, "cashier", "POST", f"/settlements/{made['id']}/void", {"reason": "typed twice"})
    assert voided.status_code == 200, voided.text
    assert voided.json()["void_reason"] == "typed twice" and voided.json()["voided_at"]
    twice = _call(http, world, "cashier", "POST", f"/settlements/{made['id']}/void", {"reason": "again"})
    assert (twice.status_code, twice.json()["code"]) == (409, "settlement-already-voided")
    assert _trail(committed) == trail + 2


def test_ac_1_the_floors_steps_answer_their_typed_models(http, committed, world):
    """AC-1, AC-3, 3.1-3.10 (issue 38): registration to the finish through the floor's operations, each
    answering exactly its model's fields, each change one audit row."""
    start = datetime.now(UTC) + timedelta(minutes=1)
    with unit_of_work(committed) as session:
        t = poker.tournament(
            session,
            club_id=world.club_a,
            status="registration_open",
            start=start,
            late_reg=timedelta(hours=2),
            rebuy_amount=100000,
            reentry_amount=150000,
            reentry_deadline=start + timedelta(hours=2),
            addon_amount=100000,
            addon_chips=5000,
            addon_deadline=start + timedelta(hours=2),
        ).id
        for n in range(1, 5):
            poker.player(session, f"Floor Player {n}", handle=f"fp{n}")
    at = f"/tournaments/{t}"

    def floor(method, path, body=None, status=200):
        answer = _call(http, world, "floor", method, at + path, body)
        assert answer.status_code == status, (path, answer.text)
        return answer.json()

    registered = floor("POST", "/registrations", {"player": "fp1"})
    assert set(registered) == {"registration_id", "player_id", "status", "late"}
    assert (registered["status"], registered["late"]) == ("active", False)
    assert floor("DELETE", "/registrations/fp1")["status"] == "withdrawn"
    assert floor("DELETE", "/registrations/fp1", status=409)["code"] == "not-registered"
    assert _call(http, world, "floor", "DELETE", f"{at}/registrations/{'x' * 81}").status_code == 422
    for n in (1, 2, 3):
        floor("POST", "/registrations", {"player": f"fp{n}"})
        seated = floor("POST", "/check-ins", {"player": f"fp{n}"})
        assert seated["seat"] is None and (seated["sequence"], seated["state"]) == (1, "active")

    started = floor("POST", "/start", {"seed": "the floor's"})
    assert started["status"] == "running" and len(started["seats"]) == 3
    assert started["draw"]["floor_seed"] == "the floor's" and started["draw"]["purpose"] == "initial-seating"
    assert {"table", "seat", "entry_id", "player"} == set(started["seats"][0])

    assert floor("POST", "/registrations", {"player": "fp4"})["late"] is True
    late = floor("POST", "/check-ins", {"player": "fp4"})
    assert set(late["seat"]) == {"entry_id", "table", "seat", "opened_table", "draw"}
    assert late["seat"]["entry_id"] == late["entry_id"]

    paused = floor("POST", "/clock", {"action": "pause"})
    assert paused["status"] == "paused" and [e["kind"] for e in paused["events"]] == ["paused"]
    assert floor("POST", "/clock", {"action": "resume"})["status"] == "running"

    rebuy = floor("POST", "/rebuys", {"player": "fp1"})
    assert set(rebuy) == {"topup_id", "tournament_id", "player_id", "entry_id", "kind", "chips"}
    assert rebuy["kind"] == "rebuy"
    assert floor("POST", "/add-ons", {"player": "fp1"})["kind"] == "addon"

    [bust] = floor("POST", "/knockouts", {"busted": ["fp4"], "killer": "fp1"})
    assert set(bust) == {"knockout_id", "bust_number", "busted_entry_id", "killer_entry_id", "level"}
    assert (bust["busted_entry_id"], bust["level"]) == (late["entry_id"], 1)
    voided = floor("POST", f"/knockouts/{bust['knockout_id']}/void")
    assert voided == bust
    assert floor("POST", f"/knockouts/{bust['knockout_id']}/void", status=409)["code"] == "void-already-voided"
    floor("POST", "/knockouts", {"busted": ["fp4"], "killer": "fp1"})
    again = floor("POST", "/re-entries", {"player": "fp4"})
    assert again["sequence"] == 2 and again["previous_entry_id"] == late["entry_id"] and again["seat"]["table"]

    rows = floor("GET", "/entries")
    assert [(r["handle"], r["registration"]) for r in rows] == [
        ("fp1", "withdrawn"),
        *((f"fp{n}", "active") for n in (1, 2, 3, 4)),
    ]
    assert rows[0]["entry_id"] is rows[0]["seat"] is None and all(r["seat"] for r in rows[1:])
    assert rows[4]["reentries"] == 1 and rows[1]["owed"] == 150000 + 100000 + 100000
    for who in ("fp4", "fp3", "fp2"):
        floor("POST", "/knockouts", {"busted": [who], "killer": "fp1"})
    trail = _trail(committed)
    done = floor("POST", "/finish")
    assert (done["id"], done["status"]) == (t, "finished") and "documents" not in done  # its event's to start
    assert [p["place"] for p in done["final_table"]] == [1, 2, 3, 4, 5][: len(done["final_table"])]
    assert done["final_table"][0]["player"] == "Floor Player 1" and done["final_table"][0]["bust"] is None
    assert _trail(committed) == trail + 1

    listed = _call(http, world, "owner", "GET", f"/clubs/{world.club_a}/tournaments").json()
    assert {"id": t, "status": "finished"}.items() <= next(r for r in listed if r["id"] == t).items()
    audited = _call(http, world, "owner", "GET", f"/clubs/{world.club_a}/audit").json()
    assert audited[0]["action"] == "poker.finish" and audited[0]["club_id"] == world.club_a
    first = _call(http, world, "owner", "GET", f"/clubs/{world.club_a}/audit?limit=1")
    following = first.headers["link"].split(">")[0].removeprefix("</api/v1")
    page = _call(http, world, "owner", "GET", following).json()
    assert [r["id"] for r in page] == [audited[1]["id"]]
    assert _call(http, world, "owner", "GET", f"/clubs/{world.club_a}/audit?limit=201").status_code == 422


def test_ac_1_the_club_keeps_an_owner_when_a_role_is_taken_away(http, committed, world):
    """AC-1 (the owner holds the club's staff and settings): taking the last owner's owner role away is
    refused (409 `last-owner`) and writes nothing, by `club.revoke` as by `club.set-roles`; with a second
    owner it is taken."""
    owner_id = world.account_ids["owner"]
    path = f"/clubs/{world.club_a}/staff/{owner_id}/owner"
    with Session(committed) as session:
        before = contents(session)
    refused = _call(http, world, "owner", "DELETE", path)
    assert (refused.status_code, refused.json()["code"]) == (409, "last-owner")
    with Session(committed) as session:
        after = contents(session)
    assert {t for t in before if before[t] != after[t]} <= {"account_tokens"}
    granted = _call(
        http, world, "owner", "POST", f"/clubs/{world.club_a}/staff", {"email": world.emails["floor"], "role": "owner"}
    )
    assert granted.status_code == 200, granted.text
    taken = _call(http, world, "owner", "DELETE", path)
    assert taken.status_code == 200 and taken.json()["role"] == "owner"
