"""SP-9..SP-12 as the floor runs them: real processes, --json, exit 2 and one line on refusal."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta

from domain.store.db import unit_of_work
from tests.support.cli import run
from tests.support.world import club


def j(*args: str):
    result = run("--json", *args)
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout)


def test_sp9_sp10_sp12_settings_knockouts_and_a_rebuy_limit_on_the_command_line(committed, tmp_path):
    """SP-9, SP-10, SP-12"""
    with unit_of_work(committed) as session:
        club_id = club(session, fresh=True).id
    grid = tmp_path / "grid.json"
    grid.write_text(json.dumps([{"small_blind": 100, "big_blind": 200, "ante": 0, "minutes": 30}]))
    structure = j("poker", "structure", "import", str(grid), "--club", str(club_id), "--name", "PKO")
    start = (datetime.now(UTC) + timedelta(hours=1)).isoformat()
    t = j(
        "poker",
        "create",
        "--club",
        str(club_id),
        "--structure",
        str(structure["id"]),
        "--name",
        "PKO",
        "--start",
        start,
        "--stack",
        "20000",
        "--currency",
        "RUB",
        "--buy-in",
        "0",
        "--set",
        "bounty_type=pko",
        "--set",
        "pko_head=101",
        "--set",
        "shared_knockouts=true",
        "--set",
        "rebuy_amount=1",
        "--set",
        "rebuy_limit=1",
    )
    assert (t["pko_head"], t["shared_knockouts"], t["rebuy_limit"]) == (101, True, 1)
    tid = str(t["id"])
    j("poker", "open", tid)
    entries = {}
    for name in ("wera", "xena", "yuri", "zoya"):
        j("player", "add", name.title(), name, "--born", "1990-01-01")
        j("poker", "register", tid, name)
        entries[name] = j("poker", "checkin", tid, name)["entry_id"]
    j("poker", "start", tid)
    j("poker", "rebuy", tid, "xena")
    again = run("poker", "rebuy", tid, "xena")
    assert again.returncode == 2 and "rebuy_limit" in again.stderr and again.stderr.count("\n") == 1
    j(
        "poker",
        "knockout",
        tid,
        str(entries["wera"]),
        "--killer",
        str(entries["xena"]),
        "--second-killer",
        str(entries["yuri"]),
        "--also-killer",
        str(entries["zoya"]),
    )
    j("poker", "knockout", tid, str(entries["xena"]), "--killer", str(entries["zoya"]))
    j("poker", "knockout", tid, str(entries["yuri"]), "--killer", str(entries["zoya"]))
    places = {p["player"]: p for p in j("poker", "places", tid)}
    # W (101) shared by X, Y, Z: 17 each credited, 17/17/16 to the heads; Z takes X (118) and Y (118)
    assert places["Xena"]["credit"] == "1/3" and places["Xena"]["pko_points"] == 17
    assert places["Zoya"]["credit"] == "2 1/3"
    assert sum(p["pko_points"] for p in places.values()) == 4 * 101
    bad = run("poker", "edit", tid, "--set", "pko_head=1")
    assert bad.returncode == 2
