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


MAX_NAME = 200  # a club's name as the documents and pages show it


def profile_problems(name: str, contact_email: str, timezone: str) -> list[Problem]:
    """Every problem with a club's profile as its owner edits it (the name, where results and
    certificates go, the timezone of its times): empty when it may be saved."""
    problems = []
    if not name.strip():
        problems.append(Problem("name-missing", "the club needs a name"))
    elif len(name.strip()) > MAX_NAME:
        problems.append(
            Problem("name-too-long", f"the club's name has {len(name.strip())} characters: at most {MAX_NAME}")
        )
    if not _EMAIL.match(contact_email.strip()):
        problems.append(Problem("email-invalid", f"'{contact_email}' is not an e-mail address (results go there)"))
    if timezone not in _timezones():
        problems.append(
            Problem("timezone-unknown", f"unknown timezone '{timezone}'; use an IANA name like Europe/Moscow")
        )
    return problems
