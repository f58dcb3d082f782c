"""What the long fuzz (`tests/web/test_api_fuzz.py -m soak`) found, each pinned by a focused request over a
real server and PostgreSQL: a method a path does not have is a 405 even where another operation's path
parameter could read the path's word; a digit that is not a number ("³") is a name, never a 500; an id past
what any row can have is refused at the edge (422), never a 500 from the database; a structure's file a
character too long is a 422, not the edge's 413; and every write declares the 413 it can answer."""

from __future__ import annotations

import json

import pytest

from tests.support.world import access_world
from tests.web.test_api_owner_series import _call, _rows

MISSING = 999_999_999


@pytest.fixture
def world(web, committed):
    return access_world(committed)


@pytest.mark.parametrize("who", ["player", "owner", "floor"])
def test_ac_2_a_method_the_roles_path_does_not_have_is_405_for_whoever_asks(http, committed, world, who):
    """AC-2: `DELETE /clubs/{c}/staff/{a}/roles` is the path of `club.set-roles` (POST), not `club.revoke`'s
    `…/{role}` with the role "roles": 405 with its Allow, the same for a player, the club's owner and its
    floor, nothing written (the fuzz had a 422 naming the roles `club.revoke` takes)."""
    before = _rows(committed)
    r = _call(http, world, who, "DELETE", f"/clubs/{world.club_a}/staff/{world.account_ids['floor']}/roles")
    assert r.status_code == 405, r.text
    assert (r.json()["code"], r.headers["allow"]) == ("method-not-allowed", "POST")
    assert _rows(committed) == before
    revoke = _call(http, world, who, "DELETE", f"/clubs/{world.club_a}/staff/{world.account_ids['floor']}/dealer")
    assert revoke.status_code in (401, 404, 422), revoke.text  # a word no path has stays `…/{role}`'s bad input


def test_ac_1_a_superscript_digit_names_no_player_and_is_no_server_error(http, committed, world):
    """AC-1: the cashier settling for the player "³" (a Unicode digit, not a number) is told no such player
    (404), as for any unknown name, not a 500; nothing written."""
    before = _rows(committed)
    r = _call(http, world, "cashier", "POST", f"/tournaments/{world.tournament_a}/settlements", {"player": "³"})
    assert (r.status_code, r.json()["code"]) == (404, "player-not-found"), r.text
    assert _rows(committed) == before


def test_ac_1_a_season_s_members_past_any_id_are_bad_input_not_a_server_error(http, committed, world):
    """AC-1: ids past 2^53-1 (the database's bigint too) in a season's members are refused at the edge (422
    `bad-input`, every field at once), not a 500 from PostgreSQL; nothing written."""
    made = _call(
        http, world, "owner", "POST", f"/clubs/{world.club_a}/seasons",
        {"name": "Фаззинг", "from": "2031-01-01", "to": "2031-04-01"},
    )  # fmt: skip
    assert made.status_code == 201, made.text
    before = _rows(committed)
    r = _call(
        http, world, "owner", "POST", f"/clubs/{world.club_a}/seasons/{made.json()['id']}/members",
        {"tournaments": [172302245469991600128, 2056], "series": [-15274143462]},
    )  # fmt: skip
    assert (r.status_code, r.json()["code"]) == (422, "bad-input"), r.text
    assert sorted(p["field"] for p in r.json()["problems"]) == ["series.0", "tournaments.0"]
    assert _rows(committed) == before


def test_ac_1_a_superscript_day_of_the_month_is_a_refused_rule_not_a_server_error(http, committed, world):
    """AC-1: `BYMONTHDAY=³` is a day of the month that does not read: 409 with its code, not a 500."""
    before = _rows(committed)
    r = _call(
        http, world, "owner", "POST", f"/clubs/{world.club_a}/series",
        {"name": "Ежемесячный", "rrule": "FREQ=MONTHLY;BYMONTHDAY=³;BYHOUR=19;BYMINUTE=0",
         "from_tournament": world.tournament_a},
    )  # fmt: skip
    assert r.status_code == 409, r.text
    assert [p["code"] for p in r.json()["problems"]] == ["series-rrule-monthday-invalid"]
    assert _rows(committed) == before


def test_a_structure_file_a_character_too_long_is_bad_input_and_every_write_declares_413(http, committed, world):
    """A file of 40 001 characters, each written as a JSON escape (the fuzz's: over 256 KiB), is a 422
    naming `content` (its maxLength), not the edge's 413; every write's 413 is in the document."""
    before = _rows(committed)
    body = {"name": "Длинная", "content": "\u008c" * 40_001}
    r = http.post(
        f"/api/v1/clubs/{world.club_a}/structure-imports",
        content=json.dumps(body, ensure_ascii=True),
        headers=world.headers("owner") | {"content-type": "application/json"},
    )
    assert (r.status_code, r.json()["code"]) == (422, "bad-input"), r.text
    assert [p["field"] for p in r.json()["problems"]] == ["content"]
    assert _rows(committed) == before
    document = http.get("/api/v1/openapi.json").json()
    writes = [
        (path, method, op)
        for path, item in document["paths"].items()
        for method, op in item.items()
        if method in ("post", "delete")
    ]
    assert writes and [(p, m) for p, m, op in writes if "413" not in op["responses"]] == []
