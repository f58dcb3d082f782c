"""Scoring and game reports (RULES PD-6).

A report is one table's game: every seated player's finishing position, and the player (if any)
who won with the 2♦ as the last card. Points are derived from stored finishes, never accumulated.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass

from domain.errors import Problem

POINTS = {1: 3, 2: 2, 3: 1, 4: 0}
TWO_OF_DIAMONDS_WIN = 4


@dataclass(frozen=True)
class Finish:
    """One player's result in one game of a round (game numbers count from 1 within the round)."""

    table: int
    game: int
    player: str
    position: int
    two_of_diamonds: bool = False


def points(position: int, two_of_diamonds: bool = False) -> int:
    """PD-6: 3/2/1/0 by position; 4 for a win on the 2♦, no bonus anywhere else."""
    if position == 1 and two_of_diamonds:
        return TWO_OF_DIAMONDS_WIN
    return POINTS[position]


def report_problems(
    seated: Collection[str],
    finishes: Sequence[tuple[str, int]],
    two_of_diamonds: str | None,
    game: int,
    games: int,
) -> list[Problem]:
    """PD-5/PD-6: every problem of one table's game report. `finishes` pairs player and position;
    `games` is how many games the table plays in this stage (games per round, 1 for a playoff)."""
    problems: list[Problem] = []
    if not 1 <= game <= games:
        problems.append(Problem("bad-game-number", f"game {game} is not one of this table's games 1 to {games}"))
    players = [player for player, _ in finishes]
    positions = [position for _, position in finishes]
    for player in sorted(set(players) - set(seated)):
        problems.append(Problem("not-at-table", f"{player} is not seated at this table"))
    for player in sorted({p for p in players if players.count(p) > 1}):
        problems.append(Problem("repeated-player", f"{player} is named more than once"))
    for position in sorted({p for p in positions if positions.count(p) > 1}):
        problems.append(Problem("repeated-position", f"position {position} is given more than once"))
    for position in sorted({p for p in positions if not 1 <= p <= len(seated)}):
        problems.append(Problem("bad-position", f"position {position} does not exist at a table of {len(seated)}"))
    missing = sorted(set(seated) - set(players))
    if missing:
        problems.append(Problem("missing-player", f"no finish given for {', '.join(missing)}"))
    if two_of_diamonds is not None:
        winners = [player for player, position in finishes if position == 1]
        if [two_of_diamonds] != winners:
            problems.append(
                Problem(
                    "two-of-diamonds-not-winner",
                    f"the 2♦ finish counts only for the winner, and {two_of_diamonds} did not win",
                )
            )
    return problems
