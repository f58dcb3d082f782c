"""The mystery prize table (RULES SP-11): declared non-monetary prizes, the phase, the seeded order.

- The club declares a list of prizes (SP-4 applies to every line). Without a list, draws are as
  today (3.3: an optional free-text description).
- The phase starts at `start` (any knockout of the running tournament), `itm` (the first knockout
  after which the players remaining are at most the paid places, SP-3) or `level:N` (a knockout
  recorded at level N or later).
- When the phase starts a seed is committed (PD-12); the prizes are shuffled by it
  (`domain.draw.shuffled`, purpose `mystery-prizes`, over the positions 1..n) and the n-th draw
  from the table takes the n-th prize of that order (a free-text draw made before the table was
  declared takes none). No prizes left: no draw; while a prize is listed, it can be drawn.
- Who draws: `per_killer_entry` (3.3, one draw per killer entry) or `per_knockout` (one draw per
  busted entry, by its first killer named).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from domain.draw import shuffled
from domain.errors import Problem
from domain.poker.rules.wording.check import MAX_DESCRIPTION_CHARS, money_problem

DRAW_MODES = ("per_killer_entry", "per_knockout")
PURPOSE = "mystery-prizes"
MAX_PRIZES = 200


@dataclass(frozen=True)
class Phase:
    kind: str  # start | itm | level
    level: int | None = None

    @property
    def text(self) -> str:
        return f"level:{self.level}" if self.kind == "level" else self.kind


def parse_phase(text: str) -> tuple[Phase | None, list[Problem]]:
    """`start`, `itm` or `level:N` (N from 1)."""
    raw = (text or "").strip().lower()
    if raw in ("start", "itm"):
        return Phase(raw), []
    if raw.startswith("level:"):
        number = raw.removeprefix("level:")
        if number.isdigit() and int(number) >= 1:
            return Phase("level", int(number)), []
    return None, [
        Problem(
            "mystery-phase-unknown", f"mystery phase '{text}' is not one of start, itm, level:N with N from 1 (SP-11)"
        )
    ]


def mode_problems(mode: str) -> list[Problem]:
    if mode in DRAW_MODES:
        return []
    return [
        Problem("mystery-draw-per-unknown", f"mystery draw per '{mode}' is not one of {', '.join(DRAW_MODES)} (SP-11)")
    ]


def prize_table_problems(lines: Sequence[str]) -> list[Problem]:
    """SP-11 + SP-4: at most 200 prizes, none blank, none longer than 500 characters, none naming money."""
    problems: list[Problem] = []
    if len(lines) > MAX_PRIZES:
        problems.append(Problem("mystery-prizes-too-many", f"{len(lines)} mystery prizes: at most {MAX_PRIZES}"))
    for n, line in enumerate(lines, 1):
        if not line.strip():
            problems.append(Problem("mystery-prize-blank", f"mystery prize {n} is blank"))
            continue
        if len(line) > MAX_DESCRIPTION_CHARS:
            problems.append(
                Problem(
                    "mystery-prize-too-long",
                    f"mystery prize {n} has {len(line)} characters: at most {MAX_DESCRIPTION_CHARS}",
                )
            )
        found = money_problem(line, f"mystery prize {n}")
        if found:
            problems.append(found)
    return problems


def phase_reached(phase: Phase, *, remaining_after: int, paid_places: int, knockout_level: int | None) -> list[Problem]:
    """Whether a knockout falls in the mystery phase; the reason when it does not."""
    if phase.kind == "start":
        return []
    if phase.kind == "itm":
        if remaining_after <= paid_places:
            return []
        return [
            Problem(
                "mystery-phase-not-started",
                f"the mystery phase starts in the money: {remaining_after} players remained after this knockout, "
                f"{paid_places} places are paid (SP-11)",
            )
        ]
    if knockout_level is None:
        return [
            Problem(
                "mystery-level-unknown",
                f"the mystery phase starts at level {phase.level}: record the knockout's level to draw on it (SP-11)",
            )
        ]
    if knockout_level < (phase.level or 1):
        return [
            Problem(
                "mystery-phase-not-started",
                f"the mystery phase starts at level {phase.level}; this knockout was at level {knockout_level} (SP-11)",
            )
        ]
    return []


def prize_order(seed: str, prize_count: int) -> list[int]:
    """The positions 1..n in the order the seed shuffles them: draw k takes order[k - 1]."""
    return shuffled(seed, PURPOSE, list(range(1, prize_count + 1)))


def next_prize(seed: str, prize_count: int, draws_made: int) -> int | None:
    """The position of the prize the next draw takes (`draws_made`: draws from the table so far), or
    None when every prize is drawn."""
    if draws_made >= prize_count:
        return None
    return prize_order(seed, prize_count)[draws_made]


def table_draw_problems(
    *,
    mode: str,
    killer_drew_before: bool,
    knockout_drawn: bool,
    draws_made: int,
    prize_count: int,
    description: str | None,
    killer_entry_id: int | None,
) -> list[Problem]:
    """Refusals of a draw from the table beyond the phase: who draws, nothing left, no free text."""
    problems: list[Problem] = []
    if killer_entry_id is None:
        problems.append(Problem("mystery-no-killer", "the knockout has no killer to draw the prize"))
    if knockout_drawn:
        problems.append(Problem("mystery-knockout-drawn", "a mystery prize was already drawn on this knockout"))
    elif mode == "per_killer_entry" and killer_drew_before:
        problems.append(
            Problem(
                "mystery-already-drawn",
                f"killer entry {killer_entry_id} has already drawn its mystery bounty: one draw per killer entry",
            )
        )
    if draws_made >= prize_count:
        problems.append(Problem("mystery-no-prizes-left", f"all {prize_count} mystery prizes are drawn (SP-11)"))
    if description is not None:
        problems.append(
            Problem(
                "mystery-table-description", "the prize comes from the declared table: no description is given (SP-11)"
            )
        )
    return problems
