"""CL-1: INN, OGRN and OGRNIP check digits and the legal form they must match."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from domain.clubs.rules.catalog import NewClub, club_problems
from domain.clubs.rules.identifiers import (
    identifier_problems,
    inn_problems,
    ogrn_problems,
)

# Published details of well-known Russian companies (EGRUL).
COMPANIES = [
    ("Sberbank", "7707083893", "1027700132195"),
    ("Yandex", "7736207543", "1027700229193"),
    ("Gazprom", "7736050003", "1027700070518"),
    ("Lukoil", "7708004767", "1027700035769"),
    ("Aeroflot", "7712040126", "1027700092661"),
    ("Rosneft", "7706107510", "1027700043502"),
    ("MTS", "7740000076", "1027700149124"),
    ("VTB", "7702070139", "1027739609391"),
]
# An entrepreneur's INN and OGRNIP with correct check digits (the standard worked examples).
ENTREPRENEUR = ("500100732259", "304500116000157")


def _codes(problems) -> list[str]:
    return [p.code for p in problems]


@pytest.mark.parametrize(("company", "inn", "ogrn"), COMPANIES)
def test_cl_1_published_identifiers_of_well_known_companies_are_valid(company, inn, ogrn):
    assert identifier_problems("legal_entity", inn, ogrn) == []


def test_cl_1_an_entrepreneurs_twelve_digit_inn_and_fifteen_digit_ogrnip_are_valid():
    assert identifier_problems("entrepreneur", *ENTREPRENEUR) == []


@pytest.mark.parametrize(("company", "inn", "ogrn"), COMPANIES)
def test_cl_1_changing_the_last_digit_of_a_published_inn_names_the_wrong_check_digit(company, inn, ogrn):
    altered = inn[:9] + str((int(inn[9]) + 1) % 10)
    assert [(p.code, p.message) for p in inn_problems(altered)] == [
        ("inn-check-digit", f"INN {altered}: the check digit (10th) should be {inn[9]}, not {altered[9]}")
    ]


@pytest.mark.parametrize(("company", "inn", "ogrn"), COMPANIES)
def test_cl_1_changing_a_middle_digit_of_a_published_ogrn_breaks_its_check_digit(company, inn, ogrn):
    altered = ogrn[:5] + str((int(ogrn[5]) + 1) % 10) + ogrn[6:]
    expected = int(altered[:12]) % 11 % 10
    assert [(p.code, p.message) for p in ogrn_problems(altered)] == [
        ("ogrn-check-digit", f"OGRN {altered}: the check digit (13th) should be {expected}, not {altered[12]}")
    ]


def test_cl_1_a_twelve_digit_inn_reports_each_wrong_check_digit_separately():
    # the 12th digit is checked over the digits as given, the wrong 11th included
    assert [p.message for p in inn_problems("500100732200")] == [
        "INN 500100732200: the check digit (11th) should be 5, not 0",
        "INN 500100732200: the check digit (12th) should be 2, not 0",
    ]
    assert [p.message for p in inn_problems("500100732250")] == [
        "INN 500100732250: the check digit (12th) should be 9, not 0"
    ]


def test_cl_1_an_ogrnip_check_digit_is_mod_13():
    assert [p.message for p in ogrn_problems("304500116000158")] == [
        "OGRNIP 304500116000158: the check digit (15th) should be 7, not 8"
    ]


@pytest.mark.parametrize(
    ("form", "inn", "ogrn", "codes"),
    [
        ("legal_entity", "77070838", "1027700132195", ["inn-length"]),
        ("legal_entity", "77070a3893", "1027700132195", ["inn-not-digits"]),
        ("legal_entity", " 7707083893", "1027700132195", ["inn-not-digits"]),
        ("legal_entity", "７７０７０８３８９３", "1027700132195", ["inn-not-digits"]),
        ("legal_entity", "7707083893", "10277001321", ["ogrn-length"]),
        ("legal_entity", "7707083893", "1O27700132195", ["ogrn-not-digits"]),
        ("legal_entity", "500100732259", "1027700132195", ["inn-form-mismatch"]),
        ("legal_entity", "7707083893", "304500116000157", ["ogrn-form-mismatch"]),
        ("entrepreneur", "7707083893", "1027700132195", ["inn-form-mismatch", "ogrn-form-mismatch"]),
        ("partnership", "7707083893", "1027700132195", ["legal-form-unknown"]),
        ("legal_entity", "7707083894", "1027700132196", ["inn-check-digit", "ogrn-check-digit"]),
    ],
)
def test_cl_1_each_bad_identifier_gets_its_own_specific_reason(form, inn, ogrn, codes):
    assert _codes(identifier_problems(form, inn, ogrn)) == codes


def test_cl_1_a_legal_entity_with_a_twelve_digit_inn_is_told_so_plainly():
    (problem,) = identifier_problems("legal_entity", "500100732259", "1027700132195")
    assert problem.message == "a legal entity has a 10-digit INN, not 12 digits (500100732259)"


def _inn10(body: str) -> str:
    weights = (2, 4, 10, 3, 5, 9, 4, 6, 8)
    return body + str(sum(int(d) * w for d, w in zip(body, weights)) % 11 % 10)


@settings(max_examples=200)
@given(st.text(alphabet="0123456789", min_size=9, max_size=9), st.integers(1, 9))
def test_cl_1_any_single_changed_last_digit_of_a_valid_inn_is_refused(body, shift):
    valid = _inn10(body)
    assert inn_problems(valid) == []
    altered = valid[:9] + str((int(valid[9]) + shift) % 10)
    assert _codes(inn_problems(altered)) == ["inn-check-digit"]


@settings(max_examples=200)
@given(st.integers(10**11, 10**12 - 1))
def test_cl_1_every_twelve_digit_body_has_exactly_one_valid_ogrn_when_it_begins_with_1_or_5_else_none(body):
    valid = [d for d in range(10) if ogrn_problems(f"{body}{d}") == []]
    assert valid == ([body % 11 % 10] if str(body)[0] in "15" else [])


def _new(**overrides) -> NewClub:
    values = dict(
        name="Sber Poker",
        legal_form="legal_entity",
        inn="7707083893",
        ogrn="1027700132195",
        contact_email="results@example.org",
        timezone="Europe/Moscow",
    )
    values.update(overrides)
    return NewClub(**values)


def test_a_complete_new_club_has_no_problems():
    assert club_problems(_new()) == []


@pytest.mark.parametrize(
    ("overrides", "codes"),
    [
        ({"name": "  "}, ["name-missing"]),
        ({"contact_email": "results.example.org"}, ["email-invalid"]),
        ({"contact_email": "a@b"}, ["email-invalid"]),
        ({"timezone": "Mars/Olympus"}, ["timezone-unknown"]),
        ({"timezone": "europe/moscow"}, ["timezone-unknown"]),
        (
            {"timezone": "Europe/Moscow", "inn": "7707083894", "contact_email": "x"},
            ["inn-check-digit", "email-invalid"],
        ),
    ],
)
def test_a_new_club_with_bad_details_gets_every_specific_problem(overrides, codes):
    assert _codes(club_problems(_new(**overrides))) == codes


def _with_check_digit(body: str) -> str:
    return body + str(int(body) % (11 if len(body) == 12 else 13) % 10)


@pytest.mark.parametrize("body", ["102770013219", "502770013219"])
def test_cl_1_an_ogrn_beginning_with_1_or_5_passes(body):
    assert ogrn_problems(_with_check_digit(body)) == []


@pytest.mark.parametrize("first", ["0", "2", "3", "4", "6", "7", "8", "9"])
def test_cl_1_an_ogrn_beginning_with_another_digit_is_refused_even_with_a_right_check_digit(first):
    ogrn = _with_check_digit(first + "02770013219")
    assert [(p.code, p.message) for p in ogrn_problems(ogrn)] == [
        (
            "ogrn-first-digit",
            f"OGRN {ogrn} begins with {first}: an OGRN begins with 1 or 5 "
            "(other first digits number a registry record, not an entity)",
        )
    ]


@pytest.mark.parametrize("first", ["1", "2", "4", "5", "9"])
def test_cl_1_an_ogrnip_must_begin_with_3(first):
    ogrnip = _with_check_digit(first + "0450011600015")
    assert [p.code for p in ogrn_problems(ogrnip)] == ["ogrn-first-digit"]
    assert ogrn_problems(_with_check_digit("30450011600015")) == []
