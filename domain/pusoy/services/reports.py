"""Reporting and amending a table's games (PD-5, PD-6): a report locks its round row (`FOR UPDATE`), so
reports of one round queue and exactly the last one sees the round ready."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from functools import cache
from typing import Any, NamedTuple

from sqlalchemy import bindparam, delete, func, select
from sqlalchemy.orm import Session

from domain.errors import DomainError, NotFound, raise_problems
from domain.pusoy.rules.codes import normalise
from domain.pusoy.rules.scoring import report_problems
from domain.pusoy.rules.status import Status
from domain.pusoy.rules.status import report_problems as status_report_problems
from domain.pusoy.services.rows import find
from domain.pusoy.tables import (
    PusoyFinish,
    PusoyGame,
    PusoyGameAudit,
    PusoyRound,
    PusoySeat,
    PusoyTournament,
)
from domain.webhooks.rules.endpoints import ROUND_READY
from domain.webhooks.services.outbox import emit


@dataclass(frozen=True)
class Reported:
    tournament_id: int
    round_no: int
    stage: int
    table: int
    game: int
    round_ready: bool
    repeated: bool = False  # the same report again: answered with the first, nothing written


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
    """One table's game. The round's (or playoff's) last one emits `round.ready` in this transaction:
    the event consumer completes the round (flows/jobs/events.py); `round_ready` says so.

    Idempotent by the game (round, playoff, table, game): the same report again, even after its round
    has locked, is answered with the first (`repeated`) and changes nothing; another result for a game
    already reported is refused: it is an amendment."""
    given = _as_json(finishes, two_of_diamonds)
    said = _statements()
    tournament = session.execute(said.cup, {"code": normalise(code)}).first()
    if tournament is None:
        raise NotFound("unknown-code", f"no tournament has the join code {normalise(code)}")
    key = (tournament.id, round_no, playoff, table, game)
    if _first(session, key) == given:
        return Reported(*key, False, repeated=True)
    tournament, rnd = _reportable(session, code, round_no, table, game, finishes, two_of_diamonds, playoff, tournament)
    first = _first(session, key)  # again under the round's lock: the same report may have just committed
    if first == given:
        return Reported(*key, False, repeated=True)
    if first is not None:
        order = ", ".join(first["finishes"])
        raise DomainError(
            "already-reported",
            f"game {game} of table {table} is already reported with another result ({order}); amend it instead",
        )
    session.execute(said.game, {**_key(key), "reported_by": by, "reported_at": now})
    _write_finishes(session, key, finishes, two_of_diamonds)
    audit = {**_key(key), "action": "report", "by": by, "after": _as_json(finishes, two_of_diamonds), "at": now}
    session.execute(said.audit, audit)
    done = session.scalar(said.done, {"t": tournament.id, "round": round_no, "stage": playoff})
    ready = done == rnd.expected_games
    if ready:
        what = {"source": "pusoy", "tournament_id": tournament.id, "round": round_no, "playoff": playoff}
        emit(session, ROUND_READY, now, club_id=None, organizer=None, payload=what)
    return Reported(tournament.id, round_no, playoff, table, game, ready)


class _Statements(NamedTuple):
    cup: Any  # the cup of `code`: what a report reads of it (a row, no entity: a report changes it not)
    reported: Any  # whether the game of the key is reported
    finishes: Any  # its finishes
    round: Any  # the round `round` of `t`, locked (`FOR UPDATE`)
    seated: Any  # the players of the table `table` of stage `stage` of that round
    game: Any  # the game's row
    audit: Any  # its audit row
    done: Any  # the games reported in stage `stage` of the round


@cache
def _statements() -> _Statements:
    """A report's statements, built once (a game server reports every game of a cup), the rows Core's:
    the same SQL the ORM sends for them, without its unit of work."""
    t, number, stage = bindparam("t"), bindparam("round"), bindparam("stage")
    game = [getattr(PusoyGame, c) == bindparam(c) for c in GAME_COLUMNS]
    return _Statements(
        select(PusoyTournament.id, PusoyTournament.code, PusoyTournament.status, PusoyTournament.games_per_round).where(
            PusoyTournament.code == bindparam("code")
        ),
        select(PusoyGame.game_no).where(*game),
        select(PusoyFinish.player, PusoyFinish.position, PusoyFinish.two_of_diamonds).where(
            *(getattr(PusoyFinish, c) == bindparam(c) for c in GAME_COLUMNS)
        ),
        select(PusoyRound.status, PusoyRound.stage, PusoyRound.expected_games)
        .where(PusoyRound.tournament_id == t, PusoyRound.number == number)
        .with_for_update(),
        select(PusoySeat.player).where(
            PusoySeat.tournament_id == t,
            PusoySeat.round_no == number,
            PusoySeat.stage == stage,
            PusoySeat.table_no == bindparam("table"),
        ),
        PusoyGame.__table__.insert(),
        PusoyGameAudit.__table__.insert(),
        select(func.count()).where(
            PusoyGame.tournament_id == t, PusoyGame.round_no == number, PusoyGame.stage == stage
        ),
    )


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


def _first(session: Session, key: tuple) -> dict | None:
    """The result a game was first reported with (as `_as_json`), or None when it is not reported."""
    said, game = _statements(), _key(key)
    if session.execute(said.reported, game).first() is None:
        return None
    stored = session.execute(said.finishes, game).all()
    return _as_json([(p, pos) for p, pos, _ in stored], next((p for p, _, d in stored if d), None))


def _reportable(session, code, round_no, table, game, finishes, two_of_diamonds, playoff, tournament=None):
    """The cup (`tournament`: as the report read it already, else its entity) and its round `round_no`,
    locked, if the game may be reported there."""
    tournament = tournament or find(session, code)
    raise_problems(status_report_problems(Status(tournament.status)))
    said, of = _statements(), {"t": tournament.id, "round": round_no}
    rnd = session.execute(said.round, of).first()
    if rnd is None:
        raise DomainError("unknown-round", f"{tournament.code} has no round {round_no} yet")
    if rnd.status == "locked" or playoff < rnd.stage:
        what = f"round {round_no}" if playoff == 0 else f"playoff {playoff} of round {round_no}"
        raise DomainError("round-locked", f"{what} is locked: its results can no longer change")
    if playoff > rnd.stage:
        raise DomainError("unknown-playoff", f"round {round_no} has no playoff {playoff}")
    seated = list(session.scalars(said.seated, of | {"stage": playoff, "table": table}))
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
        [{**_key(key), "player": p, "position": pos, "two_of_diamonds": p == two_of_diamonds} for p, pos in finishes],
    )


def _as_json(finishes, two_of_diamonds) -> dict:
    return {"finishes": {p: pos for p, pos in sorted(finishes, key=lambda f: f[1])}, "two_of_diamonds": two_of_diamonds}
