"""`tourney poker knockout | void-knockout | mystery-draw | prizes | itm | places` as the floor runs
them: a real process, --json output, one-line errors with exit 2 and nothing written."""

from __future__ import annotations

import json

import pytest
from sqlalchemy import func, select

from domain.poker.rules.wording.check import CHECKER, seal_for
from domain.poker.tables.knockouts_places import Knockout, MysteryDraw, Prize
from domain.store.db import unit_of_work
from tests.support import world as w
from tests.support.cli import refused, run


@pytest.fixture
def game(committed):
    with unit_of_work(committed) as s:
        t = w.tournament(s, **w.BOUNTY | {"bounty_type": "mystery", "levels": w.LEVELS}, mystery=True)
        e = {n: x.id for n, x in w.field(s, t, "ABC").items()}
        return t.id, e


def rows(model, committed, *where) -> int:
    with unit_of_work(committed) as s:
        return s.scalar(select(func.count()).select_from(model).where(*where))


def test_the_floor_records_knockouts_draws_and_reads_places_as_json(game, committed):
    t, e = game
    out = run("--json", "poker", "knockout", str(t), str(e["A"]), "--killer", str(e["C"]), "--level", "4")
    assert out.returncode == 0, out.stderr
    [k] = json.loads(out.stdout)
    assert (k["bust_number"], k["killer_entry_id"], k["credit"], k["level"]) == (1, e["C"], "1", 4)

    draw = json.loads(run("--json", "poker", "mystery-draw", str(t), str(k["id"]), "--prize", "Dinner for 2").stdout)
    assert (draw["draw_number"], draw["description"]) == (1, "Dinner for 2")

    itm = json.loads(run("--json", "poker", "itm", str(t)).stdout)
    assert itm == {
        "tournament_id": t,
        "paid_places": 1,
        "remaining": 2,
        "remaining_to_money": 1,
        "on_bubble": True,
        "in_money": False,
    }

    prizes = json.loads(run("--json", "poker", "prizes", "preset", str(t), "cup").stdout)
    assert [p["place"] for p in prizes] == [1, 2, 3]

    [k2] = json.loads(run("--json", "poker", "knockout", str(t), str(e["B"]), "--killer", str(e["C"])).stdout)
    assert k2["bust_number"] == 2
    places = json.loads(run("--json", "poker", "places", str(t)).stdout)
    assert [(p["place"], p["player"], p["credit"], p["prize"]) for p in places] == [
        (1, "C", "2", "Кубок и вход на турнир клуба"),
        (2, "B", "0", "Вход на турнир клуба"),
        (3, "A", "0", "Вход на турнир клуба"),
    ]  # the preset in the club's language (Russian: the club chose none, 3.4, DOC-4)


@pytest.mark.parametrize(
    "line", ["1000 руб.", "$50", "5 000 р", "денежный приз", "cash", "саsh", "ＵＳＤ 100", "10к р", "100 rubles"]
)
def test_sp_4_a_prize_line_with_money_is_refused_by_the_cli_in_one_line_and_nothing_written(game, committed, line):
    t, _ = game
    out = run("--json", "poker", "prizes", "set", str(t), "Cup", line)
    assert out.returncode == 2
    assert out.stderr.startswith("error: prize line 2 names money") and len(out.stderr.strip().splitlines()) == 1
    assert rows(Prize, committed, Prize.tournament_id == t) == 0


def test_sp4_the_cli_stores_innocent_lines_with_the_domains_seal(game, committed):
    """SP-4: lines sharing letters with money words pass the CLI and are stored sealed."""
    t, _ = game
    lines = ["Ужин в «Рублёвке»", "Орехи кешью", "Футболка 52 р-р", "TOP 3: a cup"]
    out = run("--json", "poker", "prizes", "set", str(t), *lines)
    assert out.returncode == 0, out.stderr
    with committed.connect() as conn:
        stored = conn.execute(
            select(Prize.description, Prize.wording_seal).where(Prize.tournament_id == t).order_by(Prize.place)
        ).all()
    assert [d for d, _ in stored] == lines
    assert all(seal == seal_for(CHECKER, d) for d, seal in stored)


def test_bad_knockouts_and_draws_are_refused_in_one_line_and_nothing_written(game, committed):
    t, e = game
    self_ko = run("poker", "knockout", str(t), str(e["A"]), "--killer", str(e["A"]))
    assert (self_ko.returncode, self_ko.stderr.strip()) == (2, f"error: entry {e['A']} cannot knock out itself")
    assert rows(Knockout, committed, Knockout.tournament_id == t) == 0
    beyond = refused(committed, "poker", "knockout", str(t), str(e["A"]), "--killer", str(e["B"]), "--level", "6")
    assert beyond == "error: level 6: the tournament's blind structure has 5 levels"  # 3.2
    two_left = run("poker", "places", str(t))
    assert two_left.returncode == 2 and "3 players are still in" in two_left.stderr
    [k] = json.loads(run("--json", "poker", "knockout", str(t), str(e["A"]), "--killer", str(e["B"])).stdout)
    money = run("poker", "mystery-draw", str(t), str(k["id"]), "--prize", "cash")
    assert money.returncode == 2 and "names money" in money.stderr
    assert rows(MysteryDraw, committed, MysteryDraw.tournament_id == t) == 0
