"""Final places from the elimination graph (Sport Poker 3.7, RULES SP-7).

- voided entries are excluded (and so are knockouts of them and by them);
- refused while more than one player is still in: the one left is the champion, place 1;
- a player gets one place, by the last entry; earlier entries get none;
- the later the bust, the better the place; a block of k simultaneous busts (one bust number) while
  R players remain all get R − k + 1, which is 2 + the number of players busted later;
- knockout credit is summed over all of a player's entries (exact: 2.5 stays 5/2);
- the prize of line n goes to every player on place n (a shared place shares its line; the lines of
  the places a block skips are not awarded).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from fractions import Fraction

from domain.errors import Problem, raise_problems
from domain.poker.knockouts import credits_by_player


@dataclass(frozen=True)
class PlacedEntry:
    """An entry of the tournament. `order` sorts a player's entries (the last is the highest)."""

    entry_id: int
    player_id: int
    order: int
    voided: bool = False


@dataclass(frozen=True)
class LiveKnockout:
    """A knockout that is not voided."""

    busted_entry_id: int
    bust_number: int
    killer_entry_id: int | None = None
    credit_halves: int = 2


@dataclass(frozen=True)
class Place:
    place: int
    player_id: int
    entry_id: int  # the player's last entry
    bust_number: int | None  # None for the champion
    knockouts: int  # live records with this player's entries as the primary killer
    credit: Fraction
    prize: str | None


# the order of the result, as an ordered list of keys
PLACE_ORDER = ("place", "player_id")


def final_places(
    entries: Iterable[PlacedEntry], knockouts: Iterable[LiveKnockout], prizes: Sequence[str] = ()
) -> tuple[Place, ...]:
    """Every player's final place (3.7, SP-7), or a DomainError while more than one player is in."""
    player_of: dict[int, int] = {}
    last: dict[int, PlacedEntry] = {}
    for entry in entries:
        if entry.voided:
            continue
        player_of[entry.entry_id] = entry.player_id
        held = last.get(entry.player_id)
        if held is None or entry.order > held.order:
            last[entry.player_id] = entry

    bust_of: dict[int, int] = {}
    counted: list[tuple[int | None, int]] = []
    knocks: dict[int, int] = {}
    for ko in knockouts:
        if ko.busted_entry_id not in player_of:
            continue
        bust_of[ko.busted_entry_id] = ko.bust_number
        counted.append((ko.killer_entry_id, ko.credit_halves))
        if ko.killer_entry_id in player_of:
            killer = player_of[ko.killer_entry_id]
            knocks[killer] = knocks.get(killer, 0) + 1

    still_in = [p for p, e in last.items() if e.entry_id not in bust_of]
    if len(still_in) != 1:
        raise_problems([_not_finished(len(still_in))])
    credits = credits_by_player(counted, player_of)

    # place = 2 + players busted later; sorting by bust number descending gives it in one pass
    busted = sorted(
        ((bust_of[e.entry_id], p) for p, e in last.items() if e.entry_id in bust_of), key=lambda t: -t[0]
    )
    place_of: dict[int, int] = {still_in[0]: 1}
    later = 0
    i = 0
    while i < len(busted):
        number = busted[i][0]
        j = i
        while j < len(busted) and busted[j][0] == number:
            place_of[busted[j][1]] = 2 + later
            j += 1
        later += j - i
        i = j

    rows = [
        Place(
            place=place,
            player_id=player,
            entry_id=last[player].entry_id,
            bust_number=bust_of.get(last[player].entry_id),
            knockouts=knocks.get(player, 0),
            credit=credits.get(player, Fraction(0)),
            prize=prizes[place - 1] if place <= len(prizes) else None,
        )
        for player, place in place_of.items()
    ]
    rows.sort(key=lambda r: tuple(getattr(r, key) for key in PLACE_ORDER))
    return tuple(rows)


def _not_finished(players_in: int) -> Problem:
    if players_in == 0:
        return Problem("places-nobody-in", "nobody is left in: a champion is needed before places")
    return Problem(
        "places-players-remain",
        f"{players_in} players are still in: places are computed when one is left "
        "(mark every bust first)",
    )
