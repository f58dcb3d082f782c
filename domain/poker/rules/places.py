"""Final places from the elimination graph (Sport Poker 3.7, RULES SP-7).

- voided entries are excluded (and so are knockouts of them and by them);
- refused while more than one player is still in: the one left is the champion, place 1;
- a player gets one place, by the last entry; earlier entries get none;
- the later the bust, the better the place; a block of k simultaneous busts (one bust number) while
  R players remain all get R − k + 1, which is 2 + the number of players busted later;
- knockout credit is summed over all of a player's entries (exact: 2.5 stays 5/2); a knockout with
  shares (SP-10) counts one knockout and its exact share for every killer named, one without shares
  counts as today (its primary killer, `credit_halves`);
- with a PKO head (SP-9) every player's PKO total is the points of their entries' knockouts plus,
  for the champion, its own head;
- the prize of line n goes to every player on place n (a shared place shares its line; the lines of
  the places a block skips are not awarded).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from fractions import Fraction

from domain.errors import Problem, raise_problems
from domain.poker.rules.bounties import (
    HALF_UNITS,
    KnockoutShares,
    Share,
    ledger,
    pko_totals_by_player,
    units_as_credit,
)
from domain.poker.rules.knockouts import as_credit


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
    shares: tuple[Share, ...] = ()  # SP-9/SP-10: when present, they replace the primary's credit


@dataclass(frozen=True, slots=True)
class Place:
    place: int
    player_id: int
    entry_id: int  # the player's last entry
    bust_number: int | None  # None for the champion
    knockouts: int  # live records with this player's entries as the primary killer
    credit_halves: int  # knockout credit in halves (exact)
    prize: str | None
    credit_units: int | None = None  # exact credit in 1/2520 (SP-10); None on rows placed before it
    pko_points: int | None = None  # SP-9 total; None without a PKO head

    @property
    def credit(self) -> Fraction:
        if self.credit_units is not None:
            return units_as_credit(self.credit_units)
        return as_credit(self.credit_halves)


def final_places(
    entries: Iterable[PlacedEntry],
    knockouts: Iterable[LiveKnockout],
    prizes: Sequence[str] = (),
    pko_head: int | None = None,
) -> tuple[Place, ...]:
    """Every player's final place (3.7, SP-7), or a DomainError while more than one player is in."""
    player_of, last = _players(entries)
    bust_of, knocks, units, live_shares = _tally(knockouts, player_of)
    still_in = [p for p, e in last.items() if e.entry_id not in bust_of]
    if len(still_in) != 1:
        raise_problems([_not_finished(len(still_in))])
    halves = {p: u // HALF_UNITS for p, u in units.items()}  # exact unless a share is not a half
    pko: dict[int, int] = {}
    if pko_head is not None:
        pko = pko_totals_by_player(ledger(pko_head, player_of, live_shares), player_of, last[still_in[0]].entry_id)

    def extra(player: int) -> dict:
        # today's rows (no shares anywhere) keep credit_units None: credit_halves is exact for them
        exact = units.get(player, 0) if any(k.shares for k in live_shares) else None
        return {"credit_units": exact, "pko_points": pko.get(player, 0) if pko_head is not None else None}

    # better place first, ties by player id: the champion, then by bust number descending, ties by player id;
    # a block's place is 2 + the players busted later
    busted = sorted((-bust_of[e.entry_id], p, e.entry_id) for p, e in last.items() if e.entry_id in bust_of)
    champion = still_in[0]
    rows = [
        Place(
            1,
            champion,
            last[champion].entry_id,
            None,
            knocks.get(champion, 0),
            halves.get(champion, 0),
            prizes[0] if prizes else None,
            **extra(champion),
        )
    ]
    for place, (negative, player, entry_id) in zip(bust_places(1, [-n for n, _, _ in busted]), busted, strict=True):
        rows.append(
            Place(
                place,
                player,
                entry_id,
                -negative,
                knocks.get(player, 0),
                halves.get(player, 0),
                _prize(prizes, place),
                **extra(player),
            )
        )
    return tuple(rows)


def bust_places(still_in: int, bust_numbers: Sequence[int]) -> list[int]:
    """The place each bust gives (3.7, SP-7), the busts given latest first (bust numbers descending):
    the players still in + the players busted later + 1; a block (one bust number) shares the best
    place of the block."""
    places: list[int] = []
    block, block_place = None, 0
    for later, number in enumerate(bust_numbers):
        if number != block:
            block, block_place = number, still_in + later + 1
        places.append(block_place)
    return places


@dataclass(frozen=True, slots=True)
class PlaceSoFar:
    place: int
    player_id: int
    prize: str | None


def places_so_far(
    entries: Iterable[PlacedEntry], knockouts: Iterable[LiveKnockout], prizes: Sequence[str] = ()
) -> tuple[PlaceSoFar, ...]:
    """While the tournament runs: every player out so far, by their last entry, with the place the
    bust gave (`bust_places`) and its prize line; the best place first, ties by player id."""
    player_of, last = _players(entries)
    bust_of = {k.busted_entry_id: k.bust_number for k in knockouts if k.busted_entry_id in player_of}
    still_in = sum(1 for e in last.values() if e.entry_id not in bust_of)
    busted = sorted((-bust_of[e.entry_id], p) for p, e in last.items() if e.entry_id in bust_of)
    return tuple(
        PlaceSoFar(place, player, _prize(prizes, place))
        for place, (_, player) in zip(bust_places(still_in, [-n for n, _ in busted]), busted, strict=True)
    )


def _prize(prizes: Sequence[str], place: int) -> str | None:
    """The prize line of a place, if there is one (the places a block skips get none)."""
    return prizes[place - 1] if place <= len(prizes) else None


def _players(entries: Iterable[PlacedEntry]) -> tuple[dict[int, int], dict[int, PlacedEntry]]:
    """The player of every live entry, and each player's latest entry (re-entries: the last one)."""
    player_of: dict[int, int] = {}
    last: dict[int, PlacedEntry] = {}
    for entry in entries:
        if entry.voided:
            continue
        player_of[entry.entry_id] = entry.player_id
        held = last.get(entry.player_id)
        if held is None or entry.order > held.order:
            last[entry.player_id] = entry
    return player_of, last


def _tally(
    knockouts: Iterable[LiveKnockout], player_of: dict[int, int]
) -> tuple[dict[int, int], dict[int, int], dict[int, int], list[KnockoutShares]]:
    """Each busted entry's bust number; each player's knockouts and credit units; the live shares."""
    bust_of: dict[int, int] = {}
    units: dict[int, int] = {}
    knocks: dict[int, int] = {}
    live_shares: list[KnockoutShares] = []
    for ko in knockouts:
        if ko.busted_entry_id not in player_of:
            continue
        bust_of[ko.busted_entry_id] = ko.bust_number
        credits = (
            [(s.killer_entry_id, s.credit_units) for s in ko.shares]
            if ko.shares
            else [(ko.killer_entry_id, ko.credit_halves * HALF_UNITS)]
            if ko.killer_entry_id is not None
            else []
        )
        for killer_entry, credit in credits:
            killer = player_of.get(killer_entry)
            if killer is not None:
                knocks[killer] = knocks.get(killer, 0) + 1
                units[killer] = units.get(killer, 0) + credit
        live_shares.append(KnockoutShares(0, ko.busted_entry_id, 0, ko.shares))
    return bust_of, knocks, units, live_shares


def _not_finished(players_in: int) -> Problem:
    if players_in == 0:
        return Problem("places-nobody-in", "nobody is left in: a champion is needed before places")
    return Problem(
        "places-players-remain",
        "%(players_in)s players are still in: places are computed when one is left (mark every bust first)",
        players_in=players_in,
    )
