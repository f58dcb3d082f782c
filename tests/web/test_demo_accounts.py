"""The demo's accounts (RULES AC-1, AC-2) as `make run` seeds them, over a real server and
PostgreSQL: two clubs, each with an owner, a floor manager and a cashier; the demo club's floor
manager is also the second club's cashier and, signed in with the seeded password, reads both clubs'
tournaments on /api/v1 and a third club's exactly as a missing one; seeding again writes nothing."""

from __future__ import annotations

import json
import random
from datetime import UTC, datetime, timedelta

import pytest

from domain.access.services import accounts
from domain.simulate.services.demo import (
    DEMO_POKER,
    DEMO_POKER_2,
    DEMO_SERIES,
    demo_sign_ins,
    seed_demo,
    seed_demo_accounts,
    seed_second_demo_club,
)
from domain.store.db import unit_of_work
from flows import bootstrap
from tests.support import world
from tests.support.db import contents

BOTH = "floor@demo-club.example"
MISSING = 900_000_001


@pytest.fixture
def demo(web, committed):
    """The demo seeded as `make run` seeds it (at the real now: the server runs on the wall clock),
    and a third club with a tournament of its own."""
    now = datetime.now(UTC)
    hasher = bootstrap.password_hasher()
    with unit_of_work(committed) as session:
        first = seed_demo(session, now, random.Random(1), players=4, pusoy_players=8)
        made = seed_demo_accounts(session, hasher, first.club_id, now)
        second, made_2 = seed_second_demo_club(session, hasher, now)
        third = world.club(session, fresh=True, at=now)
        other = world.tournament(session, club_id=third.id, start=now, status="registration_open")
        return {
            "clubs": (first.club_id, second, third.id),
            "poker": first.poker_id,
            "other": other.id,
            "passwords": {a.email: a.password for a in made + made_2},
        }


def _sign_in(http, demo, email):
    response = http.post("/api/v1/session", json={"email": email, "password": demo["passwords"][email]})
    assert response.status_code == 200, response.text


def test_ac_1_each_demo_club_has_an_owner_a_floor_manager_and_a_cashier_and_one_person_is_staff_of_both(
    committed, demo
):
    """AC-1: each of the two demo clubs' staff holds its own account; the demo club's floor manager is
    the second club's cashier; the players hold accounts; every staff password was drawn at seeding."""
    one, two, _ = demo["clubs"]
    with unit_of_work(committed) as session:
        staff = {c: {(r["email"], tuple(r["roles"])) for r in accounts.listing(session, c)} for c in (one, two)}
        signs = [(s.email, s.roles, s.player) for s in demo_sign_ins(session)]
    assert staff[one] == {
        ("owner@demo-club.example", (f"owner@{one}",)),
        (BOTH, (f"floor@{one}",)),
        ("cashier@demo-club.example", (f"cashier@{one}",)),
    }
    assert staff[two] == {
        ("owner@second-club.example", (f"owner@{two}",)),
        ("floor@second-club.example", (f"floor@{two}",)),
        (BOTH, (f"cashier@{two}",)),
    }
    first, second = "Демо-клуб Tourney", "Второй демо-клуб Tourney"
    assert signs == [
        ("owner@demo-club.example", (("owner", one, first),), None),
        (BOTH, (("floor", one, first), ("cashier", two, second)), None),
        ("cashier@demo-club.example", (("cashier", one, first),), None),
        ("owner@second-club.example", (("owner", two, second),), None),
        ("floor@second-club.example", (("floor", two, second),), None),
        ("demo01@demo-club.example", (), "demo01"),
        ("demo02@demo-club.example", (), "demo02"),
        ("demo03@demo-club.example", (), "demo03"),
    ]
    assert sorted(demo["passwords"]) == sorted(email for email, _, _ in signs)


def test_ac_2_the_person_on_both_staffs_reads_both_clubs_tournaments_and_a_third_club_s_as_missing(http, demo):
    """AC-1, AC-2: signed in with the seeded password, the two-club person lists each demo club's
    tournaments; a third club's tournament and list answer exactly as missing ones."""
    one, two, three = demo["clubs"]
    _sign_in(http, demo, BOTH)
    assert http.get("/api/v1/me").json()["roles"] == [f"cashier@{two}", f"floor@{one}"]
    listed = {c: http.get(f"/api/v1/clubs/{c}/tournaments") for c in (one, two)}
    assert [r.status_code for r in listed.values()] == [200, 200]
    names = {c: [t["name"] for t in r.json()] for c, r in listed.items()}
    # besides the live tournament, the weekly series' occurrences within its horizon (how many: the weekday)
    assert DEMO_POKER in names[one] and all(n == DEMO_POKER or n.startswith(DEMO_SERIES + " ") for n in names[one])
    assert names[two] == [DEMO_POKER_2]
    assert http.get(f"/api/v1/tournaments/{demo['poker']}/entries").status_code == 200
    (second,) = listed[two].json()
    assert http.get(f"/api/v1/tournaments/{second['id']}/entries").json() == []

    def shape(path, given):
        response = http.get("/api/v1" + path.format(given))
        return response.status_code, json.dumps(response.json(), sort_keys=True).replace(str(given), "<id>")

    for path, refused in (("/tournaments/{}/entries", demo["other"]), ("/clubs/{}/tournaments", three)):
        assert shape(path, refused) == shape(path, MISSING)
        assert shape(path, refused)[0] == 404


def test_ac_4_seeding_the_demo_s_accounts_again_creates_nothing_and_keeps_every_password(committed, demo):
    """`make run` again: no club, account, role or password is added or changed."""
    hasher = bootstrap.password_hasher()
    later = datetime.now(UTC) + timedelta(minutes=5)
    one, two, _ = demo["clubs"]
    with unit_of_work(committed) as session:
        before = contents(session)
        assert seed_demo_accounts(session, hasher, one, later) == []
        assert seed_second_demo_club(session, hasher, later) == (two, [])
        assert contents(session) == before
        for email, password in demo["passwords"].items():
            assert hasher.verify(accounts.find(session, email).password_hash, password)
