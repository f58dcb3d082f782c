"""Tournament statuses and the only transitions between them (RULES PD-11)."""

from __future__ import annotations

from enum import StrEnum

from domain.errors import Problem


class Status(StrEnum):
    SETUP = "setup"
    ACTIVE = "active"
    COMPLETE = "complete"
    CANCELLED = "cancelled"


TRANSITIONS: dict[Status, frozenset[Status]] = {
    Status.SETUP: frozenset({Status.ACTIVE, Status.CANCELLED}),
    Status.ACTIVE: frozenset({Status.COMPLETE}),
    Status.COMPLETE: frozenset(),
    Status.CANCELLED: frozenset(),
}


def transition_problems(current: Status, target: Status) -> list[Problem]:
    if target in TRANSITIONS[current]:
        return []
    return [Problem("bad-status-change", f"a tournament that is {current} cannot become {target}")]


def report_problems(current: Status) -> list[Problem]:
    """Only an active tournament takes game reports."""
    if current is Status.ACTIVE:
        return []
    return [Problem("tournament-not-active", f"the tournament is {current} and accepts no reports")]
