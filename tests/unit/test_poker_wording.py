"""Monetary wording (RULES SP-4): one pattern, refused in every form the issue lists."""

from __future__ import annotations

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from domain.poker.rules.wording import MONEY_PATTERN, money_problem, names_money

# shared with tests/integration/test_poker_results_store.py: the database must agree on each
MONEY_SAMPLES = [
    "1000 руб.",
    "$50",
    "5 000 р",
    "5\u00a0000 р.",
    "100р",
    "денежный приз",
    "Денежного приза",
    "cash",
    "Cash prize",
    "CASH",
    "prize money",
    "Рубль",
    "10 рублей",
    "РУБЛЯМИ",
    "сто долларов",
    "50 евро",
    "деньги",
    "без денег",
    "наличными",
    "наличные",
    "€20",
    "£5 voucher",
    "¥1000",
    "100 ₽",
    "₸500",
    "₴10",
    "10 USD",
    "10usd",
    "EUR 15",
    "RUB",
    "rur",
    "20 dollars",
    "a dollar",
    "5 euros",
    "10 bucks",
    "копейка",
    "50 коп.",
    "кэшбэк",
    "monetary reward",
    "5 roubles",
    "50 грн",
    "Сертификат на 500 р.",
    "р.",
]
CLEAN_SAMPLES = [
    "Dinner for 2",
    "Freeroll ×3",
    "Cup and a free entry",
    "Кубок и бесплатный вход",
    "Поездка в Европу",
    "Europe trip",
    "cashmere scarf",
    "Кубок (при наличии)",
    "2 раза в неделю",
    "Ужин на 2 персоны",
    "Medal",
    "Club hoodie, size XL",
    "100 rating points",
    "Сертификат на ужин",
    "Percent of nothing",
    "Справка о наличии",
    "Руководство клуба",
    "Ужин в кафе на пр. Мира",
]


@pytest.mark.parametrize("text", MONEY_SAMPLES)
def test_sp_4_money_in_any_form_is_named(text):
    """SP-4: signs, codes, words in any inflection, amounts with «р»."""
    assert names_money(text) is not None
    problem = money_problem(text, "prize line 1")
    assert problem is not None and problem.code == "money-wording"


@pytest.mark.parametrize("text", CLEAN_SAMPLES)
def test_sp_4_counts_and_look_alike_words_without_money_are_fine(text):
    """SP-4: "Dinner for 2", "Freeroll ×3", «Европа», "cashmere" are not money."""
    assert names_money(text) is None
    assert money_problem(text, "prize line 1") is None


def test_sp_4_the_pattern_uses_only_syntax_postgresql_reads_the_same_way():
    """SP-4: no \\b, \\d, \\s, \\w or inline flags, which PostgreSQL reads differently."""
    for token in (r"\b", r"\d", r"\s", r"\w", "(?i"):
        assert token not in MONEY_PATTERN


def test_sp_4_the_message_names_what_was_found():
    problem = money_problem("Кубок и 1000 руб.", "prize line 2")
    assert problem.message.startswith("prize line 2 names money ('руб')")


@settings(max_examples=80)
@given(st.text(alphabet="abcxyzабвгкуоп ×0123456789.,()", max_size=30))
def test_sp_4_the_check_agrees_with_a_plain_case_insensitive_search(text):
    """SP-4: the case-spelled pattern behaves as the same pattern with re.IGNORECASE."""
    from domain.poker.rules import wording

    plain = "|".join(
        [wording._SIGNS, f"{wording._BEFORE}(?:{'|'.join(wording._CODES)}){wording._AFTER}",
         f"{wording._BEFORE}(?:{'|'.join(wording._WORDS)}){wording._AFTER}", wording._AMOUNT_R]
    )
    assert (names_money(text) is None) == (re.search(plain, text.lower()) is None)
