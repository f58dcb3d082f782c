"""Progressive knockouts and shared knockouts (RULES SP-9, SP-10): the pure arithmetic.

- **Credit units.** A knockout credit is kept as an integer of 1/2520 of a full credit
  (`CREDIT_UNIT = 2520`, the least common multiple of 1..10). A table seats at most 10 (rule 3.6), so
  at most 9 killers share one bust and 1/k of 1.0 is a whole number of units for every k that can
  occur: 1/2 = 1260, 1/3 = 840, … exactly, no float, no rounding. `split_evenly` still guarantees
  the shares add up for any k (the remainder rule of SP-10).
- **PKO points** (SP-9) are whole rating points, never money. An entry starts with a head of
  `pko_head` points; a knockout of an entry with head h credits ⌈h/2⌉ to its killers and adds ⌊h/2⌋
  to their heads, each half split by `split_evenly` over the killers in the order named.
- Heads are derived, never accumulated: an entry's head is its starting head plus the head additions
  of the live knockouts it made (`PkoLedger`). A bust with no killer (a dead stack, SP-6) passes its
  head to nobody at the table: it is unclaimed, and the champion is credited it with its own head,
  so the credits always add up to the heads of all the entries. Voiding a knockout drops exactly its shares, which
  restores the state before it; voiding is refused once the killer entry was itself knocked out
  (its head, the addition included, has been passed on).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction

from domain.errors import Problem

CREDIT_UNIT = 2520  # one full knockout credit, in units (lcm(1..10)): every 1/k share is exact
HALF_UNITS = CREDIT_UNIT // 2
MAX_KILLERS = 9  # at most 10 seats a table (3.6): the busted player and at most 9 others


def split_evenly(total: int, k: int) -> tuple[int, ...]:
    """`total` split over k in integers that add up exactly; the remainder goes one each to the
    first named (SP-10). split_evenly(50, 3) == (17, 17, 16)."""
    if k < 1:
        raise ValueError("split over at least one")
    if total < 0:
        raise ValueError("a negative total")
    base, remainder = divmod(total, k)
    return tuple(base + (1 if i < remainder else 0) for i in range(k))


def units_as_credit(units: int) -> Fraction:
    return Fraction(units, CREDIT_UNIT)


def units_text(units: int) -> str:
    """A credit as the floor writes it: 1, 0.5, 2.5, and 1/3 as '1/3' (exact, never a float)."""
    value = units_as_credit(units)
    if value.denominator == 1:
        return str(value.numerator)
    if value.denominator == 2:
        return f"{value.numerator // 2}.5"
    whole, part = divmod(value.numerator, value.denominator)
    return f"{whole} {part}/{value.denominator}" if whole else f"{part}/{value.denominator}"


@dataclass(frozen=True)
class Share:
    """One killer's share of one knockout: its credit in units, its PKO points credited and the
    points added to its head (both 0 without PKO)."""

    killer_entry_id: int
    position: int  # 1 = the first killer named
    credit_units: int
    pko_points: int = 0
    head_added: int = 0


def classic_shares(killers: Sequence[int], *, shared: bool) -> tuple[Share, ...]:
    """The credit of one bust over its killers.

    `shared` off (today's rule, 3.2): one killer gets 1.0; with a second killer the primary gets 0.5
    and the second nothing (it is in the audit only), so only the primary has a share.
    `shared` on (SP-10): each of the k killers gets 1/k, exactly."""
    if not killers:
        return ()
    if not shared:
        units = CREDIT_UNIT if len(killers) == 1 else HALF_UNITS
        return (Share(killers[0], 1, units),)
    return tuple(
        Share(k, i, units) for i, (k, units) in enumerate(zip(killers, split_evenly(CREDIT_UNIT, len(killers))), 1)
    )


def pko_halves(head: int) -> tuple[int, int]:
    """SP-9: (credited, added to the killer's head) = (⌈h/2⌉, ⌊h/2⌋); they add up to h."""
    return head - head // 2, head // 2


def pko_shares(killers: Sequence[int], head: int, *, shared: bool) -> tuple[Share, ...]:
    """The shares of a PKO bust of an entry with `head`: SP-9 for one killer; SP-10 splits both
    halves over k killers. Without `shared`, a second killer gets nothing (3.2's rule, kept): the
    primary takes the 0.5 credit and the whole of both halves."""
    if not killers:
        return ()
    credited, added = pko_halves(head)
    credits = classic_shares(killers, shared=shared)
    n = len(credits)
    points = split_evenly(credited, n)
    heads = split_evenly(added, n)
    return tuple(
        Share(s.killer_entry_id, s.position, s.credit_units, p, h)
        for s, p, h in zip(credits, points, heads, strict=True)
    )


def shared_killer_problems(killers: Sequence[int | None], *, shared: bool) -> list[Problem]:
    """SP-10: more than two killers only with shared knockouts; never the same killer twice."""
    named = [k for k in killers if k is not None]
    problems: list[Problem] = []
    if len(named) > 2 and not shared:
        problems.append(
            Problem(
                "knockout-shared-off",
                "%(count_named)s killers named: more than two need the shared_knockouts setting (SP-10)",
                count_named=len(named),
            )
        )
    if len(named) > MAX_KILLERS:
        problems.append(
            Problem(
                "knockout-too-many-killers",
                "%(count_named)s killers named: a table has at most %(max_killers)s others",
                count_named=len(named),
                max_killers=MAX_KILLERS,
            )
        )
    if len(set(named)) != len(named):
        problems.append(Problem("knockout-same-killers", "the same killer entry is named twice"))
    return problems


# -- the ledger: heads and credits derived from the live knockouts ----------------------------------


@dataclass(frozen=True)
class KnockoutShares:
    """A live knockout as the ledger needs it: the busted entry, the head it had, its shares."""

    knockout_id: int
    busted_entry_id: int
    head_taken: int
    shares: tuple[Share, ...]


@dataclass(frozen=True)
class PkoLedger:
    """Heads and PKO points of a tournament's entries, derived from its starting head, its
    non-voided entries and its live knockouts."""

    heads: Mapping[int, int]  # an entry's current head (0 once passed on)
    points: Mapping[int, int]  # PKO points credited to an entry by its knockouts
    unclaimed: int = 0  # the heads of entries busted with no killer: the champion's at the end

    def head(self, entry_id: int) -> int:
        return self.heads[entry_id]


def ledger(pko_head: int, entry_ids: Iterable[int], knockouts: Iterable[KnockoutShares]) -> PkoLedger:
    """The heads after the live knockouts. A busted entry's head at its bust is its head after every
    knockout it made (all of them came before its bust), so the order of `knockouts` does not matter."""
    heads = {e: pko_head for e in entry_ids}
    points = {e: 0 for e in heads}
    busted: dict[int, bool] = {}  # busted entry -> whether its knockout had a killer
    for ko in knockouts:
        busted[ko.busted_entry_id] = bool(ko.shares)
        for s in ko.shares:
            if s.killer_entry_id in heads:
                heads[s.killer_entry_id] += s.head_added
                points[s.killer_entry_id] += s.pko_points
    unclaimed = sum(heads[e] for e, killed in busted.items() if not killed and e in heads)
    for e in busted:
        if e in heads:
            heads[e] = 0
    return PkoLedger(heads, points, unclaimed)


def record(
    pko_head: int, ledger_before: PkoLedger, busted_entry_id: int, killers: Sequence[int], *, shared: bool
) -> tuple[int, tuple[Share, ...]]:
    """The head taken from `busted_entry_id` and the shares of its killers (SP-9, SP-10)."""
    head = ledger_before.heads.get(busted_entry_id, pko_head)
    return head, pko_shares(killers, head, shared=shared)


def champion_points(ledger_now: PkoLedger, champion_entry_id: int) -> int:
    """SP-9: when one player remains, that entry is credited its own head, and the heads that left
    with no killer (docs/decisions.md, SP-9)."""
    return ledger_now.heads.get(champion_entry_id, 0) + ledger_now.unclaimed


def pko_totals_by_player(
    ledger_now: PkoLedger, player_of: Mapping[int, int], champion_entry_id: int | None
) -> dict[int, int]:
    """A player's PKO total: the points of all their entries, plus the champion's own head."""
    totals: dict[int, int] = {}
    for entry_id, player in player_of.items():
        totals[player] = totals.get(player, 0) + ledger_now.points.get(entry_id, 0)
    if champion_entry_id is not None and champion_entry_id in player_of:
        player = player_of[champion_entry_id]
        totals[player] = totals.get(player, 0) + champion_points(ledger_now, champion_entry_id)
    return totals


def pko_void_problems(knockout_id: int, killer_entries: Sequence[int], busted_later: Iterable[int]) -> list[Problem]:
    """SP-9: a PKO knockout is voidable only while none of its killer entries has been knocked out
    since (its head, this knockout's addition included, has been passed on)."""
    out = set(busted_later)
    gone = [k for k in killer_entries if k in out]
    if gone:
        return [
            Problem(
                "void-killer-knocked-out",
                "killer entry %(value)s of knockout %(knockout_id)s has itself been knocked out: its head has been passed on (SP-9)",
                value=gone[0],
                knockout_id=knockout_id,
            )
        ]
    return []
