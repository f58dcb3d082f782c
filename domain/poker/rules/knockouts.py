"""Knockouts, bust numbers, the void window, bounty credits and mystery draws (Sport Poker 3.2, 3.3;
RULES SP-4, SP-5).

A knockout record names the busted entry, the primary killer entry (or none: a dead stack), an
optional second killer (kept in the audit only), an optional level and a bust number. Busts recorded
together, or with the same group label, are one block and share one number; otherwise the number is
the next after the highest one given, voided busts included: a voided bust keeps its number on record
and no number is given twice (SP-5's audit), so places go by the order of the numbers, not their values. A record carries a credit of 1.0, or 0.5 when two killers share
the player; credits are kept as integer halves, so sums are exact.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from fractions import Fraction

from domain.errors import Problem
from domain.poker.rules.wording.check import MAX_DESCRIPTION_CHARS, money_problem

DEFAULT_VOID_WINDOW = timedelta(minutes=5)  # SP-5
FULL_CREDIT_HALVES = 2
HALF_CREDIT_HALVES = 1
BOUNTY_TYPES = ("none", "classic", "pko", "mystery")


@dataclass(frozen=True)
class EntryState:
    """What a knockout needs to know of an entry of the tournament."""

    entry_id: int
    player_id: int
    out: bool


@dataclass(frozen=True)
class Bust:
    """One bust asked for: the busted entry, its killer (None: no killer) and a second killer."""

    busted_entry_id: int
    killer_entry_id: int | None = None
    second_killer_entry_id: int | None = None
    more_killers: tuple[int, ...] = ()  # the third and later killers (SP-10, shared knockouts only)

    @property
    def killers(self) -> tuple[int, ...]:
        """Every killer named, in the order named."""
        named = (self.killer_entry_id, self.second_killer_entry_id, *self.more_killers)
        return tuple(k for k in named if k is not None)


def credit_halves(bust: Bust) -> int:
    """3.2: 1.0 for a single killer, 0.5 for the primary of two (the second gets nothing)."""
    return HALF_CREDIT_HALVES if bust.second_killer_entry_id is not None else FULL_CREDIT_HALVES


def as_credit(halves: int) -> Fraction:
    return Fraction(halves, 2)


def credit_text(halves: int) -> str:
    """A credit as the floor writes it: 2, 0.5, 2.5 (exact: halves never need more digits)."""
    return f"{halves // 2}.5" if halves % 2 else str(halves // 2)


def knockout_problems(
    busts: Sequence[Bust],
    entries: Mapping[int, EntryState],
    level: int | None = None,
    level_count: int | None = None,
) -> list[Problem]:
    """Every reason to refuse recording `busts` as one block (3.2).

    `entries` are the tournament's non-voided entries; `level_count` the levels of its blind
    structure (breaks included, as the clock numbers them). Refused: no bust; an unknown entry; a
    busted entry already out (or named twice); a self-knockout; the same killer twice; a killer who
    is out or busted in this very block; a block that would leave nobody in; a level below 1 or
    beyond the structure's last level.
    """
    problems: list[Problem] = []
    if level is not None and level < 1:
        problems.append(Problem("knockout-bad-level", "level %(level)s: levels are numbered from 1", level=level))
    elif level is not None and level_count is not None and level > level_count:
        has = f"{level_count} level{'' if level_count == 1 else 's'}" if level_count else "no levels"
        problems.append(
            Problem(
                "knockout-bad-level",
                "level %(level)s: the tournament's blind structure has %(has)s",
                level=level,
                has=has,
                count=level_count or 0,  # the Russian counts by "уровней: N"
            )
        )
    if not busts:
        return problems + [Problem("knockout-empty", "name at least one busted entry")]
    busted_ids = [b.busted_entry_id for b in busts]
    for bust in busts:
        busted = entries.get(bust.busted_entry_id)
        if busted is None:
            problems.append(
                Problem(
                    "knockout-unknown-entry",
                    "entry %(busted_entry_id)s is not in this tournament",
                    busted_entry_id=bust.busted_entry_id,
                )
            )
            continue
        if busted.out:
            problems.append(
                Problem(
                    "knockout-already-out",
                    "entry %(busted_entry_id)s is already out: a bust is recorded once",
                    busted_entry_id=bust.busted_entry_id,
                )
            )
        if busted_ids.count(bust.busted_entry_id) > 1:
            problems.append(
                Problem(
                    "knockout-duplicate",
                    "entry %(busted_entry_id)s is named twice in one knockout",
                    busted_entry_id=bust.busted_entry_id,
                )
            )
        killers = list(bust.killers)
        if bust.killer_entry_id is None and (bust.second_killer_entry_id is not None or bust.more_killers):
            problems.append(Problem("knockout-second-without-primary", "a second killer needs a primary killer"))
        if len(killers) == 2 and killers[0] == killers[1]:
            problems.append(Problem("knockout-same-killers", "the primary and the second killer are the same entry"))
        elif len(set(killers)) != len(killers):
            problems.append(Problem("knockout-same-killers", "the same killer entry is named twice"))
        for killer_id in killers:
            killer = entries.get(killer_id)
            if killer_id == bust.busted_entry_id or (killer is not None and killer.player_id == busted.player_id):
                problems.append(
                    Problem(
                        "knockout-self",
                        "entry %(busted_entry_id)s cannot knock out itself",
                        busted_entry_id=bust.busted_entry_id,
                    )
                )
            elif killer is None:
                problems.append(
                    Problem(
                        "knockout-unknown-killer",
                        "killer entry %(killer_id)s is not in this tournament",
                        killer_id=killer_id,
                    )
                )
            elif killer.out or killer_id in busted_ids:
                problems.append(
                    Problem(
                        "knockout-killer-out",
                        "killer entry %(killer_id)s is out of the tournament",
                        killer_id=killer_id,
                    )
                )
    still_in = {e.entry_id for e in entries.values() if not e.out} - set(busted_ids)
    if not problems and not still_in:
        problems.append(
            Problem("knockout-nobody-left", "this knockout would leave nobody in: the last player is the champion")
        )
    return problems


def bust_number(given_numbers: Iterable[int], group_number: int | None = None) -> int:
    """The number of a new block: the group's number when joining one, else the highest number ever
    given + 1 (`given_numbers`: voided busts' too, so a void's number is never given again, SP-5).

    Joining a group is allowed only while it is the latest live bust (`group_problems`)."""
    if group_number is not None:
        return group_number
    return max(given_numbers, default=0) + 1


def group_problems(group: str, group_number: int | None, live_numbers: Iterable[int]) -> list[Problem]:
    """A group label joins the block of its first bust only while no later bust was recorded."""
    if group_number is not None and group_number != max(live_numbers, default=0):
        return [
            Problem(
                "knockout-group-closed",
                "group '%(group)s' is bust #%(group_number)s and later busts were recorded since: simultaneous busts are recorded together",
                group=group,
                group_number=group_number,
            )
        ]
    return []


# -- voiding (3.2, SP-5) ---------------------------------------------------------------------------


@dataclass(frozen=True)
class KnockoutState:
    """What voiding needs to know of a recorded knockout."""

    knockout_id: int
    recorded_at: datetime
    voided: bool
    busted_reentered: bool
    drawn: bool


def void_problems(knockout: KnockoutState, now: datetime, window: timedelta) -> list[Problem]:
    """SP-5: voidable up to `window` after recording (the deadline itself included), never after the
    busted player re-entered or a mystery bounty was drawn on it."""
    problems: list[Problem] = []
    if knockout.voided:
        return [
            Problem(
                "void-already-voided", "knockout %(knockout_id)s is already voided", knockout_id=knockout.knockout_id
            )
        ]
    deadline = knockout.recorded_at + window
    if now > deadline:
        minutes = int(window.total_seconds()) // 60
        problems.append(
            Problem(
                "void-window-closed",
                "knockout %(knockout_id)s can be voided only within %(minutes)s min of recording (until %(until)s UTC)",
                knockout_id=knockout.knockout_id,
                minutes=minutes,
                until=deadline.strftime("%H:%M:%S"),
            )
        )
    if knockout.busted_reentered:
        problems.append(
            Problem(
                "void-after-reentry",
                "the busted player of knockout %(knockout_id)s has re-entered",
                knockout_id=knockout.knockout_id,
            )
        )
    if knockout.drawn:
        problems.append(
            Problem(
                "void-after-draw",
                "a mystery bounty was drawn on knockout %(knockout_id)s",
                knockout_id=knockout.knockout_id,
            )
        )
    return problems


# -- bounty credits (3.2) --------------------------------------------------------------------------


def credit_halves_by_player(records: Iterable[tuple[int | None, int]], player_of: Mapping[int, int]) -> dict[int, int]:
    """Knockout credit per player in halves: (killer entry, credit halves) of live records, summed
    over all of the player's entries (3.2, 3.7). Exact: 0.5 + 1 + 1 = 5 halves = 5/2."""
    halves: dict[int, int] = {}
    for killer_entry_id, credit in records:
        player = player_of.get(killer_entry_id) if killer_entry_id is not None else None
        if player is not None:
            halves[player] = halves.get(player, 0) + credit
    return halves


# -- mystery bounty (3.3) --------------------------------------------------------------------------


def draw_problems(
    *,
    enabled: bool,
    knockout_voided: bool,
    killer_entry_id: int | None,
    already_drawn: bool,
    description: str | None,
) -> list[Problem]:
    """Every reason to refuse a mystery draw on a knockout (3.3, SP-4)."""
    if not enabled:
        return [Problem("mystery-off", "the mystery bounty is not switched on for this tournament")]
    problems: list[Problem] = []
    if knockout_voided:
        problems.append(Problem("mystery-knockout-voided", "the knockout was voided: nothing to draw on"))
    if killer_entry_id is None:
        problems.append(Problem("mystery-no-killer", "the knockout has no killer to draw the prize"))
    if already_drawn:
        problems.append(
            Problem(
                "mystery-already-drawn",
                "killer entry %(killer_entry_id)s has already drawn its mystery bounty: one draw per killer entry",
                killer_entry_id=killer_entry_id,
            )
        )
    if description is not None:
        if len(description) > MAX_DESCRIPTION_CHARS:
            problems.append(
                Problem(
                    "mystery-description-too-long",
                    "the prize description has %(count_description)s characters: at most %(max_description_chars)s are allowed",
                    count_description=len(description),
                    max_description_chars=MAX_DESCRIPTION_CHARS,
                )
            )
        found = money_problem(description, "the mystery prize description")
        if found:
            problems.append(found)
    return problems
