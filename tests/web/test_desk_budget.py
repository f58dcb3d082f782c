"""The desk's statement budget (docs/desk.md#speed, tests/support/desk_budget.py): a request of
`desk.state`, `desk.arrive` and `desk.settle` sends at most its budget of SQL statements, counted on the
server's engine; the desk state's build does not grow with the field (no statement per player), and
another desk asking before anything changed reuses it (one build per change)."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime

import httpx
import pytest

from tests.support.desk_budget import BUDGET, counted, seated_field
from tests.support.net import free_port
from tests.support.web_server import Server
from tests.support.world import access_world


@pytest.fixture
def w(committed):
    world = access_world(committed)
    seated_field(committed, world.tournament_a, 30)
    return world


@pytest.fixture
def frozen(committed, w) -> Iterator[tuple[httpx.Client, object]]:
    """The app on a clock that stands still (a build is reused for at most a second of the clock's
    time: `MAX_AGE`, flows/web/api/desk.py), and a client of it."""
    from flows.web.app import create_app

    at = datetime.now(UTC)
    app = create_app(committed, clock=lambda: at)
    with Server(app, free_port()) as server, httpx.Client(base_url=server.url, timeout=10) as http:
        yield http, app


def _call(http, w, who, method, path, body=None):
    response = http.request(method, "/api/v1" + path, json=body, headers=w.headers(who))
    assert response.status_code == 200, response.text
    return response.json()


def test_the_desk_state_arrive_and_settle_stay_within_the_desk_budget(frozen, committed, w):
    http, app = frozen
    t = w.tournament_a
    state = f"/desk/tournaments/{t}"
    for who in ("floor", "cashier"):  # each token's last-use write (at most once a minute) comes first
        _call(http, w, who, "GET", state)
    walk_in = {"name": "Вера Менчик", "handle": "vera", "birth_date": "1990-02-16"}
    made, arrive, _ = counted(committed, lambda: _call(http, w, "floor", "POST", f"{state}/arrivals", walk_in))
    builds = app.state.desk_states.builds
    floor_view, floor, _ = counted(committed, lambda: _call(http, w, "floor", "GET", state))
    cashier_view, cashier, _ = counted(committed, lambda: _call(http, w, "cashier", "GET", state))
    settle_body = {"player": str(made["player_id"]), "amount": made["owed"]["input"]}
    _, settle, _ = counted(committed, lambda: _call(http, w, "cashier", "POST", f"{state}/settlements", settle_body))
    assert made["seated"] is not None  # the seats are drawn: the walk-in is seated in the same step
    assert app.state.desk_states.builds == builds + 1  # the arrival changed the key: one build, for both desks
    assert floor_view["totals"] is None and cashier_view["totals"]["owed"]["amount"] == made["owed"]["amount"] > 0
    assert floor_view["entries"] == cashier_view["entries"]
    assert (floor, cashier) == (BUDGET["desk.state"], BUDGET["desk.state (another desk, no change)"])
    assert arrive <= BUDGET["desk.arrive"], arrive
    assert settle <= BUDGET["desk.settle"], settle


def test_the_desk_state_reads_a_bigger_field_with_the_same_statements(frozen, committed, w):
    http, _ = frozen
    t = w.tournament_a
    state = f"/desk/tournaments/{t}"
    _call(http, w, "floor", "GET", state)
    _call(
        http, w, "floor", "POST", f"{state}/arrivals", {"name": "First", "handle": "first", "birth_date": "1990-01-01"}
    )
    first, before, _ = counted(committed, lambda: _call(http, w, "floor", "GET", state))
    for n in range(10):
        walk_in = {"name": f"Walk-in {n}", "handle": f"walkin{n}", "birth_date": "1990-01-01"}
        _call(http, w, "floor", "POST", f"{state}/arrivals", walk_in)
    grown, after, _ = counted(committed, lambda: _call(http, w, "floor", "GET", state))
    assert len(grown["entries"]) == len(first["entries"]) + 10
    assert after == before == BUDGET["desk.state"]
