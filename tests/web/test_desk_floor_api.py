"""The floor's part of the desk over HTTP (docs/desk.md): the seat map, busts by names with one or two
killers, voids by bust number shown first, balancing and table breaks confirmed by the floor, the final
table and finish refused with the plain reason, mystery draws, the day's attention list, and two
tablets on one player (3.2, 3.3, 3.6, 3.7, 3.8, SP-3, SP-5, AC-3). Every refusal writes nothing."""

from __future__ import annotations

from datetime import timedelta

import pytest
from sqlalchemy import select, update
from sqlalchemy.orm import Session

from domain.documents.services import locales
from domain.poker.services import clock as clock_service
from domain.poker.services.seating import draw_initial
from domain.poker.tables.clock_seating import Seat
from domain.poker.tables.knockouts_places import KnockoutAudit
from domain.poker.tables.tournaments import Tournament
from domain.store.db import unit_of_work
from flows.web.api.desk import DeskState
from tests.support import world
from tests.support.db import contents
from tests.web.test_desk_api import described


@pytest.fixture
def w(web, committed):
    return world.access_world(committed)


def _tournament(committed, club_id: int, players: int = 11, **columns) -> dict:
    """A running tournament of club A, seats drawn at tables of 6: Игрок 1..N, re-entry open, the clock
    started. Answers its id and the players' ids by number."""
    with unit_of_work(committed) as session:
        t = world.tournament(
            session, club_id=club_id, name="Пятница", start=world.now() - timedelta(minutes=5), seat_cap=6,
            late_reg=timedelta(hours=1), rebuy_amount=100000, reentry_amount=150000, **columns,
        )  # fmt: skip
        ids = {}
        for n in range(1, players + 1):
            ids[n] = world.enter(session, t, player_id=world.player(session, f"Игрок {n}").id).player_id
        clock_service.act(session, t.id, "start", world.now())
        draw_initial(session, t.id, world.now(), seed="desk")
        return {"id": t.id, "players": ids}


def _call(http, w, method, path, body=None, who="floor"):
    return http.request(method, "/api/v1" + path, json=body, headers=w.headers(who))


def _state(http, w, tid):
    state = _call(http, w, "GET", f"/desk/tournaments/{tid}").json()
    described(DeskState, state)  # every seat map, bust and window the tests draw: the model says it all
    return state


def _refused(http, committed, w, method, path, body, status, code, message, who="floor"):
    with Session(committed) as session:
        before = contents(session)
        session.rollback()
    response = _call(http, w, method, path, body, who=who)
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


def _seat_of(state, player_id):
    for table in state["seating"]["tables"]:
        for seat in table["seats"]:
            if seat.get("player_id") == player_id:
                return table["table"], seat["seat"]
    return None


def _bust(http, w, tid, state, busted, *killers):
    body = {"busted": busted, "killers": list(killers), "seen": state["versions"][str(busted)]}
    response = _call(http, w, "POST", f"/desk/tournaments/{tid}/busts", body)
    assert response.status_code == 200, response.text
    return response.json()


def test_3_6_the_seat_map_names_every_seat_with_the_clock(http, committed, w):
    """3.6: tables with the players' names in their seats, empty seats shown; the clock's level."""
    t = _tournament(committed, w.club_a)
    state = _state(http, w, t["id"])
    seating = state["seating"]
    assert (seating["drawn"], seating["stage"], seating["seat_cap"], seating["broken"]) == (True, "play", 6, [])
    assert [(x["table"], x["players"]) for x in seating["tables"]] == [(1, 6), (2, 5)]
    named = sorted(s["name"] for x in seating["tables"] for s in x["seats"] if "name" in s)
    assert named == sorted(f"Игрок {n}" for n in range(1, 12))
    assert [len(x["seats"]) for x in seating["tables"]] == [6, 6]
    assert sum(1 for x in seating["tables"] for s in x["seats"] if "name" not in s) == 1
    for e in state["entries"]:  # the players' list says the same seats
        assert e["seat"] == "{}/{}".format(*_seat_of(state, e["player_id"]))
    assert state["screen"]["text"]["level"] == "Уровень 1"
    assert state["balancing"] == [] and state["attention"] == []
    assert state["final_table"] == {"proposed": False, "refusal": None}
    assert state["finish"] == {
        "ready": False,
        "refusal": "Игроков в игре: 11. Записывайте вылеты, пока не останется один.",
    }


def test_3_2_a_shared_bust_by_names_records_the_second_killer_and_offers_a_reentry(http, committed, w):
    """3.2, AC-3: the busted player then two killers: one bust number, the second killer in the audit
    row; the re-entry is offered at once; a killer out, or a page drawn before another tablet's bust,
    is one plain refusal writing nothing."""
    t = _tournament(committed, w.club_a)
    p, tid = t["players"], t["id"]
    state = _state(http, w, tid)
    made = _bust(http, w, tid, state, p[1], p[2], p[3])
    assert {k: v for k, v in made.items() if k != "knockout_id"} == {
        "bust_number": 1,
        "level": 1,
        "busted": "Игрок 1",
        "killers": ["Игрок 2", "Игрок 3"],
        "reentry_open": True,
        "together": [
            {
                "knockout_id": made["knockout_id"],
                "player_id": p[1],
                "busted": "Игрок 1",
                "killers": ["Игрок 2", "Игрок 3"],
                "reentry_open": True,
            }
        ],
    }
    with Session(committed) as session:
        audit = session.scalars(select(KnockoutAudit).where(KnockoutAudit.knockout_id == made["knockout_id"])).one()
        entries = {e["player_id"]: e["entry_id"] for e in state["entries"]}
        assert (audit.kind, audit.second_killer_entry_id) == ("recorded", entries[p[3]])
        assert audit.data["killer_entry_id"] == entries[p[2]]
    after = _state(http, w, tid)
    # the busts list names both killers of the shared bust (the second from the audit row)
    assert [(k["bust_number"], k["busted"], k["killer"], k["killers"]) for k in after["knockouts"]] == [
        (1, "Игрок 1", "Игрок 2", ["Игрок 2", "Игрок 3"])
    ]
    assert after["reentry_open"] == {str(p[1]): True}
    assert _seat_of(after, p[1]) is None
    # the other tablet's page was drawn before the bust: its bust of the same player is refused, named
    path = f"/desk/tournaments/{tid}/busts"
    stale = {"busted": p[1], "killers": [p[4]], "seen": state["versions"][str(p[1])]}
    _refused(http, committed, w, "POST", path, stale, 409, "desk-stale",
             "Игрок 1: изменено на другом планшете, пока страница была открыта (сейчас: вылетел). "
             "Ничего не сделано; страница показывает, как есть сейчас.")  # fmt: skip
    body = {"busted": p[5], "killers": [p[1]], "seen": after["versions"][str(p[5])]}
    _refused(http, committed, w, "POST", path, body, 409, "desk-killer-out",
             "Игрок 1 не в игре и не может быть выбившим.")  # fmt: skip
    body = {"busted": p[5], "killers": [p[5]], "seen": after["versions"][str(p[5])]}
    _refused(http, committed, w, "POST", path, body, 409, "desk-same-player",
             "Назовите каждого игрока один раз: выбывшего и каждого выбившего.")  # fmt: skip
    # the re-entry offered: seated by the late-seating rule, owing its price
    again = _call(http, w, "POST", f"/tournaments/{tid}/re-entries", {"player": str(p[1])})
    assert again.status_code == 200, again.text
    assert _state(http, w, tid)["reentry_open"] == {}


def test_sp_5_a_void_by_bust_number_shows_what_it_will_do_and_puts_the_player_back_in_their_seat(http, committed, w):
    """SP-5, 3.2, 3.6: the plan of the last bust or one by its number, in words; the void puts the
    player back at the seat they had; a second void is one plain refusal writing nothing."""
    t = _tournament(committed, w.club_a)
    p, tid = t["players"], t["id"]
    state = _state(http, w, tid)
    had = _seat_of(state, p[4])
    _bust(http, w, tid, state, p[4], p[5])
    _bust(http, w, tid, _state(http, w, tid), p[6])
    last = _call(http, w, "GET", f"/desk/tournaments/{tid}/void").json()
    assert (last["bust_number"], last["busted"], last["refusal"]) == (2, "Игрок 6", None)
    plan = _call(http, w, "GET", f"/desk/tournaments/{tid}/void?bust=1").json()
    assert {k: plan[k] for k in ("bust_number", "busted", "killer", "seat_had", "back_to_seat", "refusal")} == {
        "bust_number": 1,
        "busted": "Игрок 4",
        "killer": "Игрок 5",
        "seat_had": list(had),
        "back_to_seat": True,
        "refusal": None,
    }
    assert plan["text"] == (
        f"Отменить вылет № 1? Игрок 4 вернётся в игру за стол {had[0]}, место {had[1]} — на своё место. "
        "Вылет останется в записи с пометкой «отменён»."
    )
    done = _call(http, w, "POST", f"/desk/tournaments/{tid}/void", {"bust": 1}).json()
    assert (done["bust_number"], done["busted"], done["seat"]) == (1, "Игрок 4", "{}/{}".format(*had))
    assert _seat_of(_state(http, w, tid), p[4]) == had
    path = f"/desk/tournaments/{tid}/void"
    _refused(http, committed, w, "POST", path, {"bust": 1}, 409, "desk-void-refused",
             "Вылет № 1 (Игрок 4) уже отменён.")  # fmt: skip
    _refused(http, committed, w, "POST", path, {"bust": 9}, 404, "desk-no-bust", "Вылета № 9 нет.")
    # the last live bust, with no number: bust 2
    assert _call(http, w, "POST", path, {}).json()["bust_number"] == 2
    _refused(http, committed, w, "POST", path, {}, 404, "desk-no-bust", "Отменять нечего: вылетов нет.")


def test_3_6_balancing_and_a_table_break_are_named_and_confirmed_by_the_floor_then_the_final_table(http, committed, w):
    """3.6: nothing moves by itself; the suggested moves name the player and the seats, the floor
    confirms each; a table to break is named; the final table waits for late registration with its
    deadline in the club's time (Moscow), then is assembled; finish is refused until one is left."""
    t = _tournament(committed, w.club_a)
    p, tid = t["players"], t["id"]
    state = _state(http, w, tid)
    at = {n: _seat_of(state, p[n]) for n in p}
    second = [n for n in p if at[n][0] == 2]
    for n in second[:3]:  # table 2 goes down to 2 players: 6 against 2
        _bust(http, w, tid, _state(http, w, tid), p[n])
    state = _state(http, w, tid)
    assert [(x["table"], x["players"]) for x in state["seating"]["tables"]] == [(1, 6), (2, 2)]
    move, then = state["balancing"]  # until the tables differ by one at most: 5 and 3, then 4 and 4
    assert [(m["kind"], m["from_table"], m["to_table"]) for m in (move, then)] == [("move", 1, 2), ("move", 1, 2)]
    with Session(committed) as session:
        before = contents(session)
        session.rollback()
    assert _state(http, w, tid)["seating"] == state["seating"]  # reading moves nothing
    with Session(committed) as session:
        assert contents(session) == before
    body = {
        "player": move["player_id"],
        "table": 2,
        "seat": move["to_seat"],
        "seen": state["versions"][str(move["player_id"])],
    }
    done = _call(http, w, "POST", f"/desk/tournaments/{tid}/moves", body).json()
    assert done["text"] == f"{move['name']}: стол 1, место {move['from_seat']} → стол 2, место {move['to_seat']}."
    _refused(http, committed, w, "POST", f"/desk/tournaments/{tid}/moves", body, 409, "desk-stale",
             f"{move['name']}: изменено на другом планшете, пока страница была открыта "
             f"(сейчас: в игре, место 2/{move['to_seat']}). Ничего не сделано; страница показывает, как есть сейчас.")  # fmt: skip
    # two more busts at table 2 (5 and 1): its last player fits the free seat of table 1
    state = _state(http, w, tid)
    left = [s["player_id"] for s in state["seating"]["tables"][1]["seats"] if "player_id" in s]
    _bust(http, w, tid, state, left[0])
    _bust(http, w, tid, _state(http, w, tid), left[1])
    state = _state(http, w, tid)
    assert state["seating"]["stage"] == "final-table-proposed"
    assert [m["kind"] for m in state["balancing"]] == ["break-table"]
    assert {a["kind"] for a in state["attention"]} == {"break-table", "final-table"}
    with Session(committed) as session:
        deadline = session.get(Tournament, tid).late_reg_deadline
    local = deadline.astimezone(__import__("zoneinfo").ZoneInfo("Europe/Moscow")).strftime("%H:%M")
    wait = f"Поздняя регистрация: открыто до {local}; финальный стол ждёт закрытия (может прийти новый вход)."
    assert state["final_table"] == {"proposed": True, "refusal": wait}
    _refused(http, committed, w, "POST", f"/desk/tournaments/{tid}/final-table", None, 409,
             "final-table-entries-open", wait)  # fmt: skip
    with unit_of_work(committed) as session:
        session.execute(
            update(Tournament).where(Tournament.id == tid).values(late_reg_deadline=world.now() - timedelta(minutes=1))
        )
    done = _call(http, w, "POST", f"/desk/tournaments/{tid}/final-table").json()
    assert done["table"] == 1 and len(done["text"]) == 6
    assert all(line.startswith("Игрок ") and " → стол 1, место " in line for line in done["text"])
    state = _state(http, w, tid)
    assert [(x["table"], x["players"]) for x in state["seating"]["tables"]] == [(1, 6)]
    with Session(committed) as session:
        assert session.scalar(select(Seat.table_no).where(Seat.tournament_id == tid).distinct()) == 1


def test_3_3_a_mystery_draw_at_the_desk_then_the_bust_stays(http, committed, w):
    """3.3: the killer of a bust draws, by the bust number; the bust can no longer be voided, said plainly."""
    t = _tournament(committed, w.club_a, players=4, bounty_type="mystery", mystery=True)
    p, tid = t["players"], t["id"]
    assert _state(http, w, tid)["mystery"] == {"on": True, "table": False}
    _bust(http, w, tid, _state(http, w, tid), p[1], p[2])
    drawn = _call(http, w, "POST", f"/desk/tournaments/{tid}/mystery-draws", {"bust": 1, "description": "Ужин"})
    assert drawn.json() == {"draw_number": 1, "bust_number": 1, "killer": "Игрок 2", "prize": "Ужин"}
    state = _state(http, w, tid)
    assert state["drawn"] == [state["knockouts"][0]["id"]]
    plan = _call(http, w, "GET", f"/desk/tournaments/{tid}/void?bust=1").json()
    assert plan["refusal"] == "На вылете № 1 уже разыгран мистери-баунти: вылет остаётся."
    _refused(http, committed, w, "POST", f"/desk/tournaments/{tid}/void", {"bust": 1}, 409, "desk-void-refused",
             plan["refusal"])  # fmt: skip


def test_3_7_finish_is_ready_with_one_player_left_and_the_day_says_what_needs_the_floor(http, committed, w):
    """3.7, 3.8, SP-3: the day lists no-shows due and the bubble; finish once one player is left."""
    t = _tournament(committed, w.club_a, players=3, itm_percent=50, itm_min=1)
    p, tid = t["players"], t["id"]
    with unit_of_work(committed) as session:
        tournament = session.get(Tournament, tid)
        world.register(session, tournament, checked_in=False, name="Опоздавший")
    day = {d["id"]: d for d in _call(http, w, "GET", f"/desk/clubs/{w.club_a}/today").json()}
    with Session(committed) as session:
        deadline = session.get(Tournament, tid).late_reg_deadline
    local = deadline.astimezone(__import__("zoneinfo").ZoneInfo("Europe/Moscow")).strftime("%H:%M")
    assert day[tid]["attention"] == [
        {"kind": "no-shows", "text": f"Неявки: не отмечены 1, срок в {local}"},
        {"kind": "bubble", "text": "Пузырь: следующий вылет — последний перед призовыми местами"},
    ]
    _bust(http, w, tid, _state(http, w, tid), p[1], p[2])  # 2 left, 2 paid places of 3 entries: in the money
    state = _state(http, w, tid)
    assert state["finish"]["ready"] is False
    _bust(http, w, tid, state, p[3], p[2])
    state = _state(http, w, tid)
    assert state["finish"] == {"ready": True, "refusal": None}
    assert state["seating"]["stage"] == "over"


REBUY_CLOSED = "Ребаи закрылись с концом уровня 2; часы дошли до уровня 3 (SP-12)."
ADDON_CLOSED = "Аддон открывается с перерыва 1 (перерывов пройдено: 0) (правило 3.1)."


def _window(http, w, tid):
    state = _state(http, w, tid)
    return state["screen"]["clock"]["level"], state["topups"]


def test_sp_12_the_rebuy_and_add_on_buttons_follow_their_windows_at_the_edges(http, committed, w):
    """SP-12 `rebuy_until_level` 2: the desk offers rebuys at level 1 and at level 2 (the window closes
    when level 2 ends), not at level 3, nor after a step back (the furthest level reached decides);
    3.1 the add-on from the first break (level 3) on. By the rules the services refuse with: the
    server's refusal is the words the desk shows."""
    t = _tournament(committed, w.club_a, players=4, rebuy_until_level=2, addon_amount=50000, addon_break=1)
    tid, p = t["id"], t["players"]
    rebuy_open, addon_open = {"open": True, "refusal": None}, {"open": True, "refusal": None}
    rebuy_closed = {"open": False, "refusal": REBUY_CLOSED}
    addon_closed = {"open": False, "refusal": ADDON_CLOSED}
    assert _window(http, w, tid) == (1, {"rebuy": rebuy_open, "addon": addon_closed})
    world.clock(committed, tid, "next")
    assert _window(http, w, tid) == (2, {"rebuy": rebuy_open, "addon": addon_closed})
    assert _call(http, w, "POST", f"/tournaments/{tid}/rebuys", {"player": str(p[2])}).status_code == 200
    world.clock(committed, tid, "next")
    assert _window(http, w, tid) == (3, {"rebuy": rebuy_closed, "addon": addon_open})
    _refused(http, committed, w, "POST", f"/tournaments/{tid}/rebuys", {"player": str(p[1])}, 409,
             "rebuy-window-closed", REBUY_CLOSED)  # fmt: skip
    world.clock(committed, tid, "prev")
    assert _window(http, w, tid) == (2, {"rebuy": rebuy_closed, "addon": addon_closed})


def test_doc_4_the_desk_s_refusals_are_in_the_club_s_language_and_write_nothing(http, committed, w):
    """DOC-4, SP-12, SP-5, SP-1: at a Russian club a rebuy past its limit, a second void (by the desk
    and by the API), a wrong amount and a stale page are refused in Russian, with the names and the
    roubles, writing nothing; at an English club the refusal is the English message."""
    t = _tournament(committed, w.club_a, players=4, rebuy_limit=1)
    tid, p = t["id"], t["players"]
    rebuys = f"/tournaments/{tid}/rebuys"
    assert _call(http, w, "POST", rebuys, {"player": str(p[1])}).status_code == 200
    _refused(http, committed, w, "POST", rebuys, {"player": str(p[1])}, 409, "rebuy-limit-reached",
             "Ребаев у игрока: 1, а лимит — 1 на игрока (SP-12).")  # fmt: skip
    state = _state(http, w, tid)
    made = _bust(http, w, tid, state, p[2], p[3])
    assert _call(http, w, "POST", f"/desk/tournaments/{tid}/void", {"bust": 1}).status_code == 200
    _refused(http, committed, w, "POST", f"/desk/tournaments/{tid}/void", {"bust": 1}, 409, "desk-void-refused",
             "Вылет № 1 (Игрок 2) уже отменён.")  # fmt: skip
    _refused(http, committed, w, "POST", f"/tournaments/{tid}/knockouts/{made['knockout_id']}/void", None, 409,
             "void-already-voided", f"Нокаут {made['knockout_id']} уже отменён.")  # fmt: skip
    _refused(http, committed, w, "POST", f"/desk/tournaments/{tid}/settlements", {"player": str(p[1]), "amount": "500"},
             409, "amount-differs", "Игрок 1: долг 1\xa0000,00\xa0₽, а не 500,00\xa0₽.", who="cashier")  # fmt: skip
    stale = {"busted": p[4], "killers": [p[1]], "seen": state["versions"][str(p[4])]}
    _bust(http, w, tid, _state(http, w, tid), p[4])  # by another tablet, after this page was drawn
    _refused(http, committed, w, "POST", f"/desk/tournaments/{tid}/busts", stale, 409, "desk-stale",
             "Игрок 4: изменено на другом планшете, пока страница была открыта (сейчас: вылетел). "
             "Ничего не сделано; страница показывает, как есть сейчас.")  # fmt: skip
    # an English club: the English message, as the CLI prints it
    with unit_of_work(committed) as session:
        locales.set_locale(session, "club", w.club_b, "en", world.now())
    _refused(http, committed, w, "POST", f"/desk/tournaments/{w.tournament_b}/settlements",
             {"player": "Owing Player 2", "amount": "1 500"}, 409, "nothing-owed",
             "Owing Player 2 owes nothing now: already settled.", who="both")  # fmt: skip
