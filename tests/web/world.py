"""Builders for the web tests: worlds with times relative to now (the server runs on the wall clock)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from sqlalchemy.orm import Session

from domain.poker.services import clock as clock_service
from domain.poker.services.results import set_prizes
from domain.store.db import unit_of_work
from tests.integration import poker_floor_world as world

# L1 20 min · L2 20 min · break 15 min · L3 · L4 (poker_floor_world.LEVELS)


def now() -> datetime:
    return datetime.now(UTC)


def running_poker(engine, players: int = 12, *, name: str | None = None, start: bool = True,
                  prizes=("Cup and a free entry", "Free entry"), levels=None) -> dict:
    """A running tournament with checked-in entries, its clock started now, and prizes; `levels`
    (small, big, ante, seconds, is_break) rows, default poker_floor_world.LEVELS."""
    with unit_of_work(engine) as session:
        structure_id = world.structure(session, levels=levels).id if levels else None
        t = world.tournament(session, structure_id=structure_id)
        t.scheduled_start = t.started_at = t.created_at = now() - timedelta(minutes=5)
        t.late_reg_deadline = now() + timedelta(hours=1)
        if name:
            t.name = name
        entries = [world.enter(session, t, name=f"Player {i + 1}") for i in range(players)]
        set_prizes(session, t.id, list(prizes))
        if start:
            clock_service.act(session, t.id, "start", now())
        return {"id": t.id, "club_id": t.club_id, "entries": [e.id for e in entries]}


def clock(engine, tournament_id: int, action: str) -> dict:
    with unit_of_work(engine) as session:
        return clock_service.act(session, tournament_id, action, now())


def with_session(engine, fn):
    with unit_of_work(engine) as session:
        return fn(session)


__all__ = ["Session", "clock", "now", "running_poker", "with_session"]


def bust(engine, tournament_id: int, busted_entry_id: int, killer_entry_id: int | None = None) -> None:
    from domain.poker.rules.knockouts import Bust
    from domain.poker.services.knockouts import record_knockouts

    with unit_of_work(engine) as session:
        record_knockouts(session, tournament_id, [Bust(busted_entry_id, killer_entry_id)], now=now(),
                         actor="floor")
