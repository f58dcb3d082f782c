"""`tourney league create | add | standings` as an operator runs it (RULES LG-1..LG-3)."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta

from domain.poker.rules.knockouts import Bust
from domain.poker.services.knockouts import record_knockouts
from domain.poker.services.results import finalize_tournaments
from domain.store.db import unit_of_work
from tests.support import world as w
from tests.support.cli import run
from tests.support.world import EVENING


def test_lg_create_add_standings_as_json_and_a_plain_refusal(committed):
    """LG-1, LG-2, LG-3"""
    with unit_of_work(committed) as session:
        t = w.tournament(session, **w.BOUNTY)
        t.scheduled_start = datetime(2026, 11, 20, 16, 0, tzinfo=UTC)
        e = w.field(session, t, "ABCD")
        for i, n in enumerate("ABC"):
            record_knockouts(
                session, t.id, [Bust(e[n].id, e["D"].id)], now=EVENING + timedelta(seconds=i), actor="floor"
            )
        finalize_tournaments(session, EVENING + timedelta(hours=1))
        club, tid = t.club_id, t.id
    made = run(
        "--json",
        "league",
        "create",
        "Winter",
        "--club",
        str(club),
        "--from",
        "2026-11-01",
        "--to",
        "2026-12-01",
        "--formula",
        "sqrt",
        "--shared",
        "average",
        "--bonus",
        "1",
    )
    assert made.returncode == 0, made.stderr
    season = json.loads(made.stdout)
    assert run("--json", "league", "add", str(season["id"]), "--tournament", str(tid)).returncode == 0
    rows = json.loads(run("--json", "league", "standings", str(season["id"])).stdout)
    # sqrt, 4 players: D 20.00 + 3 knockouts = 23.00; C 14.14; B 11.55; A 10.00
    assert [(r["rank"], r["player"], r["total"]) for r in rows] == [
        (1, "D", "23.00"),
        (2, "C", "14.14"),
        (3, "B", "11.55"),
        (4, "A", "10.00"),
    ]
    bad = run("league", "create", "Spring", "--club", str(club), "--from", "2027-03-01", "--to", "2027-02-01")
    assert (bad.returncode, bad.stderr.strip()) == (
        2,
        "error: the season's range [2027-03-01, 2027-02-01) is empty (LG-1)",
    )
