"""`tourney player ...` and `tourney poker ...` as the floor runs them: real processes, --json,
exit code 2 and one line on refusal, nothing written."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta, timezone

from sqlalchemy import func, select

from domain.poker.tables.tournaments import Player, Tournament
from domain.store.db import unit_of_work
from tests.support.cli import run
from tests.support.world import club


def j(*args: str):
    result = run("--json", *args)
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout)


def test_a_tournament_from_structure_import_to_settlement(committed, tmp_path):
    with unit_of_work(committed) as session:
        club_id = club(session, fresh=True, at=datetime.now(UTC)).id
    grid = tmp_path / "grid.json"
    grid.write_text(
        json.dumps([{"small_blind": 100, "big_blind": 200, "ante": 0, "minutes": 30}, {"break": True, "minutes": 10}])
    )
    structure = j("poker", "structure", "import", str(grid), "--club", str(club_id), "--name", "Turbo")
    assert structure["total_minutes"] == 40
    j("player", "add", "Anna Petrova", "anna", "--born", "1991-04-12")
    start = (datetime.now(UTC) + timedelta(hours=1)).isoformat()
    t = j(
        "poker",
        "create",
        "--club",
        str(club_id),
        "--structure",
        str(structure["id"]),
        "--name",
        "Friday",
        "--start",
        start,
        "--stack",
        "20000",
        "--currency",
        "rub",
        "--buy-in",
        "1 500",
        "--set",
        "rebuy_amount=1000",
        "--set",
        "seat_cap=8",
    )
    assert (t["status"], t["currency"], t["seat_cap"], t["rebuy_amount"]) == ("draft", "RUB", 8, 100000)
    tid = str(t["id"])
    assert j("poker", "open", tid)["status"] == "registration_open"
    assert j("poker", "register", tid, "anna")["status"] == "active"
    assert j("poker", "checkin", tid, "anna")["sequence"] == 1
    settled = j("poker", "settle", tid, "anna", "--method", "cash", "--by", "Olga")
    assert (settled["amount"], settled["currency"], settled["settled_by"]) == (150000, "RUB", "Olga")
    voided = j("poker", "void-settlement", tid, str(settled["id"]), "--by", "Igor", "--reason", "typo", "--yes")
    assert voided["voided_by"] == "Igor"
    forgotten = j("player", "forget", "anna")
    assert forgotten["name"].startswith("Player-") and forgotten["handle"] is None
    assert j("poker", "debts", tid)[0]["player"] == forgotten["pseudonym"]


def test_bad_settings_exit_2_with_every_problem_on_one_line_and_nothing_written(committed):
    now = datetime.now(UTC)
    with unit_of_work(committed) as session:
        club_id = club(session, fresh=True, at=now).id
    start = (now + timedelta(days=3)).astimezone(timezone(timedelta(hours=3))).replace(microsecond=0)
    result = run(
        "poker",
        "create",
        "--club",
        str(club_id),
        "--structure",
        "999",
        "--name",
        "Bad",
        "--start",
        start.isoformat(),
        "--stack",
        "20000",
        "--currency",
        "XYZ",
        "--buy-in",
        "10,555",
        "--set",
        "seat_cap=11",
        "--set",
        f"late_reg_deadline={(start - timedelta(seconds=1)).isoformat()}",
    )
    assert result.returncode == 2
    assert result.stderr.count("\n") == 1 and "Traceback" not in result.stderr
    for fragment in ("seat cap 11", "buy_in: 10,555 has 3 decimals", "'XYZ'", "rule 3.9", "no blind structure 999"):
        assert fragment in result.stderr
    under_18 = run("player", "add", "Kid", "kid", "--born", (now - timedelta(days=365 * 11)).date().isoformat())
    assert under_18.returncode == 2 and "rule 1.2.1" in under_18.stderr
    with unit_of_work(committed) as session:
        assert session.scalar(select(func.count()).select_from(Tournament)) == 0
        assert session.scalar(select(func.count()).select_from(Player)) == 0
