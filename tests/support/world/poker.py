"""The one world builder of the live-poker tests and benchmarks: a club, a structure, a tournament,
players, registrations and entries, written as rows directly (as the registration services would
leave them), so a test starts from the state it needs without replaying the paths that lead there.

`tournament()` takes every variant the tests use as keyword arguments; its defaults are a running
freezeout at T0 with a 10 000 stack, the LEVELS grid, late registration open for an hour, at the
shared club "Pik". The knockout and results tests pass `**BOUNTY` (a classic-bounty event at EVENING).

Instants: tests of the services build at the fixed T0 (or EVENING, NOW/START) and give the services
later instants themselves. A test whose `tourney` processes read the real clock builds at
`recent_start()` (or another instant relative to the real now) instead: nothing depends on the date.

Scenarios built on these: `with_no_shows()` (a running floor with two no-shows), `played()` (a
finished tournament of given players), `sp7_played()` (RULES SP-7's worked example, played),
`finished_poker()` (the same, with prizes, finished).

The registration-path tests (validation of a tournament's settings, status changes, check-in) build
through the services with `tournament_through_services()` and `checked_in()`, at NOW and START."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, date, datetime, timedelta
from itertools import count

from sqlalchemy import select
from sqlalchemy.orm import Session

from domain.clubs.tables import Club
from domain.poker.rules.settings import TournamentSettings
from domain.poker.rules.structures import LevelSpec
from domain.poker.tables.tournaments import (
    Entry,
    Level,
    Player,
    Registration,
    Structure,
    Tournament,
)

T0 = datetime(2026, 11, 29, 18, 0, tzinfo=UTC)  # the floor's instant: `tournament()` starts here
EVENING = datetime(2026, 11, 29, 20, 0, tzinfo=UTC)  # the knockout and results tests' instant
SP7_FINISHED_AT = EVENING + timedelta(hours=1, minutes=10)  # finished_poker(): 00:10 next day in Moscow
NOW = datetime(2026, 12, 4, 17, 0, tzinfo=UTC)  # the registration-path tests' instant...
START = datetime(2026, 12, 4, 19, 0, tzinfo=UTC)  # ...and their tournament's start
S = timedelta(seconds=1)
_serial = count(1)

# L1 18:00-18:20 · L2 18:20-18:40 · break 18:40-18:55 · L3 18:55-19:15 · L4 19:15-19:35
# (small, big, ante, seconds, is_break)
LEVELS = (
    (100, 200, 0, 20 * 60, False),
    (200, 400, 50, 20 * 60, False),
    (0, 0, 0, 15 * 60, True),
    (300, 600, 75, 20 * 60, False),
    (400, 800, 100, 20 * 60, False),
)

# The knockout and results tests' tournament: a classic bounty started at EVENING with 20 000 chips,
# no late-registration deadline, a structure without levels (they never run the clock). Override a
# key with `tournament(session, **BOUNTY | {"bounty_type": "pko"})`.
BOUNTY = {
    "start": EVENING,
    "late_reg": None,
    "format": "bounty",
    "bounty_type": "classic",
    "starting_stack": 20000,
    "levels": (),
    "ante_type": "none",
}

# The services' grid (tournament_through_services): four 30-minute levels and a 15-minute break,
# so the SP-2 window is 2 h 15 min
SERVICE_LEVELS = [
    LevelSpec(100, 200, 0, 1800),
    LevelSpec(200, 400, 0, 1800),
    LevelSpec(0, 0, 0, 900, True),
    LevelSpec(300, 600, 600, 1800),
    LevelSpec(400, 800, 800, 1800),
]

PIK_INN = "7707083893"


def recent_start() -> datetime:
    """A start a few minutes before the real now, on a whole minute: its late registration is open."""
    return datetime.now(UTC).replace(second=0, microsecond=0) - timedelta(minutes=5)


def club(session: Session, *, fresh: bool = False, at: datetime = T0, timezone: str = "Europe/Moscow") -> Club:
    """The shared club "Pik" (INN 7707083893, in Moscow), made on first use; `fresh`: a new club of its
    own (in `timezone`)."""
    if fresh:
        n = next(_serial)
        c = Club(
            name=f"Club {n}",
            legal_form="legal_entity",
            inn=f"{n:010d}",
            ogrn=f"{n:013d}",
            contact_email="floor@example.org",
            timezone=timezone,
            created_at=at,
            updated_at=at,
        )
    else:
        assert timezone == "Europe/Moscow", "the shared club is in Moscow: ask for a fresh club in another timezone"
        found = session.execute(select(Club).where(Club.inn == PIK_INN)).scalar_one_or_none()
        if found:
            return found
        c = Club(
            name="Pik",
            legal_form="legal_entity",
            inn=PIK_INN,
            ogrn="1027700132195",
            contact_email="floor@example.org",
            timezone="Europe/Moscow",
            created_at=at,
            updated_at=at,
        )
    session.add(c)
    session.flush()
    return c


def structure(
    session: Session, *, club_id: int | None = None, ante_type: str = "classic", levels=LEVELS, at: datetime = T0
) -> Structure:
    """A structure of `levels`, (small, big, ante, seconds, is_break) rows."""
    s = Structure(club_id=club_id or club(session).id, name=f"Deep {next(_serial)}", ante_type=ante_type, created_at=at)
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


def player(
    session: Session,
    name: str | None = None,
    *,
    handle: str | None = None,
    at: datetime = T0,
    born: date = date(1990, 1, 1),
) -> Player:
    """A player named `name` (default "Player n"); handle `handle`, or a unique one made from the name."""
    n = next(_serial)
    name = name or (handle.title() if handle else f"Player {n}")
    handle = handle or f"{''.join(ch for ch in name.lower() if not ch.isdigit() and ch.isalnum()) or 'player'}{n}"
    p = Player(pseudonym=f"P-{n}", name=name, handle=handle, birth_date=born, created_at=at)
    session.add(p)
    session.flush()
    return p


def tournament(
    session: Session,
    *,
    club_id: int | None = None,
    structure_id: int | None = None,
    status: str = "running",
    name: str | None = None,
    start: datetime = T0,
    late_reg: timedelta | None = timedelta(hours=1),
    format: str = "freezeout",
    bounty_type: str = "none",
    mystery: bool = False,
    starting_stack: int = 10000,
    seat_cap: int = 9,
    no_show_policy: str = "drop",
    itm_percent: int = 15,
    itm_min: int = 1,
    levels=LEVELS,
    ante_type: str = "classic",
    **columns,
) -> Tournament:
    """A tournament at `start` (created then, started then if running) with a structure of its own
    (`levels`, `ante_type`) unless `structure_id`; `columns`: any other column of the row."""
    club_id = club_id or club(session).id
    values = {
        "club_id": club_id,
        "name": name or f"Friday {next(_serial)}",
        "status": status,
        "scheduled_start": start,
        "format": format,
        "bounty_type": bounty_type,
        "mystery_draw": mystery,
        "starting_stack": starting_stack,
        "structure_id": structure_id or structure(session, club_id=club_id, ante_type=ante_type, levels=levels).id,
        "seat_cap": seat_cap,
        "addon_once": True,
        "currency": "RUB",
        "buy_in": 150000,
        "no_show_policy": no_show_policy,
        "itm_percent": itm_percent,
        "itm_min": itm_min,
        "created_at": start,
        "late_reg_deadline": start + late_reg if late_reg else None,
        "started_at": start if status == "running" else None,
    }
    t = Tournament(**values | columns)
    session.add(t)
    session.flush()
    return t


def register(
    session: Session, t: Tournament, checked_in: bool = True, name: str | None = None, *, player_id: int | None = None
) -> Registration:
    """A new player (or `player_id`) registered at the tournament's start, checked in then unless
    `checked_in` is False."""
    player_id = player_id or player(session, name, at=t.scheduled_start).id
    r = Registration(
        tournament_id=t.id,
        player_id=player_id,
        status="active",
        late=False,
        registered_at=t.scheduled_start,
        checked_in_at=t.scheduled_start if checked_in else None,
    )
    session.add(r)
    session.flush()
    return r


def enter(session: Session, t: Tournament, name: str | None = None, *, player_id: int | None = None) -> Entry:
    """A new checked-in player (or `player_id`) with an active entry of the starting stack (as check-in
    leaves it)."""
    r = register(session, t, True, name, player_id=player_id)
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


def reenter(session: Session, busted: Entry) -> Entry:
    """The next entry of a busted entry's player, with the same starting chips."""
    e = Entry(
        tournament_id=busted.tournament_id,
        player_id=busted.player_id,
        registration_id=busted.registration_id,
        sequence=busted.sequence + 1,
        previous_entry_id=busted.id,
        state="active",
        starting_chips=busted.starting_chips,
        created_at=busted.created_at,
    )
    session.add(e)
    session.flush()
    return e


def field(session: Session, t: Tournament, names) -> dict[str, Entry]:
    """An entry per name (each character of a string is a name): name -> entry."""
    return {name: enter(session, t, name) for name in names}


def played(
    session: Session, players: list[Player], start: datetime, name: str, *, prizes: Sequence[str] = (), **kw
) -> Tournament:
    """A finished bounty tournament at `start` with `players`: each busted in turn by the last one, who
    wins (knockouts an hour in, places stored four hours in); `prizes`, line n for place n; `kw` as for
    `tournament()` (a club of its own: `club_id`)."""
    from domain.poker.rules.knockouts import Bust
    from domain.poker.services.knockouts import record_knockouts
    from domain.poker.services.results import finalize_tournaments, set_prizes

    t = tournament(session, **BOUNTY | {"start": start, "name": name} | kw)
    if prizes:
        set_prizes(session, t.id, list(prizes))
    entries = [enter(session, t, player_id=p.id) for p in players]
    for i, e in enumerate(entries[:-1]):
        record_knockouts(
            session, t.id, [Bust(e.id, entries[-1].id)], now=start + timedelta(hours=1, seconds=i), actor="floor"
        )
    finalize_tournaments(session, start + timedelta(hours=4))
    session.refresh(t)
    return t


def with_no_shows(session: Session, policy: str, stack: int = 10000) -> tuple[Tournament, list[Registration]]:
    """A tournament of `no_show_policy` `policy` started at T0, its clock running: three players in
    and seated by the initial draw, two registered who never checked in (returned)."""
    from domain.poker.services import clock as clock_service
    from domain.poker.services import seating as seating_service

    t = tournament(session, no_show_policy=policy, starting_stack=stack)
    for _ in range(3):
        enter(session, t)
    absent = [register(session, t, checked_in=False) for _ in range(2)]
    seating_service.draw_initial(session, t.id, T0, seed="x")
    clock_service.act(session, t.id, "start", T0)
    return t, absent


def sp7_played(session: Session, names: Sequence[str] = tuple("BCDEFGHIJK"), name: str = "Friday") -> Tournament:
    """RULES SP-7's worked example played through the services, not yet finished: ten players
    (`names`, B to K in the rule's order), B re-enters after bust #2; the knockouts at EVENING."""
    from domain.poker.rules.knockouts import Bust
    from domain.poker.services.knockouts import record_knockouts

    n = dict(zip("BCDEFGHIJK", names, strict=True))  # the rule's letters -> this world's names
    t = tournament(session, **BOUNTY, name=name)
    e = field(session, t, names)
    ids = {x: entry.id for x, entry in e.items()}

    def ko(*busted, killer="K"):
        record_knockouts(session, t.id, [Bust(ids[n[b]], ids[n[killer]]) for b in busted], now=EVENING, actor="f")

    ko("C")
    ko("B")
    session.refresh(e[n["B"]])
    ids[n["B"]] = reenter(session, e[n["B"]]).id
    ko("D", "E", killer="B")
    ko("F")
    ko("G")
    ko("B", killer="H")
    ko("H")
    ko("I", killer="J")
    ko("J")
    return t


def finished_poker(session: Session, name: str = "<b>Пятница</b>") -> Tournament:
    """RULES SP-7's worked example (`sp7_played`, B and K named Борис and Кирилл) with two prizes,
    finished by finalize-tournaments at SP7_FINISHED_AT."""
    from domain.poker.services.results import finalize_tournaments, set_prizes

    t = sp7_played(session, ["Борис", "C", "D", "E", "F", "G", "H", "I", "J", "Кирилл"], name)
    set_prizes(session, t.id, ["Кубок чемпиона", "Medal"])
    finalize_tournaments(session, SP7_FINISHED_AT)
    session.refresh(t)
    return t


def bust(session: Session, entry_id: int, at: datetime) -> None:
    """An entry busted at `at`, with no knockout recorded (the knockouts area records those)."""
    entry = session.get(Entry, entry_id)
    entry.state, entry.busted_at = "busted", at
    session.flush()


# -- through the services: the registration-path tests ------------------------------------------------


def tournament_through_services(
    session: Session,
    club_id: int | None = None,
    start: datetime = START,
    status: str = "registration_open",
    *,
    now: datetime = NOW,
    **settings,
) -> int:
    """A tournament created by `create_tournament` (so its settings are validated) on SERVICE_LEVELS,
    at a fresh club unless `club_id`; opened, and started at `start` when `status` is "running".
    `settings`: TournamentSettings fields (default a 20 000 stack, late registration for an hour)."""
    from domain.poker.services import structures as poker_structures
    from domain.poker.services import tournaments as poker_tournaments

    club_id = club_id or club(session, fresh=True, at=now).id
    grid = poker_structures.import_structure(session, club_id, f"Grid {next(_serial)}", "classic", SERVICE_LEVELS, now)
    values = {
        "name": "Friday",
        "scheduled_start": start,
        "starting_stack": 20000,
        "currency": "RUB",
        "buy_in": 150000,
        "late_reg_deadline": start + timedelta(hours=1),
    }
    t = poker_tournaments.create_tournament(session, club_id, grid.id, TournamentSettings(**values | settings), now)
    if status in ("registration_open", "running"):
        poker_tournaments.change_status(session, t.id, "open", now)
    if status == "running":
        poker_tournaments.change_status(session, t.id, "start", start)
    return t.id


def checked_in(session: Session, tournament_id: int, player_id: int, now: datetime = NOW) -> Entry:
    """`player_id` registered and checked in through the services: the entry check-in made."""
    from domain.poker.services import entries as poker_entries

    poker_entries.register(session, tournament_id, player_id, now)
    return poker_entries.check_in(session, tournament_id, player_id, now)
