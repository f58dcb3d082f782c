"""The owner's console, part two, over `/api/v1` (flows/web/api/owner_series.py, issue 39): the club's
series (an RRULE or a weekly form in the club's timezone, a template from one of its tournaments, paused,
resumed, ended), its league seasons (LG-1..LG-3) and its documents (DOC-1..DOC-5: listed with their
delivery, downloaded, re-sent), over a real server and PostgreSQL. Each answer is read back whole; each
refusal writes nothing; another club's object is not found, exactly as a missing one (AC-2); each change
is one audit row (AC-3), a change of nothing a 204 with none."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from decimal import Decimal
from zoneinfo import ZoneInfo

import pytest
from sqlalchemy import select
from sqlalchemy.orm import Session

from domain.access.tables import AuditRecord
from domain.documents.services import sources
from domain.documents.services.publish import publish, send_next
from domain.documents.tables import DocumentPublication
from domain.leagues.services import leagues
from domain.poker.tables.tournaments import Player, Tournament
from domain.series.tables import SeriesOccurrence
from domain.store.db import unit_of_work
from infra.config import load_settings
from infra.render import Renderer
from tests.support.db import contents
from tests.support.world import access_world, poker

CREDENTIALS = ("account_tokens", "account_sessions")  # a call's token use is written, whatever it does
MOSCOW = ZoneInfo("Europe/Moscow")
DAY_NAMES = ("mon", "tue", "wed", "thu", "fri", "sat", "sun")
RRULE_DAYS = ("MO", "TU", "WE", "TH", "FR", "SA", "SU")


@pytest.fixture
def world(web, committed):
    return access_world(committed)


def _call(http, world, who: str, method: str, path: str, body=None, **kw):
    return http.request(method, "/api/v1" + path, json=body, headers=world.headers(who), **kw)


def _rows(engine) -> dict:
    with Session(engine) as session:
        return {k: v for k, v in contents(session).items() if k not in CREDENTIALS}


def _trail(engine, n: int = 3) -> list[tuple[str, str]]:
    with Session(engine) as session:
        return [
            (r.action, r.target) for r in session.scalars(select(AuditRecord).order_by(AuditRecord.id.desc()).limit(n))
        ]


def _codes(response) -> list[str]:
    return [p["code"] for p in response.json().get("problems", [])] or [response.json()["code"]]


def _refused(http, world, committed, who, method, path, body, status, codes):
    before = _rows(committed)
    r = _call(http, world, who, method, path, body)
    assert r.status_code == status, r.text
    assert _codes(r) == codes, r.text
    assert _rows(committed) == before
    return r


def _same_as_missing(http, world, committed, method, path_b, path_missing, body, given_b, given_missing):
    """AC-2: club A's owner naming club B's object gets the missing object's answer (the id aside)."""
    before = _rows(committed)
    b = _call(http, world, "owner", method, path_b, body)
    missing = _call(http, world, "owner", method, path_missing, body)
    assert b.status_code == missing.status_code, (b.text, missing.text)
    assert b.json()["code"] == missing.json()["code"]
    assert [p.get("message", "").replace(str(given_b), "<id>") for p in b.json().get("problems", [])] == [
        p.get("message", "").replace(str(given_missing), "<id>") for p in missing.json().get("problems", [])
    ]
    assert b.json()["detail"].replace(str(given_b), "<id>") == missing.json()["detail"].replace(
        str(given_missing), "<id>"
    )
    assert _rows(committed) == before
    return b


def _at(value: str) -> datetime:
    return datetime.fromisoformat(value)


def _in_days(days: int, zone: ZoneInfo = MOSCOW) -> int:
    """The weekday (0 = Monday) of the day `days` from today in `zone`."""
    return (datetime.now(UTC).astimezone(zone).date() + timedelta(days=days)).weekday()


# -- series -----------------------------------------------------------------------------------------


def test_the_owner_adds_a_weekly_series_from_a_tournament_and_sees_its_next_starts_in_the_club_s_time(
    http, committed, world
):
    """Issue 39: the weekly form in the club's timezone (Moscow), the template from one of the club's
    tournaments (its deadlines as minutes after its start); the next starts answered in the club's time;
    one audit row; the same series listed and shown; another club's series not found (AC-2)."""
    c, t = world.club_a, world.tournament_a
    weekday = _in_days(3)
    made = _call(
        http,
        world,
        "owner",
        "POST",
        f"/clubs/{c}/series",
        {
            "name": " Пятничный турбо ",
            "weekly": {"days": [DAY_NAMES[weekday]], "time": "19:00"},
            "from_tournament": t,
            "template": {"buy_in": 200000, "late_reg_minutes": 90},
        },
    )
    assert made.status_code == 201, made.text
    body = made.json()
    with Session(committed) as session:
        structure = session.execute(select(Tournament.structure_id).where(Tournament.id == t)).scalar()
    first = datetime.now(UTC).astimezone(MOSCOW).date() + timedelta(days=3)
    expected = [datetime(d.year, d.month, d.day, 19, tzinfo=MOSCOW) for d in (first, first + timedelta(days=7))]
    assert body == {
        "id": body["id"],
        "club_id": c,
        "name": "Пятничный турбо",
        "kind": "poker",
        "status": "active",
        "rrule": f"FREQ=WEEKLY;BYDAY={RRULE_DAYS[weekday]};BYHOUR=19;BYMINUTE=0",
        "cron": f"0 19 * * {DAY_NAMES[weekday]}",
        "timezone": "Europe/Moscow",
        "horizon_days": 14,
        "opens_before_minutes": 1440,
        "template": {
            "structure_id": structure,
            "starting_stack": 10000,
            "currency": "RUB",
            "buy_in": 200000,
            "format": "freezeout",
            "bounty_type": "none",
            "mystery_draw": False,
            "seat_cap": 9,
            "addon_once": True,
            "no_show_policy": "drop",
            "itm_percent": 15,
            "itm_min": 1,
            "shared_knockouts": False,
            "mystery_phase": "start",
            "mystery_draw_per": "per_killer_entry",
            "late_reg_minutes": 90,
        },
        "planned": 2,
        "next": [
            {
                "starts_at": body["next"][n]["starts_at"],
                "local": start.isoformat(),
                "opens_at": body["next"][n]["opens_at"],
                "status": "planned",
                "tournament_id": None,
                "problem": None,
            }
            for n, start in enumerate(expected)
        ],
        "skipped": [],
    }
    assert [_at(s["starts_at"]) for s in body["next"]] == expected
    assert [_at(s["opens_at"]) for s in body["next"]] == [e - timedelta(days=1) for e in expected]
    assert body["next"][0]["local"].endswith("T19:00:00+03:00")
    assert _trail(committed)[0] == ("club.add-series", "series Пятничный турбо")

    listed = _call(http, world, "owner", "GET", f"/clubs/{c}/series")
    assert (listed.status_code, listed.json()) == (200, [body])
    shown = _call(http, world, "owner", "GET", f"/clubs/{c}/series/{body['id']}")
    assert (shown.status_code, shown.json()) == (200, body)

    # the same as an RRULE; a page at a time
    again = _call(
        http,
        world,
        "owner",
        "POST",
        f"/clubs/{c}/series",
        {"name": "Воскресный кубок", "rrule": "RRULE:FREQ=WEEKLY;BYDAY=SU;BYHOUR=15;BYMINUTE=30", "from_tournament": t},
    )
    assert again.status_code == 201, again.text
    assert (again.json()["cron"], again.json()["next"][0]["local"][11:]) == ("30 15 * * sun", "15:30:00+03:00")
    page = _call(http, world, "owner", "GET", f"/clubs/{c}/series?limit=1")
    assert [s["name"] for s in page.json()] == ["Воскресный кубок"]
    following = http.get(page.headers["link"].split(";")[0].strip("<>"), headers=world.headers("owner"))
    assert [s["name"] for s in following.json()] == ["Пятничный турбо"]

    # club B's series: not found, as a missing one; the floor of club A: the missing club
    with unit_of_work(committed) as session:
        other = poker.tournament(session, club_id=world.club_b)
    b = _call(
        http,
        world,
        "owner_b",
        "POST",
        f"/clubs/{world.club_b}/series",
        {"name": "Б", "weekly": {"days": ["mon"], "time": "20:00"}, "from_tournament": other.id},
    ).json()["id"]
    _same_as_missing(
        http, world, committed, "GET", f"/clubs/{c}/series/{b}", f"/clubs/{c}/series/900000001", None, b, 900000001
    )
    _same_as_missing(
        http, world, committed, "POST", f"/clubs/{c}/series/{b}/pause", f"/clubs/{c}/series/900000001/pause", None,
        b, 900000001,
    )  # fmt: skip
    _same_as_missing(
        http, world, committed, "POST", f"/clubs/{c}/series",
        f"/clubs/{c}/series",
        {"name": "X", "weekly": {"days": ["mon"], "time": "20:00"}, "from_tournament": other.id}, other.id, other.id,
    )  # fmt: skip
    for who in ("floor", "cashier", "owner_b"):
        _refused(http, world, committed, who, "GET", f"/clubs/{c}/series", None, 404, ["club-not-found"])


def test_every_problem_of_a_series_with_its_code_at_once_and_nothing_written(http, committed, world):
    """Issue 39: the rule's problems and the template's and the calendar's, at once (409); nothing written."""
    c = world.club_a
    _refused(
        http, world, committed, "owner", "POST", f"/clubs/{c}/series",
        {"name": "Плохая", "rrule": "FREQ=YEARLY;INTERVAL=2;BYDAY=1FR;BYHOUR=25", "template": {"buy_in": -1},
         "horizon_days": 400, "opens_before_minutes": -5},
        409,
        ["series-rrule-freq-unsupported", "series-rrule-interval-unsupported", "series-rrule-day-ordinal-unsupported",
         "series-rrule-hour-invalid", "series-rrule-time-missing", "series-template-missing-setting",
         "series-horizon-out-of-range", "series-opens-before-out-of-range"],
    )  # fmt: skip
    _refused(
        http, world, committed, "owner", "POST", f"/clubs/{c}/series",
        {"name": "Две", "rrule": "FREQ=DAILY;BYHOUR=19;BYMINUTE=0", "weekly": {"days": ["fri"], "time": "19:00"},
         "from_tournament": world.tournament_a},
        409, ["series-rule-both"],
    )  # fmt: skip
    _refused(
        http, world, committed, "owner", "POST", f"/clubs/{c}/series",
        {"name": "Нет", "from_tournament": world.tournament_a}, 409, ["series-rule-missing"],
    )  # fmt: skip
    _refused(
        http, world, committed, "owner", "POST", f"/clubs/{c}/series",
        {"name": "Часто", "rrule": "FREQ=DAILY;BYHOUR=19;BYMINUTE=0,30", "from_tournament": world.tournament_a},
        409, ["series-cron-too-frequent"],
    )  # fmt: skip
    _refused(
        http, world, committed, "owner", "POST", f"/clubs/{c}/series",
        {"name": "Время", "weekly": {"days": ["fri"], "time": "24:61"}, "from_tournament": world.tournament_a},
        409, ["series-weekly-time-invalid"],
    )  # fmt: skip
    _refused(
        http, world, committed, "owner", "POST", f"/clubs/{c}/series",
        {"name": "Структура", "weekly": {"days": ["fri"], "time": "19:00"}, "from_tournament": world.tournament_a,
         "template": {"structure_id": 900000001}},
        409, ["series-structure-not-found"],
    )  # fmt: skip
    made = _call(
        http, world, "owner", "POST", f"/clubs/{c}/series",
        {"name": "Одна", "weekly": {"days": ["fri"], "time": "19:00"}, "from_tournament": world.tournament_a},
    )  # fmt: skip
    assert made.status_code == 201, made.text
    _refused(
        http, world, committed, "owner", "POST", f"/clubs/{c}/series",
        {"name": "Одна", "weekly": {"days": ["sat"], "time": "19:00"}, "from_tournament": world.tournament_a},
        409, ["series-name-taken"],
    )  # fmt: skip


def test_the_owner_pauses_resumes_and_ends_a_series_and_a_change_of_nothing_writes_nothing(http, committed, world):
    """docs/series.md: active ⇄ paused, either → ended (final): paused, its planned starts dropped; resumed,
    planned again; ended for good; the same status again 204 with no audit row; a refused one writes nothing."""
    c = world.club_a
    made = _call(
        http, world, "owner", "POST", f"/clubs/{c}/series",
        {"name": "Среда", "weekly": {"days": [DAY_NAMES[_in_days(3)]], "time": "20:00"},
         "from_tournament": world.tournament_a},
    ).json()  # fmt: skip
    sid = made["id"]
    paused = _call(http, world, "owner", "POST", f"/clubs/{c}/series/{sid}/pause")
    assert paused.status_code == 200, paused.text
    assert paused.json() == made | {"status": "paused", "planned": 0, "next": []}
    assert _trail(committed)[0] == ("club.pause-series", f"series {sid}")
    before = _rows(committed)
    again = _call(http, world, "owner", "POST", f"/clubs/{c}/series/{sid}/pause")
    assert (again.status_code, again.content) == (204, b"")
    assert _rows(committed) == before
    resumed = _call(http, world, "owner", "POST", f"/clubs/{c}/series/{sid}/resume")
    assert resumed.status_code == 200 and resumed.json()["status"] == "active"
    assert [s["local"] for s in resumed.json()["next"]] == [s["local"] for s in made["next"]]
    assert (_call(http, world, "owner", "POST", f"/clubs/{c}/series/{sid}/resume").status_code) == 204
    ended = _call(http, world, "owner", "POST", f"/clubs/{c}/series/{sid}/end")
    assert ended.status_code == 200 and (ended.json()["status"], ended.json()["next"]) == ("ended", [])
    _refused(http, world, committed, "owner", "POST", f"/clubs/{c}/series/{sid}/resume", None, 409, ["series-ended"])
    _refused(http, world, committed, "owner", "POST", f"/clubs/{c}/series/{sid}/pause", None, 409, ["series-ended"])
    before = _rows(committed)
    assert _call(http, world, "owner", "POST", f"/clubs/{c}/series/{sid}/end").status_code == 204
    assert _rows(committed) == before
    assert _trail(committed) == [
        ("club.end-series", f"series {sid}"),
        ("club.resume-series", f"series {sid}"),
        ("club.pause-series", f"series {sid}"),
    ]


def test_a_series_in_a_zone_with_dst_starts_at_the_club_s_wall_time_on_both_sides_of_the_change(http, committed, world):
    """The club's timezone and DST: a club in Berlin, a weekly 19:00 for a year; every start is 19:00 on its
    day in Berlin, an hour apart in UTC across the changes (17:00 UTC in summer, 18:00 in winter)."""
    c = world.club_a
    assert _call(http, world, "owner", "POST", f"/clubs/{c}/profile", {"timezone": "Europe/Berlin"}).status_code == 200
    berlin = ZoneInfo("Europe/Berlin")
    weekday = _in_days(3, berlin)
    made = _call(
        http, world, "owner", "POST", f"/clubs/{c}/series",
        {"name": "Год", "rrule": f"FREQ=WEEKLY;BYDAY={RRULE_DAYS[weekday]};BYHOUR=19;BYMINUTE=0",
         "from_tournament": world.tournament_a, "horizon_days": 365},
    )  # fmt: skip
    assert made.status_code == 201, made.text
    assert made.json()["timezone"] == "Europe/Berlin"
    assert all(s["local"][11:19] == "19:00:00" for s in made.json()["next"])
    with Session(committed) as session:
        starts = session.scalars(
            select(SeriesOccurrence.starts_at).where(SeriesOccurrence.series_id == made.json()["id"])
        ).all()
    assert len(starts) in (52, 53)
    local = [s.astimezone(berlin) for s in starts]
    assert {(x.weekday(), x.hour, x.minute) for x in local} == {(weekday, 19, 0)}
    assert {s.astimezone(UTC).hour for s in starts} == {17, 18}


# -- seasons ----------------------------------------------------------------------------------------


def _played_two(committed, club_id: int) -> tuple[int, int]:
    """Two finished tournaments of the club, three players: anna 1st then 3rd, boris 2nd then 1st,
    vera 3rd then 2nd."""
    now = datetime.now(UTC)
    with unit_of_work(committed) as session:
        anna, boris, vera = (
            poker.player(session, n, handle=h)
            for n, h in (("Анна Белова", None), ("Борис Гельфанд", None), ("Вера Менчик", None))
        )
        first = poker.played(session, [vera, boris, anna], now - timedelta(days=7), "Пятница 1", club_id=club_id)
        second = poker.played(session, [anna, vera, boris], now - timedelta(days=2), "Пятница 2", club_id=club_id)
        return first.id, second.id


def test_the_owner_creates_a_season_names_its_tournaments_and_reads_its_standings(http, committed, world):
    """LG-1..LG-3 in the console: a season of the club's days, its tournaments named (twice: 204), the
    standings derived now (table 10 · 6 · 3); every problem at once; another club's season, series or
    tournament is answered as a missing one (AC-2)."""
    c = world.club_a
    first, second = _played_two(committed, c)
    today = datetime.now(UTC).astimezone(MOSCOW).date()
    made = _call(
        http, world, "owner", "POST", f"/clubs/{c}/seasons",
        {"name": " Зима ", "from": str(today - timedelta(days=30)), "to": str(today + timedelta(days=30)),
         "formula": "table", "table": [10, 6, 3]},
    )  # fmt: skip
    assert made.status_code == 201, made.text
    sid = made.json()["id"]
    view = {
        "id": sid,
        "club_id": c,
        "name": "Зима",
        "from": str(today - timedelta(days=30)),
        "to": str(today + timedelta(days=30)),
        "formula": "table",
        "table": ["10.00", "6.00", "3.00"],
        "knockout_bonus": None,
        "shared": "best",
        "best_k": None,
        "series": [],
        "tournaments": [],
        "counted": [],
    }
    assert made.json() == view | {"standings": []}
    assert _trail(committed)[0] == ("club.add-season", "season Зима")

    named = _call(http, world, "owner", "POST", f"/clubs/{c}/seasons/{sid}/members", {"tournaments": [first, second]})
    assert named.status_code == 200, named.text
    with Session(committed) as session:
        starts = dict(
            session.execute(
                select(Tournament.id, Tournament.scheduled_start).where(Tournament.id.in_([first, second]))
            ).all()
        )
        players = dict(session.execute(select(Player.name, Player.id).where(Player.name.like("% %"))).all())
    standings = [
        ("Борис Гельфанд", 1, "16.00", 1, "10.00"),
        ("Анна Белова", 2, "13.00", 1, "10.00"),
        ("Вера Менчик", 3, "9.00", 0, "6.00"),
    ]
    assert named.json() == view | {
        "tournaments": [first, second],
        "counted": [
            {"id": first, "name": "Пятница 1", "scheduled_start": named.json()["counted"][0]["scheduled_start"]},
            {"id": second, "name": "Пятница 2", "scheduled_start": named.json()["counted"][1]["scheduled_start"]},
        ],
        "standings": [
            {"rank": rank, "player_id": players[name], "player": name, "total": total, "counted": 2, "played": 2,
             "firsts": firsts, "best": best}
            for name, rank, total, firsts, best in standings
        ],
    }  # fmt: skip
    assert [_at(t["scheduled_start"]) for t in named.json()["counted"]] == [starts[first], starts[second]]
    assert _trail(committed)[0] == ("club.add-to-season", f"season {sid}")
    before = _rows(committed)
    again = _call(http, world, "owner", "POST", f"/clubs/{c}/seasons/{sid}/members", {"tournaments": [second]})
    assert (again.status_code, again.content) == (204, b"")
    assert _rows(committed) == before
    read = _call(http, world, "owner", "GET", f"/clubs/{c}/seasons/{sid}")
    assert (read.status_code, read.json()) == (200, named.json())
    listed = _call(http, world, "owner", "GET", f"/clubs/{c}/seasons")
    assert listed.json() == [{k: v for k, v in named.json().items() if k != "standings"}]
    # the standings are the leagues service's (the CLI's `league standings`)
    with Session(committed) as session:
        _, _, rows = leagues.season_standings(session, sid)
        assert [(r.name, r.standing.total) for r in rows] == [(n, Decimal(t)) for n, _, t, _, _ in standings]

    # every problem at once; a name taken
    _refused(
        http, world, committed, "owner", "POST", f"/clubs/{c}/seasons",
        {"name": "Зима", "from": "2027-03-01", "to": "2027-02-01", "formula": "elo", "shared": "most",
         "bonus": -1, "best_k": 0, "table": [-2]},
        409,
        ["season-range-empty", "season-formula-unknown", "season-table-bad", "season-shared-unknown",
         "season-bonus-bad", "season-best-k-bad", "season-name-taken"],
    )  # fmt: skip
    # another club's tournament, series and season: as missing ones (AC-2)
    with unit_of_work(committed) as session:
        theirs = poker.tournament(session, club_id=world.club_b).id
    _same_as_missing(
        http, world, committed, "POST", f"/clubs/{c}/seasons/{sid}/members", f"/clubs/{c}/seasons/{sid}/members",
        {"tournaments": [theirs]}, theirs, theirs,
    )  # fmt: skip
    r = _refused(
        http, world, committed, "owner", "POST", f"/clubs/{c}/seasons/{sid}/members",
        {"tournaments": [theirs, 900000001], "series": [900000002]}, 409,
        ["season-series-unknown", "season-tournament-unknown", "season-tournament-unknown"],
    )  # fmt: skip
    assert [p["message"] for p in r.json()["problems"]] == [
        "no series 900000002",
        f"no poker tournament {theirs}",
        "no poker tournament 900000001",
    ]
    b = _call(
        http, world, "owner_b", "POST", f"/clubs/{world.club_b}/seasons",
        {"name": "Б", "from": "2031-01-01", "to": "2031-02-01"},
    ).json()["id"]  # fmt: skip
    _same_as_missing(
        http, world, committed, "GET", f"/clubs/{c}/seasons/{b}", f"/clubs/{c}/seasons/900000001", None, b, 900000001
    )
    for who in ("floor", "owner_b"):
        _refused(http, world, committed, who, "GET", f"/clubs/{c}/seasons/{sid}", None, 404, ["club-not-found"])


def test_the_owner_edits_a_season_and_takes_a_tournament_out_and_its_standings_follow(http, committed, world):
    """LG-1..LG-3: a season defined anew (its name, a sqrt formula, best 1) keeps its tournaments, and its
    standings follow at once; the same again: 204, nothing written; every problem at once, a name taken
    by another season of the club among them; a tournament taken out counts no more (taken out twice:
    204); naming none: 409; another club's season: as a missing one, nothing written (AC-2)."""
    c = world.club_a
    first, second = _played_two(committed, c)
    today = datetime.now(UTC).astimezone(MOSCOW).date()
    days = {"from": str(today - timedelta(days=30)), "to": str(today + timedelta(days=30))}
    season = {"name": "Зима", **days, "formula": "table", "table": [10, 6, 3]}
    sid = _call(http, world, "owner", "POST", f"/clubs/{c}/seasons", season).json()["id"]
    _call(http, world, "owner", "POST", f"/clubs/{c}/seasons", {"name": "Весна", **days})
    assert _call(http, world, "owner", "POST", f"/clubs/{c}/seasons/{sid}/members",
                 {"tournaments": [first, second]}).status_code == 200  # fmt: skip
    path = f"/clubs/{c}/seasons/{sid}"
    before = _rows(committed)
    same = _call(http, world, "owner", "POST", path, season | {"table": [10.0, 6, 3.00]})
    assert (same.status_code, same.content) == (204, b"") and _rows(committed) == before

    edited = _call(http, world, "owner", "POST", path, {"name": " Зима-2027 ", **days, "best_k": 1})
    assert edited.status_code == 200, edited.text
    body = edited.json()
    assert (body["name"], body["formula"], body["table"], body["best_k"]) == ("Зима-2027", "sqrt", [], 1)
    assert body["tournaments"] == [first, second] and len(body["counted"]) == 2
    assert [(r["player"], r["total"], r["counted"], r["played"]) for r in body["standings"]] == [
        ("Анна Белова", "17.32", 1, 2),  # sqrt: 10·√(3/1) for a 1st place of 3, the best one of two (LG-2, LG-3)
        ("Борис Гельфанд", "17.32", 1, 2),
        ("Вера Менчик", "12.25", 1, 2),  # 10·√(3/2): her best, a 2nd place
    ], body["standings"]
    with Session(committed) as session:
        _, _, rows = leagues.season_standings(session, sid)
        assert [(r.name, str(r.standing.total)) for r in rows] == [(r["player"], r["total"]) for r in body["standings"]]
    assert _trail(committed)[0] == ("club.edit-season", f"season {sid}")

    _refused(
        http, world, committed, "owner", "POST", path,
        {"name": "Весна", "from": days["to"], "to": days["from"], "formula": "table", "best_k": 0}, 409,
        ["season-range-empty", "season-table-empty", "season-best-k-bad", "season-name-taken"],
    )  # fmt: skip

    out = _call(http, world, "owner", "POST", f"{path}/removals", {"tournaments": [second]})
    assert out.status_code == 200, out.text
    assert out.json()["tournaments"] == [first] and [t["id"] for t in out.json()["counted"]] == [first]
    assert all(r["played"] == 1 for r in out.json()["standings"])
    assert _trail(committed)[0] == ("club.remove-from-season", f"season {sid}")
    before = _rows(committed)
    twice = _call(http, world, "owner", "POST", f"{path}/removals", {"tournaments": [second]})
    assert (twice.status_code, twice.content) == (204, b"") and _rows(committed) == before
    _refused(http, world, committed, "owner", "POST", f"{path}/removals", {}, 409, ["season-remove-nothing"])

    b = _call(
        http, world, "owner_b", "POST", f"/clubs/{world.club_b}/seasons",
        {"name": "Б", "from": "2031-01-01", "to": "2031-02-01"},
    ).json()["id"]  # fmt: skip
    _same_as_missing(
        http, world, committed, "POST", f"/clubs/{c}/seasons/{b}", f"/clubs/{c}/seasons/900000001",
        {"name": "Чужая", **days}, b, 900000001,
    )  # fmt: skip
    _same_as_missing(
        http, world, committed, "POST", f"/clubs/{c}/seasons/{b}/removals", f"/clubs/{c}/seasons/900000001/removals",
        {"tournaments": [first]}, b, 900000001,
    )  # fmt: skip


# -- documents --------------------------------------------------------------------------------------


class Mailer:
    """What the delivery job hands to SMTP, kept: (recipient, subject, attachments' names, Message-ID)."""

    def __init__(self):
        self.sent: list[tuple[str, str, list[str], str]] = []

    def send(self, recipient, subject, body, attachments, message_id):
        self.sent.append((recipient, subject, [name for name, _ in attachments], message_id))


def _published(committed, outbox, club_id: int) -> tuple[int, int]:
    """A finished tournament of the club, its documents published by the job's use case (rendered, signed,
    stored in the outbox), and another finished one not published yet: (published's id, the other's)."""
    now = datetime.now(UTC)
    with unit_of_work(committed) as session:
        anna, boris = poker.player(session, "Анна Белова"), poker.player(session, "Борис Гельфанд")
        t = poker.played(session, [boris, anna], now - timedelta(days=1), "Пятница", prizes=["Кубок"], club_id=club_id)
        later = poker.played(session, [anna, boris], now - timedelta(hours=5), "Суббота", club_id=club_id)
        publish(session, Renderer(load_settings().secret_key()), outbox, sources.bundle(session, "poker", t.id), now)
        return t.id, later.id


def _send(committed, outbox, mailer) -> dict | None:
    with unit_of_work(committed) as session:
        return send_next(session, outbox, mailer, datetime.now(UTC))


def test_the_owner_lists_downloads_and_re_sends_a_finished_tournament_s_documents(http, committed, world, web):
    """DOC-1..DOC-5 in the console: every finished tournament listed with its documents and delivery state
    (one not published yet said so); a stored PDF downloaded as published (its sha256); re-sent to the club's
    e-mail as it is now: a new delivery the job sends with a Message-ID of its own, never a second one while
    one is on its way (204); another club's documents not found, as missing ones (AC-2)."""
    c = world.club_a
    tid, later = _published(committed, web.outbox, c)
    listed = _call(http, world, "owner", "GET", f"/clubs/{c}/documents")
    assert listed.status_code == 200, listed.text
    rows = listed.json()
    assert [(r["tournament_id"], r["state"]) for r in rows] == [(later, "not-published"), (tid, "pending")]
    pub = rows[1]
    assert pub | {"id": None, "published_at": None, "files": None} == {
        "id": None,
        "source": "poker",
        "tournament_id": tid,
        "tournament": "Пятница",
        "season_id": None,
        "season": None,
        "state": "pending",
        "recipient": "floor@example.org",
        "attempts": 0,
        "last_error": None,
        "next_attempt_at": None,
        "sent_at": None,
        "published_at": None,
        "files": None,
    }
    assert [(f["kind"], f["filename"], f["serial"], f["player"]) for f in pub["files"]] == [
        ("results", "results.pdf", None, None),
        ("certificate", f"certificate-SP-{tid:06d}-01.pdf", f"SP-{tid:06d}-01", "Анна Белова"),
    ]
    assert rows[0] == {
        "id": None, "source": "poker", "tournament_id": later, "tournament": "Суббота", "season_id": None,
        "season": None, "state": "not-published", "recipient": None, "attempts": 0, "last_error": None,
        "next_attempt_at": None, "sent_at": None, "published_at": None, "files": [],
    }  # fmt: skip

    # downloaded: the stored, signed PDF, byte for byte
    with Session(committed) as session:
        folder = session.get(DocumentPublication, pub["id"]).folder
    for f in pub["files"]:
        got = _call(http, world, "owner", "GET", f"/clubs/{c}/documents/{pub['id']}/files/{f['id']}")
        assert got.status_code == 200, got.text
        assert got.headers["content-type"] == "application/pdf"
        assert got.headers["content-disposition"] == f'attachment; filename="{f["filename"]}"'
        assert got.content == (web.outbox / folder / f["filename"]).read_bytes()
        assert got.content.startswith(b"%PDF") and len(got.content) == f["size_bytes"]
    # a file changed in the outbox is never handed out
    results = web.outbox / folder / "results.pdf"
    kept = results.read_bytes()
    results.write_bytes(kept + b"%")
    _refused(
        http, world, committed, "owner", "GET", f"/clubs/{c}/documents/{pub['id']}/files/{pub['files'][0]['id']}",
        None, 404, ["document-file-missing"],
    )  # fmt: skip
    results.write_bytes(kept)

    # on its way already (pending, due): no second delivery
    before = _rows(committed)
    on_its_way = _call(http, world, "owner", "POST", f"/clubs/{c}/documents/{pub['id']}/deliveries")
    assert (on_its_way.status_code, on_its_way.content) == (204, b"")
    assert _rows(committed) == before
    # the job sends it; then the club's e-mail changes and the owner sends it again
    mailer = Mailer()
    assert _send(committed, web.outbox, mailer)["state"] == "sent"
    assert _send(committed, web.outbox, mailer) is None
    first_id = f"<poker-{tid}.{pub['id']}@tourney>"
    assert mailer.sent == [("floor@example.org", "Results: Пятница", [f["filename"] for f in pub["files"]], first_id)]
    changed = _call(http, world, "owner", "POST", f"/clubs/{c}/profile", {"contact_email": "docs@pik.example"})
    assert changed.status_code == 200, changed.text
    again = _call(http, world, "owner", "POST", f"/clubs/{c}/documents/{pub['id']}/deliveries")
    assert again.status_code == 202, again.text
    assert again.json() | {"next_attempt_at": None} == pub | {
        "state": "pending",
        "recipient": "docs@pik.example",
        "attempts": 0,
        "next_attempt_at": None,
        "sent_at": None,
    }
    assert _trail(committed)[0] == ("club.resend-documents", f"documents {pub['id']}")
    before = _rows(committed)
    assert _call(http, world, "owner", "POST", f"/clubs/{c}/documents/{pub['id']}/deliveries").status_code == 204
    assert _rows(committed) == before
    assert _send(committed, web.outbox, mailer)["state"] == "sent"
    assert len(mailer.sent) == 2
    recipient, subject, names, message_id = mailer.sent[1]
    assert (recipient, subject, names) == (
        "docs@pik.example",
        "Results: Пятница",
        [f["filename"] for f in pub["files"]],
    )
    assert message_id != first_id and message_id.startswith(f"<poker-{tid}.{pub['id']}.")
    shown = _call(http, world, "owner", "GET", f"/clubs/{c}/documents").json()[1]
    assert (shown["state"], shown["recipient"], shown["attempts"]) == ("sent", "docs@pik.example", 1)

    # another club's documents: as missing ones; the floor: the missing club
    theirs, _ = _published(committed, web.outbox, world.club_b)
    with Session(committed) as session:
        p = session.scalars(select(DocumentPublication).where(DocumentPublication.tournament_id == theirs)).one()
        doc = p.id
    b_file = _call(http, world, "owner_b", "GET", f"/clubs/{world.club_b}/documents").json()[1]["files"][0]["id"]
    _same_as_missing(
        http, world, committed, "GET", f"/clubs/{c}/documents/{doc}/files/{b_file}",
        f"/clubs/{c}/documents/900000001/files/{b_file}", None, doc, 900000001,
    )  # fmt: skip
    _same_as_missing(
        http, world, committed, "GET", f"/clubs/{c}/documents/{pub['id']}/files/{b_file}",
        f"/clubs/{c}/documents/{pub['id']}/files/900000001", None, b_file, 900000001,
    )  # fmt: skip
    _same_as_missing(
        http, world, committed, "POST", f"/clubs/{c}/documents/{doc}/deliveries",
        f"/clubs/{c}/documents/900000001/deliveries", None, doc, 900000001,
    )  # fmt: skip
    assert [r["tournament_id"] for r in _call(http, world, "owner", "GET", f"/clubs/{c}/documents").json()] == [
        later,
        tid,
    ]
    for who in ("floor", "cashier", "owner_b"):
        _refused(http, world, committed, who, "GET", f"/clubs/{c}/documents", None, 404, ["club-not-found"])
        _refused(
            http, world, committed, who, "POST", f"/clubs/{c}/documents/{pub['id']}/deliveries", None, 404,
            ["club-not-found"],
        )  # fmt: skip
