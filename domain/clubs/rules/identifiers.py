"""CL-1: INN, OGRN and OGRNIP with their check digits, and the legal form they must match.

Identifiers stay strings (leading zeros matter). Every problem is reported with the precise reason,
e.g. which check digit is wrong and what it should be.
"""

from __future__ import annotations

from domain.clubs.rules.status import LegalForm
from domain.errors import Problem

_INN10 = (2, 4, 10, 3, 5, 9, 4, 6, 8)
_INN11 = (7, 2, 4, 10, 3, 5, 9, 4, 6, 8)
_INN12 = (3, 7, 2, 4, 10, 3, 5, 9, 4, 6, 8)

# legal form -> (INN length, registration number length, the registration number's name)
LENGTHS: dict[LegalForm, tuple[int, int, str]] = {
    LegalForm.LEGAL_ENTITY: (10, 13, "OGRN"),
    LegalForm.ENTREPRENEUR: (12, 15, "OGRNIP"),
}
# CL-1: the first digit of the main state registration number names what is registered: 1 or 5 a
# legal entity (OGRN), 3 an individual entrepreneur (OGRNIP); 2, 4, 6-9 number registry records.
FIRST_DIGITS: dict[str, tuple[str, ...]] = {"OGRN": ("1", "5"), "OGRNIP": ("3",)}
_FORM_NAMES = {LegalForm.LEGAL_ENTITY: "a legal entity", LegalForm.ENTREPRENEUR: "an individual entrepreneur"}


def _weighted(digits: str, weights: tuple[int, ...]) -> int:
    return sum(int(d) * w for d, w in zip(digits, weights, strict=False)) % 11 % 10


def _digit_problem(code: str, label: str, value: str, position: int, expected: int) -> Problem:
    ordinal = {10: "10th", 11: "11th", 12: "12th", 13: "13th", 15: "15th"}[position]
    return Problem(
        code,
        f"{label} {value}: the check digit ({ordinal}) should be {expected}, not {value[position - 1]}",
    )


def inn_problems(inn: str) -> list[Problem]:
    """CL-1: 10 digits with one check digit, or 12 digits with two."""
    if not inn.isascii() or not inn.isdigit():
        return [Problem("inn-not-digits", f"INN '{inn}' must contain digits only")]
    if len(inn) == 10:
        expected = _weighted(inn, _INN10)
        return [] if int(inn[9]) == expected else [_digit_problem("inn-check-digit", "INN", inn, 10, expected)]
    if len(inn) == 12:
        problems = []
        eleventh = _weighted(inn, _INN11)
        if int(inn[10]) != eleventh:
            problems.append(_digit_problem("inn-check-digit", "INN", inn, 11, eleventh))
        twelfth = _weighted(inn, _INN12)
        if int(inn[11]) != twelfth:
            problems.append(_digit_problem("inn-check-digit", "INN", inn, 12, twelfth))
        return problems
    return [Problem("inn-length", f"INN {inn} has {len(inn)} digits; it must have 10 or 12")]


def ogrn_problems(ogrn: str) -> list[Problem]:
    """CL-1: OGRN 13 digits (first 12 mod 11, last digit) or OGRNIP 15 (first 14 mod 13, last digit)."""
    if not ogrn.isascii() or not ogrn.isdigit():
        return [Problem("ogrn-not-digits", f"OGRN/OGRNIP '{ogrn}' must contain digits only")]
    if len(ogrn) == 13:
        label, expected = "OGRN", int(ogrn[:12]) % 11 % 10
    elif len(ogrn) == 15:
        label, expected = "OGRNIP", int(ogrn[:14]) % 13 % 10
    else:
        return [Problem("ogrn-length", f"OGRN/OGRNIP {ogrn} has {len(ogrn)} digits; OGRN has 13, OGRNIP 15")]
    problems = (
        [] if int(ogrn[-1]) == expected else [_digit_problem("ogrn-check-digit", label, ogrn, len(ogrn), expected)]
    )
    allowed = FIRST_DIGITS[label]
    if ogrn[0] not in allowed:
        problems.insert(
            0,
            Problem(
                "ogrn-first-digit",
                f"{label} {ogrn} begins with {ogrn[0]}: an {label} begins with {' or '.join(allowed)} "
                "(other first digits number a registry record, not an entity)",
            ),
        )
    return problems


def identifier_problems(legal_form: str, inn: str, ogrn: str) -> list[Problem]:
    """CL-1: both numbers valid and their lengths matching the legal form. Every problem found."""
    problems = inn_problems(inn) + ogrn_problems(ogrn)
    try:
        form = LegalForm(legal_form)
    except ValueError:
        known = ", ".join(f.value for f in LegalForm)
        return [Problem("legal-form-unknown", f"unknown legal form '{legal_form}'; use one of: {known}")] + problems
    inn_length, ogrn_length, ogrn_label = LENGTHS[form]
    who = _FORM_NAMES[form]
    if inn.isdigit() and len(inn) in (10, 12) and len(inn) != inn_length:
        problems.append(
            Problem("inn-form-mismatch", f"{who} has a {inn_length}-digit INN, not {len(inn)} digits ({inn})")
        )
    if ogrn.isdigit() and len(ogrn) in (13, 15) and len(ogrn) != ogrn_length:
        problems.append(
            Problem(
                "ogrn-form-mismatch",
                f"{who} has a {ogrn_length}-digit {ogrn_label}, not {len(ogrn)} digits ({ogrn})",
            )
        )
    return problems
