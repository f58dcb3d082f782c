"""How the CLI shows a value for people: money by Babel in minor units of its currency, durations
as a clock shows them (the CLI tests check them through the real `tourney`)."""

import pytest

from flows.cli.output import duration, money


@pytest.mark.parametrize(
    ("minor", "currency", "locale", "text"),
    [
        (250000, "RUB", "ru", "2\xa0500,00\xa0₽"),
        (5, "RUB", "ru", "0,05\xa0₽"),
        (0, "RUB", "ru", "0,00\xa0₽"),
        (250000, "EUR", "en", "€2,500.00"),
        (2500, "JPY", "ru", "2\xa0500\xa0¥"),  # no minor unit: JPY's CLDR precision is 0
    ],
)
def test_sp_1_minor_units_are_shown_in_major_units_of_their_currency(minor, currency, locale, text):
    """SP-1"""
    assert money(minor, currency, locale) == text


@pytest.mark.parametrize(
    ("seconds", "text"), [(0, "0:00"), (97, "1:37"), (3599, "59:59"), (3725, "1:02:05"), (-5, "-0:05")]
)
def test_3_5_a_number_of_seconds_reads_as_the_clock_shows_it(seconds, text):
    """3.5: time left and the next break, as on the clock"""
    assert duration(seconds) == text
