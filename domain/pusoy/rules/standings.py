"""Round standings (RULES PD-6, PD-7, PD-8, PD-9): points, the eight-step cascade, shared ranks,
and playoff results ordering players the cascade left level.

The cascade is an ordered list of keys (`CASCADE`). Each step splits the group still level at that
point; those left level go on to the next step (head-to-head counts only games against that same
group). The step that separated two neighbours is kept on the lower one (`decided_by`).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from domain.pusoy.rules.scoring import Finish, points


@dataclass(frozen=True)
class Stats:
    """One player's round, as the cascade reads it (playoff games excluded)."""

    player: str
    points: int
    firsts: int
    firsts_on_two_of_diamonds: int
    seconds: int
    thirds: int
    first_win_game: int | None
    last_game_position: int
    earlier_points: int


@dataclass(frozen=True)
class Standing:
    player: str
    points: int
    rank: int
    decided_by: str | None
    """The key that ranks this player below the one listed just above (None: listed first, or
    level with that player after every step, sharing the rank)."""


class _Round:
    def __init__(self, finishes: Sequence[Finish]):
        self.table_of = {f.player: f.table for f in finishes}
        self.games: dict[tuple[int, int], dict[str, int]] = defaultdict(dict)
        for f in finishes:
            self.games[(f.table, f.game)][f.player] = f.position

    def head_to_head(self, player: str, group: frozenset[str]) -> int:
        """Finishes ahead of other players of `group`, over the games shared at a table."""
        table = self.table_of.get(player)
        ahead = 0
        for (at, _), positions in self.games.items():
            if at != table:
                continue
            mine = positions[player]
            ahead += sum(1 for other, pos in positions.items() if other in group and pos > mine)
        return ahead


Key = Callable[[Stats, frozenset[str], _Round], object]

# PD-7, in order; a greater value ranks higher.
CASCADE: tuple[tuple[str, Key], ...] = (
    ("first-places", lambda s, g, r: s.firsts),
    ("first-places-on-2d", lambda s, g, r: s.firsts_on_two_of_diamonds),
    ("second-places", lambda s, g, r: s.seconds),
    ("third-places", lambda s, g, r: s.thirds),
    ("head-to-head", lambda s, g, r: r.head_to_head(s.player, g)),
    (
        "earliest-first-place",
        lambda s, g, r: (0, 0) if s.first_win_game is None else (1, -s.first_win_game),
    ),
    ("last-game-position", lambda s, g, r: -s.last_game_position),
    ("earlier-rounds-points", lambda s, g, r: s.earlier_points),
)


def round_stats(
    players: Sequence[str],
    finishes: Sequence[Finish],
    last_game: int,
    earlier_points: Mapping[str, int] | None = None,
) -> dict[str, Stats]:
    """Each player's round from the stored finishes (PD-6: points derived, never stored)."""
    mine: dict[str, list[Finish]] = {p: [] for p in players}
    for f in finishes:
        mine[f.player].append(f)
    out = {}
    for player, own in mine.items():
        wins = sorted(f.game for f in own if f.position == 1)
        last = [f.position for f in own if f.game == last_game]
        out[player] = Stats(
            player=player,
            points=sum(points(f.position, f.two_of_diamonds) for f in own),
            firsts=len(wins),
            firsts_on_two_of_diamonds=sum(1 for f in own if f.position == 1 and f.two_of_diamonds),
            seconds=sum(1 for f in own if f.position == 2),
            thirds=sum(1 for f in own if f.position == 3),
            first_win_game=wins[0] if wins else None,
            last_game_position=last[0] if last else 5,
            earlier_points=(earlier_points or {}).get(player, 0),
        )
    return out


def _playoff_key(number: int, positions: Mapping[str, int]) -> tuple[str, Key]:
    """PD-9: a playoff's finishing order orders the players it was played among."""
    return (f"playoff-{number}", lambda s, g, r: -positions.get(s.player, 0))


def standings(
    players: Sequence[str],
    finishes: Sequence[Finish],
    last_game: int,
    earlier_points: Mapping[str, int] | None = None,
    playoffs: Sequence[Mapping[str, int]] = (),
) -> tuple[Standing, ...]:
    """PD-8: every player of the round ranked by points, then the cascade, then the round's
    playoffs in the order they were played; players level after all of that share a rank."""
    stats = round_stats(players, finishes, last_game, earlier_points)
    context = _Round(finishes)
    keys: list[tuple[str, Key]] = [("points", lambda s, g, r: s.points), *CASCADE]
    keys += [_playoff_key(n, positions) for n, positions in enumerate(playoffs, start=1)]

    def split(group: list[str], step: int) -> list[tuple[str | None, list[str]]]:
        if len(group) == 1 or step == len(keys):
            return [(None, sorted(group))]
        name, key = keys[step]
        members = frozenset(group)
        value = {p: key(stats[p], members, context) for p in group}
        parts: list[tuple[str | None, list[str]]] = []
        for n, level in enumerate(sorted(set(value.values()), reverse=True)):
            below = split([p for p in group if value[p] == level], step + 1)
            if n:
                below[0] = (name, below[0][1])
            parts += below
        return parts

    out: list[Standing] = []
    for decided_by, level in split(sorted(stats), 0):
        rank = len(out) + 1
        for i, player in enumerate(level):
            out.append(Standing(player, stats[player].points, rank, decided_by if i == 0 else None))
    return tuple(out)
