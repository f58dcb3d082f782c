"""The simulator's reads and writes: the demo's seed, what a tournament looks like to the simulator,
each simulated action in process (virtual time) through the same use case the API's operation and
the CLI command call (`desk.start`, `desk.check_in`, `desk.knock_out`, `pusoy join`, `pusoy report`,
...), and the tokens the simulator acts with over `/api/v1` on the wall clock (`simulator_tokens`).
The caller owns the transaction and passes `now`."""

from __future__ import annotations

import random
import secrets
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import date, datetime, timedelta
from zoneinfo import ZoneInfo

from sqlalchemy import Engine, func, select
from sqlalchemy.orm import Session

from domain.access.ports import PasswordHasher
from domain.access.rules.policy import Role
from domain.access.services import accounts, signin
from domain.access.tables import Account, Grant, Token
from domain.clubs.rules.catalog import NewClub
from domain.clubs.services import clubs
from domain.clubs.tables import Club
from domain.documents.services import locales
from domain.errors import DomainError
from domain.poker.rules.knockouts import Bust
from domain.poker.rules.settings import TournamentSettings
from domain.poker.rules.structures import LevelSpec
from domain.poker.services import desk
from domain.poker.services import entries as poker_entries
from domain.poker.services import knockouts as knockout_service
from domain.poker.services import players as poker_players
from domain.poker.services import results as results_service
from domain.poker.services import seating as seating_service
from domain.poker.services import structures as poker_structures
from domain.poker.services import tournaments as poker_tournaments
from domain.poker.tables.tournaments import Entry, Player, Registration, Tournament
from domain.pusoy.services import reports as pusoy_reports
from domain.pusoy.services import rows as pusoy_rows
from domain.pusoy.services import setup as pusoy_setup
from domain.pusoy.tables import PusoyEntry, PusoyGame, PusoyRound, PusoySeat, PusoyTournament
from domain.series.services.series import SeriesSpec, add_series
from domain.series.tables import Series
from domain.simulate.rules import owner as owner_rules
from domain.simulate.rules.names import russian_names
from domain.simulate.rules.script import ADDON, BUST, CHECKIN, REENTRY, PokerTimes, Step, step_said

# the demo club: its name, and its registry numbers, which identify it (its owner may rename it)
DEMO_CLUB = "Демо-клуб Tourney"
DEMO_CLUB_DETAILS = ("legal_entity", "7707083893", "1027700132195", "results@demo-club.example", "Europe/Moscow")
# the demo's prizes: the `cup` preset's three lines, so three prize places whatever the field
# (SP-3 with percent 0 and a minimum of 3): the screen's prize places are the prize lines
DEMO_PRESET, DEMO_PRIZE_PLACES = "cup", 3
DEMO_SERIES, DEMO_POKER, DEMO_PUSOY = "Пятничный турбо", "Демо-турбо", "Демо-кубок Пусой Дос"
# a simulator holds these session-level advisory locks (with the tournament's id) while it drives
SIMULATING_POKER, SIMULATING_PUSOY = 7411901, 7411902
TICK = timedelta(seconds=20)  # the script's beat: busts, and a Pusoy Dos game a table
# (small blind, big blind), one minute each by default; a break after level 2
BLINDS = (
    (100, 200),
    (200, 400),
    None,
    (300, 600),
    (400, 800),
    (500, 1000),
    (600, 1200),
    (800, 1600),
    (1000, 2000),
    (1500, 3000),
    (2000, 4000),
    (3000, 6000),
    (4000, 8000),
    (6000, 12000),
)


# the demo club's staff and the players with an account, by handle
DEMO_STAFF = (
    ("owner", "owner@demo-club.example"),
    ("floor", "floor@demo-club.example"),
    ("cashier", "cashier@demo-club.example"),
)
DEMO_PLAYER_ACCOUNTS = ("demo01", "demo02", "demo03")
# the cup's players (`pd01`..): players with an account each, no password (the simulator joins them
# with tokens of their own); the machine that reports the cup's games (a token bound to the cup)
CUP_PLAYER, GAME_SERVER = "pd{:02d}", "games@demo-club.example"
# the names of the tokens the simulator makes for a tournament (revoked when it stops): "simulator poker 1",
# "simulator cup 93KHGA"; one simulator at a time drives a tournament (`driving`), so one set of them
SIMULATOR_TOKEN = "simulator {}"


@dataclass(frozen=True)
class DemoAccount:
    """An account the demo seeded, with the password drawn for it (shown once, in the demo's file)."""

    email: str
    role: str
    password: str = field(repr=False)


@dataclass(frozen=True)
class Demo:
    club_id: int
    series_id: int
    poker_id: int
    pusoy_code: str


def demo_club(session: Session) -> int | None:
    """The demo's club, when a demo was seeded in this database: by its registry number (INN), which
    its owner cannot change in the console, as they can its name."""
    return _club_by_inn(session, DEMO_CLUB_DETAILS[1])


def _club_by_inn(session: Session, inn: str) -> int | None:
    return session.scalar(select(Club.id).where(Club.inn == inn))


def find_demo(session: Session) -> Demo | None:
    """The demo seeded in this database (its club, series and two tournaments), if any: the first
    series, poker tournament and cup of the demo club, the ones the seed made before any other (found
    whatever they are named: the owner may rename them, and a demo seeded before keeps its names)."""
    club_id = demo_club(session)
    if club_id is None:
        return None

    def first(model, column):
        return session.scalar(select(column).where(model.club_id == club_id).order_by(model.id).limit(1))

    return Demo(
        club_id,
        first(Series, Series.id),
        first(Tournament, Tournament.id),
        first(PusoyTournament, PusoyTournament.code),
    )


@contextmanager
def driving(engine: Engine, poker_id: int | None, pusoy_code: str | None) -> Iterator[None]:
    """One simulator at a time on a tournament: the block holds the tournaments' advisory locks (on a
    connection of its own, released at its end or with the process); another simulator already
    driving one of them is refused."""
    with engine.connect() as conn:
        keys = [(SIMULATING_POKER, poker_id, f"poker tournament {poker_id}")] if poker_id is not None else []
        if pusoy_code is not None:
            with Session(conn) as session:
                found = pusoy_rows.find(session, pusoy_code)
            keys.append((SIMULATING_PUSOY, found.id, f"Pusoy Dos tournament {found.code}"))
        try:
            for key, tid, what in keys:
                if not conn.execute(select(func.pg_try_advisory_lock(key, tid))).scalar_one():
                    raise DomainError("simulate-running", f"a simulator is already driving {what}")
            conn.commit()
            yield
        finally:
            conn.rollback()
            conn.execute(select(func.pg_advisory_unlock_all()))
            conn.commit()


def seed_demo(
    session: Session,
    now: datetime,
    rng: random.Random,
    *,
    players: int = 30,
    pusoy_players: int = 16,
    starts_in: timedelta = timedelta(minutes=2),
    level: timedelta = timedelta(minutes=1),
) -> Demo:
    """A club, a weekly series, a live poker tournament open for registration starting `starts_in`
    from `now` with `players` registered, and a Pusoy Dos cup of the club for `pusoy_players`
    players, filling: its players (`pd01`..) are made now and join when the simulator plays it.
    Every player's name is a Russian one drawn by `rng` (`russian_names`); handles stay ASCII."""
    if demo_club(session) is not None:
        raise DomainError("demo-exists", f"the demo is already seeded ('{DEMO_CLUB}'); not seeding twice")
    now = now.replace(microsecond=0)
    club = clubs.add_club(session, NewClub(DEMO_CLUB, *DEMO_CLUB_DETAILS), now)
    levels = [
        LevelSpec(0, 0, 0, int(level.total_seconds()), is_break=True)
        if blinds is None
        else LevelSpec(blinds[0], blinds[1], 0, int(level.total_seconds()))
        for blinds in BLINDS
    ]
    structure = poker_structures.import_structure(session, club.id, DEMO_POKER, "none", levels, now)
    series_id = add_series(
        session,
        SeriesSpec(
            club.id,
            DEMO_SERIES,
            "poker",
            "0 19 * * fri",
            None,
            {
                "structure_id": structure.id,
                "starting_stack": 10000,
                "currency": "RUB",
                "buy_in": 100000,
                "late_reg_minutes": 60,
            },
        ),
        now,
    )
    start = now + starts_in
    settings = TournamentSettings(
        name=DEMO_POKER,
        scheduled_start=start,
        starting_stack=10000,
        currency="RUB",
        buy_in=100000,
        format="reentry",
        bounty_type="classic",
        seat_cap=9,
        late_reg_deadline=start + 2 * level,
        reentry_deadline=start + 2 * level,
        reentry_amount=100000,
        addon_amount=50000,
        addon_chips=10000,
        addon_break=1,
        no_show_policy="drop",
        itm_percent=0,
        itm_min=DEMO_PRIZE_PLACES,
    )
    t = poker_tournaments.create_tournament(session, club.id, structure.id, settings, now)
    knockout_service.set_void_window(session, t.id, 1)
    poker_tournaments.change_status(session, t.id, "open", now)
    cup = pusoy_setup.create(
        session,
        name=DEMO_PUSOY,
        organizer="demo-host",
        capacity=pusoy_players,
        games_per_round=2,
        club_id=club.id,
        now=now,
        rng=rng,
    )
    # a Russian club's players: Cyrillic names (DOC-3), drawn after the cup's code so a seed keeps its code
    names = russian_names(rng, players + pusoy_players)
    for i, name in enumerate(names[:players], start=1):
        poker_players.add_player(session, name, f"demo{i:02d}", date(1980 + i % 20, 1 + i % 12, 1 + i % 28), now)
        poker_entries.register(session, t.id, f"demo{i:02d}", now)
    results_service.apply_preset(session, t.id, DEMO_PRESET, locales.club_locale(session, club.id))
    for i, name in enumerate(names[players:], start=1):  # they join when the simulator plays the cup (`cup_joiners`)
        poker_players.add_player(session, name, CUP_PLAYER.format(i), date(1990 + i % 10, 1 + i % 12, 1 + i % 28), now)
    return Demo(club.id, series_id, t.id, cup.code)


def seed_demo_accounts(session: Session, hasher: PasswordHasher, club_id: int, now: datetime) -> list[DemoAccount]:
    """The demo club's owner, floor manager and cashier, and accounts of the first demo players, each
    with a password drawn now (hashed by `hasher`) and its address taken as verified; and, with no
    password (machines act with tokens), an account for each of the cup's players and the game
    server's. Idempotent: an account that is there is left as it is (its password too), so a second
    seed adds nothing and returns no account; the first returns each account it made with a password."""
    made: list[DemoAccount] = []

    def account(email: str, player_id: int | None = None, password: bool = True) -> tuple[Account, str] | None:
        if session.scalar(select(Account.id).where(Account.email_key == email)) is not None:
            return None
        if player_id is not None and session.scalar(select(Account.id).where(Account.player_id == player_id)):
            return None
        new = accounts.add(session, email, now, player_id=player_id)
        secret = secrets.token_urlsafe(12) if password else ""
        if password:
            accounts.set_password(session, hasher, new, secret, now)
        new.email_verified_at = now
        return new, secret

    for role, email in DEMO_STAFF:
        found = account(email)
        if found is not None:
            accounts.grant(session, found[0], role, club_id, now)
            made.append(DemoAccount(email, f"{role}@{club_id}", found[1]))
    for handle in DEMO_PLAYER_ACCOUNTS:
        player_id = session.scalar(select(Player.id).where(Player.handle == handle))
        if player_id is None:
            continue
        found = account(f"{handle}@demo-club.example", player_id)
        if found is not None:
            made.append(DemoAccount(found[0].email, f"player {handle}", found[1]))
    code = session.scalar(
        select(PusoyTournament.code).where(PusoyTournament.club_id == club_id, PusoyTournament.name == DEMO_PUSOY)
    )
    for handle in _cup_players(session, code):
        player_id = session.scalar(select(Player.id).where(Player.handle == handle))
        account(f"{handle}@demo-club.example", player_id, password=False)
    account(GAME_SERVER, password=False)
    session.flush()
    return made


# the second demo club, its owner and floor manager; its cashier is the demo club's floor manager
# (staff of both clubs, AC-1); a draft tournament of its own, a week after seeding
DEMO_CLUB_2 = "Второй демо-клуб Tourney"
DEMO_CLUB_2_DETAILS = ("legal_entity", "7712345671", "1027700123450", "results@second-club.example", "Europe/Moscow")
DEMO_POKER_2 = "Дипстек второго клуба"
DEMO_STAFF_2 = (
    ("owner", "owner@second-club.example"),
    ("floor", "floor@second-club.example"),
    ("cashier", "floor@demo-club.example"),
)


@dataclass(frozen=True)
class DemoSignIn:
    """A demo account and what it holds: (role, club id, club name) each, and the player it is."""

    email: str
    roles: tuple[tuple[str, int | None, str | None], ...]
    player: str | None = None


def seed_second_demo_club(session: Session, hasher: PasswordHasher, now: datetime) -> tuple[int, list[DemoAccount]]:
    """The second demo club (listed like the first, with a draft tournament a week after `now`), its
    owner, floor manager and cashier (the demo club's floor manager, so one person is staff of both),
    through the services `tourney user add` and `user grant` call. Idempotent: a club, an account or
    a role that is there is left as it is; returns the club and each account made, with its password
    (drawn now, hashed by `hasher`, the address taken as verified)."""
    now = now.replace(microsecond=0)
    club_id = _club_by_inn(session, DEMO_CLUB_2_DETAILS[1])
    if club_id is None:
        club_id = clubs.add_club(session, NewClub(DEMO_CLUB_2, *DEMO_CLUB_2_DETAILS), now).id
        levels = [LevelSpec(b[0], b[1], 0, 20 * 60) for b in BLINDS if b is not None]
        structure = poker_structures.import_structure(session, club_id, DEMO_POKER_2, "none", levels, now)
        settings = TournamentSettings(
            name=DEMO_POKER_2,
            scheduled_start=now + timedelta(days=7),
            starting_stack=20000,
            currency="RUB",
            buy_in=200000,
        )
        poker_tournaments.create_tournament(session, club_id, structure.id, settings, now)
    made: list[DemoAccount] = []
    for role, email in DEMO_STAFF_2:
        account = session.scalar(select(Account).where(Account.email_key == email))
        if account is None:
            account = accounts.add(session, email, now)
            password = secrets.token_urlsafe(12)
            accounts.set_password(session, hasher, account, password, now)
            account.email_verified_at = now
            made.append(DemoAccount(email, f"{role}@{club_id}", password))
        accounts.grant(session, account, role, club_id, now)
    session.flush()
    return club_id, made


def demo_sign_ins(session: Session) -> list[DemoSignIn]:
    """Every demo account there is (both clubs' staff, then the players), with the roles it holds."""
    emails = dict.fromkeys(
        [email for _, email in DEMO_STAFF + DEMO_STAFF_2] + [f"{h}@demo-club.example" for h in DEMO_PLAYER_ACCOUNTS]
    )
    found = []
    for email in emails:
        account = session.scalar(select(Account).where(Account.email_key == email))
        if account is None:
            continue
        roles = tuple(
            (role.value, club_id, session.scalar(select(Club.name).where(Club.id == club_id)) if club_id else None)
            for role, club_id in accounts.roles_of(session, account.id)
        )
        player = (
            session.scalar(select(Player.handle).where(Player.id == account.player_id)) if account.player_id else None
        )
        found.append(DemoSignIn(account.email, roles, player))
    return found


def _cup_players(session: Session, code: str | None) -> tuple[str, ...]:
    """The demo cup's players that are players of the platform (a demo seeded before they were made
    has none: its cup was filled by handles alone)."""
    cup = pusoy_rows.find(session, code) if code else None
    if cup is None:
        return ()
    handles = [CUP_PLAYER.format(i) for i in range(1, cup.capacity + 1)]
    return _handles(session, select(Player.handle).where(Player.handle.in_(handles)).order_by(Player.handle))


def cup_joiners(session: Session, code: str) -> tuple[str, ...]:
    """Who the simulator joins to a cup that is filling: the demo cup's players not in it yet (none
    for another cup, which the simulator plays once it is filled)."""
    cup = pusoy_rows.find(session, code)
    demo = find_demo(session)
    if cup.status != "setup" or demo is None or demo.pusoy_code != cup.code:
        return ()
    seated = set(session.scalars(select(PusoyEntry.player).where(PusoyEntry.tournament_id == cup.id)))
    return tuple(h for h in _cup_players(session, cup.code) if h not in seated)


@dataclass(frozen=True)
class Tokens:
    """What the simulator acts with over `/api/v1`: the floor's token for the live tournament, the
    game server's bound to the cup, and each joining player's own; the secrets exist only here."""

    floor: str | None = field(repr=False)
    game_server: str | None = field(repr=False)
    players: dict[str, str] = field(repr=False)
    names: tuple[str, ...]  # to revoke them by (`revoke_simulator_tokens`)
    owner: str | None = field(default=None, repr=False)  # the demo club's owner's, while next week is not set up
    next_week: owner_rules.NextWeek | None = None  # what the owner sets up, and for which club
    club_id: int | None = None


def _owner_to_set_up(session: Session, poker_id: int, now: datetime) -> tuple[Account, owner_rules.NextWeek] | None:
    """The demo club's owner and next week's tournament, when the live tournament is the demo's and the
    owner has not set next week's up yet (a resumed demo finds it there and sets up nothing)."""
    demo = find_demo(session)
    if demo is None or demo.poker_id != poker_id:
        return None
    made = select(Tournament.id).where(Tournament.club_id == demo.club_id, Tournament.name == owner_rules.NAME)
    owner = session.scalar(select(Account).where(Account.email_key == DEMO_STAFF[0][1], Account.blocked_at.is_(None)))
    if owner is None or session.scalar(made.limit(1)) is not None:
        return None
    zone = session.scalar(select(Club.timezone).where(Club.id == demo.club_id))
    currency = session.scalar(select(Tournament.currency).where(Tournament.id == poker_id))
    return owner, owner_rules.next_week(now, ZoneInfo(zone), currency)


def _floor_account(session: Session, tournament_id: int) -> Account:
    """The account the simulator runs the floor as: the demo's floor manager, else the first account
    holding `floor` in the tournament's club."""
    club_id = poker_tournaments.get_tournament(session, tournament_id).club_id
    held = (
        select(Account)
        .join(Grant, Grant.account_id == Account.id)
        .where(Grant.role == "floor", Grant.club_id == club_id, Account.blocked_at.is_(None))
    )
    found = session.scalars(held.order_by((Account.email_key != DEMO_STAFF[1][1]), Grant.id).limit(1)).first()
    if found is None:
        raise DomainError(
            "simulate-no-floor",
            f"nobody runs the floor of club {club_id}: grant one (tourney user add EMAIL --club {club_id} "
            "--role floor), or simulate in virtual time (--speed 0)",
        )
    return found


def simulator_tokens(
    session: Session, poker_id: int | None, code: str | None, joiners: tuple[str, ...], now: datetime
) -> Tokens:
    """Tokens made now through the same service as `tourney token create`: `floor@CLUB` of the floor's
    account for the live tournament (named `simulator poker ID`), `cup:CODE` of the game server's
    account (made if missing) and `player` of each joiner's account for the cup (`simulator cup
    CODE`), and, while next week's tournament of the demo club is not set up, `owner@CLUB` of its owner
    (`simulator owner`). The tokens of those names an earlier simulator left (stopped before it revoked
    them) are revoked first."""
    names = [SIMULATOR_TOKEN.format(f"poker {poker_id}")] if poker_id is not None else []
    cup = pusoy_rows.find(session, code) if code is not None else None
    names += [SIMULATOR_TOKEN.format(f"cup {cup.code}")] if cup is not None else []
    revoke_simulator_tokens(session, names, now)

    def token(account: Account, name: str, scope: str) -> str:
        return signin.create_token(session, account, name, [scope], now)[1]

    floor = server = None
    if poker_id is not None:
        club_id = poker_tournaments.get_tournament(session, poker_id).club_id
        floor = token(_floor_account(session, poker_id), names[0], f"floor@{club_id}")
    players = {}
    if cup is not None:
        found = session.scalar(select(Account).where(Account.email_key == GAME_SERVER))
        server = token(found or accounts.add(session, GAME_SERVER, now), names[-1], f"cup:{cup.code}")
        for handle in joiners:
            account = session.scalar(
                select(Account).join(Player, Player.id == Account.player_id).where(Player.handle == handle)
            )
            if account is None:
                raise DomainError("simulate-no-account", f"player {handle} has no account to join the cup with")
            players[handle] = token(account, names[-1], "player")
    owner = next_week = None
    setting_up = _owner_to_set_up(session, poker_id, now) if poker_id is not None else None
    if setting_up is not None:
        account, next_week = setting_up
        names.append(SIMULATOR_TOKEN.format("owner"))
        revoke_simulator_tokens(session, names[-1:], now)
        owner = token(account, names[-1], signin.scope_name(Role.OWNER, club_id))
    return Tokens(floor, server, players, tuple(names), owner, next_week, club_id if owner else None)


def revoke_simulator_tokens(session: Session, names: list[str], now: datetime) -> int:
    """Revoke the simulator's tokens of these names that are still valid: returns how many."""
    found = list(session.scalars(select(Token.id).where(Token.name.in_(names), Token.revoked_at.is_(None))))
    for token_id in found:
        signin.revoke_token(session, token_id, now)
    return len(found)


# -- live poker ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class PokerFacts:
    status: str
    arriving: tuple[str, ...]  # registered, not checked in, late registration still open
    in_play: tuple[str, ...]  # an active entry
    times: PokerTimes
    void_window: timedelta


def _handles(session: Session, stmt) -> tuple[str, ...]:
    return tuple(session.scalars(stmt))


def poker_facts(
    session: Session, tournament_id: int, now: datetime, play: timedelta, tick: timedelta = TICK
) -> PokerFacts:
    """The tournament as the simulator plans it at `now`: busts every `tick` from the start until
    `play` later (at least three ticks past the re-entry window and the add-on); check-ins only while
    late registration is open."""
    t = poker_tournaments.get_tournament(session, tournament_id)
    arriving = _handles(
        session,
        select(Player.handle)
        .join(Registration, Registration.player_id == Player.id)
        .where(
            Registration.tournament_id == t.id,
            Registration.status == "active",
            Registration.checked_in_at.is_(None),
        )
        .order_by(Registration.id),
    )
    in_play = _handles(
        session,
        select(Player.handle)
        .join(Entry, Entry.player_id == Player.id)
        .where(Entry.tournament_id == t.id, Entry.state == "active")
        .order_by(Entry.id),
    )
    start = t.scheduled_start
    late_close = t.late_reg_deadline or start
    reentry_until = t.reentry_deadline or t.late_reg_deadline
    offered = t.reentry_amount is not None or t.rebuy_amount is not None
    addon_at = None
    if t.addon_amount is not None:
        addon_at = start + timedelta(seconds=1)
        if t.addon_break:
            breaks, elapsed = 0, 0
            for lv in poker_structures.structure_levels(session, t.structure_id):
                breaks += lv.is_break
                if breaks == t.addon_break:
                    addon_at = start + timedelta(seconds=elapsed + 1)
                    break
                elapsed += lv.duration_seconds
    latest = max(x for x in (start, reentry_until if offered else None, addon_at) if x is not None)
    finish_by = max(start + play, latest + 3 * tick)
    times = PokerTimes(
        opens=min(now, start),
        start=start,
        late_close=late_close,
        reentry_until=reentry_until if offered else None,
        addon_at=addon_at,
        finish_by=finish_by,
        tick=tick,
    )
    if now >= late_close:  # a simulation resumed late: those not checked in can no longer come
        arriving = ()
    return PokerFacts(t.status, arriving, in_play, times, knockout_service.void_window(session, t.id))


def poker_status(session: Session, tournament_id: int) -> str:
    return poker_tournaments.get_tournament(session, tournament_id).status


def start_poker(session: Session, tournament_id: int, now: datetime, seed: str) -> dict:
    """The start (`poker.start`): running, seats drawn by lot (`seed`: the floor's), the clock started."""
    return desk.start(session, tournament_id, now, seed)


def _entry_of(session: Session, tournament_id: int, handle: str) -> int:
    found = session.scalar(
        select(Entry.id)
        .join(Player, Player.id == Entry.player_id)
        .where(Entry.tournament_id == tournament_id, Player.handle == handle, Entry.state == "active")
    )
    if found is None:
        raise DomainError("simulate-not-in-play", f"{handle} has no entry in play in tournament {tournament_id}")
    return found


def poker_step(
    session: Session, tournament_id: int, step: Step, now: datetime, seed: str, final_table_from: datetime | None = None
) -> str:
    """One scripted floor action through the poker services; returns what happened, in words. A
    bust that leaves a field fitting one table assembles the final table (`seat final-table
    --confirm`), from `final_table_from` on: once no one can enter any more (the final-table draw
    happens once per tournament)."""
    if step.kind == CHECKIN:
        return step_said(step, desk.check_in(session, tournament_id, step.player, now)[1])
    if step.kind == REENTRY:
        desk.reenter(session, tournament_id, step.player, now)
        return step_said(step)
    if step.kind == ADDON:
        desk.add_on(session, tournament_id, step.player, now)
        return step_said(step)
    assert step.kind == BUST and step.killer is not None
    bust = Bust(_entry_of(session, tournament_id, step.player), _entry_of(session, tournament_id, step.killer))
    desk.knock_out(session, tournament_id, [bust], now=now, actor="simulator")
    left = session.scalar(select(func.count()).where(Entry.tournament_id == tournament_id, Entry.state == "active"))
    final = (final_table_from is None or now >= final_table_from) and seating_service.final_table(
        session, tournament_id, now, confirm=False
    )["proposed"]
    if final:
        seating_service.final_table(session, tournament_id, now, confirm=True, seed=f"{seed}-final-table")
    return step_said(step, left=left, final_table=final)


# -- Pusoy Dos ------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Game:
    round_no: int
    playoff: int
    table: int
    game: int
    seated: tuple[str, ...]


def pusoy_status(session: Session, code: str) -> str:
    return pusoy_rows.find(session, code).status


def pusoy_next_games(session: Session, code: str) -> list[Game]:
    """The next unreported game of every table of the round (or playoff) being played."""
    t = pusoy_rows.find(session, code)
    if t.status != "active" or not t.current_round:
        return []
    rnd = session.get(PusoyRound, (t.id, t.current_round))
    if rnd is None or rnd.status == "locked":
        return []
    seats = session.execute(
        select(PusoySeat.table_no, PusoySeat.player)
        .where(
            PusoySeat.tournament_id == t.id,
            PusoySeat.round_no == rnd.number,
            PusoySeat.stage == rnd.stage,
        )
        .order_by(PusoySeat.table_no, PusoySeat.seat_no)
    ).all()
    reported = dict(
        session.execute(
            select(PusoyGame.table_no, func.count())
            .where(
                PusoyGame.tournament_id == t.id,
                PusoyGame.round_no == rnd.number,
                PusoyGame.stage == rnd.stage,
            )
            .group_by(PusoyGame.table_no)
        ).all()
    )
    games = t.games_per_round if rnd.stage == 0 else 1
    tables: dict[int, list[str]] = {}
    for table, player in seats:
        tables.setdefault(table, []).append(player)
    return [
        Game(rnd.number, rnd.stage, table, reported.get(table, 0) + 1, tuple(players))
        for table, players in tables.items()
        if reported.get(table, 0) < games
    ]


def pusoy_report(session: Session, code: str, game: Game, finishes, two_of_diamonds: str | None, now: datetime) -> bool:
    """`pusoy report`; True when the round (or playoff) is ready to complete."""
    return pusoy_reports.report(
        session,
        code,
        round_no=game.round_no,
        table=game.table,
        game=game.game,
        finishes=list(finishes),
        two_of_diamonds=two_of_diamonds,
        now=now,
        by="simulator",
        playoff=game.playoff,
    ).round_ready
