"""The desk's items of issue 40 over HTTP, on a server whose clock the test sets (the instant is
handed to every operation, never read inside the rules): several players out in one hand and more
than two killers at the desk (3.2, SP-7, SP-10), a voided bust's number kept (SP-5), the void plan of
a broken table (3.6), the clock stopped at the finish and the state saying when it next changes
(SP-8, 3.10), the final places after the finish, the names declined in Russian (DOC-4)."""

from __future__ import annotations

import re
from collections.abc import Iterator
from datetime import UTC, datetime, time, timedelta
from zoneinfo import ZoneInfo

import httpx
import pytest
from sqlalchemy.orm import Session

from domain.documents.services import locales
from domain.poker.services import clock as clock_service
from domain.poker.services.results import set_prizes
from domain.poker.services.seating import draw_initial
from domain.public.services import views
from domain.store.db import unit_of_work
from flows.web.api.desk import DeskState, TodayTournament
from tests.support import world
from tests.support.db import contents
from tests.support.net import free_port
from tests.support.web_server import Server
from tests.web.test_desk_api import described

MOSCOW = ZoneInfo("Europe/Moscow")
# tomorrow at noon in Moscow: the club's day, well after every credential the world makes
BASE = datetime.combine(datetime.now(MOSCOW).date() + timedelta(days=1), time(12, 0), MOSCOW).astimezone(UTC)
S = timedelta(seconds=1)


@pytest.fixture
def timed(committed) -> Iterator[tuple[httpx.Client, list[datetime]]]:
    """The app on a clock the test sets (`box[0]`, BASE to begin with), and a client of it."""
    from flows.web.app import create_app

    box = [BASE]
    app = create_app(committed, clock=lambda: box[0])
    with Server(app, free_port()) as server, httpx.Client(base_url=server.url, timeout=10) as http:
        yield http, box


@pytest.fixture
def w(committed):
    return world.access_world(committed)


def _tournament(committed, club_id: int, names: list[str], *, seat_cap: int = 6, **columns) -> dict:
    """A running tournament of the club, started 30 minutes before BASE, late registration open until
    BASE + 10 min, its clock started at BASE - 2 min (level 1 ends at BASE + 18 min), the seats drawn;
    `names` its players. Answers its id and the players' ids by name."""
    with unit_of_work(committed) as session:
        t = world.tournament(
            session, club_id=club_id, name="Пятница", start=BASE - timedelta(minutes=30), seat_cap=seat_cap,
            late_reg=timedelta(minutes=40), reentry_amount=150000, **columns,
        )  # fmt: skip
        ids = {}
        for name in names:
            ids[name] = world.enter(session, t, player_id=world.player(session, name).id).player_id
        set_prizes(session, t.id, ["Кубок", "Медаль"])
        clock_service.act(session, t.id, "start", BASE - timedelta(minutes=2))
        draw_initial(session, t.id, BASE, seed="desk")
        return {"id": t.id, "players": ids}


def _call(http, w, method, path, body=None, who="floor"):
    return http.request(method, "/api/v1" + path, json=body, headers=w.headers(who))


def _ok(http, w, method, path, body=None, who="floor"):
    response = _call(http, w, method, path, body, who)
    assert response.status_code == 200, response.text
    return response.json()


def _state(http, w, tid, who="floor"):
    state = _ok(http, w, "GET", f"/desk/tournaments/{tid}", who=who)
    described(DeskState, state)
    return state


def _refused(http, committed, w, method, path, body, status, code, message):
    with Session(committed) as session:
        before = contents(session)
        session.rollback()
    response = _call(http, w, method, path, body)
    assert response.status_code == status, response.text
    problem = response.json()  # RFC 9457
    assert (problem["code"], problem["detail"]) == (code, message)
    with Session(committed) as session:
        assert contents(session) == before


def _bust(http, w, tid, busted, killers=(), *also):
    """A bust at the desk: `busted` with `killers`, and `also` (player, killers) out in the same hand."""
    state = _state(http, w, tid)
    body = {"busted": busted, "killers": list(killers), "seen": state["versions"][str(busted)]}
    if also:
        body["also"] = [
            {"busted": p, "killers": list(k), "seen": state["versions"][str(p)]} for p, k in also
        ]  # fmt: skip
    return _ok(http, w, "POST", f"/desk/tournaments/{tid}/busts", body)


def _public_killers(http, tid) -> list[str]:
    """The "By" cells of the public results page's knockouts, newest first."""
    page = http.get(f"/t/{tid}")
    assert page.status_code == 200
    table = page.text.split('<table id="knockouts">', 1)[1].split("</table>", 1)[0]
    return [
        re.sub(r"\s+", " ", cells[3]).strip() for cells in re.findall(r"<tr[^>]*>" + r"<td>(.*?)</td>\s*" * 4, table)
    ]


def _handles(committed, ids) -> dict[int, str]:
    from domain.poker.tables.tournaments import Player

    with Session(committed) as session:
        return {i: session.get(Player, i).handle for i in ids}


# -- 1. several players out in one hand; more than two killers ------------------------------------


def test_sp_7_two_players_out_in_one_hand_at_the_desk_share_one_bust_number_and_the_best_place(timed, committed, w):
    """3.2, SP-7 (issue 40): `desk.bust` takes the other players out in the same hand (`also`), each
    with their killers: one bust number, both share the best place of the block (6 players, 2 out
    together: both 5th); the answer names each with their re-entry offer. A player named twice, or a
    killer who is out in this very hand, is one plain refusal writing nothing."""
    http, box = timed
    names = ["Игрок 1", "Игрок 2", "Игрок 3", "Игрок 4", "Игрок 5", "Игрок 6"]
    t = _tournament(committed, w.club_a, names)
    p, tid = t["players"], t["id"]
    path = f"/desk/tournaments/{tid}/busts"
    state = _state(http, w, tid)
    seen = {n: state["versions"][str(p[n])] for n in names}
    twice = {"busted": p["Игрок 1"], "killers": [p["Игрок 3"]], "seen": seen["Игрок 1"],
             "also": [{"busted": p["Игрок 1"], "killers": [], "seen": seen["Игрок 1"]}]}  # fmt: skip
    _refused(http, committed, w, "POST", path, twice, 409, "desk-same-player",
             "Назовите каждого игрока один раз: выбывшего и каждого выбившего.")  # fmt: skip
    killer_out = {"busted": p["Игрок 1"], "killers": [p["Игрок 2"]], "seen": seen["Игрок 1"],
                  "also": [{"busted": p["Игрок 2"], "killers": [p["Игрок 3"]], "seen": seen["Игрок 2"]}]}  # fmt: skip
    _refused(http, committed, w, "POST", path, killer_out, 409, "desk-same-player",
             "Назовите каждого игрока один раз: выбывшего и каждого выбившего.")  # fmt: skip
    made = _bust(http, w, tid, p["Игрок 1"], [p["Игрок 3"]], (p["Игрок 2"], [p["Игрок 4"]]))
    assert (made["bust_number"], made["busted"], made["killers"]) == (1, "Игрок 1", ["Игрок 3"])
    assert [(x["player_id"], x["busted"], x["killers"], x["reentry_open"]) for x in made["together"]] == [
        (p["Игрок 1"], "Игрок 1", ["Игрок 3"], True),
        (p["Игрок 2"], "Игрок 2", ["Игрок 4"], True),
    ]
    after = _state(http, w, tid)
    assert sorted((k["bust_number"], k["busted"], tuple(k["killers"])) for k in after["knockouts"]) == [
        (1, "Игрок 1", ("Игрок 3",)),
        (1, "Игрок 2", ("Игрок 4",)),
    ]
    assert after["players_in"] == 4
    with Session(committed) as session:
        places = views.live_places(session, tid)
    handles = _handles(committed, [p["Игрок 1"], p["Игрок 2"]])
    assert sorted((x["place"], x["player"]) for x in places) == [
        (5, handles[p["Игрок 1"]]),
        (5, handles[p["Игрок 2"]]),
    ]  # SP-7: the block of 2 while 6 remained: 6 - 2 + 1


def test_sp_10_a_bust_with_three_killers_at_the_desk_and_the_public_results_name_every_killer(timed, committed, w):
    """SP-10, 3.2, AC-5 (issue 40): with shared knockouts a bust names three killers, the desk lists all
    three, and the public results name every killer of a shared bust by handle (two without shared
    knockouts: the second from the audit row), where they named the first only. Without shared
    knockouts three killers are refused, in Russian, writing nothing."""
    http, box = timed
    names = ["Игрок 1", "Игрок 2", "Игрок 3", "Игрок 4", "Игрок 5"]
    t = _tournament(committed, w.club_a, names, shared_knockouts=True)
    p, tid = t["players"], t["id"]
    made = _bust(http, w, tid, p["Игрок 1"], [p["Игрок 2"], p["Игрок 3"], p["Игрок 4"]])
    assert made["killers"] == ["Игрок 2", "Игрок 3", "Игрок 4"]
    assert _state(http, w, tid)["knockouts"][0]["killers"] == ["Игрок 2", "Игрок 3", "Игрок 4"]
    handles = _handles(committed, p.values())
    assert _public_killers(http, tid) == [", ".join(handles[p[n]] for n in ("Игрок 2", "Игрок 3", "Игрок 4"))]

    plain = _tournament(committed, w.club_a, names)
    q = plain["players"]
    _bust(http, w, plain["id"], q["Игрок 1"], [q["Игрок 2"], q["Игрок 3"]])
    plain_handles = _handles(committed, q.values())
    assert _public_killers(http, plain["id"]) == [f"{plain_handles[q['Игрок 2']]}, {plain_handles[q['Игрок 3']]}"]
    state = _state(http, w, plain["id"])
    body = {"busted": q["Игрок 4"], "killers": [q["Игрок 2"], q["Игрок 3"], q["Игрок 5"]],
            "seen": state["versions"][str(q["Игрок 4"])]}  # fmt: skip
    _refused(http, committed, w, "POST", f"/desk/tournaments/{plain['id']}/busts", body, 409, "knockout-shared-off",
             "Названо выбивших: 3; больше двух — только с разделёнными нокаутами (SP-10).")  # fmt: skip


# -- 2. a voided bust's number is never given again ----------------------------------------------


def test_sp_5_a_voided_bust_keeps_its_number_at_the_desk_and_the_next_bust_gets_a_new_one(timed, committed, w):
    """SP-5's audit (issue 40): bust #1 voided stays #1, marked voided; the next bust is #2, not #1
    again; the last bust to void is #2."""
    http, box = timed
    t = _tournament(committed, w.club_a, ["Игрок 1", "Игрок 2", "Игрок 3", "Игрок 4"])
    p, tid = t["players"], t["id"]
    assert _bust(http, w, tid, p["Игрок 1"], [p["Игрок 2"]])["bust_number"] == 1
    assert _ok(http, w, "POST", f"/desk/tournaments/{tid}/void", {"bust": 1})["bust_number"] == 1
    assert _bust(http, w, tid, p["Игрок 3"], [p["Игрок 2"]])["bust_number"] == 2
    state = _state(http, w, tid)
    assert [(k["bust_number"], k["busted"], k["voided"]) for k in state["knockouts"]] == [
        (2, "Игрок 3", False),
        (1, "Игрок 1", True),
    ]
    assert _ok(http, w, "GET", f"/desk/tournaments/{tid}/void")["bust_number"] == 2


# -- 3. the void plan of a broken table ----------------------------------------------------------


def test_3_6_the_void_plan_says_the_seat_s_table_was_broken_and_where_the_player_sits(timed, committed, w):
    """3.2, 3.6 (issue 40): a bust at a table broken since: the plan says the table was broken (not
    "taken") and the table the late-seating rule gives (the one with the fewest players); once every
    table is full, the new table that opens."""
    http, box = timed
    names = [f"Игрок {n}" for n in range(1, 11)]
    t = _tournament(committed, w.club_a, names, seat_cap=5)  # two tables of 5
    p, tid = t["players"], t["id"]
    state = _state(http, w, tid)
    table_of = {s["name"]: x["table"] for x in state["seating"]["tables"] for s in x["seats"] if "name" in s}
    first = table_of["Игрок 1"]
    other = 3 - first
    mates = [n for n in names if table_of[n] == first and n != "Игрок 1"]
    opposite = [n for n in names if table_of[n] == other]
    made = _bust(http, w, tid, p["Игрок 1"])
    for n in mates[:3] + opposite[:2]:  # table `first` down to one player, `other` to three
        _bust(http, w, tid, p[n])
    _ok(http, w, "POST", f"/desk/tournaments/{tid}/tables/{first}/break")  # its last player to `other`: 4 of 5
    plan = _ok(http, w, "GET", f"/desk/tournaments/{tid}/void?bust={made['bust_number']}")
    assert (plan["back_to_seat"], plan["seat_gone"], plan["to_tables"], plan["new_table"]) == (
        False,
        "table-broken",
        [other],
        None,
    )
    assert plan["text"] == (
        f"Отменить вылет № 1? Игрок 1 вернётся в игру; прежний стол {first} разбит, поэтому — за стол {other}, "
        "где меньше всего игроков. Вылет останется в записи с пометкой «отменён»."
    )
    walk_in = {"name": "Вера Менчик", "handle": "vera", "birth_date": "1990-02-16"}
    assert _ok(http, w, "POST", f"/desk/tournaments/{tid}/arrivals", walk_in)["seat"].startswith(f"{other}/")
    plan = _ok(http, w, "GET", f"/desk/tournaments/{tid}/void?bust=1")  # `other` is full now: 5 of 5
    assert (plan["seat_gone"], plan["to_tables"], plan["new_table"]) == ("table-broken", [], 3)
    assert plan["text"] == (
        f"Отменить вылет № 1? Игрок 1 вернётся в игру; прежний стол {first} разбит, поэтому — за новый стол 3: "
        "все столы заполнены. Вылет останется в записи с пометкой «отменён»."
    )
    done = _ok(http, w, "POST", f"/desk/tournaments/{tid}/void", {"bust": 1})
    assert done["seat"] == "3/1"


# -- 4. time: when the state next changes; the clock stopped at the finish ----------------------


def test_3_10_the_desk_state_says_when_it_next_changes_and_the_final_table_opens_at_the_deadline(timed, committed, w):
    """3.6, 3.10, SP-8 (issue 40): the desk state says the next instant the clock alone changes it
    (`changes_at`: late registration's end, then level 1's): one second before the deadline the final
    table waits (refused), exactly at it and after it is no longer refused and registration is closed,
    without anything written meanwhile."""
    http, box = timed
    names = ["Игрок 1", "Игрок 2", "Игрок 3", "Игрок 4", "Игрок 5", "Игрок 6", "Игрок 7"]
    t = _tournament(committed, w.club_a, names)
    p, tid = t["players"], t["id"]
    deadline = BASE + timedelta(minutes=10)
    _bust(http, w, tid, p["Игрок 1"])  # six left at two tables of a cap of six: the final table is proposed
    wait = "Поздняя регистрация: открыто до 12:10; финальный стол ждёт закрытия (может прийти новый вход)."
    box[0] = deadline - S
    state = _state(http, w, tid)
    assert datetime.fromisoformat(state["changes_at"]) == deadline
    assert state["final_table"] == {"proposed": True, "refusal": wait}
    assert state["registration"] == {"open": True, "refusal": None}
    _refused(http, committed, w, "POST", f"/desk/tournaments/{tid}/final-table", None, 409,
             "final-table-entries-open", wait)  # fmt: skip
    box[0] = deadline
    state = _state(http, w, tid)
    assert datetime.fromisoformat(state["changes_at"]) == BASE + timedelta(minutes=18)  # level 1 ends
    assert state["final_table"] == {"proposed": True, "refusal": None}
    assert state["registration"] == {
        "open": False,
        "refusal": "Поздняя регистрация закрылась в 12:10 (правило 3.10).",
    }
    box[0] = deadline + S
    assert _state(http, w, tid)["final_table"] == {"proposed": True, "refusal": None}
    assert _ok(http, w, "POST", f"/desk/tournaments/{tid}/final-table")["table"] == 1


def test_sp_8_after_the_finish_the_desk_s_clock_stays_stopped_and_shows_the_places(timed, committed, w):
    """SP-8, 3.7 (issue 40): a tournament finished at level 1: two hours and a day later the desk state
    and /desk read level 1 stopped at the finish, with nothing due (`changes_at` none); the final places
    with their prizes; registration, re-entries and busts refused by the rules are not offered."""
    http, box = timed
    t = _tournament(committed, w.club_a, ["Анна Петрова", "Борис Иванов", "Вера Орлова"])
    p, tid = t["players"], t["id"]
    box[0] = BASE + timedelta(minutes=5)
    _bust(http, w, tid, p["Борис Иванов"], [p["Анна Петрова"]])
    _bust(http, w, tid, p["Вера Орлова"], [p["Анна Петрова"]])
    box[0] = BASE + timedelta(minutes=6)  # level 1: 12 of its 20 minutes left
    _ok(http, w, "POST", f"/tournaments/{tid}/finish")
    for later in (timedelta(hours=2), timedelta(days=1)):
        box[0] = BASE + timedelta(minutes=6) + later
        state = _state(http, w, tid)
        clock = state["screen"]["clock"]
        assert (clock["status"], clock["level"], clock["time_left_s"], clock["counts_to"]) == ("finished", 1, 720, None)
        assert state["screen"]["text"]["status"] == "часы остановлены на уровне 1"
        assert state["changes_at"] is None
        assert [(x["place"], x["name"], x["prize"], x["knockouts"]) for x in state["places"]] == [
            (1, "Анна Петрова", "Кубок", 2),
            (2, "Вера Орлова", "Медаль", 0),
            (3, "Борис Иванов", None, 0),
        ]
        assert state["registration"]["open"] is False
        assert set(state["reentry_open"].values()) == {False}
        day = {d["id"]: d for d in _ok(http, w, "GET", f"/desk/clubs/{w.club_a}/today")}
        assert (tid in day) is (later < timedelta(days=1))  # listed on the club's day of its start
        if tid in day:
            described(TodayTournament, day[tid])
            assert day[tid]["clock"] == {"status": "finished", "level": 1}


# -- 6. names declined in Russian ------------------------------------------------------------------


def test_doc_4_the_desk_state_carries_the_names_declined_for_a_russian_club_and_as_written_in_english(
    timed, committed, w
):
    """DOC-4 (issue 40): at a Russian club every player's row carries the genitive and accusative of the
    name («от Анны Петровой», «выбил Анну Петрову») and each settlement the genitive; a name pymorphy3
    does not know stays as written; at an English club all three are the name as written."""
    http, box = timed
    t = _tournament(committed, w.club_a, ["Егор Смирнов", "Игрок 3"])
    tid = t["id"]
    walk_in = {"name": "Анна Петрова", "handle": "anna_p", "birth_date": "1991-04-12"}
    anna = _ok(http, w, "POST", f"/desk/tournaments/{tid}/arrivals", walk_in)
    _ok(http, w, "POST", f"/desk/tournaments/{tid}/settlements", {"player": str(anna["player_id"]),
        "amount": anna["owed"]["input"], "method": "card"}, who="cashier")  # fmt: skip
    state = _state(http, w, tid, who="cashier")
    forms = {e["name"]: (e["name_gen"], e["name_acc"]) for e in state["entries"]}
    assert forms == {
        "Егор Смирнов": ("Егора Смирнова", "Егора Смирнова"),
        "Игрок 3": ("Игрок 3", "Игрок 3"),
        "Анна Петрова": ("Анны Петровой", "Анну Петрову"),
    }
    assert [(s["player"], s["player_gen"], s["method"]) for s in state["settlements"]] == [
        ("Анна Петрова", "Анны Петровой", "card")
    ]
    with unit_of_work(committed) as session:
        locales.set_locale(session, "club", w.club_a, "en", world.now())
    english = _state(http, w, tid, who="cashier")
    assert {e["name"]: (e["name_gen"], e["name_acc"]) for e in english["entries"]} == {
        n: (n, n) for n in ("Егор Смирнов", "Игрок 3", "Анна Петрова")
    }
    assert english["settlements"][0]["player_gen"] == "Анна Петрова"


# -- 5. /desk asks for the day's totals only where the caller may read them ----------------------


def test_ac_1_the_day_s_shell_asks_for_the_totals_only_in_the_clubs_the_caller_may_read_them(timed, committed, w):
    """AC-1 (issue 40): `/desk` names the clubs whose totals the caller may read (`desk.totals`): none
    for the floor (whose page asked for them at every load and got a 404), the club for its cashier."""
    http, box = timed
    for who, clubs in (("floor", []), ("cashier", [w.club_a]), ("owner", [w.club_a])):
        page = http.get("/desk", headers=w.headers(who))
        assert page.status_code == 200, who
        assert f"data-totals='{clubs}'".replace(" ", "") in page.text.replace(", ", ","), who
        status = _call(http, w, "GET", f"/desk/clubs/{w.club_a}/totals", who=who).status_code
        assert status == (200 if clubs else 404), who
