"""Rounds: seating a round, completing it when every game is in (PD-5, PD-8..PD-10, PD-13), playoffs (PD-9).

A completion takes the round `FOR UPDATE SKIP LOCKED`, so two completions never advance one round
twice and a report never lands in a round being locked. A completion wakes the cup's followers in
every web process when it commits (`domain.store.live.changed`, `pusoy:CODE`)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import func, select, update
from sqlalchemy.orm import Session

from domain.pusoy.rules.advancement import (
    Advance,
    Playoff,
    advance,
    leaving_positions,
    playoff_tables,
    reseat_order,
    seats,
)
from domain.pusoy.rules.bracket import (
    tables,
)
from domain.pusoy.rules.scoring import Finish, points
from domain.pusoy.rules.standings import Standing, standings
from domain.pusoy.rules.status import Status
from domain.pusoy.services.draws import reveal
from domain.pusoy.services.rows import change_status
from domain.pusoy.tables import (
    PusoyEntry,
    PusoyFinish,
    PusoyGame,
    PusoyRound,
    PusoySeat,
    PusoyStanding,
    PusoyTournament,
)
from domain.store import live
from domain.webhooks.rules.endpoints import CHAMPION, ROUND_COMPLETED, TOURNAMENT_FINISHED
from domain.webhooks.services.outbox import NewEvent, emit_many


def open_round(session: Session, tournament: PusoyTournament, number: int, order: Sequence[str], now: datetime) -> None:
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
            {
                "tournament_id": tournament.id,
                "round_no": number,
                "stage": 0,
                "player": s.player,
                "table_no": s.table,
                "seat_no": s.seat,
            }
            for s in seats(order)
        ],
    )
    tournament.current_round = number


# a round's stored finishes, as the standings and the players' views read them
FINISHES = select(
    PusoyFinish.stage,
    PusoyFinish.table_no,
    PusoyFinish.game_no,
    PusoyFinish.player,
    PusoyFinish.position,
    PusoyFinish.two_of_diamonds,
)


def live_standings(
    session: Session, tournament: PusoyTournament, rnd: PusoyRound, read: tuple[Sequence, Sequence[str]] | None = None
) -> tuple[Standing, ...]:
    """PD-6..PD-9: the round's standings from its stored finishes (3 statements; 1 when `read` gives the
    round's finishes, every stage, as `FINISHES` reads them, and its players, the seats of stage 0,
    already read: the standings do not depend on their order)."""
    if read is None:
        where = (PusoyFinish.tournament_id == tournament.id, PusoyFinish.round_no == rnd.number)
        rows = session.execute(FINISHES.where(*where)).all()
        players = list(
            session.scalars(
                select(PusoySeat.player).where(
                    PusoySeat.tournament_id == tournament.id, PusoySeat.round_no == rnd.number, PusoySeat.stage == 0
                )
            )
        )
    else:
        rows, players = read
    earlier = None
    if rnd.number > 1:
        earlier = dict.fromkeys(players, 0)
        for player, position, diamond, count in session.execute(
            select(PusoyFinish.player, PusoyFinish.position, PusoyFinish.two_of_diamonds, func.count())
            .where(
                PusoyFinish.tournament_id == tournament.id,
                PusoyFinish.round_no < rnd.number,
                PusoyFinish.stage == 0,
                PusoyFinish.player.in_(players),
            )
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


def complete_round(session: Session, tournament_id: int, round_no: int, now: datetime) -> Completion | None:
    """PD-5, PD-8..PD-10, PD-13: lock the round, advance the top N or open a playoff, reseat the
    next round or crown the champion. None when the round is not ready or another run holds it.
    A constant number of statements whatever the games or players."""
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
    live.changed(session, f"pusoy:{tournament.code}")
    ranked = live_standings(session, tournament, rnd)
    outcome = advance(ranked, rnd.advancing)
    if isinstance(outcome, Playoff):
        return _open_playoff(session, tournament, rnd, ranked, outcome, now)
    return _lock(session, tournament, rnd, ranked, outcome, now)


def _open_playoff(session, tournament, rnd, ranked, playoff: Playoff, now) -> Completion:
    """PD-9: the tied players drawn into ceil(k/4) tables for one game."""
    stage = rnd.stage + 1
    purpose = f"round-{rnd.number} playoff-{stage} tables"
    seed = reveal(session, tournament.id, purpose, playoff.players, now)
    drawn = playoff_tables(playoff.players, seed, purpose)
    session.execute(
        PusoySeat.__table__.insert(),
        [
            {
                "tournament_id": tournament.id,
                "round_no": rnd.number,
                "stage": stage,
                "player": p,
                "table_no": t,
                "seat_no": s,
            }
            for t, table in enumerate(drawn, start=1)
            for s, p in enumerate(table, start=1)
        ],
    )
    rnd.stage, rnd.status, rnd.expected_games = stage, "playoff", len(drawn)
    session.flush()
    return Completion(tournament.id, tournament.code, rnd.number, "playoff", ranked, (), drawn)


def _lock(session, tournament, rnd, ranked, result: Advance, now) -> Completion:
    final = rnd.number == len(tournament.bracket)
    went_on = () if final else tuple(s.player for s in result.advancers)
    session.execute(
        PusoyStanding.__table__.insert(),
        [
            {
                "tournament_id": tournament.id,
                "round_no": rnd.number,
                "player": s.player,
                "listed": i,
                "points": s.points,
                "rank": s.rank,
                "decided_by": s.decided_by,
                "advanced": s.player in went_on,
            }
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
        change_status(tournament, Status.COMPLETE)
        tournament.champion, tournament.finished_at = champion, now
        session.flush()
        emit_many(session, now, _events(tournament, rnd.number, ranked, went_on, champion, now))
        return Completion(tournament.id, tournament.code, rnd.number, "champion", ranked, (), champion=champion)
    purpose = f"round-{rnd.number + 1} reseat order"
    seed = reveal(session, tournament.id, purpose, went_on, now)
    order = reseat_order(result.advancers, seed, purpose)
    open_round(session, tournament, rnd.number + 1, order, now)
    emit_many(session, now, _events(tournament, rnd.number, ranked, went_on, None, now))
    return Completion(tournament.id, tournament.code, rnd.number, "advanced", ranked, order)


def _events(tournament, round_no: int, ranked, went_on, champion: str | None, now: datetime) -> list[NewEvent]:
    """Players online: webhooks. The round's standings locked (and, at the final, the champion and the
    cup finished), for the club's and the organizer's endpoints: public data only (handles, AC-5); a
    private cup's join code is its key, so it is left out."""
    cup = {
        "source": "pusoy",
        "tournament_id": tournament.id,
        "tournament": tournament.name,
        "code": None if tournament.private else tournament.code,
    }
    standings_ = [
        {"rank": s.rank, "player": s.player, "points": s.points, "advanced": s.player in went_on} for s in ranked
    ]
    events = [
        NewEvent(
            ROUND_COMPLETED,
            tournament.club_id,
            tournament.organizer,
            cup
            | {
                "round": round_no,
                "final": champion is not None,
                "standings": standings_,
            },
        )
    ]
    if champion is not None:
        final = [{"position": s.rank, "player": s.player, "points": s.points} for s in ranked]
        finished = cup | {"finished_at": now.isoformat(), "champion": champion}
        events.append(NewEvent(CHAMPION, tournament.club_id, tournament.organizer, finished))
        events.append(
            NewEvent(
                TOURNAMENT_FINISHED,
                tournament.club_id,
                tournament.organizer,
                finished
                | {
                    "final_table": final,
                },
            )
        )
    return events
