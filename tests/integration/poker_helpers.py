"""Building blocks for the live-poker integration tests: a club, a structure, a tournament, players.

Service tests build at the fixed NOW and START. A test whose `tourney` processes read the real clock
passes `now` (the real now) and a start after it."""

from __future__ import annotations

import itertools
from datetime import UTC, date, datetime, timedelta

from sqlalchemy.orm import Session

from domain.clubs.tables import Club
from domain.poker.rules.settings import TournamentSettings
from domain.poker.rules.structures import LevelSpec
from domain.poker.services import entries as poker_entries
from domain.poker.services import players as poker_players
from domain.poker.services import structures as poker_structures
from domain.poker.services import tournaments as poker_tournaments

NOW = datetime(2026, 12, 4, 17, 0, tzinfo=UTC)
START = datetime(2026, 12, 4, 19, 0, tzinfo=UTC)
S = timedelta(seconds=1)
# four 30-minute levels and a 15-minute break: the SP-2 window is 2 h 15 min
LEVELS = [LevelSpec(100, 200, 0, 1800), LevelSpec(200, 400, 0, 1800), LevelSpec(0, 0, 0, 900, True),
          LevelSpec(300, 600, 600, 1800), LevelSpec(400, 800, 800, 1800)]
_n = itertools.count(1)


def club(session: Session, now: datetime = NOW) -> Club:
    n = next(_n)
    c = Club(name=f"Club {n}", legal_form="legal_entity", inn=f"{n:010d}", ogrn=f"{n:013d}",
             contact_email="floor@example.org", timezone="Europe/Moscow", created_at=now, updated_at=now)
    session.add(c)
    session.flush()
    return c


def tournament(session: Session, club_id: int | None = None, start: datetime = START, status: str = "registration_open",
               *, now: datetime = NOW, **settings) -> int:
    club_id = club_id or club(session, now).id
    structure = poker_structures.import_structure(session, club_id, f"Grid {next(_n)}", "classic", LEVELS, now)
    values = dict(name="Friday", scheduled_start=start, starting_stack=20000, currency="RUB", buy_in=150000,
                  late_reg_deadline=start + timedelta(hours=1))
    values.update(settings)
    t = poker_tournaments.create_tournament(session, club_id, structure.id, TournamentSettings(**values), now)
    if status in ("registration_open", "running"):
        poker_tournaments.change_status(session, t.id, "open", now)
    if status == "running":
        poker_tournaments.change_status(session, t.id, "start", start)
    return t.id


def player(session: Session, handle: str | None = None, born: date = date(1990, 5, 17)) -> int:
    handle = handle or f"p{next(_n)}"
    return poker_players.add_player(session, handle.title(), handle, born, NOW).id


def checked_in(session: Session, tid: int, pid: int, now: datetime = NOW):
    poker_entries.register(session, tid, pid, now)
    return poker_entries.check_in(session, tid, pid, now)


def bust(session: Session, entry_id: int, at: datetime) -> None:
    """The knockouts area busts entries; these tests only need the state."""
    from domain.poker.tables.tournaments import Entry

    entry = session.get(Entry, entry_id)
    entry.state, entry.busted_at = "busted", at
    session.flush()
