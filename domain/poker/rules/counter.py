"""The counter's figures (SP-1, 3.4): what a tournament, or a club's day, has taken, what is still owed
and what was voided, by kind of fee and by method of payment, in minor units. Pure sums: the service
reads the rows (domain/poker/services/fees.py `totals`), these add them up."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

from domain.errors import Amount, DomainError

KINDS = ("buy_in", "rebuy", "reentry", "addon")
METHODS = ("cash", "card", "transfer", "other")


@dataclass(frozen=True)
class KindTotal:
    """One kind of fee: what was charged of it, how much of that is taken (in a settlement standing)
    and how much is owed (in none, or in a voided one)."""

    kind: str
    fees: int
    taken: int
    owed: int


@dataclass(frozen=True)
class CounterTotals:
    """A tournament's (or a day's) counter in one currency. `voided`: the settlements voided (their
    fees are owed again, so they are counted under `owed` or, settled again, under `taken`)."""

    currency: str
    taken: int = 0
    owed: int = 0
    voided: int = 0
    voided_count: int = 0
    settlements: int = 0
    kinds: tuple[KindTotal, ...] = field(default_factory=tuple)
    methods: tuple[tuple[str, int], ...] = field(default_factory=tuple)


def combine(parts: Iterable[CounterTotals]) -> list[CounterTotals]:
    """The day's counter: the tournaments' totals added up, one per currency (in order of first
    appearance); kinds and methods in their fixed order, the ones with nothing left out."""
    by_currency: dict[str, list[CounterTotals]] = {}
    for part in parts:
        by_currency.setdefault(part.currency, []).append(part)
    out = []
    for currency, group in by_currency.items():
        kinds = []
        for kind in KINDS:
            found = [k for p in group for k in p.kinds if k.kind == kind]
            if found:
                kinds.append(
                    KindTotal(
                        kind,
                        sum(k.fees for k in found),
                        sum(k.taken for k in found),
                        sum(k.owed for k in found),
                    )
                )
        methods = []
        for method in METHODS:
            amounts = [a for p in group for m, a in p.methods if m == method]
            if amounts:
                methods.append((method, sum(amounts)))
        out.append(
            CounterTotals(
                currency,
                taken=sum(p.taken for p in group),
                owed=sum(p.owed for p in group),
                voided=sum(p.voided for p in group),
                voided_count=sum(p.voided_count for p in group),
                settlements=sum(p.settlements for p in group),
                kinds=tuple(kinds),
                methods=tuple(methods),
            )
        )
    return out


def check_settle_all(owed: int, debtors: int, expected_total: int, expected_count: int, currency: str) -> None:
    """3.4 for every debtor at once, as confirmed: refused unless what is owed now is exactly the total
    and the number of players the cashier was shown (`nothing-owed` when nobody owes; `totals-differ`
    when a fee or a settlement came or went since)."""
    if debtors == 0:
        raise DomainError("nothing-owed", "Nobody owes anything now: nothing to settle.")
    if (owed, debtors) != (expected_total, expected_count):
        raise DomainError(
            "totals-differ",
            "%(debtors)s %(who_owe)s %(owed)s now, not %(count)s owing %(total)s: look again before settling.",
            debtors=debtors,
            who_owe="player owes" if debtors == 1 else "players owe",  # the Russian counts by "должников: N"
            owed=Amount(owed, currency),
            count=expected_count,
            total=Amount(expected_total, currency),
        )
