"""Loading a Pusoy Dos tournament by its join code, and its status changes (PD-3, PD-11)."""

from __future__ import annotations

from sqlalchemy import select
from sqlalchemy.orm import Session

from domain.errors import NotFound, raise_problems
from domain.pusoy.rules.codes import normalise
from domain.pusoy.rules.status import Status, transition_problems
from domain.pusoy.tables import (
    PusoyTournament,
)


def find(session: Session, code: str, lock: bool = False) -> PusoyTournament:
    stmt = select(PusoyTournament).where(PusoyTournament.code == normalise(code))
    if lock:
        stmt = stmt.with_for_update()
    tournament = session.scalars(stmt.execution_options(populate_existing=True)).one_or_none()
    if tournament is None:
        raise NotFound("unknown-code", f"no tournament has the join code {normalise(code)}")
    return tournament


def change_status(tournament: PusoyTournament, target: Status) -> None:
    raise_problems(transition_problems(Status(tournament.status), target))
    tournament.status = target.value
