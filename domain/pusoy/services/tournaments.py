"""Pusoy Dos services: each takes a Session (the caller owns the transaction), loads rows, calls
the pure rules and writes the outcome (RULES PD-1..PD-13).

Races are settled by the database: a join locks the tournament row (`FOR UPDATE`), so the last
seat is taken once and the start happens in the same transaction; a report or amendment locks its
round row (`FOR UPDATE`), so reports of one round queue and exactly the last one sees the round
ready; a completion takes the round `FOR UPDATE SKIP LOCKED`, so two completions never advance one
round twice and a report never lands in a round being locked.
"""

from __future__ import annotations

import random
import secrets
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import delete, func, select, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from domain import draw
from domain.errors import DomainError, NotFound, Problem, raise_problems
from domain.pusoy.rules.advancement import Advance, Playoff, advance, leaving_positions, playoff_tables, reseat_order, seats
from domain.pusoy.rules.bracket import (
    bracket,
    bracket_problems,
    capacity_problems,
    games_problems,
    tables,
)
from domain.pusoy.rules.codes import handle_problems, new_code, normalise
from domain.pusoy.rules.scoring import Finish, points, report_problems
from domain.pusoy.rules.standings import Standing, standings
from domain.pusoy.rules.status import Status, report_problems as status_report_problems, transition_problems
from domain.clubs.tables import Club
from domain.pusoy.tables import (
    PusoyDraw,
    PusoyEntry,
    PusoyFinish,
    PusoyGame,
    PusoyGameAudit,
    PusoyRound,
    PusoySeat,
    PusoyStanding,
    PusoyTournament,
)

# -- tournaments and filling (PD-1..PD-4, PD-11, PD-12) ----------------------------------------


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
    seed: str | None = None,
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
    _commit_draw(session, tournament.id, 1, now, seed)
    session.flush()
    return tournament


def find(session: Session, code: str, lock: bool = False) -> PusoyTournament:
    stmt = select(PusoyTournament).where(PusoyTournament.code == normalise(code))
    if lock:
        stmt = stmt.with_for_update()
    tournament = session.scalars(stmt.execution_options(populate_existing=True)).one_or_none()
    if tournament is None:
        raise NotFound("unknown-code", f"no tournament has the join code {normalise(code)}")
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


def join(session: Session, code: str, player: str, now: datetime, next_seed: str | None = None) -> Joined:
    """PD-4: first come, first seated; the last seat starts the tournament in this transaction.
    `next_seed` is committed for the tournament's next draw if this join starts it (default: fresh
    from the OS RNG)."""
    raise_problems(handle_problems(player))
    tournament = find(session, code, lock=True)
    _require_filling(tournament, "join")
    if session.get(PusoyEntry, (tournament.id, player)) is not None:
        raise DomainError("already-joined", f"{player} already holds a seat in {tournament.code}")
    session.add(PusoyEntry(tournament_id=tournament.id, player=player, joined_at=now))
    tournament.entrants += 1
    session.flush()
    if tournament.entrants == tournament.capacity:
        _start(session, tournament, now, next_seed)
    return Joined(tournament, player, tournament.status == Status.ACTIVE.value)


def withdraw(session: Session, code: str, player: str, now: datetime) -> PusoyTournament:
    """PD-4: only while filling."""
    tournament = find(session, code, lock=True)
    if tournament.status in (Status.ACTIVE.value, Status.COMPLETE.value):
        raise DomainError(
            "withdraw-after-start", f"{tournament.code} has started: entries are locked, no withdrawals"
        )
    _require_filling(tournament, "withdraw from")
    entry = session.get(PusoyEntry, (tournament.id, player))
    if entry is None:
        raise DomainError("not-entered", f"{player} holds no seat in {tournament.code}")
    session.delete(entry)
    tournament.entrants -= 1
    session.flush()
    return tournament


def cancel(session: Session, code: str, by: str, now: datetime) -> PusoyTournament:
    """PD-11: the organizer cancels while filling."""
    tournament = find(session, code, lock=True)
    if by != tournament.organizer:
        raise DomainError("not-organizer", f"only the organizer ({tournament.organizer}) can cancel {tournament.code}")
    _change_status(tournament, Status.CANCELLED)
    tournament.finished_at = now
    session.flush()
    return tournament


def _require_filling(tournament: PusoyTournament, doing: str) -> None:
    status = Status(tournament.status)
    if status is Status.CANCELLED:
        raise DomainError("tournament-cancelled", f"tournament {tournament.code} was cancelled; you cannot {doing} it")
    if status is Status.ACTIVE:
        raise DomainError("tournament-full", "tournament is full")
    if status is Status.COMPLETE:
        raise DomainError("tournament-complete", f"tournament {tournament.code} is over")


def _change_status(tournament: PusoyTournament, target: Status) -> None:
    raise_problems(transition_problems(Status(tournament.status), target))
    tournament.status = target.value


def _start(session: Session, tournament: PusoyTournament, now: datetime, next_seed: str | None) -> None:
    """PD-4/PD-10/PD-12: Active, round 1 seated by the committed-seed draw."""
    players = list(
        session.scalars(
            select(PusoyEntry.player).where(PusoyEntry.tournament_id == tournament.id).order_by(PusoyEntry.player)
        )
    )
    seed = _reveal(session, tournament.id, "round-1 seating", players, now, next_seed)
    _open_round(session, tournament, 1, draw.shuffled(seed, "round-1 seating", players), now)
    _change_status(tournament, Status.ACTIVE)
    tournament.started_at = now


def _open_round(session: Session, tournament: PusoyTournament, number: int, order: Sequence[str], now: datetime) -> None:
    fields = tournament.bracket
    session.add(
        PusoyRound(
            tournament_id=tournament.id,
            number=number,
            field=len(order),
            advancing=fields[number] if number < len(fields) else 1,
            stage=0,
            status="playing",
            expected_games=tables(len(order)) * tournament.games_per_round,
            started_at=now,
        )
    )
    session.flush()
    session.execute(
        PusoySeat.__table__.insert(),
        [
            {"tournament_id": tournament.id, "round_no": number, "stage": 0, "player": s.player,
             "table_no": s.table, "seat_no": s.seat}
            for s in seats(order)
        ],
    )
    tournament.current_round = number


# -- draws (PD-12) ---------------------------------------------------------------------------------


def _commit_draw(session: Session, tournament_id: int, seq: int, now: datetime, seed: str | None = None) -> None:
    seed = seed or draw.new_seed()
    session.add(
        PusoyDraw(tournament_id=tournament_id, seq=seq, commitment=draw.commitment(seed), seed=seed, committed_at=now)
    )


def _reveal(
    session: Session, tournament_id: int, purpose: str, items: Sequence[str], now: datetime, next_seed: str | None
) -> str:
    """Use the committed seed for one draw (returned), record the draw for re-checking, commit the
    next seed."""
    pending = session.scalars(
        select(PusoyDraw)
        .where(PusoyDraw.tournament_id == tournament_id, PusoyDraw.revealed_at.is_(None))
        .execution_options(populate_existing=True)
    ).one()
    outcome = draw.shuffled(pending.seed, purpose, sorted(items))
    pending.purpose, pending.items, pending.outcome, pending.revealed_at = purpose, sorted(items), outcome, now
    _commit_draw(session, tournament_id, pending.seq + 1, now, next_seed)
    return pending.seed


def draw_proof(session: Session, code: str) -> list[dict]:
    """PD-12: every draw with its commitment; revealed ones with the seed, and whether re-running
    the draw from the seed reproduces the recorded outcome."""
    tournament = find(session, code)
    rows = session.scalars(
        select(PusoyDraw).where(PusoyDraw.tournament_id == tournament.id).order_by(PusoyDraw.seq)
    )
    out = []
    for d in rows:
        revealed = d.revealed_at is not None
        out.append(
            {
                "seq": d.seq,
                "commitment": d.commitment,
                "committed_at": d.committed_at,
                "purpose": d.purpose,
                "seed": d.seed if revealed else None,
                "items": d.items,
                "outcome": d.outcome,
                "verified": (
                    draw.matches(d.seed, d.commitment) and draw.shuffled(d.seed, d.purpose, d.items) == d.outcome
                    if revealed
                    else None
                ),
            }
        )
    return out


# -- game reports (PD-5, PD-6, PD-11) --------------------------------------------------------------


@dataclass(frozen=True)
class Reported:
    tournament_id: int
    round_no: int
    stage: int
    table: int
    game: int
    round_ready: bool


def report(
    session: Session,
    code: str,
    *,
    round_no: int,
    table: int,
    game: int,
    finishes: Sequence[tuple[str, int]],
    two_of_diamonds: str | None,
    now: datetime,
    by: str | None = None,
    playoff: int = 0,
) -> Reported:
    """One table's game. `round_ready` tells the caller to run the round completion at once."""
    tournament, rnd = _reportable(session, code, round_no, table, game, finishes, two_of_diamonds, playoff)
    key = (tournament.id, round_no, playoff, table, game)
    if session.get(PusoyGame, key) is not None:
        raise DomainError("already-reported", f"game {game} of table {table} is already reported; amend it instead")
    session.add(PusoyGame(**_key(key), reported_by=by, reported_at=now))
    session.flush()
    _write_finishes(session, key, finishes, two_of_diamonds)
    session.add(PusoyGameAudit(**_key(key), action="report", by=by, after=_as_json(finishes, two_of_diamonds), at=now))
    session.flush()
    done = session.scalar(
        select(func.count()).where(
            PusoyGame.tournament_id == tournament.id, PusoyGame.round_no == round_no, PusoyGame.stage == playoff
        )
    )
    return Reported(tournament.id, round_no, playoff, table, game, done == rnd.expected_games)


def amend(
    session: Session,
    code: str,
    *,
    round_no: int,
    table: int,
    game: int,
    finishes: Sequence[tuple[str, int]],
    two_of_diamonds: str | None,
    now: datetime,
    by: str | None = None,
    reason: str | None = None,
    playoff: int = 0,
) -> Reported:
    """A correction of a reported game, audited with the finishes before and after; allowed until
    the round (or that playoff) locks."""
    tournament, rnd = _reportable(session, code, round_no, table, game, finishes, two_of_diamonds, playoff)
    key = (tournament.id, round_no, playoff, table, game)
    reported = session.get(PusoyGame, key)
    if reported is None:
        raise DomainError("not-reported", f"game {game} of table {table} has not been reported yet")
    before = session.execute(
        select(PusoyFinish.player, PusoyFinish.position, PusoyFinish.two_of_diamonds).where(*_match(PusoyFinish, key))
    ).all()
    session.execute(delete(PusoyFinish).where(*_match(PusoyFinish, key)))
    _write_finishes(session, key, finishes, two_of_diamonds)
    reported.amended_at = now
    session.add(
        PusoyGameAudit(
            **_key(key),
            action="amend",
            by=by,
            reason=reason,
            before=_as_json([(p, pos) for p, pos, _ in before], next((p for p, _, d in before if d), None)),
            after=_as_json(finishes, two_of_diamonds),
            at=now,
        )
    )
    session.flush()
    return Reported(tournament.id, round_no, playoff, table, game, False)


def _reportable(session, code, round_no, table, game, finishes, two_of_diamonds, playoff):
    tournament = find(session, code)
    raise_problems(status_report_problems(Status(tournament.status)))
    rnd = session.scalars(
        select(PusoyRound)
        .where(PusoyRound.tournament_id == tournament.id, PusoyRound.number == round_no)
        .with_for_update()
        .execution_options(populate_existing=True)
    ).one_or_none()
    if rnd is None:
        raise DomainError("unknown-round", f"{tournament.code} has no round {round_no} yet")
    if rnd.status == "locked" or playoff < rnd.stage:
        what = f"round {round_no}" if playoff == 0 else f"playoff {playoff} of round {round_no}"
        raise DomainError("round-locked", f"{what} is locked: its results can no longer change")
    if playoff > rnd.stage:
        raise DomainError("unknown-playoff", f"round {round_no} has no playoff {playoff}")
    seated = list(
        session.scalars(
            select(PusoySeat.player).where(
                PusoySeat.tournament_id == tournament.id,
                PusoySeat.round_no == round_no,
                PusoySeat.stage == playoff,
                PusoySeat.table_no == table,
            )
        )
    )
    if not seated:
        raise DomainError("unknown-table", f"round {round_no} has no table {table}")
    games = tournament.games_per_round if playoff == 0 else 1
    raise_problems(report_problems(seated, finishes, two_of_diamonds, game, games))
    return tournament, rnd


GAME_COLUMNS = ("tournament_id", "round_no", "stage", "table_no", "game_no")


def _key(key: tuple) -> dict:
    return dict(zip(GAME_COLUMNS, key))


def _match(model, key: tuple) -> list:
    return [getattr(model, c) == v for c, v in zip(GAME_COLUMNS, key)]


def _write_finishes(session: Session, key: tuple, finishes, two_of_diamonds) -> None:
    session.execute(
        PusoyFinish.__table__.insert(),
        [
            {**_key(key), "player": p, "position": pos, "two_of_diamonds": p == two_of_diamonds}
            for p, pos in finishes
        ],
    )


def _as_json(finishes, two_of_diamonds) -> dict:
    return {"finishes": {p: pos for p, pos in sorted(finishes, key=lambda f: f[1])}, "two_of_diamonds": two_of_diamonds}


# -- standings and round completion (PD-7..PD-10, PD-13) -------------------------------------------


def _live_standings(session: Session, tournament: PusoyTournament, rnd: PusoyRound) -> tuple[Standing, ...]:
    """PD-6..PD-9: the round's standings from its stored finishes (3 statements)."""
    where = (PusoyFinish.tournament_id == tournament.id, PusoyFinish.round_no == rnd.number)
    rows = session.execute(
        select(PusoyFinish.stage, PusoyFinish.table_no, PusoyFinish.game_no, PusoyFinish.player,
               PusoyFinish.position, PusoyFinish.two_of_diamonds).where(*where)
    ).all()
    players = list(
        session.scalars(
            select(PusoySeat.player).where(
                PusoySeat.tournament_id == tournament.id, PusoySeat.round_no == rnd.number, PusoySeat.stage == 0
            )
        )
    )
    earlier = None
    if rnd.number > 1:
        earlier = dict.fromkeys(players, 0)
        for player, position, diamond, count in session.execute(
            select(PusoyFinish.player, PusoyFinish.position, PusoyFinish.two_of_diamonds, func.count())
            .where(PusoyFinish.tournament_id == tournament.id, PusoyFinish.round_no < rnd.number,
                   PusoyFinish.stage == 0, PusoyFinish.player.in_(players))
            .group_by(PusoyFinish.player, PusoyFinish.position, PusoyFinish.two_of_diamonds)
        ):
            earlier[player] += points(position, diamond) * count
    regular = [Finish(r.table_no, r.game_no, r.player, r.position, r.two_of_diamonds) for r in rows if r.stage == 0]
    playoffs = [{r.player: r.position for r in rows if r.stage == s} for s in range(1, rnd.stage + 1)]
    return standings(players, regular, tournament.games_per_round, earlier, playoffs)


@dataclass(frozen=True)
class Completion:
    tournament_id: int
    code: str
    round_no: int
    outcome: str  # "playoff" | "advanced" | "champion"
    standings: tuple[Standing, ...]
    advanced: tuple[str, ...]
    playoff_tables: tuple[tuple[str, ...], ...] = ()
    champion: str | None = None


def _ready(stmt):
    games = (
        select(func.count())
        .where(
            PusoyGame.tournament_id == PusoyRound.tournament_id,
            PusoyGame.round_no == PusoyRound.number,
            PusoyGame.stage == PusoyRound.stage,
        )
        .scalar_subquery()
    )
    return stmt.where(PusoyRound.status != "locked", games == PusoyRound.expected_games)


def ready_rounds(session: Session, tournament_id: int | None = None) -> list[tuple[int, int]]:
    """Rounds (or their playoffs) whose tables have reported every game."""
    stmt = _ready(select(PusoyRound.tournament_id, PusoyRound.number)).order_by(
        PusoyRound.tournament_id, PusoyRound.number
    )
    if tournament_id is not None:
        stmt = stmt.where(PusoyRound.tournament_id == tournament_id)
    return [tuple(r) for r in session.execute(stmt)]


def complete_round(
    session: Session, tournament_id: int, round_no: int, now: datetime, next_seed: str | None = None
) -> Completion | None:
    """PD-5, PD-8..PD-10, PD-13: lock the round, advance the top N or open a playoff, reseat the
    next round or crown the champion. None when the round is not ready or another run holds it.
    A constant number of statements whatever the games or players. `next_seed` is committed for
    the next draw if this completion draws (default: fresh from the OS RNG)."""
    found = session.execute(
        _ready(select(PusoyRound, PusoyTournament))
        .join(PusoyTournament, PusoyTournament.id == PusoyRound.tournament_id)
        .where(PusoyRound.tournament_id == tournament_id, PusoyRound.number == round_no)
        .with_for_update(of=PusoyRound, skip_locked=True)
        .execution_options(populate_existing=True)
    ).one_or_none()
    if found is None:
        return None
    rnd, tournament = found
    ranked = _live_standings(session, tournament, rnd)
    outcome = advance(ranked, rnd.advancing)
    if isinstance(outcome, Playoff):
        return _open_playoff(session, tournament, rnd, ranked, outcome, now, next_seed)
    return _lock(session, tournament, rnd, ranked, outcome, now, next_seed)


def _open_playoff(session, tournament, rnd, ranked, playoff: Playoff, now, next_seed) -> Completion:
    """PD-9: the tied players drawn into ceil(k/4) tables for one game."""
    stage = rnd.stage + 1
    purpose = f"round-{rnd.number} playoff-{stage} tables"
    seed = _reveal(session, tournament.id, purpose, playoff.players, now, next_seed)
    drawn = playoff_tables(playoff.players, seed, purpose)
    session.execute(
        PusoySeat.__table__.insert(),
        [
            {"tournament_id": tournament.id, "round_no": rnd.number, "stage": stage, "player": p,
             "table_no": t, "seat_no": s}
            for t, table in enumerate(drawn, start=1)
            for s, p in enumerate(table, start=1)
        ],
    )
    rnd.stage, rnd.status, rnd.expected_games = stage, "playoff", len(drawn)
    session.flush()
    return Completion(tournament.id, tournament.code, rnd.number, "playoff", ranked, (), drawn)


def _lock(session, tournament, rnd, ranked, result: Advance, now, next_seed) -> Completion:
    final = rnd.number == len(tournament.bracket)
    went_on = () if final else tuple(s.player for s in result.advancers)
    session.execute(
        PusoyStanding.__table__.insert(),
        [
            {"tournament_id": tournament.id, "round_no": rnd.number, "player": s.player, "listed": i,
             "points": s.points, "rank": s.rank, "decided_by": s.decided_by, "advanced": s.player in went_on}
            for i, s in enumerate(ranked, start=1)
        ],
    )
    leaving = leaving_positions([s for s in ranked if s.player not in went_on])
    session.execute(
        update(PusoyEntry),
        [
            {"tournament_id": tournament.id, "player": p, "left_round": rnd.number, "final_position": pos}
            for p, pos in leaving.items()
        ],
    )
    rnd.status, rnd.locked_at = "locked", now
    if final:
        champion = result.advancers[0].player
        _change_status(tournament, Status.COMPLETE)
        tournament.champion, tournament.finished_at = champion, now
        session.flush()
        return Completion(tournament.id, tournament.code, rnd.number, "champion", ranked, (), champion=champion)
    purpose = f"round-{rnd.number + 1} reseat order"
    seed = _reveal(session, tournament.id, purpose, went_on, now, next_seed)
    order = reseat_order(result.advancers, seed, purpose)
    _open_round(session, tournament, rnd.number + 1, order, now)
    session.flush()
    return Completion(tournament.id, tournament.code, rnd.number, "advanced", ranked, order)


def complete_ready_rounds(session_factory, now: datetime, tournament_id: int | None = None) -> list[Completion]:
    """Every ready round, each completed in its own transaction (`session_factory()` is a context
    manager yielding a Session that commits on exit, e.g. `unit_of_work`). A round that opens a
    playoff waits for the playoff's reports, so one pass is enough."""
    done: list[Completion] = []
    with session_factory() as session:
        ready = ready_rounds(session, tournament_id)
    for tid, number in ready:
        with session_factory() as session:
            completion = complete_round(session, tid, number, now)
        if completion is not None:
            done.append(completion)
    return done


# -- views (CLI, artifacts) ------------------------------------------------------------------------


def summary(t: PusoyTournament) -> dict:
    return {
        "code": t.code,
        "name": t.name,
        "status": t.status,
        "capacity": t.capacity,
        "entrants": t.entrants,
        "seats_left": t.capacity - t.entrants,
        "private": t.private,
        "games_per_round": t.games_per_round,
        "bracket": list(t.bracket),
        "custom_bracket": t.custom_bracket,
        "organizer": t.organizer,
        "organizer_email": t.organizer_email,
        "club_id": t.club_id,
        "current_round": t.current_round,
        "champion": t.champion,
        "created_at": t.created_at,
    }


def standings_view(session: Session, code: str, round_no: int | None = None) -> list[dict]:
    """A round's standings: as locked, or live from the finishes reported so far."""
    tournament = find(session, code)
    number = round_no or tournament.current_round
    rnd = session.get(PusoyRound, (tournament.id, number)) if number else None
    if rnd is None:
        raise DomainError("unknown-round", f"{tournament.code} has no round {number or 1} yet")
    if rnd.status == "locked":
        rows = session.scalars(
            select(PusoyStanding)
            .where(PusoyStanding.tournament_id == tournament.id, PusoyStanding.round_no == number)
            .order_by(PusoyStanding.listed)
        )
        return [
            {"rank": r.rank, "player": r.player, "points": r.points, "decided_by": r.decided_by, "advanced": r.advanced}
            for r in rows
        ]
    return [
        {"rank": s.rank, "player": s.player, "points": s.points, "decided_by": s.decided_by, "advanced": None}
        for s in _live_standings(session, tournament, rnd)
    ]


def final_standings_view(session: Session, code: str) -> list[dict]:
    """PD-13: every entrant's final position (set as each round locks; complete once the final does)."""
    tournament = find(session, code)
    rows = session.execute(
        select(PusoyEntry.final_position, PusoyEntry.player, PusoyEntry.left_round)
        .where(PusoyEntry.tournament_id == tournament.id)
        .order_by(PusoyEntry.final_position.nulls_first(), PusoyEntry.player)
    )
    return [{"position": pos, "player": player, "left_round": left} for pos, player, left in rows]


def show(session: Session, code: str) -> dict:
    """The tournament, its rounds, the current tables (and playoff tables), the next draw's commitment."""
    tournament = find(session, code)
    rounds = session.scalars(
        select(PusoyRound).where(PusoyRound.tournament_id == tournament.id).order_by(PusoyRound.number)
    ).all()
    seats_now = session.execute(
        select(PusoySeat.stage, PusoySeat.table_no, PusoySeat.player)
        .where(PusoySeat.tournament_id == tournament.id, PusoySeat.round_no == tournament.current_round)
        .order_by(PusoySeat.stage, PusoySeat.table_no, PusoySeat.seat_no)
    ).all()
    tables: dict[str, list[str]] = {}
    for stage, table, player in seats_now:
        tables.setdefault(f"table {table}" if stage == 0 else f"playoff {stage} table {table}", []).append(player)
    pending = session.scalar(
        select(PusoyDraw.commitment).where(PusoyDraw.tournament_id == tournament.id, PusoyDraw.revealed_at.is_(None))
    )
    return {
        **summary(tournament),
        "rounds": [
            {"round": r.number, "field": r.field, "advancing": r.advancing, "status": r.status, "playoffs": r.stage}
            for r in rounds
        ],
        "tables": tables,
        "next_draw_commitment": pending,
    }
