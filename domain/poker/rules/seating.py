"""Seating, balancing and table breaking (Sport Poker 3.6).

A `Seating` is the tables of a tournament (active and broken) and who sits where. Every function is
pure: it returns the new seating and the moves it made; draws by lot use `domain.draw` with a seed
(RULES PD-12) over entries sorted by id. Nothing here moves a player by itself: balancing is only
suggested (`suggest`), the final table only proposed (`final_table_proposal`); the floor applies them.

Choices where the rules are silent:
- the initial draw deals the shuffled field round the tables: the r-th drawn player (0-based) sits
  at table r mod T + 1, seat r div T + 1;
- breaking a table: its players, in drawn order, each go to the active table that has the fewest
  players at that moment (ties by lot), on a free seat drawn by lot — so the field stays balanced;
- a late entry or re-entry sits at the active table with the fewest players that has a free seat
  (ties by lot, RULES SP-13), on its lowest free seat; with no free seat a new table opens;
- the final table is the lowest-numbered active table, its seats redrawn by lot;
- suggested moves take the player in the highest occupied seat of the fullest table (ties: the
  highest table number) to the lowest free seat of the emptiest (ties: the lowest table number).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from math import ceil

from domain import draw
from domain.errors import DomainError, Problem, raise_problems

SEAT_CAP_RANGE = range(2, 11)


@dataclass(frozen=True, order=True)
class Seat:
    table: int
    seat: int
    entry: int


@dataclass(frozen=True)
class Move:
    entry: int
    from_table: int
    from_seat: int
    to_table: int
    to_seat: int


@dataclass(frozen=True)
class Seating:
    seat_cap: int
    tables: tuple[int, ...]  # active table numbers, ascending
    broken: frozenset[int] = frozenset()
    seats: tuple[Seat, ...] = ()  # sorted by (table, seat)

    def seat_of(self, entry: int) -> Seat | None:
        return next((s for s in self.seats if s.entry == entry), None)

    def players_at(self, table: int) -> list[Seat]:
        return [s for s in self.seats if s.table == table]

    def counts(self) -> dict[int, int]:
        counts = {t: 0 for t in self.tables}
        for s in self.seats:
            counts[s.table] += 1
        return counts

    def free_seats(self, table: int) -> list[int]:
        taken = {s.seat for s in self.seats if s.table == table}
        return [n for n in range(1, self.seat_cap + 1) if n not in taken]

    def with_seats(self, seats: Iterable[Seat]) -> Seating:
        return replace(self, seats=tuple(sorted(seats)))


@dataclass(frozen=True)
class Suggestion:
    kind: str  # "move" or "break-table"
    table: int
    move: Move | None = None


@dataclass(frozen=True)
class FinalTable:
    table: int
    entries: tuple[int, ...]


def seat_cap_problems(seat_cap: int) -> list[Problem]:
    if seat_cap not in SEAT_CAP_RANGE:
        return [Problem("seating-bad-seat-cap", "a table seats 2 to 10 players, not %(seat_cap)s", seat_cap=seat_cap)]
    return []


def initial_seating(entries: Sequence[int], seat_cap: int, seed: str) -> Seating:
    """3.6: tables = ceil(field / seat cap); players drawn by lot and spread as evenly as possible."""
    raise_problems(seat_cap_problems(seat_cap))
    if not entries:
        raise DomainError("seating-no-players", "there is nobody to seat")
    if len(set(entries)) != len(entries):
        raise DomainError("seating-duplicate-entry", "an entry appears twice in the field")
    count = ceil(len(entries) / seat_cap)
    drawn = draw.shuffled(seed, "initial-seating", sorted(entries))
    seats = [Seat(r % count + 1, r // count + 1, entry) for r, entry in enumerate(drawn)]
    return Seating(seat_cap, tuple(range(1, count + 1))).with_seats(seats)


def _active_table(seating: Seating, table: int) -> None:
    if table in seating.broken:
        raise DomainError("seating-table-broken", "table %(table)s has been broken and is not used again", table=table)
    if table not in seating.tables:
        raise DomainError("seating-no-such-table", "there is no table %(table)s", table=table)


def late_seating_tie(seating: Seating) -> tuple[int, ...]:
    """The active tables with a free seat that share the fewest players (ascending): a late entry
    goes to one of them, by lot when there are several (SP-13)."""
    counts = seating.counts()
    open_tables = [t for t in seating.tables if counts[t] < seating.seat_cap]
    if not open_tables:
        return ()
    fewest = min(counts[t] for t in open_tables)
    return tuple(t for t in open_tables if counts[t] == fewest)


def seat_new_entry(seating: Seating, entry: int, seed: str | None = None) -> tuple[Seating, Seat, bool]:
    """3.6: a late entry or re-entry sits at the table with the fewest players, or a new table opens.
    Tables tied on the fewest players are drawn between by lot (SP-13): `seed` is then required.
    Returns the seating, the seat, and whether a table was opened."""
    if seating.seat_of(entry):
        raise DomainError("seating-already-seated", "entry %(entry)s already has a seat", entry=entry)
    tied = late_seating_tie(seating)
    if tied:
        if len(tied) == 1:
            table = tied[0]
        elif seed is None:
            raise DomainError(
                "seating-tie-needs-draw",
                "tables %(value)s tie: the seat is drawn by lot",
                value=", ".join(map(str, tied)),
            )
        else:
            table = draw.rng(seed, "late-seating").choice(tied)
        seat = Seat(table, seating.free_seats(table)[0], entry)
        return seating.with_seats(seating.seats + (seat,)), seat, False
    table = max((*seating.tables, *seating.broken), default=0) + 1
    seat = Seat(table, 1, entry)
    opened = replace(seating, tables=tuple(sorted((*seating.tables, table))))
    return opened.with_seats(seating.seats + (seat,)), seat, True


def move(seating: Seating, entry: int, table: int, seat: int) -> tuple[Seating, Move]:
    """The floor moves one player to a free seat of an active table."""
    current = seating.seat_of(entry)
    if current is None:
        raise DomainError("seating-not-seated", "entry %(entry)s has no seat", entry=entry)
    _active_table(seating, table)
    if seat not in range(1, seating.seat_cap + 1):
        raise DomainError(
            "seating-no-such-seat",
            "table %(table)s has seats 1 to %(seat_cap)s, not %(seat)s",
            table=table,
            seat_cap=seating.seat_cap,
            seat=seat,
        )
    occupant = next((s for s in seating.seats if s.table == table and s.seat == seat), None)
    if occupant is not None:
        raise DomainError(
            "seating-seat-taken",
            "table %(table)s seat %(seat)s is taken by entry %(entry)s",
            table=table,
            seat=seat,
            entry=occupant.entry,
        )
    done = Move(entry, current.table, current.seat, table, seat)
    others = [s for s in seating.seats if s.entry != entry]
    return seating.with_seats([*others, Seat(table, seat, entry)]), done


def undo(seating: Seating, last: Move) -> tuple[Seating, Move]:
    """Undo the last move: the player goes back to the seat they came from, if it is still free."""
    here = seating.seat_of(last.entry)
    if here is None or (here.table, here.seat) != (last.to_table, last.to_seat):
        raise DomainError(
            "seating-undo-stale", "entry %(entry)s is no longer where the last move put them", entry=last.entry
        )
    try:
        return move(seating, last.entry, last.from_table, last.from_seat)
    except DomainError as exc:
        raise DomainError(
            "seating-undo-blocked", "cannot undo the last move: %(message_)s", message_=exc.message
        ) from None


def break_table(seating: Seating, table: int, seed: str) -> tuple[Seating, tuple[Move, ...]]:
    """3.6: the table's players go to free seats of the other active tables by lot; refused when
    those have fewer free seats than it has players; the table is never used again."""
    _active_table(seating, table)
    leaving = seating.players_at(table)
    others = [t for t in seating.tables if t != table]
    if not others:
        raise DomainError(
            "seating-last-table", "table %(table)s is the only table in play; it cannot be broken", table=table
        )
    room = sum(len(seating.free_seats(t)) for t in others)
    if room < len(leaving):
        raise DomainError(
            "seating-no-room",
            "table %(table)s has %(count_leaving)s players but the other tables have only %(room)s free seats",
            table=table,
            count_leaving=len(leaving),
            room=room,
        )
    rng = draw.rng(seed, f"break-table-{table}")
    current = replace(seating, tables=tuple(others), broken=seating.broken | {table})
    current = current.with_seats(s for s in seating.seats if s.table != table)
    moves = []
    for player in draw.shuffled(seed, f"break-table-{table}-players", sorted(s.entry for s in leaving)):
        counts = current.counts()
        open_tables = [t for t in others if counts[t] < seating.seat_cap]
        fewest = min(counts[t] for t in open_tables)
        target = rng.choice([t for t in open_tables if counts[t] == fewest])
        seat = rng.choice(current.free_seats(target))
        origin = seating.seat_of(player)
        assert origin is not None
        moves.append(Move(player, origin.table, origin.seat, target, seat))
        current = current.with_seats((*current.seats, Seat(target, seat, player)))
    return current, tuple(moves)


def bust(seating: Seating, entry: int) -> Seating:
    """3.6: after a bust the seat stays empty."""
    return seating.with_seats(s for s in seating.seats if s.entry != entry)


def suggest(seating: Seating) -> tuple[Suggestion, ...]:
    """Balancing the floor may apply (never applied automatically): break the emptiest table when
    the others can take its players, else moves until table sizes differ by at most one."""
    counts = seating.counts()
    if len(seating.tables) > 1:
        smallest = min(seating.tables, key=lambda t: (counts[t], -t))
        room = sum(seating.seat_cap - counts[t] for t in seating.tables if t != smallest)
        if room >= counts[smallest]:
            return (Suggestion("break-table", smallest),)
    suggestions = []
    current = seating
    while True:
        counts = current.counts()
        fullest = max(current.tables, key=lambda t: (counts[t], t))
        emptiest = min(current.tables, key=lambda t: (counts[t], t))
        if counts[fullest] - counts[emptiest] <= 1:
            return tuple(suggestions)
        player = max(current.players_at(fullest), key=lambda s: s.seat)
        current, done = move(current, player.entry, emptiest, current.free_seats(emptiest)[0])
        suggestions.append(Suggestion("move", fullest, done))


def stage(seating: Seating) -> str:
    """ "final-table-proposed" when the remaining field fits one table but sits at several;
    "heads-up" with two players left at one table; "final-table" once the field sits at one table;
    "over" with one player or none; else "play"."""
    left = len(seating.seats)
    if final_table_proposal(seating) is not None:
        return "final-table-proposed"
    if left <= 1:
        return "over"
    if left == 2:
        return "heads-up"
    if left <= seating.seat_cap:
        return "final-table"
    return "play"


def final_table_proposal(seating: Seating) -> FinalTable | None:
    """3.6: when the remaining field fits one table but sits at several, propose the final table."""
    occupied = sorted({s.table for s in seating.seats})
    if len(seating.seats) > seating.seat_cap or len(occupied) < 2:
        return None
    return FinalTable(seating.tables[0], tuple(sorted(s.entry for s in seating.seats)))


def assemble_final_table(seating: Seating, seed: str) -> tuple[Seating, tuple[Move, ...]]:
    """The floor confirmed the proposal: everyone sits at the final table, seats drawn by lot; the
    other tables are broken."""
    proposal = final_table_proposal(seating)
    if proposal is None:
        raise DomainError(
            "seating-no-final-table",
            "no final table to assemble: %(count_x)s players left at %(count_x2)s table(s), %(seat_cap)s seats a table",
            count_x=len(seating.seats),
            count_x2=len({s.table for s in seating.seats}),
            seat_cap=seating.seat_cap,
        )
    drawn = draw.shuffled(seed, "final-table", list(proposal.entries))
    moves = []
    seats = []
    for n, entry in enumerate(drawn, start=1):
        origin = seating.seat_of(entry)
        assert origin is not None
        moves.append(Move(entry, origin.table, origin.seat, proposal.table, n))
        seats.append(Seat(proposal.table, n, entry))
    others = frozenset(t for t in seating.tables if t != proposal.table)
    final = replace(seating, tables=(proposal.table,), broken=seating.broken | others).with_seats(seats)
    return final, tuple(moves)


def invariant_problems(seating: Seating, active_entries: Iterable[int]) -> list[Problem]:
    """Every active entry has exactly one seat, no seat holds two players, no one sits at a broken
    table or outside the seat cap (what the database's constraints also enforce)."""
    problems = []
    entries = [s.entry for s in seating.seats]
    if len(entries) != len(set(entries)):
        problems.append(Problem("seating-entry-twice", "an entry holds two seats"))
    places = [(s.table, s.seat) for s in seating.seats]
    if len(places) != len(set(places)):
        problems.append(Problem("seating-seat-twice", "a seat holds two players"))
    if set(entries) != set(active_entries):
        problems.append(Problem("seating-unseated", "the seated entries are not the active entries"))
    if any(s.table not in seating.tables or s.seat not in range(1, seating.seat_cap + 1) for s in seating.seats):
        problems.append(Problem("seating-bad-seat", "a player sits at a broken table or outside the seat cap"))
    return problems


# SP-13: the record of a draw and its re-check. A draw's items are what the rule drew from: for the
# initial seating the seat cap and the entries (sorted by id); for breaking a table or assembling the
# final table the seating before (`snapshot`); for a late seating tie the seating before and the
# entry. Its outcome lists [entry, table, seat] in drawn order.

FLOOR_SEED_MAX = 200


def floor_seed_problems(seed: str | None) -> list[Problem]:
    """SP-13: the floor's optional seed is 1 to 200 printable characters."""
    if seed is None or (0 < len(seed) <= FLOOR_SEED_MAX and seed.isprintable() and seed.strip()):
        return []
    return [
        Problem(
            "seating-bad-floor-seed",
            "a floor seed is 1 to %(floor_seed_max)s printable characters",
            floor_seed_max=FLOOR_SEED_MAX,
        )
    ]


def snapshot(seating: Seating) -> dict:
    return {
        "seat_cap": seating.seat_cap,
        "tables": list(seating.tables),
        "broken": sorted(seating.broken),
        "seats": [[s.table, s.seat, s.entry] for s in seating.seats],
    }


def from_snapshot(items: dict) -> Seating:
    return Seating(items["seat_cap"], tuple(items["tables"]), frozenset(items["broken"])).with_seats(
        Seat(*s) for s in items["seats"]
    )


def outcome(
    purpose: str, result: Seating | tuple[Seating, tuple[Move, ...]] | tuple[Seating, Seat, bool]
) -> list[list[int]]:
    """The recorded outcome of a draw from the rule's result."""
    if purpose == "initial-seating":
        assert isinstance(result, Seating)
        return [[s.entry, s.table, s.seat] for s in sorted(result.seats, key=lambda s: (s.seat, s.table))]
    assert isinstance(result, tuple)
    if purpose == "late-seating":
        seat = result[1]
        assert isinstance(seat, Seat)
        return [[seat.entry, seat.table, seat.seat]]
    return [[m.entry, m.to_table, m.to_seat] for m in result[1]]


def redraw(purpose: str, seed: str, items: dict) -> list[list[int]]:
    """Run the draw of `purpose` again from its seed and items."""
    if purpose == "initial-seating":
        return outcome(purpose, initial_seating(items["entries"], items["seat_cap"], seed))
    if purpose == "final-table":
        return outcome(purpose, assemble_final_table(from_snapshot(items), seed))
    if purpose == "late-seating":
        before = from_snapshot(items)
        if len(late_seating_tie(before)) < 2:
            raise DomainError("seating-no-tie", "the seating before the draw has no tie to draw between")
        return outcome(purpose, seat_new_entry(before, items["entry"], seed))
    table = int(purpose.removeprefix("break-table-"))
    return outcome(purpose, break_table(from_snapshot(items), table, seed))


def recheck(
    purpose: str, commitment: str, platform_seed: str, floor_seed: str | None, items: dict, recorded: list
) -> bool:
    """SP-13: the platform's seed is the one committed, and the draw re-run from both seeds gives
    the recorded outcome. Items the rule cannot draw from (a tampered record) do not re-check."""
    if not draw.matches(platform_seed, commitment):
        return False
    try:
        return redraw(purpose, draw.combined(platform_seed, floor_seed), items) == recorded
    except (DomainError, KeyError, TypeError, ValueError):
        return False
