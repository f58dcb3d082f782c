"""League points and standings (RULES LG-2, LG-3): exact decimals, rounded half-up where LG-2 says.

- `table`: the points of a place from the season's table (places not listed score 0);
  `sqrt`: 10 × √(n / p), n the tournament's distinct players, p the place.
- Each place's points are rounded half-up to 2 places first. A block of players sharing a place
  scores the points of its best place (`best`) or the average of the points of the places it
  covers, rounded half-up to 2 places (`average`).
- The knockout bonus is b × the player's knockout credit in that tournament, computed exactly
  (credit is a Fraction: 1/3 stays 1/3), rounded half-up to 2 places and added.
- Standings: the sum of a player's best K results (K unset: all), ranked by total, then more first
  places, then the best single result; players still level share a rank (1, 1, 3).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from decimal import ROUND_HALF_UP, Decimal, localcontext
from fractions import Fraction

from domain.errors import Problem

FORMULAS = ("table", "sqrt")
SHARED_MODES = ("best", "average")
CENT = Decimal("0.01")


def half_up(value: Decimal | Fraction) -> Decimal:
    """Rounded half-up to 2 places, exactly (a Fraction is rounded without passing through a float)."""
    if isinstance(value, Fraction):
        hundredths = value * 100
        sign = -1 if hundredths < 0 else 1
        whole, rest = divmod(abs(hundredths.numerator), hundredths.denominator)
        if 2 * rest >= hundredths.denominator:
            whole += 1
        return (Decimal(sign * whole) / 100).quantize(CENT)
    return value.quantize(CENT, rounding=ROUND_HALF_UP)


def sqrt_points(players: int, place: int) -> Decimal:
    """10 × √(n / p) rounded half-up to 2 places. Computed at 50 digits: far beyond any tie at the
    half cent (√ of a rational that is not a square is irrational, so it never lands on one)."""
    with localcontext() as ctx:
        ctx.prec = 50
        value = Decimal(10) * (Decimal(players) / Decimal(place)).sqrt()
    return half_up(value)


def place_points(formula: str, table: Sequence[Decimal], players: int, place: int) -> Decimal:
    if formula == "table":
        return half_up(Decimal(table[place - 1])) if place <= len(table) else Decimal("0.00")
    return sqrt_points(players, place)


def block_points(formula: str, table: Sequence[Decimal], players: int, place: int, size: int, shared: str) -> Decimal:
    """LG-2: the points of each of `size` players sharing `place`."""
    if size <= 1 or shared == "best":
        return place_points(formula, table, players, place)
    covered = [place_points(formula, table, players, p) for p in range(place, place + size)]
    return half_up(sum(covered, Decimal(0)) / Decimal(size))


def bonus_points(bonus: Decimal | None, credit: Fraction) -> Decimal:
    if bonus is None or credit == 0:
        return Decimal("0.00")
    return half_up(Fraction(bonus) * credit)


@dataclass(frozen=True)
class Placing:
    """A player's place in one finished tournament."""

    tournament_id: int
    player_id: int
    place: int
    credit: Fraction = Fraction(0)


@dataclass(frozen=True)
class Result:
    tournament_id: int
    player_id: int
    place: int
    points: Decimal


def results(
    placings: Iterable[Placing], *, formula: str, table: Sequence[Decimal], shared: str, bonus: Decimal | None
) -> list[Result]:
    """Every player's points in every tournament (LG-2). n is the tournament's distinct players."""
    by_tournament: dict[int, list[Placing]] = {}
    for p in placings:
        by_tournament.setdefault(p.tournament_id, []).append(p)
    out: list[Result] = []
    for tid, rows in by_tournament.items():
        players = len({r.player_id for r in rows})
        block = {}
        for r in rows:
            block[r.place] = block.get(r.place, 0) + 1
        for r in rows:
            points = block_points(formula, table, players, r.place, block[r.place], shared)
            out.append(Result(tid, r.player_id, r.place, points + bonus_points(bonus, r.credit)))
    return out


@dataclass(frozen=True)
class Standing:
    rank: int
    player_id: int
    total: Decimal
    counted: int  # results counted (best K)
    played: int
    firsts: int
    best: Decimal


def standings(season_results: Iterable[Result], best_k: int | None = None) -> list[Standing]:
    """LG-3: ranked by total of the best K, then first places, then the best single result; ties
    share a rank; the order among tied players is by player id (stable, not a ranking)."""
    by_player: dict[int, list[Result]] = {}
    for r in season_results:
        by_player.setdefault(r.player_id, []).append(r)
    rows = []
    for player, rs in by_player.items():
        points = sorted((r.points for r in rs), reverse=True)
        kept = points if best_k is None else points[:best_k]
        rows.append(
            (sum(kept, Decimal("0.00")), sum(1 for r in rs if r.place == 1), points[0], player, len(kept), len(rs))
        )
    rows.sort(key=lambda x: (-x[0], -x[1], -x[2], x[3]))
    out: list[Standing] = []
    for i, (total, firsts, best, player, counted, played) in enumerate(rows):
        key = (total, firsts, best)
        rank = out[-1].rank if out and (out[-1].total, out[-1].firsts, out[-1].best) == key else i + 1
        out.append(Standing(rank, player, total, counted, played, firsts, best))
    return out


def season_problems(
    *,
    name: str,
    date_from,
    date_to,
    formula: str,
    table: Sequence[Decimal],
    shared: str,
    bonus: Decimal | None,
    best_k: int | None,
) -> list[Problem]:
    """Every problem with a season's definition (LG-1, LG-2, LG-3)."""
    out: list[Problem] = []
    if not name or not name.strip():
        out.append(Problem("season-name-blank", "the season needs a name"))
    if date_from >= date_to:
        out.append(Problem("season-range-empty", f"the season's range [{date_from}, {date_to}) is empty (LG-1)"))
    if formula not in FORMULAS:
        out.append(Problem("season-formula-unknown", f"points formula '{formula}' is not one of table, sqrt (LG-2)"))
    if formula == "table" and not table:
        out.append(Problem("season-table-empty", "the table formula needs points for at least place 1 (LG-2)"))
    for n, value in enumerate(table, 1):
        if not value.is_finite() or value < 0:
            out.append(Problem("season-table-bad", f"points of place {n} ({value}) must be a number from 0 (LG-2)"))
    if shared not in SHARED_MODES:
        out.append(Problem("season-shared-unknown", f"shared places '{shared}' is not one of best, average (LG-2)"))
    if bonus is not None and (not bonus.is_finite() or bonus < 0):
        out.append(Problem("season-bonus-bad", f"the knockout bonus {bonus} must be a number from 0 (LG-2)"))
    if best_k is not None and best_k < 1:
        out.append(Problem("season-best-k-bad", f"best K {best_k} must be at least 1 (LG-3)"))
    return out
