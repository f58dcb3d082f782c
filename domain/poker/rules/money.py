"""Amounts as the counter types them (SP-1): in the currency's major units, as a person writes them
("1 500", "1500,50", "1 500.5"), read into whole minor units. Nothing else reads typed money: the
desk's settle form and anything that takes an amount from a person call `parse_amount`."""

from __future__ import annotations

import re

from babel.numbers import get_currency_precision

from domain.errors import Amount, DomainError
from domain.poker.rules.settings import MAX_AMOUNT

# digits grouped by spaces (plain, no-break, narrow no-break, thin) or apostrophes, then one decimal
# mark (comma or point) and its digits
_GROUPS = re.compile(r"[ \u00a0\u202f\u2009']")
_AMOUNT = re.compile(r"^(\d+)(?:[.,](\d*))?$")


def parse_amount(text: str, currency: str) -> int:
    """`text` in major units of `currency` as whole minor units: "1 500" → 150000 (RUB), "1500,5" →
    150050, "0" → 0. Refused with one problem each: `amount-empty`, `amount-negative`,
    `amount-not-a-number` ("abc", "1,2,3", "1 5 0 0 ₽" aside from its sign), `amount-too-precise`
    (more decimals than the currency has), `amount-too-large`."""
    raw = (text or "").strip().removesuffix("₽").removesuffix("руб.").strip()
    if not raw:
        raise DomainError("amount-empty", "Type the amount, e.g. 1 500.")
    if raw.startswith(("-", "−")):
        raise DomainError(
            "amount-negative", "%(text)s is negative: an amount taken is never below zero.", text=text.strip()
        )
    digits = _GROUPS.sub("", raw.removeprefix("+"))
    found = _AMOUNT.match(digits)
    if found is None:
        raise DomainError(
            "amount-not-a-number", "%(text)s is not an amount: type it like 1 500 or 1500,50.", text=text.strip()
        )
    whole, fraction = found[1], found[2] or ""
    precision = get_currency_precision(currency)
    if len(fraction) > precision:
        raise DomainError(
            "amount-too-precise",
            "%(text)s has %(count_fraction)s decimals: %(currency)s has %(precision)s.",
            text=text.strip(),
            count_fraction=len(fraction),
            currency=currency,
            precision=precision,
        )
    minor = int(whole) * 10**precision + int(fraction.ljust(precision, "0") or 0)
    if minor > MAX_AMOUNT:
        raise DomainError("amount-too-large", "%(text)s is beyond the largest amount.", text=text.strip())
    return minor


def major(minor: int, currency: str) -> str:
    """150050, RUB → "1500.50 RUB": an amount in a message of no locale (a refusal's, `Amount`)."""
    return str(Amount(minor, currency))
