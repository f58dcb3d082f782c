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
        if number.isascii() and number.isdigit() and int(number) >= 1:
            return Phase("level", int(number)), []
    return None, [
        Problem(
            "mystery-phase-unknown",
            "mystery phase '%(text)s' is not one of start, itm, level:N with N from 1 (SP-11)",
            text=text,
        )
    ]


def mode_problems(mode: str) -> list[Problem]:
    if mode in DRAW_MODES:
        return []
    return [
        Problem(
            "mystery-draw-per-unknown",
            "mystery draw per '%(mode)s' is not one of %(value)s (SP-11)",
            mode=mode,
            value=", ".join(DRAW_MODES),
        )
    ]


def prize_table_problems(lines: Sequence[str]) -> list[Problem]:
    """SP-11 + SP-4: at most 200 prizes, none blank, none longer than 500 characters, none naming money."""
    problems: list[Problem] = []
    if len(lines) > MAX_PRIZES:
        problems.append(
            Problem(
                "mystery-prizes-too-many",
                "%(count_lines)s mystery prizes: at most %(max_prizes)s",
                count_lines=len(lines),
                max_prizes=MAX_PRIZES,
            )
        )
    for n, line in enumerate(lines, 1):
        problems += mystery_prize_problem(n, line)
    return problems


def mystery_prize_problem(n: int, line: str) -> list[Problem]:
    """The problems of mystery prize `n` alone (SP-11, SP-4): blank, too long, naming money."""
    if not line.strip():
        return [Problem("mystery-prize-blank", "mystery prize %(n)s is blank", n=n)]
    problems: list[Problem] = []
    if len(line) > MAX_DESCRIPTION_CHARS:
        problems.append(
            Problem(
                "mystery-prize-too-long",
                "mystery prize %(n)s has %(count_line)s characters: at most %(max_description_chars)s",
                n=n,
                count_line=len(line),
                max_description_chars=MAX_DESCRIPTION_CHARS,
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
                "the mystery phase starts in the money: %(remaining_after)s players remained after this knockout, %(paid_places)s places are paid (SP-11)",
                remaining_after=remaining_after,
                paid_places=paid_places,
            )
        ]
    if knockout_level is None:
        return [
            Problem(
                "mystery-level-unknown",
                "the mystery phase starts at level %(phase_level)s: record the knockout's level to draw on it (SP-11)",
                phase_level=phase.level,
            )
        ]
    if knockout_level < (phase.level or 1):
        return [
            Problem(
                "mystery-phase-not-started",
                "the mystery phase starts at level %(phase_level)s; this knockout was at level %(knockout_level)s (SP-11)",
                phase_level=phase.level,
                knockout_level=knockout_level,
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
                "killer entry %(killer_entry_id)s has already drawn its mystery bounty: one draw per killer entry",
                killer_entry_id=killer_entry_id,
            )
        )
    if draws_made >= prize_count:
        problems.append(
            Problem(
                "mystery-no-prizes-left",
                "all %(prize_count)s mystery prizes are drawn (SP-11)",
                prize_count=prize_count,
            )
        )
    if description is not None:
        problems.append(
            Problem(
                "mystery-table-description", "the prize comes from the declared table: no description is given (SP-11)"
            )
        )
    return problems
