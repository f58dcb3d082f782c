"""Builders for the poker floor's integration tests and benchmarks: a club, a structure, running
tournaments with checked-in entries (rows written directly, as the registration services would).

Service tests build at the fixed instant T0 and give the services `now` themselves. A test whose
`tourney` processes read the real clock builds its tournament at `recent_start()` instead: the
players' registrations and entries follow the tournament's start."""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta
from itertools import count

from sqlalchemy import select
from sqlalchemy.orm import Session

from domain.clubs.tables import Club
from domain.poker.tables.tournaments import Entry, Level, Player, Registration, Structure, Tournament

T0 = datetime(2026, 11, 29, 18, 0, tzinfo=UTC)
_serial = count(1)


def recent_start() -> datetime:
    """A start a few minutes before the real now, on a whole minute: its late registration is open."""
    return datetime.now(UTC).replace(second=0, microsecond=0) - timedelta(minutes=5)

# L1 18:00-18:20 · L2 18:20-18:40 · break 18:40-18:55 · L3 18:55-19:15 · L4 19:15-19:35
LEVELS = (
    (100, 200, 0, 20 * 60, False),
    (200, 400, 50, 20 * 60, False),
    (0, 0, 0, 15 * 60, True),
    (300, 600, 75, 20 * 60, False),
    (400, 800, 100, 20 * 60, False),
)


def club(session: Session) -> Club:
    found = session.execute(select(Club).where(Club.inn == "7707083893")).scalar_one_or_none()
    if found:
        return found
    c = Club(
        name="Pik",
        legal_form="legal_entity",
        inn="7707083893",
        ogrn="1027700132195",
        contact_email="floor@example.org",
        timezone="Europe/Moscow",
        created_at=T0,
        updated_at=T0,
    )
    session.add(c)
    session.flush()
    return c


def structure(session: Session, ante_type: str = "classic", levels=LEVELS) -> Structure:
    s = Structure(club_id=club(session).id, name=f"Deep {next(_serial)}", ante_type=ante_type, created_at=T0)
    session.add(s)
    session.flush()
    for position, (small, big, ante, seconds, is_break) in enumerate(levels, 1):
        session.add(
            Level(
                structure_id=s.id,
                position=position,
                small_blind=small,
                big_blind=big,
                ante=ante,
                duration_seconds=seconds,
                is_break=is_break,
            )
        )
    session.flush()
    return s


def player(session: Session, name: str | None = None, at: datetime = T0) -> Player:
    n = next(_serial)
    p = Player(
        pseudonym=f"P-{n}",
        name=name or f"Player {n}",
        handle=f"player{n}",
        birth_date=date(1990, 1, 1),
        created_at=at,
    )
    session.add(p)
    session.flush()
    return p


def tournament(
    session: Session,
    *,
    structure_id: int | None = None,
    status: str = "running",
    seat_cap: int = 9,
    no_show_policy: str = "drop",
    late_reg: timedelta | None = timedelta(hours=1),
    starting_stack: int = 10000,
    start: datetime = T0,
) -> Tournament:
    t = Tournament(
        club_id=club(session).id,
        name=f"Friday {next(_serial)}",
        status=status,
        scheduled_start=start,
        format="freezeout",
        bounty_type="none",
        mystery_draw=False,
        starting_stack=starting_stack,
        structure_id=structure_id or structure(session).id,
        seat_cap=seat_cap,
        addon_once=True,
        currency="RUB",
        buy_in=150000,
        no_show_policy=no_show_policy,
        itm_percent=15,
        itm_min=1,
        created_at=start,
        late_reg_deadline=start + late_reg if late_reg else None,
        started_at=start if status == "running" else None,
    )
    session.add(t)
    session.flush()
    return t


def register(
    session: Session, t: Tournament, checked_in: bool = True, name: str | None = None
) -> Registration:
    p = player(session, name, t.scheduled_start)
    r = Registration(
        tournament_id=t.id,
        player_id=p.id,
        status="active",
        late=False,
        registered_at=t.scheduled_start,
        checked_in_at=t.scheduled_start if checked_in else None,
    )
    session.add(r)
    session.flush()
    return r


def enter(session: Session, t: Tournament, name: str | None = None) -> Entry:
    """A checked-in player with an active entry (as check-in leaves it)."""
    r = register(session, t, True, name)
    e = Entry(
        tournament_id=t.id,
        player_id=r.player_id,
        registration_id=r.id,
        sequence=1,
        state="active",
        starting_chips=t.starting_stack,
        created_at=t.scheduled_start,
    )
    session.add(e)
    session.flush()
    return e
