"""A new club's details, checked before anything is written: identifiers (CL-1), e-mail, timezone."""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache
from zoneinfo import available_timezones

from domain.clubs.rules.identifiers import identifier_problems
from domain.errors import Problem

_EMAIL = re.compile(r"^[^@\s]+@[^@\s]+\.[^@\s.]+$")


@dataclass(frozen=True)
class NewClub:
    name: str
    legal_form: str
    inn: str
    ogrn: str
    contact_email: str
    timezone: str


@cache
def _timezones() -> frozenset[str]:
    return frozenset(available_timezones())


def club_problems(club: NewClub) -> list[Problem]:
    """Every problem with a new club's details (empty when it may be listed)."""
    problems = []
    if not club.name.strip():
        problems.append(Problem("name-missing", "the club needs a name"))
    problems += identifier_problems(club.legal_form, club.inn, club.ogrn)
    if not _EMAIL.match(club.contact_email):
        problems.append(Problem("email-invalid", f"'{club.contact_email}' is not an e-mail address (results go there)"))
    if club.timezone not in _timezones():
        problems.append(
            Problem("timezone-unknown", f"unknown timezone '{club.timezone}'; use an IANA name like Europe/Moscow")
        )
    return problems
