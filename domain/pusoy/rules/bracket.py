"""Sizes, brackets and games per round (RULES PD-1, PD-2, PD-5).

A bracket is stored as the field of every round, first to last: (32, 16, 8, 4). The organizer of a
custom bracket gives the number of players advancing from each round, e.g. (12, 4) for 32 players,
which is the same bracket without its first field.
"""

from __future__ import annotations

from collections.abc import Sequence

from domain.errors import Problem

CAPACITIES = (8, 16, 32)
TABLE_SIZE = 4
MIN_GAMES, MAX_GAMES = 1, 10


def capacity_problems(capacity: int) -> list[Problem]:
    """PD-1"""
    if capacity in CAPACITIES:
        return []
    return [Problem("bad-capacity", f"capacity must be 8, 16 or 32 players, not {capacity}")]


def games_problems(games_per_round: int) -> list[Problem]:
    """PD-5"""
    if MIN_GAMES <= games_per_round <= MAX_GAMES:
        return []
    return [
        Problem(
            "bad-games-per-round",
            f"games per round must be {MIN_GAMES} to {MAX_GAMES}, not {games_per_round}",
        )
    ]


def default_bracket(capacity: int) -> tuple[int, ...]:
    """PD-1: the field halves each round until 4 remain."""
    fields = [capacity]
    while fields[-1] > TABLE_SIZE:
        fields.append(fields[-1] // 2)
    return tuple(fields)


def bracket_problems(capacity: int, advancing: Sequence[int]) -> list[Problem]:
    """PD-2: every round's field whole tables, strictly shrinking, ending at exactly 4."""
    fields = [capacity, *advancing]
    problems: list[Problem] = []
    if not advancing:
        problems.append(Problem("bad-bracket", "a custom bracket names at least one round's advancers"))
    for number, (before, field) in enumerate(zip(fields, fields[1:]), start=1):
        if field <= 0 or field % TABLE_SIZE:
            problems.append(
                Problem(
                    "bad-bracket",
                    f"round {number + 1} would have {field} players, not whole tables of 4",
                )
            )
        elif field >= before:
            problems.append(
                Problem(
                    "bad-bracket",
                    f"round {number} advances {field} of {before} players; a round must shrink the field",
                )
            )
    if advancing and fields[-1] != TABLE_SIZE:
        problems.append(
            Problem(
                "bad-bracket",
                f"the last round (round {len(fields)}) has {fields[-1]} players; the final table has 4",
            )
        )
    return problems


def bracket(capacity: int, advancing: Sequence[int] | None = None) -> tuple[int, ...]:
    """The stored bracket (fields of every round); call after the problems are checked."""
    if advancing is None:
        return default_bracket(capacity)
    return (capacity, *advancing)


def tables(field: int) -> int:
    return field // TABLE_SIZE
