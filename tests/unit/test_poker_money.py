"""SP-1: amounts typed in roubles at the desk read into whole kopecks, or one specific problem."""

from __future__ import annotations

import pytest

from domain.errors import DomainError
from domain.poker.rules.money import parse_amount
from infra import i18n


@pytest.mark.parametrize(
    "text, minor",
    [
        ("1500", 150000),
        ("1 500", 150000),
        ("1\u00a0500", 150000),  # as Babel writes it in Russian
        ("1\u202f500,00", 150000),
        ("1500,5", 150050),
        ("1500,50", 150050),
        ("1500.50", 150050),
        ("0", 0),
        (" 2 500 ₽ ", 250000),
        ("12,", 1200),
    ],
)
def test_sp_1_an_amount_typed_in_roubles_is_read_in_kopecks(text, minor):
    """SP-1"""
    assert parse_amount(text, "RUB") == minor


@pytest.mark.parametrize(
    "text, code",
    [
        ("", "amount-empty"),
        ("   ", "amount-empty"),
        ("-100", "amount-negative"),
        ("−100", "amount-negative"),
        ("abc", "amount-not-a-number"),
        ("1,2,3", "amount-not-a-number"),
        ("1e3", "amount-not-a-number"),
        ("1500,505", "amount-too-precise"),
        ("9" * 30, "amount-too-large"),
    ],
)
def test_sp_1_a_bad_amount_is_refused_with_its_own_problem(text, code):
    """SP-1"""
    with pytest.raises(DomainError) as caught:
        parse_amount(text, "RUB")
    assert caught.value.code == code and [p.code for p in caught.value.problems] == [code]


def test_sp_1_a_currency_without_minor_units_takes_no_decimals():
    """SP-1: the yen has none; "1 500" is 1500 of it."""
    assert parse_amount("1 500", "JPY") == 1500
    with pytest.raises(DomainError, match="JPY has 0"):
        parse_amount("1500,5", "JPY")


def test_sp_1_money_is_written_in_the_locale_and_read_back():
    """SP-1: what the desk shows ("1 500,50 ₽") and what it pre-fills ("1500,50") read back the same."""
    assert i18n.money(150050, "RUB", "ru") == "1\xa0500,50\xa0₽"
    assert i18n.money(150000, "RUB", "en") == "RUB1,500.00"
    assert parse_amount(i18n.amount_input(150050, "RUB", "ru"), "RUB") == 150050
    assert i18n.amount_input(150000, "RUB", "ru") == "1500" and i18n.amount_input(150050, "RUB", "en") == "1500.50"
