"""The counter's figures (domain/poker/rules/counter.py): a club's day is its tournaments' totals added
up per currency, by kind of fee and method; settling all is refused unless it is what was confirmed
(SP-1, 3.4)."""

from __future__ import annotations

import pytest

from domain.errors import DomainError
from domain.poker.rules.counter import CounterTotals, KindTotal, check_settle_all, combine


def test_sp_1_the_day_adds_the_tournaments_up_per_currency_by_kind_and_method():
    friday = CounterTotals(
        "RUB",
        taken=300000,
        owed=150000,
        voided=150000,
        voided_count=1,
        settlements=2,
        kinds=(KindTotal("buy_in", 3, 300000, 150000),),
        methods=(("cash", 300000),),
    )
    turbo = CounterTotals(
        "RUB",
        taken=80000,
        owed=20000,
        settlements=3,
        kinds=(KindTotal("buy_in", 2, 60000, 0), KindTotal("addon", 2, 20000, 20000)),
        methods=(("card", 50000), ("cash", 30000)),
    )
    euro = CounterTotals("EUR", taken=1000, settlements=1, kinds=(KindTotal("buy_in", 1, 1000, 0),))
    assert combine([friday, euro, turbo]) == [
        CounterTotals(
            "RUB",
            taken=380000,
            owed=170000,
            voided=150000,
            voided_count=1,
            settlements=5,
            kinds=(KindTotal("buy_in", 5, 360000, 150000), KindTotal("addon", 2, 20000, 20000)),
            methods=(("cash", 330000), ("card", 50000)),
        ),
        euro,
    ]
    assert combine([]) == []


def test_3_4_settling_all_is_what_was_confirmed_or_nothing():
    check_settle_all(300000, 2, 300000, 2, "RUB")  # as confirmed: no refusal
    with pytest.raises(DomainError) as nobody:
        check_settle_all(0, 0, 300000, 2, "RUB")
    assert (nobody.value.code, nobody.value.message) == ("nothing-owed", "Nobody owes anything now: nothing to settle.")
    with pytest.raises(DomainError) as moved:
        check_settle_all(450000, 3, 300000, 2, "RUB")
    assert (moved.value.code, moved.value.message) == (
        "totals-differ",
        "3 players owe 4500.00 RUB now, not 2 owing 3000.00 RUB: look again before settling.",
    )
    with pytest.raises(DomainError) as one:
        check_settle_all(150000, 1, 300000, 1, "RUB")
    assert one.value.message == "1 player owes 1500.00 RUB now, not 1 owing 3000.00 RUB: look again before settling."
