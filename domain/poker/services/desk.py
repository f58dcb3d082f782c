"""The counter's use cases, as the CLI and the simulator call them: an entry opened at check-in or
re-entry is seated at once when the seats are drawn (3.6); a rebuy is checked against the clock's
level it has reached (SP-12) and an add-on against the breaks the clock has reached (3.1)."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy.orm import Session

from domain.poker.services import clock, entries, seating
from domain.poker.tables.tournaments import Entry, TopUp


def check_in(session: Session, tournament_id: int, player_ref: str | int, now: datetime) -> tuple[Entry, dict[str, Any] | None]:
    """The first entry opens (3.4, 3.10), and its seat once seats are drawn."""
    entry = entries.check_in(session, tournament_id, player_ref, now)
    return entry, seating.seat_if_drawn(session, entry.id, now)


def reenter(session: Session, tournament_id: int, player_ref: str | int, now: datetime) -> tuple[Entry, dict[str, Any] | None]:
    """A new entry after a bust (3.1), and its seat once seats are drawn."""
    entry = entries.reenter(session, tournament_id, player_ref, now)
    return entry, seating.seat_if_drawn(session, entry.id, now)


def rebuy(session: Session, tournament_id: int, player_ref: str | int, now: datetime) -> TopUp:
    """A rebuy at the furthest level the clock has reached by now (past the structure's last level
    once it was exhausted): a window closed by the clock stays closed when the clock steps back (SP-12)."""
    level = clock.furthest_level(session, tournament_id, now)
    return entries.rebuy(session, tournament_id, player_ref, now, level=level)


def add_on(session: Session, tournament_id: int, player_ref: str | int, now: datetime) -> TopUp:
    """The add-on, with the breaks the clock has reached by now."""
    breaks = clock.breaks_reached(session, tournament_id, now)
    return entries.add_on(session, tournament_id, player_ref, now, breaks_reached=breaks)
