"""Creating a tournament and filling it (PD-1..PD-4, PD-11).

Locks. A join reads the cup and the player's seat first, unlocked, and refuses there what it can; it
inserts the seat (its foreign key takes only the row's key-share lock, which no other join waits
for) and takes the tournament's row lock last, with the one `UPDATE` that counts the seat: it counts
only while the cup fills and is under capacity, and PostgreSQL re-checks that on the row as another
join's commit left it. So joins of one cup queue only over that statement, the audit row and the
commit; the last seat is taken once, and the start happens in the same transaction. Withdrawing and
cancelling lock the row (`FOR UPDATE`) before they read."""

from __future__ import annotations

import random
import secrets
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from functools import cache

from sqlalchemy import bindparam, delete, exists, inspect, select, update
from sqlalchemy.dialects.postgresql import insert
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session
from sqlalchemy.orm.attributes import set_committed_value

from domain import draw
from domain.clubs.tables import Club
from domain.errors import DomainError, NotFound, Problem, raise_problems
from domain.pusoy.rules import filling
from domain.pusoy.rules.bracket import (
    bracket,
    bracket_problems,
    capacity_problems,
    games_problems,
)
from domain.pusoy.rules.codes import handle_problems, new_code, normalise
from domain.pusoy.rules.status import Status
from domain.pusoy.services.draws import commit_draw, reveal
from domain.pusoy.services.rounds import open_round
from domain.pusoy.services.rows import change_status, find
from domain.pusoy.tables import (
    PusoyEntry,
    PusoyTournament,
)


def create(
    session: Session,
    *,
    name: str,
    organizer: str,
    capacity: int,
    now: datetime,
    games_per_round: int = 1,
    private: bool = False,
    advancing: Sequence[int] | None = None,
    organizer_email: str | None = None,
    club_id: int | None = None,
    rng: random.Random | None = None,
) -> PusoyTournament:
    """A tournament in Setup with its bracket stored and the seed of its first draw committed.
    Join codes come from `rng` (default: the operating system's cryptographic RNG)."""
    problems = capacity_problems(capacity) + games_problems(games_per_round)
    problems += handle_problems(organizer, "organizer")
    if not name.strip() or len(name) > 120:
        problems.append(Problem("bad-name", "a tournament name is 1 to 120 characters"))
    if organizer_email is not None and "@" not in organizer_email.strip(" @"):
        problems.append(Problem("bad-email", f"{organizer_email!r} is not an e-mail address"))
    if advancing is not None and not capacity_problems(capacity):
        problems += bracket_problems(capacity, advancing)
    if club_id is not None and session.get(Club, club_id) is None:
        problems.append(Problem("unknown-club", f"no club has the id {club_id}"))
    raise_problems(problems)
    rng = rng or secrets.SystemRandom()
    for _ in range(8):
        try:
            with session.begin_nested():
                tournament = PusoyTournament(
                    code=new_code(rng),
                    name=name.strip(),
                    organizer=organizer,
                    organizer_email=organizer_email,
                    club_id=club_id,
                    capacity=capacity,
                    private=private,
                    games_per_round=games_per_round,
                    bracket=list(bracket(capacity, advancing)),
                    custom_bracket=advancing is not None,
                    status=Status.SETUP.value,
                    entrants=0,
                    created_at=now,
                )
                session.add(tournament)
                session.flush()
            break
        except IntegrityError as exc:
            if "uq_pusoy_tournaments_code" not in str(exc.orig):
                raise
    else:
        raise DomainError("no-free-code", "no free join code was found; try again")
    commit_draw(session, tournament.id, 1, now)
    session.flush()
    return tournament


def browse(session: Session, limit: int = 50) -> list[PusoyTournament]:
    """PD-3: open tournaments that are filling, newest first; private ones never."""
    stmt = (
        select(PusoyTournament)
        .where(PusoyTournament.status == Status.SETUP.value, PusoyTournament.private.is_(False))
        .order_by(PusoyTournament.created_at.desc(), PusoyTournament.id.desc())
        .limit(limit)
    )
    return list(session.scalars(stmt))


@dataclass(frozen=True)
class Joined:
    tournament: PusoyTournament
    player: str
    started: bool


def join(session: Session, code: str, player: str, now: datetime) -> Joined:
    """PD-4: first come, first seated; the last seat starts the tournament in this transaction. Three
    statements (read, seat, count: the module's header says how they lock), more for the last seat."""
    raise_problems(handle_problems(player))
    tournament, holds_seat = _cup_and_seat(session, code, player)
    raise_problems(filling.join_problems(Status(tournament.status), tournament.code, player, holds_seat))
    statements = _join_statements()
    seated = session.execute(
        statements.seat, {"tournament_id": tournament.id, "player": player, "joined_at": now}
    ).scalar()
    if seated is None:  # the same player's other join came first
        raise_problems(filling.join_problems(Status(tournament.status), tournament.code, player, True))
    counted = session.execute(statements.count, {"t": tournament.id}).first()
    if counted is None:  # another join took the last seat (or the cup was cancelled) meanwhile
        session.execute(
            delete(PusoyEntry).where(PusoyEntry.tournament_id == tournament.id, PusoyEntry.player == player)
        )
        tournament = find(session, code)
        raise_problems(filling.join_problems(Status(tournament.status), tournament.code, player, False))
        raise DomainError("tournament-full", "tournament is full")  # unreachable: a cup in Setup is under capacity
    for key, value in zip(statements.keys, counted):  # the row as the count left it (`populate_existing`)
        set_committed_value(tournament, key, value)
    if filling.starts(tournament.entrants, tournament.capacity):
        _start(session, tournament, now)
    return Joined(tournament, player, tournament.status == Status.ACTIVE.value)


@dataclass(frozen=True)
class _JoinStatements:
    read: object  # the cup of `code` and whether `player` holds a seat in it (its entity refreshed)
    seat: object  # the seat of `player`, unless held: RETURNING the player
    count: object  # the seat counted while the cup fills and is under capacity: RETURNING the row
    keys: tuple[str, ...]  # the tournament's attributes, in the order `count` returns its columns


@cache
def _join_statements() -> _JoinStatements:
    """A join's statements, built once (a join is the hot path of a cup filling): Core for the seat and
    the count (the same SQL the ORM's `insert`/`update` sends, without its bulk machinery); the count's
    row is set on the entity the read loaded, as `populate_existing` would."""
    seat = exists().where(PusoyEntry.tournament_id == PusoyTournament.id, PusoyEntry.player == bindparam("player"))
    read = (
        select(PusoyTournament, seat)
        .where(PusoyTournament.code == bindparam("code"))
        .execution_options(populate_existing=True)
    )
    entries, cups = PusoyEntry.__table__, PusoyTournament.__table__
    attrs = inspect(PusoyTournament).column_attrs
    count = (
        update(cups)
        .where(cups.c.id == bindparam("t"), cups.c.status == Status.SETUP.value, cups.c.entrants < cups.c.capacity)
        .values(entrants=cups.c.entrants + 1)
        .returning(*(a.columns[0] for a in attrs))
    )
    return _JoinStatements(
        read,
        insert(entries).on_conflict_do_nothing().returning(entries.c.player),
        count,
        tuple(a.key for a in attrs),
    )


def _cup_and_seat(session: Session, code: str, player: str) -> tuple[PusoyTournament, bool]:
    """The tournament of `code` and whether `player` holds a seat in it, in one unlocked read."""
    row = session.execute(_join_statements().read, {"code": normalise(code), "player": player}).one_or_none()
    if row is None:
        raise NotFound("unknown-code", f"no tournament has the join code {normalise(code)}")
    return row[0], row[1]


def withdraw(session: Session, code: str, player: str, now: datetime) -> PusoyTournament:
    """PD-4: only while filling."""
    tournament = find(session, code, lock=True)
    entry = session.get(PusoyEntry, (tournament.id, player))
    raise_problems(filling.withdraw_problems(Status(tournament.status), tournament.code, player, entry is not None))
    session.delete(entry)
    tournament.entrants -= 1
    session.flush()
    return tournament


def cancel(session: Session, code: str, by: str, now: datetime) -> PusoyTournament:
    """PD-11: the organizer cancels while filling."""
    tournament = find(session, code, lock=True)
    if by != tournament.organizer:
        raise DomainError("not-organizer", f"only the organizer ({tournament.organizer}) can cancel {tournament.code}")
    change_status(tournament, Status.CANCELLED)
    tournament.finished_at = now
    session.flush()
    return tournament


def _start(session: Session, tournament: PusoyTournament, now: datetime) -> None:
    """PD-4/PD-10/PD-12: Active, round 1 seated by the committed-seed draw."""
    players = list(
        session.scalars(
            select(PusoyEntry.player).where(PusoyEntry.tournament_id == tournament.id).order_by(PusoyEntry.player)
        )
    )
    seed = reveal(session, tournament.id, "round-1 seating", players, now)
    open_round(session, tournament, 1, draw.shuffled(seed, "round-1 seating", players), now)
    change_status(tournament, Status.ACTIVE)
    tournament.started_at = now
