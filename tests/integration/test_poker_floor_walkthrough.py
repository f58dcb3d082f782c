"""The floor's walkthrough of docs/poker.md, driven through `tourney` commands as a floor
manager, a cashier and a director run it: a 12-player tournament from creation to the last player,
people named by handle, name or seat, never by a notebook of ids (Sport Poker 3.2, 3.4, 3.6, 3.7;
SP-1, SP-7, SP-13). Times are built from the real now."""

from __future__ import annotations

import time
from datetime import UTC, datetime, timedelta

from domain.store.db import unit_of_work
from tests.support.cli import j, refused, run
from tests.support.world import club, structure

NAMES = [
    "Anna Petrova",
    "Boris Ivanov",
    "Vera Orlova",
    "Gleb Smirnov",
    "Dina Popova",
    "Egor Volkov",
    "Zoya Lebedeva",
    "Ilya Kozlov",
    "Kira Novikova",
    "Lev Morozov",
    "Mila Sokolova",
    "Oleg Pavlov",
]


def handle(name: str) -> str:
    return name.split()[0].lower()


def _down_to_six_at_both_tables(entries: dict, out: list[str]) -> list[str]:
    """Who else goes out before the final table: three of each table in all, so six are left at two
    tables whatever the seat draw (drawn by lot, SP-13) did, and the final table has two to gather."""
    table = {name: e["seat"].split("/")[0] for name, e in entries.items()}
    left = {t: 3 - sum(table[n] == t for n in out) for t in set(table.values())}
    chosen = []
    for name in NAMES[1:]:
        if name not in out and left[table[name]] > 0:
            chosen.append(name)
            left[table[name]] -= 1
    assert len(chosen) == 5, (table, chosen)
    return chosen


def test_a_twelve_player_tournament_runs_end_to_end_from_the_cli_with_names_roubles_and_local_times(committed):
    with unit_of_work(committed) as session:
        club_id, structure_id = club(session).id, structure(session).id
    start = (datetime.now(UTC) + timedelta(hours=1)).replace(microsecond=0)
    created = j(
        "poker",
        "create",
        "--club",
        str(club_id),
        "--structure",
        str(structure_id),
        "--name",
        "Friday 12",
        "--start",
        start.isoformat(),
        "--stack",
        "20000",
        "--currency",
        "RUB",
        "--buy-in",
        "1500",
        "--set",
        "seat_cap=6",
        "--set",
        f"late_reg_deadline={(start + timedelta(hours=1)).isoformat()}",
    )
    t = str(created["id"])
    j("poker", "open", t)
    for name in NAMES:
        j("player", "add", name, handle(name), "--born", "1991-04-12")
        j("poker", "register", t, handle(name))
        j("poker", "checkin", t, name)  # the counter: by name; the buy-in is owed (SP-1)
    shown = run("poker", "show", t, env={"COLUMNS": "200"})
    assert "│ buy_in            │ 1\xa0500,00\xa0₽" in shown.stdout  # the buy-in in roubles, the club's locale
    # everyone is here early: the director brings the start forward and closes late registration
    start = (datetime.now(UTC) + timedelta(seconds=2)).replace(microsecond=0)
    closes = start + timedelta(seconds=1)
    j(
        "poker",
        "edit",
        t,
        "--set",
        f"scheduled_start={start.isoformat()}",
        "--set",
        f"late_reg_deadline={closes.isoformat()}",
    )
    j("poker", "start", t)
    drawn = j("poker", "seat", "draw", t)
    assert [table["players"] for table in drawn["tables"]] == [6, 6]
    proof = j("poker", "draw-proof", t)
    assert [d["ok"] for d in proof if d.get("outcome") is not None] == [True]  # SP-13: the draw re-checks
    j("poker", "clock", "start", t)

    entries = {e["player"]: e for e in j("poker", "entries", t)}
    assert set(entries) == set(NAMES) and all(e["owed"] == 150000 for e in entries.values())
    [first] = j("poker", "knockout", t, entries["Boris Ivanov"]["seat"], "--killer", "anna", "--by", "Olga")  # 3/7
    assert (first["busted"], first["killer"], first["bust_number"]) == ("Boris Ivanov", "Anna Petrova", 1)

    settled = j("poker", "settle", t, "--all", "--method", "cash", "--by", "Olga")  # the cashier
    assert len(settled) == 12 and {s["amount"] for s in settled} == {150000}
    assert j("poker", "debts", t) == []

    out = ["Boris Ivanov"]
    for name in _down_to_six_at_both_tables(entries, out):  # the final table gathers them
        [ko] = j("poker", "knockout", t, handle(name), "--killer", "anna", "--by", "Olga")
        assert ko["busted"] == name
        out.append(name)
    time.sleep(max(0.0, (closes - datetime.now(UTC)).total_seconds()))  # the final table waits for the close
    final = j("poker", "seat", "final-table", t, "--confirm")
    assert final["stage"] == "final-table"
    line = refused(committed, "poker", "finish", t, "--yes")
    assert line.endswith("has 6 players still in: record the knockouts until one is left (rule 3.7)")
    for name in [n for n in NAMES[1:] if n not in out]:
        j("poker", "knockout", t, name, "--killer", "Anna Petrova", "--by", "Olga")  # by full name
        out.append(name)

    places = j("poker", "places", t)
    assert [(p["place"], p["player"]) for p in places] == [(1, "Anna Petrova")] + [
        (2 + n, name) for n, name in enumerate(reversed(out))
    ]  # the last out is second
    assert places[0]["knockouts"] == 11
    finished = j("poker", "finish", t, "--yes")
    assert (finished["status"], finished["placed"]) == ("finished", 12)
    assert j("poker", "show", t)["status"] == "finished"
