"""The floor's destructive commands, safe: each id is scoped by its tournament, each says what it
will do and asks (refused without a terminal unless --yes), `finish` waits for the last player, the
final table waits for late registration and re-entry to close."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from zoneinfo import ZoneInfo

import pytest
from sqlalchemy import select

from domain.poker.services import tournaments as poker_tournaments
from domain.store.db import unit_of_work
from domain.webhooks.tables import Event
from tests.support.cli import j, refused, run
from tests.support.world import (
    checked_in,
    club,
    player,
    tournament_through_services,
)


@pytest.fixture
def two(committed):
    """Two running tournaments of one club, each with two checked-in players owing the buy-in."""
    now = datetime.now(UTC)
    with unit_of_work(committed) as session:
        club_id = club(session, fresh=True, at=now).id
        ids = []
        for n in (1, 2):
            tid = tournament_through_services(
                session,
                club_id,
                start=now - timedelta(minutes=30 + n),
                status="running",
                late_reg_deadline=now + timedelta(hours=1),
            )
            for handle in (f"ann{n}", f"bob{n}"):
                checked_in(session, tid, player(session, handle=handle).id, now - timedelta(hours=1))
            ids.append(tid)
    return ids


def test_void_settlement_takes_the_tournament_and_refuses_another_tournaments_settlement(two, committed):
    a, b = map(str, two)
    settled = j("poker", "settle", a, "ann1", "--by", "Olga")
    line = refused(
        committed, "poker", "void-settlement", b, str(settled["id"]), "--by", "Igor", "--reason", "x", "--yes"
    )
    assert line == f"error: no settlement {settled['id']} in tournament {b}"
    voided = j("poker", "void-settlement", a, str(settled["id"]), "--by", "Igor", "--reason", "typo", "--yes")
    assert (voided["tournament_id"], voided["voided_by"], voided["void_reason"]) == (int(a), "Igor", "typo")


def test_destructive_commands_say_what_they_will_do_and_without_yes_change_nothing(two, committed):
    a, _ = map(str, two)
    settled = j("poker", "settle", a, "ann1", "--by", "Olga")
    line = refused(committed, "poker", "void-settlement", a, str(settled["id"]), "--by", "Igor", "--reason", "typo")
    assert line == (
        f"error: void settlement {settled['id']} of tournament {a}: Ann1, 1 500,00 ₽ by cash; "
        "the fees are owed again: pass --yes to go ahead (no terminal to ask on)"
    )
    line = refused(committed, "poker", "cancel", a)
    assert line == (
        f"error: cancel tournament {a} 'Friday' (running, 2 players in): pass --yes to go ahead (no terminal to ask on)"
    )
    assert j("poker", "cancel", a, "--yes") == {"id": int(a), "status": "cancelled"}


def test_finish_is_refused_while_more_than_one_player_is_in(two, committed):
    a, _ = map(str, two)
    line = refused(committed, "poker", "finish", a, "--yes")
    assert line == (
        f"error: tournament {a} 'Friday' has 2 players still in: record the knockouts until one is left (rule 3.7)"
    )


def test_the_final_table_is_refused_while_late_registration_is_open_with_the_reason(two, committed):
    a, _ = map(str, two)
    with unit_of_work(committed) as session:
        deadline = poker_tournaments.get_tournament(session, int(a)).late_reg_deadline
    local = deadline.astimezone(ZoneInfo("Europe/Moscow"))  # the club's time, in its language (Russian)
    line = refused(committed, "poker", "seat", "final-table", a, "--confirm")
    assert line == (
        f"error: late registration is open until {local:%d.%m.%Y, %H:%M} MSK: the final table waits for it "
        "to close (a new entry could still come)"
    )


def test_finish_with_one_player_left_places_everyone_at_once_without_waiting_for_the_void_window(two, committed):
    """3.7, SP-7: the director's finish stores the final places and prizes now (the job would wait for
    the last knockout's void window, SP-5); its `tournament.finished` event, for the event consumer to
    start the documents (issue 41), is written with it: the command starts no run itself."""
    a, _ = map(str, two)
    [knocked] = j("poker", "knockout", a, "bob1", "--killer", "ann1", "--by", "Olga")
    assert (knocked["busted"], knocked["killer"]) == ("Bob1", "Ann1")
    finished = json.loads(run("--json", "poker", "finish", a, "--yes").stdout)
    assert (finished["id"], finished["status"], finished["placed"]) == (int(a), "finished", 2)
    assert [(row["place"], row["player"]) for row in finished["final_table"]] == [(1, "Ann1"), (2, "Bob1")]
    assert "documents" not in finished
    with unit_of_work(committed) as s:
        waiting = s.execute(
            select(Event.payload["tournament_id"].as_integer(), Event.reacted_at).where(
                Event.kind == "tournament.finished"
            )
        ).all()
    assert waiting == [(int(a), None)]
    line = refused(committed, "poker", "finish", a, "--yes")
    assert line == f"error: tournament {a} is finished: only a running tournament finishes"
