"""What the CLI, the documents and the pages show of a tournament: summary, standings, final standings, draw proofs."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime
from functools import cache, cached_property
from typing import NamedTuple, TypeVar

from sqlalchemy import Select, bindparam, inspect, select
from sqlalchemy.orm import Session

from domain import draw
from domain.errors import DomainError, NotFound
from domain.pusoy.rules import scoring
from domain.pusoy.rules.codes import normalise
from domain.pusoy.services.rounds import FINISHES, live_standings
from domain.pusoy.services.rows import find
from domain.pusoy.tables import (
    PusoyDraw,
    PusoyEntry,
    PusoyFinish,
    PusoyRound,
    PusoySeat,
    PusoyStanding,
    PusoyTournament,
)


def draw_proof(session: Session, code: str) -> list[dict]:
    """PD-12: every draw with its commitment; revealed ones with the seed, and whether re-running
    the draw from the seed reproduces the recorded outcome."""
    tournament = find(session, code)
    rows = session.scalars(select(PusoyDraw).where(PusoyDraw.tournament_id == tournament.id).order_by(PusoyDraw.seq))
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
    return round_standings(session, tournament, rnd)


def round_standings(session: Session, tournament: PusoyTournament, rnd: PusoyRound, read=None) -> list[dict]:
    """`standings_view` of a round already read (`read`: its finishes and players, as `live_standings`
    takes them, when they are read already)."""
    if rnd.status == "locked":
        rows = session.execute(_statements().locked, {"t": tournament.id, "round": rnd.number})
        return [
            {"rank": r.rank, "player": r.player, "points": r.points, "decided_by": r.decided_by, "advanced": r.advanced}
            for r in rows
        ]
    return [
        {"rank": s.rank, "player": s.player, "points": s.points, "decided_by": s.decided_by, "advanced": None}
        for s in live_standings(session, tournament, rnd, read)
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


class Seat(NamedTuple):
    stage: int  # 0: the round's tables; n: its n-th playoff
    table: int
    seat: int
    player: str


class Result(NamedTuple):
    stage: int
    table: int
    game: int
    player: str
    position: int
    two_of_diamonds: bool


class Held(NamedTuple):
    joined_at: datetime
    left_round: int | None
    final_position: int | None


@dataclass(frozen=True)
class CupRead:
    """A cup as its players' views read it (`read_cup`), in one read whatever the number of players:
    every player's view of it (`view_of`) is derived from this, with no further statement."""

    cup: dict  # the summary, without the organizer's e-mail (the organizer's, never a player's)
    champion: str | None
    round: dict | None  # the current round: number, status, field, advancing
    standings: list[dict]  # the current round's, live or as locked (`standings_view`)
    entries: dict[str, Held]  # each seat held, by handle
    rounds: dict[str, list[dict]]  # the rounds each player played (locked): round, rank, points, advanced
    seats: tuple[Seat, ...]  # the current round's, every stage, by stage, table and seat
    results: tuple[Result, ...]  # the current round's finishes, every stage, by game and position

    @cached_property
    def seat_of(self) -> dict[str, Seat]:
        """Each seated player's seat now: a playoff's when they are in one (the highest stage)."""
        return {s.player: s for s in self.seats}  # by stage: a later stage's seat replaces an earlier one

    @cached_property
    def at_table(self) -> dict[tuple[int, int], list[Seat]]:
        """The seats of each (stage, table), by seat."""
        return _by_table(self.seats)

    @cached_property
    def results_at(self) -> dict[tuple[int, int], list[Result]]:
        """The finishes of each (stage, table), by game and position."""
        return _by_table(self.results)


T = TypeVar("T", "Seat", "Result")


def _by_table(rows: Iterable[T]) -> dict[tuple[int, int], list[T]]:
    """`rows` (each with a `stage` and a `table`) grouped by (stage, table), in their order."""
    found: dict[tuple[int, int], list[T]] = {}
    for row in rows:
        found.setdefault((row.stage, row.table), []).append(row)
    return found


class _Statements(NamedTuple):
    cup: Select  # the cup of `code`, its columns (no entity: nothing here changes it)
    entries: Select  # its seats held (`t`)
    rounds: Select  # every locked round's standings (`t`), by round and listing
    round: Select  # the round `round` of `t`
    seats: Select  # the seats of round `round` of `t`, every stage
    results: Select  # the finishes of round `round` of `t`, every stage, by game and position
    locked: Select  # the standings of round `round` of `t`, as locked


@cache
def _statements() -> _Statements:
    """`read_cup`'s statements, built once (a cup's event builds it at every change of the cup)."""
    t, number = bindparam("t"), bindparam("round")
    return _Statements(
        select(*(a.columns[0] for a in inspect(PusoyTournament).column_attrs)).where(
            PusoyTournament.code == bindparam("code")
        ),
        select(PusoyEntry.player, PusoyEntry.joined_at, PusoyEntry.left_round, PusoyEntry.final_position).where(
            PusoyEntry.tournament_id == t
        ),
        select(
            PusoyStanding.player,
            PusoyStanding.round_no,
            PusoyStanding.rank,
            PusoyStanding.points,
            PusoyStanding.advanced,
        )
        .where(PusoyStanding.tournament_id == t)
        .order_by(PusoyStanding.round_no, PusoyStanding.listed),
        select(PusoyRound.number, PusoyRound.status, PusoyRound.field, PusoyRound.advancing, PusoyRound.stage).where(
            PusoyRound.tournament_id == t, PusoyRound.number == number
        ),
        select(PusoySeat.stage, PusoySeat.table_no, PusoySeat.seat_no, PusoySeat.player)
        .where(PusoySeat.tournament_id == t, PusoySeat.round_no == number)
        .order_by(PusoySeat.stage, PusoySeat.table_no, PusoySeat.seat_no),
        FINISHES.where(PusoyFinish.tournament_id == t, PusoyFinish.round_no == number).order_by(
            PusoyFinish.game_no, PusoyFinish.position
        ),
        select(
            PusoyStanding.rank,
            PusoyStanding.player,
            PusoyStanding.points,
            PusoyStanding.decided_by,
            PusoyStanding.advanced,
        )
        .where(PusoyStanding.tournament_id == t, PusoyStanding.round_no == number)
        .order_by(PusoyStanding.listed),
    )


def read_cup(session: Session, code: str) -> CupRead:
    """What every player's view of a cup shows (2 to 7 statements, none per player): its rows as columns
    (no entity), the live standings from the seats and finishes read here."""
    said = _statements()
    tournament = session.execute(said.cup, {"code": normalise(code)}).first()
    if tournament is None:
        raise NotFound("unknown-code", f"no tournament has the join code {normalise(code)}")
    cup = summary(tournament)
    cup.pop("organizer_email", None)
    of = {"t": tournament.id}
    entries = {player: Held(joined, left, final) for player, joined, left, final in session.execute(said.entries, of)}
    number = tournament.current_round
    if not number:  # no round yet: no standings either (a round's standings are kept by its row)
        return CupRead(cup, tournament.champion, None, [], entries, {}, (), ())
    rounds: dict[str, list[dict]] = {}
    for player, round_no, rank, points, advanced in session.execute(said.rounds, of):
        rounds.setdefault(player, []).append({"round": round_no, "rank": rank, "points": points, "advanced": advanced})
    of["round"] = number
    rnd = session.execute(said.round, of).one()
    now = {"number": number, "status": rnd.status, "field": rnd.field, "advancing": rnd.advancing}
    seats = session.execute(said.seats, of).all()
    results = session.execute(said.results, of).all()
    players = [s.player for s in seats if s.stage == 0]
    return CupRead(
        cup,
        tournament.champion,
        now,
        round_standings(session, tournament, rnd, (results, players)),
        entries,
        rounds,
        tuple(Seat(*s) for s in seats),
        tuple(Result(*r) for r in results),
    )


def cup_part(read: CupRead) -> dict:
    """What every entrant's view of the cup shows alike: the cup, the champion, the current round and
    its standings."""
    return {"cup": read.cup, "champion": read.champion, "round": read.round, "standings": read.standings}


def view_of(read: CupRead, player: str | None) -> dict:
    """One player's view of a cup (PD-4..PD-10, PD-13): the cup; whether they hold a seat; their table
    now (a playoff table when they are in one), its seat and opponents, their games there with points;
    the round's standings (live, or as locked); each round they played (rank, points, advanced); their
    final position, the champion. Someone without a seat gets the cup alone (and may join it)."""
    held = read.entries.get(player) if player else None
    out: dict = {"cup": read.cup, "entered": held is not None, "player": player, "champion": read.champion}
    if held is None:
        return out
    out |= cup_part(read) | held._asdict()
    out |= {"rounds": read.rounds.get(player, []), "table": None, "games": []}
    if read.round is None:
        out["state"] = "waiting" if read.cup["status"] == "setup" else read.cup["status"]
        return out
    seat = read.seat_of.get(player)
    if seat is not None:
        out["table"] = {
            "round": read.round["number"],
            "playoff": seat.stage,
            "table": seat.table,
            "seat": seat.seat,
            "opponents": [
                {"seat": s.seat, "player": s.player}
                for s in read.at_table[seat.stage, seat.table]
                if s.player != player
            ],
        }
        games: dict[int, dict] = {}
        for r in read.results_at.get((seat.stage, seat.table), ()):
            game = games.setdefault(r.game, {"game": r.game, "finishes": []})
            game["finishes"].append(r.player)
            if r.player == player:
                game |= {
                    "position": r.position,
                    "two_of_diamonds": r.two_of_diamonds,
                    "points": scoring.points(r.position, r.two_of_diamonds),
                }
        out["games"] = list(games.values())
    if read.cup["status"] == "complete":
        out["state"] = "champion" if read.champion == player else "finished"
    elif held.left_round is not None:
        out["state"] = "out"
    else:
        out["state"] = "playoff" if seat is not None and seat.stage else "playing"
    return out


def player_view(session: Session, code: str, player: str | None) -> dict:
    """One player's view of a cup (`view_of`), read for them alone."""
    return view_of(read_cup(session, code), player)
