"""What the CLI, the documents and the pages show of a tournament: summary, standings, final standings, draw proofs."""

from __future__ import annotations

from sqlalchemy import select
from sqlalchemy.orm import Session

from domain import draw
from domain.errors import DomainError
from domain.pusoy.rules import scoring
from domain.pusoy.services.rounds import live_standings
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
        for s in live_standings(session, tournament, rnd)
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


def player_view(session: Session, code: str, player: str | None) -> dict:
    """One player's view of a cup (PD-4..PD-10, PD-13): the cup; whether they hold a seat; their table
    now (a playoff table when they are in one), its seat and opponents, their games there with points;
    the round's standings (live, or as locked); each round they played (rank, points, advanced); their
    final position, the champion. Someone without a seat gets the cup alone (and may join it)."""
    tournament = find(session, code)
    cup = summary(tournament)
    cup.pop("organizer_email", None)  # the organizer's, never a player's
    entry = session.get(PusoyEntry, (tournament.id, player)) if player else None
    out: dict = {"cup": cup, "entered": entry is not None, "player": player, "champion": tournament.champion}
    if entry is None:
        return out
    out |= {"joined_at": entry.joined_at, "left_round": entry.left_round, "final_position": entry.final_position}
    out["rounds"] = [
        {"round": r.round_no, "rank": r.rank, "points": r.points, "advanced": r.advanced}
        for r in session.scalars(
            select(PusoyStanding)
            .where(PusoyStanding.tournament_id == tournament.id, PusoyStanding.player == player)
            .order_by(PusoyStanding.round_no)
        )
    ]
    number = tournament.current_round
    out["table"], out["games"], out["standings"], out["round"] = None, [], [], None
    if not number:
        out["state"] = "waiting" if tournament.status == "setup" else tournament.status
        return out
    rnd = session.get(PusoyRound, (tournament.id, number))
    out["round"] = {"number": number, "status": rnd.status, "field": rnd.field, "advancing": rnd.advancing}
    out["standings"] = standings_view(session, code, number)
    seat = session.scalars(
        select(PusoySeat)
        .where(PusoySeat.tournament_id == tournament.id, PusoySeat.round_no == number, PusoySeat.player == player)
        .order_by(PusoySeat.stage.desc())
        .limit(1)
    ).first()
    if seat is not None:
        mates = session.execute(
            select(PusoySeat.seat_no, PusoySeat.player)
            .where(
                PusoySeat.tournament_id == tournament.id,
                PusoySeat.round_no == number,
                PusoySeat.stage == seat.stage,
                PusoySeat.table_no == seat.table_no,
            )
            .order_by(PusoySeat.seat_no)
        ).all()
        out["table"] = {
            "round": number,
            "playoff": seat.stage,
            "table": seat.table_no,
            "seat": seat.seat_no,
            "opponents": [{"seat": n, "player": p} for n, p in mates if p != player],
        }
        finishes = session.execute(
            select(PusoyFinish.game_no, PusoyFinish.player, PusoyFinish.position, PusoyFinish.two_of_diamonds)
            .where(
                PusoyFinish.tournament_id == tournament.id,
                PusoyFinish.round_no == number,
                PusoyFinish.stage == seat.stage,
                PusoyFinish.table_no == seat.table_no,
            )
            .order_by(PusoyFinish.game_no, PusoyFinish.position)
        ).all()
        games: dict[int, dict] = {}
        for game_no, who, position, two in finishes:
            game = games.setdefault(game_no, {"game": game_no, "finishes": []})
            game["finishes"].append(who)
            if who == player:
                game |= {"position": position, "two_of_diamonds": two, "points": scoring.points(position, two)}
        out["games"] = list(games.values())
    if tournament.status == "complete":
        out["state"] = "champion" if tournament.champion == player else "finished"
    elif entry.left_round is not None:
        out["state"] = "out"
    else:
        out["state"] = "playoff" if seat is not None and seat.stage else "playing"
    return out
