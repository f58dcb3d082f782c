"""CL-1 checked against python-stdnum (`stdnum.ru.inn`, `stdnum.ru.ogrn`), a maintained validator nobody
here wrote: the project agrees with it wherever the two rules coincide. Where they differ, CL-1 is
the rule: it refuses OGRNs beginning with other digits than 1 or 5 and OGRNIPs beginning with 4
(stdnum accepts an OGRN beginning with 1-9 and an OGRNIP with 3 or 4), and it takes the last digit
of an OGRNIP's remainder modulo 13 where stdnum refuses remainders 10 to 12 (docs/clubs.md)."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st
from stdnum.ru import inn as std_inn
from stdnum.ru import ogrn as std_ogrn

from domain.clubs.rules.identifiers import FIRST_DIGITS, inn_problems, ogrn_problems


def digits(n: int) -> st.SearchStrategy[str]:
    return st.text(alphabet="0123456789", min_size=n, max_size=n)


@given(st.integers(1, 16).flatmap(digits))
def test_cl_1_an_inn_is_valid_exactly_when_stdnum_says_so(number):
    """CL-1: any string of digits, of any length."""
    assert (inn_problems(number) == []) == std_inn.is_valid(number)


@given(digits(9), digits(10))
def test_cl_1_inns_with_the_check_digits_stdnum_computes_are_valid(company, person):
    """CL-1: the valid INNs, built by stdnum's own check digits (random strings are mostly invalid)."""
    assert inn_problems(company + std_inn.calc_company_check_digit(company)) == []
    assert inn_problems(person + std_inn.calc_personal_check_digits(person)) == []


@given(st.text(max_size=20))
def test_cl_1_nothing_the_project_accepts_as_an_inn_is_refused_by_stdnum(text):
    """CL-1: any text (stdnum also strips spaces; the project takes digits only)."""
    if inn_problems(text) == []:
        assert std_inn.is_valid(text)


@given(st.sampled_from("0123456789"), digits(11), st.booleans())
def test_cl_1_an_ogrn_agrees_with_stdnum_and_cl_1_also_needs_its_first_digit(first, middle, checked):
    """CL-1: 13 digits, either random or with stdnum's check digit."""
    number = first + middle + "0"
    if checked:
        number = number[:-1] + std_ogrn.calc_check_digit(number)
    ours = ogrn_problems(number)
    if first in FIRST_DIGITS["OGRN"]:
        assert (ours == []) == std_ogrn.is_valid(number)
    else:
        assert ours[0].code == "ogrn-first-digit"


@given(st.sampled_from("0123456789"), digits(13), st.sampled_from("0123456789"))
def test_cl_1_an_ogrnip_agrees_with_stdnum_but_for_its_first_digit_and_remainders_10_to_12(first, middle, last):
    """CL-1: 15 digits; the 15th is the last digit of the first 14 modulo 13."""
    number = first + middle + last
    ours = ogrn_problems(number)
    if first not in FIRST_DIGITS["OGRNIP"]:
        assert ours[0].code == "ogrn-first-digit"
        return
    remainder = int(number[:14]) % 13
    if remainder < 10:
        assert (ours == []) == std_ogrn.is_valid(number)
    else:
        assert not std_ogrn.is_valid(number)
        assert (ours == []) == (last == str(remainder % 10))


def test_cl_1_an_ogrnip_whose_remainder_is_10_ends_in_0_though_stdnum_refuses_it():
    """CL-1: 30450011600018 mod 13 is 10: the check digit is 0."""
    assert (ogrn_problems("304500116000180"), std_ogrn.is_valid("304500116000180")) == ([], False)
