"""The counter's use cases, as the CLI and the simulator call them: an entry opened at check-in or
re-entry is seated at once when the seats are drawn (3.6); a rebuy is checked against the clock's
level it has reached (SP-12) and an add-on against the breaks the clock has reached (3.1); a
knockout records the level the clock shows unless the floor names one (3.2)."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any

from sqlalchemy import exists, func, select
from sqlalchemy.orm import Session

from domain.poker.rules.knockouts import Bust
from domain.poker.services import clock, entries, knockouts, seating, tournaments
from domain.poker.tables.clock_seating import NoShowRun
from domain.poker.tables.knockouts_places import Knockout, MysteryDraw
from domain.poker.tables.tournaments import Entry, Registration, TopUp


def start(session: Session, tournament_id: int, now: datetime, seed: str | None = None) -> dict:
    """The start in one step: registration open -> running (3.9, the settings freeze), the initial
    seating by lot (3.6, SP-13; `seed` is the floor's part of the draw) and the clock started."""
    tournaments.change_status(session, tournament_id, "start", now)
    drawn = seating.draw_initial(session, tournament_id, now, seed)
    clock.act(session, tournament_id, "start", now)
    return drawn


def check_in(
    session: Session, tournament_id: int, player_ref: str | int, now: datetime
) -> tuple[Entry, dict[str, Any] | None]:
    """The first entry opens (3.4, 3.10), and its seat once seats are drawn."""
    entry = entries.check_in(session, tournament_id, player_ref, now)
    return entry, seating.seat_if_drawn(session, entry.id, now)


def arrive(
    session: Session, tournament_id: int, player_ref: str | int, now: datetime
) -> tuple[Entry, dict[str, Any] | None, bool]:
    """A player at the counter in one step: registered now unless already (3.10, SP-2, late
    registration by its deadline), then checked in (the buy-in owed, 3.4) and seated once seats are
    drawn (3.6). Also says whether this step registered them."""
    entry, registered = entries.arrive(session, tournament_id, player_ref, now)
    return entry, seating.seat_if_drawn(session, entry.id, now), registered


def reenter(
    session: Session, tournament_id: int, player_ref: str | int, now: datetime
) -> tuple[Entry, dict[str, Any] | None]:
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


def clock_level(session: Session, tournament_id: int, now: datetime) -> int | None:
    """The level the clock shows at `now` (1-based, breaks counted as the clock numbers them): the
    last level once the structure is exhausted; None before the clock starts."""
    return clock.status(session, tournament_id, now).get("level")


def knock_out(
    session: Session,
    tournament_id: int,
    busts: Sequence[Bust],
    *,
    now: datetime,
    actor: str,
    level: int | None = None,
    group: str | None = None,
) -> list[Knockout]:
    """A bust block (3.2) at the level the floor names, else at the level the clock shows now."""
    if level is None:
        level = clock_level(session, tournament_id, now)
    return knockouts.record_knockouts(session, tournament_id, busts, now=now, actor=actor, level=level, group=group)


def no_shows_waiting(session: Session, tournament_id: int) -> int | None:
    """3.8: how many registered players have not checked in, while the tournament's no-shows are not
    processed yet (None once they are)."""
    waiting = (
        select(func.count())
        .select_from(Registration)
        .where(Registration.tournament_id == tournament_id, Registration.status == "active")
        .where(~select(Entry.id).where(Entry.registration_id == Registration.id).exists())
        .scalar_subquery()
    )
    processed, count = session.execute(select(exists().where(NoShowRun.tournament_id == tournament_id), waiting)).one()
    return None if processed else count


def drawn_knockouts(session: Session, tournament_id: int) -> list[int]:
    """The knockouts a mystery bounty was drawn on (3.3)."""
    return sorted(session.scalars(select(MysteryDraw.knockout_id).where(MysteryDraw.tournament_id == tournament_id)))


def player_of(session: Session, entry_id: int) -> int | None:
    return session.scalar(select(Entry.player_id).where(Entry.id == entry_id))


def players_of(session: Session, entry_ids: Sequence[int]) -> dict[int, int]:
    """Each entry's player, by entry id, in one statement."""
    if not entry_ids:
        return {}
    return dict(session.execute(select(Entry.id, Entry.player_id).where(Entry.id.in_(list(entry_ids)))).all())
