"""Advancement, playoffs, reseating and final standings (RULES PD-8, PD-9, PD-10, PD-12, PD-13)."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from domain import draw
from domain.pusoy.rules.bracket import TABLE_SIZE
from domain.pusoy.rules.standings import Standing


@dataclass(frozen=True)
class Advance:
    """The top N advance (in standings order); the rest are eliminated."""

    advancers: tuple[Standing, ...]
    eliminated: tuple[Standing, ...]


@dataclass(frozen=True)
class Playoff:
    """A complete tie straddling the cutoff: one game among `players` for `spots` places."""

    players: tuple[str, ...]
    spots: int


@dataclass(frozen=True)
class Seat:
    player: str
    table: int
    seat: int


def advance(ranked: Sequence[Standing], n: int) -> Advance | Playoff:
    """PD-8/PD-9: the top `n` advance unless players sharing a rank straddle the cutoff (some
    would advance, some not); then those players play off for the contested spots. At the final
    `n` is 1: a shared first place is played off, shared 2nd to 4th stay shared."""
    level = [s for s in ranked if s.rank == ranked[n - 1].rank] if 0 < n <= len(ranked) else []
    if level and level[0].rank + len(level) - 1 > n:
        return Playoff(tuple(sorted(s.player for s in level)), n - level[0].rank + 1)
    return Advance(tuple(ranked[:n]), tuple(ranked[n:]))


def playoff_tables(players: Sequence[str], seed: str, purpose: str) -> tuple[tuple[str, ...], ...]:
    """PD-9/PD-12: the tied players drawn by lot into ceil(k/4) tables as even as possible."""
    order = draw.shuffled(seed, purpose, sorted(players))
    count = math.ceil(len(order) / TABLE_SIZE)
    sizes = [len(order) // count + (1 if i < len(order) % count else 0) for i in range(count)]
    out, start = [], 0
    for size in sizes:
        out.append(tuple(order[start : start + size]))
        start += size
    return tuple(out)


def seats(order: Sequence[str]) -> tuple[Seat, ...]:
    """PD-10: with T tables, place r (1-based) sits at table ((r-1) mod T)+1, seat ((r-1) div T)+1."""
    count = len(order) // TABLE_SIZE
    return tuple(Seat(p, i % count + 1, i // count + 1) for i, p in enumerate(order))


def reseat_order(advancers: Sequence[Standing], seed: str, purpose: str) -> tuple[str, ...]:
    """PD-10/PD-12: advancers by rank; players sharing a rank ordered by a seeded draw."""
    lot = {p: i for i, p in enumerate(draw.shuffled(seed, purpose, sorted(s.player for s in advancers)))}
    return tuple(s.player for s in sorted(advancers, key=lambda s: (s.rank, lot[s.player])))


def leaving_positions(left: Sequence[Standing]) -> dict[str, int]:
    """PD-13: a player's final position is the rank in the round they left (eliminated, or the
    final): everyone ranked above them in that round went further or finished above them."""
    return {s.player: s.rank for s in left}


def final_standings(
    rounds: Sequence[Sequence[Standing]], advanced: Sequence[Sequence[str]]
) -> tuple[tuple[str, int], ...]:
    """PD-13: every entrant's final position from each round's locked standings and who advanced
    from it (the final advances nobody)."""
    positions: dict[str, int] = {}
    for ranked, went_on in zip(rounds, advanced):
        positions |= leaving_positions([s for s in ranked if s.player not in set(went_on)])
    return tuple(sorted(positions.items(), key=lambda item: (item[1], item[0])))
