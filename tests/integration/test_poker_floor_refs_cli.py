"""The floor names people as it speaks: by handle, by name (unique, else the candidates), or by
table and seat (`1/2`); a knockout says who busted whom, the bust number, who remains, the money."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from domain.poker.services import players as poker_players
from domain.store.db import unit_of_work
from tests.support.cli import j, refused, run
from tests.support.world import checked_in, club, tournament_through_services


def test_a_knockout_by_seat_and_by_name_prints_who_busted_whom_how_many_remain_and_the_money(committed):
    now = datetime.now(UTC)
    with unit_of_work(committed) as session:
        tid = tournament_through_services(
            session,
            club(session, fresh=True, at=now).id,
            start=now - timedelta(minutes=30),
            status="running",
            late_reg_deadline=now + timedelta(hours=1),
            itm_percent=0,
            itm_min=1,
        )
        ids = {}
        for name, handle in (
            ("Anna Petrova", "anna"),
            ("Boris Ivanov", "boris"),
            ("Cyril Orlov", "cyril"),
            ("Anna Petrova", "anna2"),
        ):
            pid = poker_players.add_player(session, name, handle, datetime(1990, 1, 1).date(), now).id
            ids[handle] = checked_in(session, tid, pid, now - timedelta(hours=1)).id
    t = str(tid)
    seats = j("poker", "seat", "draw", t, "--seed", "floor")
    boris = next(s for s in seats["seats"] if s["entry_id"] == ids["boris"])
    ambiguous = refused(committed, "poker", "knockout", t, "Anna Petrova")
    assert ambiguous.startswith("error: several players are named 'Anna Petrova': @anna (id ")
    assert ambiguous.endswith("name one by handle or id")
    out = run("poker", "knockout", t, f"{boris['table']}/{boris['seat']}", "--killer", "cyril orlov")
    assert out.returncode == 0, out.stderr
    assert " ".join(out.stdout.split()).startswith("bust 1: Boris Ivanov by Cyril Orlov · 3 remain · 2 to the money")
    [k] = j("poker", "knockout", t, "anna2", "--killer", "@cyril")
    assert (k["bust_number"], k["busted"], k["killer"], k["busted_entry_id"]) == (
        2,
        "Anna Petrova",
        "Cyril Orlov",
        ids["anna2"],
    )
    assert (
        refused(committed, "poker", "knockout", t, "9/9") == f"error: nobody sits at table 9 seat 9 of tournament {t}"
    )
