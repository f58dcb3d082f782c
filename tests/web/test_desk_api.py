"""The desk's operations over HTTP (docs/desk.md): exact JSON for the floor's and the counter's calls,
and every refusal plain and writing nothing (SP-1, 3.2, 3.4, 3.10, AC-2)."""

from __future__ import annotations

from datetime import datetime
from typing import Any

import pytest
from pydantic import BaseModel, TypeAdapter
from sqlalchemy.orm import Session

from flows.web.api import create_api
from flows.web.api.desk import DeskState, TodayTournament
from flows.web.auth import Auth
from tests.support.db import contents
from tests.support.world import access_world

RUB_1500 = {"amount": 150000, "text": "1\xa0500,00\xa0₽", "input": "1500"}
RUB_0 = {"amount": 0, "text": "0,00\xa0₽", "input": "0"}


@pytest.fixture
def w(web, committed):
    return access_world(committed)


def _same(answer: Any, typed: Any, at: str = "") -> None:
    """`answer` is `typed` to the last key: nothing more, nothing less, the same values (an instant
    the same instant, however it is written: `+00:00` or `Z`)."""
    if isinstance(answer, dict) and isinstance(typed, dict):
        assert answer.keys() == typed.keys(), (at, answer.keys() ^ typed.keys())
        for key in answer:
            _same(answer[key], typed[key], f"{at}.{key}")
    elif isinstance(answer, list) and isinstance(typed, list):
        assert len(answer) == len(typed), at
        for n, (a, b) in enumerate(zip(answer, typed, strict=True)):
            _same(a, b, f"{at}[{n}]")
    elif isinstance(answer, str) and isinstance(typed, str) and answer != typed:
        assert "T" in answer and datetime.fromisoformat(answer) == datetime.fromisoformat(typed), (at, answer, typed)
    else:
        assert answer == typed and type(answer) is type(typed), (at, answer, typed)


def described(model: type[BaseModel] | Any, answer: Any) -> None:
    """The answer is exactly what its response model declares (the desk state's model is the OpenAPI
    document's, not checked by the server at each answer): read by the model and written back, it
    says the same, no key left out (an optional key the answer leaves out stays out)."""
    adapter = TypeAdapter(model)
    _same(answer, adapter.dump_python(adapter.validate_python(answer), mode="json", exclude_unset=True))


def _call(http, w, who, method, path, body=None):
    return http.request(method, "/api/v1" + path, json=body, headers=w.headers(who))


def _refused(http, committed, w, who, path, body, status, code, message):
    with Session(committed) as session:
        before = contents(session)
        session.rollback()
    response = _call(http, w, who, "POST", path, body)
    assert response.status_code == status, response.text
    assert response.headers["content-type"] == "application/problem+json"
    problem = response.json()  # RFC 9457
    assert (problem["type"], problem["status"], problem["code"], problem["detail"]) == (
        f"urn:tourney:problem:{code}",
        status,
        code,
        message,
    )
    with Session(committed) as session:
        assert contents(session) == before


def test_every_desk_operation_declares_its_answer_in_the_openapi_document():
    document = create_api(lambda: None, Auth(b"x" * 32, False), None, webhook_key=b"k").openapi()
    answers = {
        op["operationId"]: op["responses"]["200"]["content"]["application/json"]["schema"]
        for item in document["paths"].values()
        for op in item.values()
        if op["operationId"].startswith("desk.")
    }
    assert len(answers) == 14 and all(answers.values()), answers
    assert answers["desk.state"] == {"$ref": "#/components/schemas/DeskState"}  # documented, written at once
    assert answers["desk.today"]["items"] == {"$ref": "#/components/schemas/TodayTournament"}


def test_the_floor_finds_a_player_and_registers_and_checks_in_known_players_and_walk_ins(http, committed, w):
    """3.10, 3.4: one step registers (late, while running), checks in and owes the buy-in, named and in roubles."""
    t = w.tournament_a
    found = _call(http, w, "floor", "GET", f"/desk/tournaments/{t}/players?q=KAREN").json()
    assert found == [
        {"id": w.players["player"], "name": "Anna Karenina", "handle": "anna", "blocked": False, "forgotten": False}
        | {"registered": False}
    ]
    anna = _call(http, w, "floor", "POST", f"/desk/tournaments/{t}/arrivals", {"player": "@anna"})
    assert anna.status_code == 200, anna.text
    entry = anna.json()["entry_id"]
    assert anna.json() == {
        "entry_id": entry,
        "tournament_id": t,
        "player_id": w.players["player"],
        "sequence": 1,
        "previous_entry_id": None,
        "state": "active",
        "chips": 10000,
        "name": "Anna Karenina",
        "seat": None,
        "seated": None,
        "registered_now": True,
        "owed": RUB_1500,
    }
    walk_in = {"name": "Вера Менчик", "handle": "vera", "birth_date": "1990-02-16"}
    vera = _call(http, w, "floor", "POST", f"/desk/tournaments/{t}/arrivals", walk_in).json()
    assert (vera["name"], vera["registered_now"], vera["owed"]) == ("Вера Менчик", True, RUB_1500)
    path = f"/desk/tournaments/{t}/arrivals"
    _refused(http, committed, w, "floor", path, {"player": "anna"}, 409, "already-checked-in",
             f"Игрок уже отмечен в турнире {t}.")  # fmt: skip
    _refused(http, committed, w, "floor", path, walk_in, 409, "handle-taken", "Ник «vera» уже занят.")
    _refused(http, committed, w, "floor", path, {"name": "Nobody"}, 422, "bad-input",
             ": Value error, name a known player, or a walk-in's name, handle and birth date")  # fmt: skip
    assert _call(http, w, "floor", "GET", f"/desk/tournaments/{t}/players?q=vera").json()[0]["registered"] is True
    # another club's tournament is the missing one (AC-2)
    other = _call(http, w, "floor", "GET", f"/desk/tournaments/{w.tournament_b}/players?q=vera")
    assert other.status_code == 404 and other.json()["code"] == "tournament-not-found"


def test_sp_1_the_cashier_settles_for_the_amount_typed_in_roubles_once(http, committed, w):
    """SP-1, 3.4: the amount typed is read in kopecks and must be what is owed now; a second settle is
    one plain refusal; each refusal writes nothing."""
    t = w.tournament_a
    assert _call(http, w, "floor", "POST", f"/desk/tournaments/{t}/arrivals", {"player": "anna"}).status_code == 200
    path = f"/desk/tournaments/{t}/settlements"
    owes = "Anna Karenina: долг 1\xa0500,00\xa0₽, а не 1\xa0000,00\xa0₽."
    _refused(http, committed, w, "cashier", path, {"player": "anna", "amount": "1 000"}, 409, "amount-differs", owes)
    _refused(http, committed, w, "cashier", path, {"player": "anna", "amount": "abc"}, 409, "amount-not-a-number",
             "«abc» — не сумма: введите её так: 1 500 или 1500,50.")  # fmt: skip
    _refused(http, committed, w, "cashier", path, {"player": "anna", "amount": "1500,555"}, 409,
             "amount-too-precise", "В «1500,555» знаков после запятой: 3, а у RUB их 2.")  # fmt: skip
    _refused(
        http,
        committed,
        w,
        "floor",
        path,
        {"player": "anna", "amount": "1 500"},
        404,
        "tournament-not-found",
        f"no tournament {t}",
    )  # fmt: skip  (the floor does not settle: the same 404, AC-2)
    done = _call(http, w, "cashier", "POST", path, {"player": "anna", "amount": "1 500,00"}).json()
    assert (done["player_id"], done["amount"], done["amount_text"], done["voided_at"]) == (
        w.players["player"],
        150000,
        "1\xa0500,00\xa0₽",
        None,
    )
    _refused(http, committed, w, "cashier", path, {"player": "anna", "amount": "1 500"}, 409, "nothing-owed",
             "Anna Karenina: долга сейчас нет — всё уже оплачено.")  # fmt: skip


def test_the_desk_state_and_the_day_in_one_call_each(http, committed, w):
    """A tournament's desk state: entries named with what they owe, the latest knockouts with their
    bust numbers, settlements, and the actions the caller's role allows; the club's day."""
    t = w.tournament_a
    _call(http, w, "floor", "POST", f"/desk/tournaments/{t}/arrivals", {"player": "anna"})
    bust = _call(http, w, "floor", "POST", f"/tournaments/{t}/knockouts", {"busted": ["anna"]}).json()[0]
    floor = _call(http, w, "floor", "GET", f"/desk/tournaments/{t}").json()
    cashier = _call(http, w, "cashier", "GET", f"/desk/tournaments/{t}").json()
    described(DeskState, floor)
    described(DeskState, cashier)
    assert floor["may"] == [
        "poker.register",
        "poker.check-in",
        "poker.re-enter",
        "poker.rebuy",
        "poker.add-on",
        "poker.knock-out",
        "poker.void-knockout",
        "poker.clock",
        "desk.players",
        "desk.arrive",
        "desk.bust",
        "desk.void",
        "desk.mystery-draw",
        "desk.move",
        "desk.break-table",
        "desk.final-table",
        "poker.start",
        "poker.finish",
    ]
    assert cashier["may"] == ["poker.settle", "poker.void-settlement", "desk.settle", "desk.settle-all", "desk.totals"]
    shared = ("may", "screen", "server_now", "tournament", "totals")
    assert {k: v for k, v in floor.items() if k not in shared} == {k: v for k, v in cashier.items() if k not in shared}
    assert floor["totals"] is None and cashier["totals"]["owed"] == RUB_1500  # the figures are the counter's
    assert [(e["name"], e["state"], e["seat"], e["owed"]) for e in floor["entries"]] == [
        ("Owing Player 1", "active", None, RUB_0),
        (floor["entries"][1]["name"], "active", None, RUB_0),  # settled by the world
        ("Anna Karenina", "busted", None, RUB_1500),
    ]
    assert floor["owed"] == RUB_1500 and floor["players_in"] == 2
    assert floor["knockouts"] == [
        {
            "id": bust["knockout_id"],
            "bust_number": 1,
            "busted": "Anna Karenina",
            "busted_entry_id": bust["busted_entry_id"],
            "killer": None,
            "killers": [],
            "level": None,
            "at_text": floor["knockouts"][0]["at_text"],
            "voided": False,
        }
    ]
    assert floor["tournament"]["offers"] == {"rebuy": False, "reentry": False, "addon": False}
    assert floor["screen"]["text"]["players"] == "Осталось 2 игрока из 3 входов"
    assert [s["amount"] for s in floor["settlements"]] == [RUB_1500]
    path = f"/tournaments/{t}/knockouts/{bust['knockout_id']}/void"
    assert _call(http, w, "floor", "POST", path).status_code == 200
    _refused(http, committed, w, "floor", path, None, 409, "void-already-voided",
             f"Нокаут {bust['knockout_id']} уже отменён.")  # fmt: skip
    day = _call(http, w, "owner", "GET", f"/desk/clubs/{w.club_a}/today").json()
    described(list[TodayTournament], day)
    start = datetime.fromisoformat(day[0].pop("scheduled_start"))
    assert start == datetime.fromisoformat(floor["tournament"]["scheduled_start"])  # the same instant
    assert day == [
        {
            "id": t,
            "name": floor["tournament"]["name"],
            "status": "running",
            "start_text": floor["tournament"]["start_text"],
            "registrations": 3,
            "entries": 3,
            "players_in": 3,
            "clock": {"status": "not started", "level": None},
            "attention": [],
        }
    ]


def _rub(minor):
    whole = f"{minor // 100:,}".replace(",", "\xa0")
    return {"amount": minor, "text": f"{whole},{minor % 100:02d}\xa0₽", "input": str(minor // 100)}


def test_sp_1_the_counter_settles_everyone_at_once_as_confirmed_and_counts_the_day(http, committed, w):
    """SP-1, 3.4: settling all takes the total and the number of players the cashier confirmed, refused
    (writing nothing) when either differs from what is owed now; a void names the player; the day's
    figures (taken, owed, voided, by kind of fee and method) per tournament and for the club."""
    t = w.tournament_a
    for who in ("anna", {"name": "Вера Менчик", "handle": "vera", "birth_date": "1990-02-16"}):
        body = {"player": who} if isinstance(who, str) else who
        assert _call(http, w, "floor", "POST", f"/desk/tournaments/{t}/arrivals", body).status_code == 200
    path = f"/desk/tournaments/{t}/settlements/all"
    _refused(http, committed, w, "cashier", path, {"total": "3 000", "count": 3}, 409, "totals-differ",
             "Сейчас должны 3\xa0000,00\xa0₽ (должников: 2), а не 3\xa0000,00\xa0₽ (должников: 3). "
             "Проверьте ещё раз перед расчётом.")  # fmt: skip
    _refused(http, committed, w, "cashier", path, {"total": "1 500", "count": 2}, 409, "totals-differ",
             "Сейчас должны 3\xa0000,00\xa0₽ (должников: 2), а не 1\xa0500,00\xa0₽ (должников: 2). "
             "Проверьте ещё раз перед расчётом.")  # fmt: skip
    _refused(http, committed, w, "cashier", path, {"total": "три", "count": 2}, 409, "amount-not-a-number",
             "«три» — не сумма: введите её так: 1 500 или 1500,50.")  # fmt: skip
    _refused(
        http,
        committed,
        w,
        "floor",
        path,
        {"total": "3 000", "count": 2},
        404,
        "tournament-not-found",
        f"no tournament {t}",
    )  # fmt: skip  (the floor does not settle, AC-2)
    done = _call(http, w, "cashier", "POST", path, {"total": "3000,00", "count": 2})
    assert done.status_code == 200, done.text
    made = done.json()
    assert made == {
        "count": 2,
        "total": _rub(300000),
        "settlements": [
            {"id": made["settlements"][0]["id"], "player_id": w.players["player"], "player": "Anna Karenina"}
            | {"amount": RUB_1500},
            {"id": made["settlements"][1]["id"], "player_id": made["settlements"][1]["player_id"]}
            | {"player": "Вера Менчик", "amount": RUB_1500},
        ],
    }
    _refused(http, committed, w, "cashier", path, {"total": "3 000", "count": 2}, 409, "nothing-owed",
             "Сейчас никто ничего не должен: рассчитывать некого.")  # fmt: skip
    anna = made["settlements"][0]["id"]
    voided = _call(http, w, "cashier", "POST", f"/settlements/{anna}/void", {"reason": "card declined"})
    assert voided.status_code == 200, voided.text
    state = _call(http, w, "cashier", "GET", f"/desk/tournaments/{t}").json()
    figures = {
        "currency": "RUB",
        "taken": _rub(300000),  # the world's settlement and Vera's
        "owed": RUB_1500,  # Anna's, owed again
        "voided": RUB_1500,
        "voided_count": 1,
        "settlements": 2,
        "kinds": [{"kind": "buy_in", "fees": 3, "taken": _rub(300000), "owed": RUB_1500}],
        "methods": [{"method": "cash", "amount": _rub(300000)}],
    }
    assert state["totals"] == figures
    assert [(x["player"], x["voided"]) for x in state["settlements"]] == [
        ("Вера Менчик", False),
        ("Anna Karenina", True),
        (state["settlements"][2]["player"], False),  # the world's
    ]
    day = _call(http, w, "owner", "GET", f"/desk/clubs/{w.club_a}/totals").json()
    name = state["tournament"]["name"]
    assert day == {"tournaments": [{"id": t, "name": name, "status": "running"} | figures], "day": [figures]}
    assert _call(http, w, "floor", "GET", f"/desk/clubs/{w.club_a}/totals").status_code == 404  # AC-2
