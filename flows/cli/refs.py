"""How the floor names an entry: its id, a seat `TABLE/SEAT` (`3/7`), or the player (a handle or a
name, unique), resolved in the tournament to the player's latest entry that is not voided."""

from __future__ import annotations

import re

from sqlalchemy import select

from domain.errors import DomainError, NotFound
from domain.poker.services import players as players_service
from domain.poker.tables.floor import Seat
from domain.poker.tables.tournaments import Entry

_SEAT = re.compile(r"^(\d{1,9})/(\d{1,9})$")
BIGINT_MAX = 2**63 - 1


def entry_id(session, tournament: int, ref: str) -> int:
    """The entry of the tournament that `ref` names: an entry id, `table/seat`, or a player's handle
    or name (their latest entry that is not voided)."""
    ref = ref.strip()
    if ref.isdigit():
        number = int(ref)
        if not 0 < number <= BIGINT_MAX:
            raise NotFound("entry-not-found", f"no entry {ref} in tournament {tournament}")
        return number
    seat = _SEAT.match(ref)
    if seat:
        table, number = int(seat[1]), int(seat[2])
        found = session.scalar(select(Seat.entry_id).where(
            Seat.tournament_id == tournament, Seat.table_no == table, Seat.seat_no == number))
        if found is None:
            raise NotFound("seat-empty", f"nobody sits at table {table} seat {number} of tournament {tournament}")
        return found
    player = players_service.find_player(session, ref)
    found = session.scalar(
        select(Entry.id).where(Entry.tournament_id == tournament, Entry.player_id == player.id, Entry.state != "voided")
        .order_by(Entry.sequence.desc()).limit(1)
    )
    if found is None:
        raise DomainError("entry-not-found", f"{player.display_name} has no entry in tournament {tournament}")
    return found
