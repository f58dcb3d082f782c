"""Output for people: a poker command shows money in the tournament's currency as its club's language
writes it, times in the club's timezone (Babel), nested data as sub-tables; `--json` keeps minor units
and UTC. Through the real `tourney` process."""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta
from zoneinfo import ZoneInfo

from domain.documents.services.locales import set_locale
from domain.poker.services import clock as clock_service
from domain.store.db import unit_of_work
from tests.support import world as w
from tests.support.cli import j, run

WIDE = {"COLUMNS": "200"}  # a wide terminal: no value folds across lines


def cells(*args: str) -> list[list[str]]:
    """The table's rows, each its cells' text."""
    out = run(*args, env=WIDE)
    assert out.returncode == 0, out.stderr
    return [
        [c.strip() for c in line.strip("│┃").split("│")] for line in out.stdout.splitlines() if line.startswith("│")
    ]


def _club_tournament(committed, start: datetime, buy_in: int) -> tuple[int, int]:
    with unit_of_work(committed) as session:
        club = w.club(session, fresh=True, at=w.NOW)
        tid = w.tournament_through_services(session, club.id, start=start, buy_in=buy_in)
        w.checked_in(session, tid, w.player(session, handle="anna").id)
        return club.id, tid


def test_sp_1_money_in_the_club_language_and_times_in_its_timezone_json_unchanged(committed):
    """SP-1: 250000 minor units of RUB read "2 500,00 ₽" in Russian (non-breaking spaces, as CLDR
    writes them) and "RUB2,500.00" in English; 19:00 UTC is 22:00 in Moscow."""
    club, tid = _club_tournament(committed, datetime(2026, 12, 4, 19, 0, tzinfo=UTC), 250000)
    t = str(tid)
    rows = dict(r[:2] for r in cells("poker", "show", t))
    assert rows["buy_in"] == "2\xa0500,00\xa0₽"
    assert rows["scheduled_start"] == "04.12.2026, 22:00 MSK"
    assert rows["late_reg_deadline"] == "04.12.2026, 23:00 MSK"
    [debt] = [r for r in cells("poker", "debts", t)]
    assert debt[2:4] == ["2\xa0500,00\xa0₽", "RUB"]
    raw = j("poker", "show", t)
    assert (raw["buy_in"], raw["scheduled_start"]) == (250000, "2026-12-04T19:00:00+00:00")
    assert j("poker", "debts", t)[0]["owed"] == 250000
    with unit_of_work(committed) as session:
        set_locale(session, "club", club, "en", datetime(2026, 12, 1, tzinfo=UTC))
    rows = dict(r[:2] for r in cells("poker", "show", t))
    assert rows["buy_in"] == "RUB2,500.00"  # CLDR's English pattern ¤#,##0.00, as Babel applies it
    assert rows["scheduled_start"] == "12/4/26, 10:00\u202fPM MSK"


def test_sp_1_a_listing_by_club_shows_each_row_in_its_currency_as_that_club_writes_it(committed):
    """`poker list --club C` names no tournament: the club's language and timezone apply, each row in
    its own currency; without a club the values are shown as stored."""
    club, _ = _club_tournament(committed, datetime(2026, 12, 4, 19, 0, tzinfo=UTC), 250000)
    with unit_of_work(committed) as session:
        w.tournament_through_services(
            session, club, start=datetime(2026, 12, 5, 19, 0, tzinfo=UTC), currency="EUR", buy_in=1000
        )
    listed = [r for r in cells("poker", "list", "--club", str(club))]
    assert [(r[4], r[6], r[7]) for r in listed] == [
        ("04.12.2026, 22:00 MSK", "2\xa0500,00\xa0₽", "RUB"),
        ("05.12.2026, 22:00 MSK", "10,00\xa0€", "EUR"),
    ]
    assert [r[6] for r in cells("poker", "list")] == ["250000", "1000"]


def test_nested_data_prints_as_sub_tables_not_json(committed):
    """A draw's items and outcome (a mapping and lists) print as tables inside the row."""
    _, tid = _club_tournament(committed, datetime(2026, 12, 4, 19, 0, tzinfo=UTC), 0)
    t = str(tid)
    out = run("poker", "seat", "draw", t, "--seed", "floor", env=WIDE)
    assert out.returncode == 0, out.stderr
    [drawn, _] = j("poker", "draw-proof", t)
    assert " ".join(out.stdout.split()).endswith(  # the line wraps at the terminal's width
        f"┘ draw 1 (initial-seating): platform seed {drawn['platform_seed']}, committed as {drawn['commitment']}; "
        f"floor seed floor; the next draw commits to {_['commitment']}"
    )
    text = run("poker", "draw-proof", t, env=WIDE).stdout
    assert "[[" not in text and "{" not in text
    assert "seat_cap" in text and "entries" in text
    assert text.count("┏") == 1  # one titled table; the sub-tables have their own boxes inside it


def test_3_5_the_clock_reads_in_the_club_timezone_with_the_time_left_as_a_clock(committed):
    """3.5: level 1 (30 minutes) started five minutes ago ends at its start + 30 min, Moscow time;
    the time left reads M:SS, between what was left before the command ran and after it."""
    start = datetime.now(UTC).replace(second=0, microsecond=0) - timedelta(minutes=5)
    with unit_of_work(committed) as session:
        tid = w.tournament_through_services(session, start=start, status="running", now=start - timedelta(hours=1))
        clock_service.act(session, tid, "start", start)
    level_end = start + timedelta(minutes=30)
    most = (level_end - datetime.now(UTC)).total_seconds()
    rows = dict(r[:2] for r in cells("poker", "clock", "status", str(tid)))
    least = (level_end - datetime.now(UTC)).total_seconds()
    ends = level_end.astimezone(ZoneInfo("Europe/Moscow"))
    assert rows["level_ends_at"] == f"{ends:%d.%m.%Y, %H:%M} MSK"
    shown = re.fullmatch(r"(\d+):([0-5]\d)", rows["time_left_s"])
    assert shown, rows["time_left_s"]
    assert int(least) - 1 <= int(shown[1]) * 60 + int(shown[2]) <= int(most) + 1, (rows["time_left_s"], least, most)
    assert j("poker", "clock", "status", str(tid))["level_ends_at"] == (start + timedelta(minutes=30)).isoformat()
