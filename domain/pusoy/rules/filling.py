"""PD-4 filling: first come, first seated; the join that takes the last seat starts the tournament;
one seat a player; withdrawal only while filling (PD-11 statuses)."""

from __future__ import annotations

from domain.errors import Problem
from domain.pusoy.rules.status import Status


def filling_problems(status: Status, code: str, doing: str) -> list[Problem]:
    """Why a tournament in `status` takes no join or withdrawal (`doing`: 'join', 'withdraw from')."""
    if status is Status.CANCELLED:
        return [Problem("tournament-cancelled", f"tournament {code} was cancelled; you cannot {doing} it")]
    if status is Status.ACTIVE:
        if doing == "join":
            return [Problem("tournament-full", "tournament is full")]
        return [Problem("withdraw-after-start", f"{code} has started: entries are locked, no withdrawals")]
    if status is Status.COMPLETE:
        if doing == "join":
            return [Problem("tournament-complete", f"tournament {code} is over")]
        return [Problem("withdraw-after-start", f"{code} has started: entries are locked, no withdrawals")]
    return []


def join_problems(status: Status, code: str, player: str, holds_seat: bool) -> list[Problem]:
    problems = filling_problems(status, code, "join")
    if not problems and holds_seat:
        problems.append(Problem("already-joined", f"{player} already holds a seat in {code}"))
    return problems


def withdraw_problems(status: Status, code: str, player: str, holds_seat: bool) -> list[Problem]:
    problems = filling_problems(status, code, "withdraw from")
    if not problems and not holds_seat:
        problems.append(Problem("not-entered", f"{player} holds no seat in {code}"))
    return problems


def starts(entrants: int, capacity: int) -> bool:
    """The join that brings the entrants to capacity starts the tournament (no manual force-start)."""
    return entrants == capacity
