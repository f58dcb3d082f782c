"""Rows a poker-results test starts from: a club, a structure, a tournament, players and entries
(written through the registration models)."""

from __future__ import annotations

import itertools
from datetime import UTC, date, datetime

from sqlalchemy import select
from sqlalchemy.orm import Session

from domain.clubs.tables import Club
from domain.poker.tables.tournaments import Entry, Player, Registration, Structure, Tournament

NOW = datetime(2026, 11, 29, 20, 0, tzinfo=UTC)
_serial = itertools.count(1)


def tournament(session: Session, *, status: str = "running", bounty: str = "classic", mystery: bool = False,
               itm_percent: int = 15, itm_min: int = 1, name: str = "Friday") -> Tournament:
    n = next(_serial)
    club = session.scalar(select(Club).where(Club.inn == "7707083893"))
    if club is None:
        club = Club(
            name="Pik", legal_form="legal_entity", inn="7707083893", ogrn="1027700132195",
            contact_email="floor@example.org", timezone="Europe/Moscow", created_at=NOW, updated_at=NOW,
        )
        session.add(club)
        session.flush()
    structure = Structure(club_id=club.id, name=f"Turbo {n}", ante_type="none", created_at=NOW)
    session.add(structure)
    session.flush()
    t = Tournament(
        club_id=club.id, name=name, status=status, scheduled_start=NOW, format="bounty",
        bounty_type=bounty, mystery_draw=mystery, starting_stack=20000, structure_id=structure.id, seat_cap=9,
        addon_once=True, currency="RUB", buy_in=150000, no_show_policy="drop", itm_percent=itm_percent,
        itm_min=itm_min, created_at=NOW,
    )
    session.add(t)
    session.flush()
    return t


def player_entry(session: Session, t: Tournament, name: str) -> Entry:
    n = next(_serial)
    player = Player(pseudonym=f"p-{n}", name=name, handle=f"{name.lower()}{n}", birth_date=date(1990, 1, 1),
                    created_at=NOW)
    session.add(player)
    session.flush()
    reg = Registration(tournament_id=t.id, player_id=player.id, status="active", late=False, registered_at=NOW,
                       checked_in_at=NOW)
    session.add(reg)
    session.flush()
    entry = Entry(tournament_id=t.id, player_id=player.id, registration_id=reg.id, sequence=1, state="active",
                  starting_chips=20000, created_at=NOW)
    session.add(entry)
    session.flush()
    return entry


def reenter(session: Session, busted: Entry) -> Entry:
    entry = Entry(tournament_id=busted.tournament_id, player_id=busted.player_id,
                  registration_id=busted.registration_id, sequence=busted.sequence + 1,
                  previous_entry_id=busted.id, state="active", starting_chips=20000, created_at=NOW)
    session.add(entry)
    session.flush()
    return entry


def field(session: Session, t: Tournament, names: str) -> dict[str, Entry]:
    return {name: player_entry(session, t, name) for name in names}
