"""A poker tournament's change key (domain/poker/services/changes.py, docs/desk.md "Speed"): every table
the desk state, the club's screen and the live results' places and knockouts read is covered (a
tournament's league seasons are read with its results page, not followed live), so the desk's one build per
change and the screens' streams never miss a change; the key changes with each committed write they
show (a forgotten player's name, which the counts of the old fingerprint missed, a settlement's void)
and with nothing else (a read, a write rolled back)."""

from __future__ import annotations

import re
from datetime import UTC, datetime

from sqlalchemy import event

from domain.poker.rules.knockouts import Bust
from domain.poker.services import changes, desk, fees, listings, players
from domain.public.services import views
from domain.store.base import Base
from domain.store.db import unit_of_work
from flows.web.api import desk as desk_api
from tests.support.desk_budget import seated_field
from tests.support.world import access_world

TABLE = re.compile(r"\b(?:FROM|JOIN)\s+(\w+)", re.IGNORECASE)


def _read_tables(engine, read) -> set[str]:
    """The tables of the metadata that `read(session)`'s statements name."""
    seen: set[str] = set()

    def on(conn, cursor, statement, *args):
        seen.update(name for name in TABLE.findall(statement) if name in Base.metadata.tables)

    event.listen(engine, "before_cursor_execute", on)
    try:
        with unit_of_work(engine) as session:
            read(session)
    finally:
        event.remove(engine, "before_cursor_execute", on)
    return seen


def test_every_table_the_desk_the_screen_and_the_live_results_read_is_in_the_change_key(committed):
    w = access_world(committed)
    t = w.tournament_a
    seated_field(committed, t, 6)
    now = datetime.now(UTC)
    with unit_of_work(committed) as session:
        [busted, killer, *_] = [r for r in listings.entries(session, t) if r["state"] == "active"]
        desk.knock_out(session, t, [Bust(busted["entry_id"], killer["entry_id"])], now=now, actor="floor")

    def reads(session):
        tournament = session.get(desk_api.Tournament, t)
        desk_api._build(session, tournament, "key", now)
        views.screen(session, t, now)
        views.live_places(session, t)  # the live results but their seasons, read with the page
        views.knockouts(session, t)

    read = _read_tables(committed, reads)
    assert {"poker_knockouts", "poker_settlements", "poker_seats", "players", "clubs"} <= read  # it read them
    assert read - set(changes.covered()) == set()


def test_the_change_key_changes_with_each_write_it_covers_and_with_nothing_else(committed):
    w = access_world(committed)
    t = w.tournament_a
    now = datetime.now(UTC)

    def key():
        with unit_of_work(committed) as session:
            return changes.change_key(session, t)

    first = key()
    with unit_of_work(committed) as session:  # a read
        desk_api._build(session, session.get(desk_api.Tournament, t), first, now)
    assert key() == first
    with unit_of_work(committed) as session:  # a write rolled back
        nested = session.begin_nested()
        fees.void_settlement(session, w.settlement_a, "a test", "floor", now)
        nested.rollback()
    assert key() == first
    [owing] = [r for r in listings_of(committed, t) if r["player"].startswith("Owing")]
    with unit_of_work(committed) as session:  # AC-5: the name the desk shows becomes a pseudonym
        players.forget_player(session, owing["player_id"], now)
    forgotten = key()
    assert forgotten != first
    with unit_of_work(committed) as session:
        fees.void_settlement(session, w.settlement_a, "a test", "floor", now)
    assert key() not in (first, forgotten)
    with unit_of_work(committed) as session:
        assert changes.change_key(session, 10**12) is None


def listings_of(engine, t: int) -> list[dict]:
    with unit_of_work(engine) as session:
        return listings.entries(session, t)
