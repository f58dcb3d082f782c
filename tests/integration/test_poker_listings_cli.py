"""The floor's and the counter's listings from the CLI, as JSON with exact rows."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from domain.store.db import unit_of_work
from tests.support.cli import j, refused
from tests.support.world import (
    checked_in,
    club,
    player,
    tournament_through_services,
)


def test_entries_knockouts_settlements_structures_and_player_search(committed):
    now = datetime.now(UTC)
    with unit_of_work(committed) as session:
        club_id = club(session, fresh=True, at=now).id
        tid = tournament_through_services(
            session,
            club_id,
            start=now - timedelta(minutes=30),
            status="running",
            late_reg_deadline=now + timedelta(hours=1),
        )
        entries = {
            h: checked_in(session, tid, player(session, handle=h).id, now - timedelta(hours=1)).id
            for h in ("ann", "bob")
        }
        late = player(session, handle="cyd").id
        from domain.poker.services import entries as poker_entries

        poker_entries.register(session, tid, late, now - timedelta(minutes=5))
    t = str(tid)
    rows = j("poker", "entries", t)
    assert [(r["handle"], r["registration"], r["entry_id"], r["state"], r["reentries"], r["owed"]) for r in rows] == [
        ("ann", "active", entries["ann"], "active", 0, 150000),
        ("bob", "active", entries["bob"], "active", 0, 150000),
        ("cyd", "active", None, None, 0, 0),
    ]
    [k] = j("poker", "knockout", t, str(entries["bob"]), "--killer", str(entries["ann"]))
    [listed] = j("poker", "knockouts", t)
    assert (listed["id"], listed["bust_number"], listed["busted"], listed["killer"], listed["voided"]) == (
        k["id"],
        1,
        "Bob",
        "Ann",
        False,
    )
    settled = j("poker", "settle", t, "ann", "--by", "Olga")
    [s] = j("poker", "settlements", t)
    assert (s["id"], s["player"], s["amount"], s["currency"], s["voided"]) == (
        settled["id"],
        "Ann",
        150000,
        "RUB",
        False,
    )
    [structure] = j("poker", "structures", "--club", str(club_id))
    assert (structure["levels"], structure["total_minutes"]) == (5, 135)
    assert [p["handle"] for p in j("player", "search", "AN")] == ["ann"]
    assert [p["handle"] for p in j("player", "search", "%")] == []
    assert refused(committed, "poker", "entries", "999") == "error: no tournament 999"
