"""Monetary wording (RULES SP-4): a table of prize lines both ways, across the classes of the issue
(inflections and spellings, disguises, signs and codes, short amounts, innocent stems), and the
properties that a disguise keeps a refused line refused. Pure: no database."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from domain.errors import DomainError
from domain.poker.rules.wording import lexicon as wording
from domain.poker.rules.wording.check import (
    CHECKER,
    money_problem,
    names_money,
    normalise,
    seal_for,
    verdict,
    wording_seal,
)
from tests.unit.poker_wording_cases import ACCEPTED, ACUTE, REFUSED, ZW


def test_sp4_the_table_is_large_enough_and_covers_both_directions():
    """SP-4: the issue asks for at least 150 lines of our own across the classes, both ways."""
    assert len(REFUSED) + len(ACCEPTED) >= 150
    assert len(REFUSED) >= 75 and len(ACCEPTED) >= 75
    assert not {line for line, _ in REFUSED} & set(ACCEPTED)


@pytest.mark.parametrize(("line", "named"), REFUSED, ids=[repr(line) for line, _ in REFUSED])
def test_sp4_a_line_naming_money_is_refused_and_the_refusal_names_the_word(line, named):
    """SP-4: refused, with the word or sign that is money quoted as the club wrote it."""
    found = verdict(line).findings
    assert found, f"{line!r} should be refused"
    assert named in [f.written for f in found]
    problem = money_problem(line, "prize line 1")
    assert problem is not None and problem.code == "money-wording"
    assert f"'{named}'" in problem.message


@pytest.mark.parametrize("line", ACCEPTED, ids=repr)
def test_sp4_a_line_without_money_is_accepted(line):
    """SP-4: innocent stems, counts, ordinary-word codes and mixed innocents are fine."""
    assert verdict(line).findings == (), verdict(line).findings
    assert money_problem(line, "prize line 1") is None
    assert names_money(line) is None


def test_sp4_the_message_says_which_word_names_money():
    """SP-4: "'рублей' names a currency", with what the word was read as when disguised."""
    problem = money_problem("Кубок и 1000 рублей", "prize line 2")
    assert problem.message.startswith("prize line 2 names money: 'рублей' names a currency (рубль)")
    disguised = money_problem("Приз: саsh", "prize line 3")
    assert "'саsh' names money (read as 'cash')" in disguised.message
    code = money_problem("200 PLN", "prize line 4")
    assert "'PLN' is a currency code (Polish Zloty)" in code.message
    sign = money_problem("₹500", "the description")
    assert "'₹' is a currency sign" in sign.message


def test_sp4_every_money_word_of_a_line_is_named():
    found = verdict("100 $ или 100 рублей наличными").findings
    assert [f.written for f in found] == ["$", "рублей", "наличными"]


def test_sp4_normalisation_folds_widths_spaces_marks_and_invisible_characters():
    """SP-4: NFKC, every space alike, combining marks and zero-width characters gone, й and ё kept."""
    assert normalise("ＵＳＤ\u00a0100") == "USD 100"
    assert normalise("5\u2007000\u202fр") == "5 000 р"
    assert normalise("ру" + ACUTE + "бль" + ZW) == "рубль"
    assert normalise("рубль\u200dй") == "рубльй"
    assert normalise("копейка ёлка") == "копейка ёлка"
    assert normalise("и\u0306 е\u0308") == "й ё"
    assert normalise("cásh") == "cash"
    assert normalise("pa\u02bbanga dollar\u2019s") == "pa'anga dollar's"


def test_sp4_an_accepted_line_gets_the_seal_and_a_refused_one_none():
    """SP-4: the verdict stored with a line is only ever the seal of an accepted text."""
    assert wording_seal("Dinner for 2") == seal_for(CHECKER, "Dinner for 2")
    assert wording_seal("Dinner for 2").startswith(f"{CHECKER}:")
    with pytest.raises(DomainError) as refused:
        wording_seal("саsh")
    assert refused.value.code == "money-wording"


def test_sp4_bad_input_gets_a_plain_error():
    with pytest.raises(DomainError) as bad:
        verdict(None)  # type: ignore[arg-type]
    assert bad.value.code == "wording-not-text"


def test_sp4_the_analyzer_is_loaded_once():
    """SP-4: pymorphy3's analyzer and the lexicon are built once, lazily, then shared."""
    assert wording._morph() is wording._morph()
    assert wording._lexicon() is wording._lexicon()


def test_sp4_currencies_come_from_the_data_not_a_hand_list():
    """SP-4: every ISO 4217 code (pycountry) but the non-money ones, CLDR's names in both languages."""
    import pycountry

    lex = wording._lexicon()
    current = {c.alpha_3 for c in pycountry.currencies}
    assert current - wording._NOT_MONEY_CODES <= set(lex.codes)
    assert {"XAU", "XXX", "XTS"}.isdisjoint(lex.codes)
    assert {"rupee", "rupees", "zloty", "hryvnia", "yuan"} <= set(lex.en_money)
    assert {"рубль", "доллар", "рупия", "юань", "злотый"} <= set(lex.ru_lemmas)


# -- properties ----------------------------------------------------------------------------------

INVISIBLE = ["\u200b", "\u200c", "\u200d", "\u2060", "\ufeff", "\u00ad", "\u034f", "\u180e", "\ufe0f", "\u061c"]


def _look_alike_pairs() -> list[tuple[str, str]]:
    """Letters with a look-alike in the other alphabet that reads back as the same letter."""
    lex = wording._lexicon()
    pairs = []
    for table, back in ((lex.to_latin, lex.to_cyrillic), (lex.to_cyrillic, lex.to_latin)):
        for a, b in table.items():
            if a.isalpha() and b.isalpha() and back.get(b) == a and (a in wording._LATIN or a in wording._CYRILLIC):
                pairs.append((a, b))
    return pairs


LOOK_ALIKES = dict(_look_alike_pairs())
REFUSED_LINES = [line for line, _ in REFUSED]


@settings(max_examples=300, deadline=None)
@given(st.sampled_from(REFUSED_LINES), st.sampled_from(INVISIBLE), st.integers(min_value=0))
def test_sp4_a_zero_width_character_anywhere_keeps_a_refused_line_refused(line, invisible, at):
    """SP-4: inserting an invisible character anywhere into a refused line keeps it refused."""
    at %= len(line) + 1
    assert not verdict(line[:at] + invisible + line[at:]).accepted


@settings(max_examples=300, deadline=None)
@given(st.sampled_from(REFUSED_LINES), st.integers(min_value=0), st.integers(min_value=1, max_value=3))
def test_sp4_look_alike_letters_keep_a_refused_line_refused(line, at, count):
    """SP-4: putting look-alike letters of the other alphabet for letters of a refused line keeps it
    refused (one to three letters, from the confusables table)."""
    chars = list(line)
    spots = [i for i, c in enumerate(chars) if c in LOOK_ALIKES]
    if not spots:
        return
    for k in range(count):
        i = spots[(at + k * 7) % len(spots)]
        chars[i] = LOOK_ALIKES.get(chars[i], chars[i])
    assert not verdict("".join(chars)).accepted, "".join(chars)


@settings(max_examples=200, deadline=None)
@given(st.text(alphabet="cashрублей$ 0123456789к.́\u200bаеоpxу", max_size=30))
def test_sp4_a_refusal_quotes_text_the_club_wrote(text):
    """SP-4: the word a refusal names is a piece of the line as written (or its reading, when the
    reading cannot be mapped back)."""
    for finding in verdict(text).findings:
        assert finding.written in text or finding.written in normalise(text)


_EN_ONES = (
    "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen "
    "sixteen seventeen eighteen nineteen"
).split()
_EN_TENS = "_ _ twenty thirty forty fifty sixty seventy eighty ninety".split()


def _english(n: int) -> str:
    """1..9999 in English words ("two thousand three hundred and forty-five")."""
    if n >= 1000:
        return f"{_english(n // 1000)} thousand" + (f" {_english(n % 1000)}" if n % 1000 else "")
    if n >= 100:
        return f"{_EN_ONES[n // 100]} hundred" + (f" and {_english(n % 100)}" if n % 100 else "")
    if n >= 20:
        return _EN_TENS[n // 10] + (f"-{_EN_ONES[n % 10]}" if n % 10 else "")
    return _EN_ONES[n]


_RU_AMOUNTS = {5: "пять", 25: "двадцать пять", 100: "сто", 500: "пятьсот", 1000: "тысяча", 2000: "две тысячи"}
AFTER_AN_AMOUNT = [
    "bucks",
    "quid",
    "cents",
    "pence",
    "p",
    "dimes",
    "CAD",
    "won",
    "pounds",
    "USD",
    "р",
    "руб",
    "коп",
    "тг",
    "центов",
    "пенсов",
    "сантимов",
    "тиынов",
    "пенни",
    "копек",
    "копеек",
    "евроцентов",
]


@settings(max_examples=300, deadline=None)
@given(st.integers(1, 9999), st.sampled_from(AFTER_AN_AMOUNT), st.sampled_from(sorted(_RU_AMOUNTS)))
def test_sp4_an_amount_in_words_names_money_as_the_same_amount_in_digits(n, word, ru):
    """SP-4: whatever counts as naming money with an amount in digits counts with the amount in words,
    in English and in Russian: "fifty quid" as "50 quid", «пятьдесят центов» as «50 центов»."""
    assert not verdict(f"{n} {word}").accepted
    assert not verdict(f"Prize: {_english(n)} {word}").accepted, _english(n)
    assert not verdict(f"Приз: {_RU_AMOUNTS[ru]} {word}").accepted
