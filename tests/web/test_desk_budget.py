"""The desk's statement budget (docs/desk.md#speed, tests/support/desk_budget.py): a request of
`desk.state`, `desk.arrive` and `desk.settle` sends at most its budget of SQL statements, counted on the
server's engine, and the desk state's count does not grow with the field (no statement per player)."""

from __future__ import annotations

import pytest

from tests.support.desk_budget import BUDGET, counted, seated_field
from tests.support.world import access_world


@pytest.fixture
def w(web, committed):
    world = access_world(committed)
    seated_field(committed, world.tournament_a, 30)
    return world


def _call(http, w, who, method, path, body=None):
    response = http.request(method, "/api/v1" + path, json=body, headers=w.headers(who))
    assert response.status_code == 200, response.text
    return response.json()


def test_the_desk_state_arrive_and_settle_stay_within_the_desk_budget(http, committed, w):
    t = w.tournament_a
    state = f"/desk/tournaments/{t}"
    for who in ("floor", "cashier"):  # each token's last-use write (at most once a minute) comes first
        _call(http, w, who, "GET", state)
    _, floor, _ = counted(committed, lambda: _call(http, w, "floor", "GET", state))
    _, cashier, _ = counted(committed, lambda: _call(http, w, "cashier", "GET", state))
    walk_in = {"name": "Вера Менчик", "handle": "vera", "birth_date": "1990-02-16"}
    made, arrive, _ = counted(committed, lambda: _call(http, w, "floor", "POST", f"{state}/arrivals", walk_in))
    settle_body = {"player": str(made["player_id"]), "amount": made["owed"]["input"]}
    _, settle, _ = counted(committed, lambda: _call(http, w, "cashier", "POST", f"{state}/settlements", settle_body))
    assert made["seated"] is not None  # the seats are drawn: the walk-in is seated in the same step
    assert floor <= BUDGET["desk.state"], floor
    assert cashier <= BUDGET["desk.state (cashier)"], cashier
    assert arrive <= BUDGET["desk.arrive"], arrive
    assert settle <= BUDGET["desk.settle"], settle


def test_the_desk_state_reads_a_bigger_field_with_the_same_statements(http, committed, w):
    t = w.tournament_a
    state = f"/desk/tournaments/{t}"
    _call(http, w, "floor", "GET", state)
    first, before, _ = counted(committed, lambda: _call(http, w, "floor", "GET", state))
    for n in range(10):
        walk_in = {"name": f"Walk-in {n}", "handle": f"walkin{n}", "birth_date": "1990-01-01"}
        _call(http, w, "floor", "POST", f"{state}/arrivals", walk_in)
    grown, after, _ = counted(committed, lambda: _call(http, w, "floor", "GET", state))
    assert len(grown["entries"]) == len(first["entries"]) + 10
    assert after == before <= BUDGET["desk.state"]
