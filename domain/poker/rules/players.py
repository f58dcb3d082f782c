"""Players (Sport Poker 1.2.1 adults only, 1.5.3 blocks, 1.6.1 forgetting): who may sign up."""

from __future__ import annotations

import re
from datetime import date

from domain.errors import Problem

ADULT_AGE = 18
MAX_NAME = 200
EARLIEST_BIRTH = date(1900, 1, 1)
HANDLE = re.compile(r"^[^\W\d_][\w.-]{1,31}$")


def age_on(birth_date: date, day: date) -> int:
    """Whole years on `day`; someone born on 29 February turns a year older on 1 March in
    non-leap years."""
    return day.year - birth_date.year - ((day.month, day.day) < (birth_date.month, birth_date.day))


def profile_problems(name: str, handle: str, birth_date: date, today: date) -> list[Problem]:
    out: list[Problem] = []
    if not name.strip():
        out.append(Problem("name-blank", "the player needs a name"))
    elif len(name) > MAX_NAME:
        out.append(
            Problem(
                "name-too-long",
                "the name is %(count_name)s characters long: at most %(max_name)s",
                count_name=len(name),
                max_name=MAX_NAME,
            )
        )
    if not HANDLE.match(handle):
        out.append(
            Problem(
                "handle-invalid",
                "handle '%(handle)s' must start with a letter and be 2–32 letters, digits, '.', '-' or '_'",
                handle=handle,
            )
        )
    if birth_date < EARLIEST_BIRTH:
        out.append(
            Problem(
                "birth-date-too-early",
                "date of birth %(birth_date)s is before %(earliest_birth)s",
                birth_date=birth_date,
                earliest_birth=EARLIEST_BIRTH,
            )
        )
    elif birth_date > today:
        out.append(
            Problem("birth-date-in-future", "date of birth %(birth_date)s is in the future", birth_date=birth_date)
        )
    elif age_on(birth_date, today) < ADULT_AGE:
        out.append(
            Problem(
                "player-under-18",
                "the player is under %(adult_age)s: the service is for adults only (rule 1.2.1)",
                adult_age=ADULT_AGE,
            )
        )
    return out


def eligibility_problems(birth_date: date | None, blocked: bool, forgotten: bool, today: date) -> list[Problem]:
    """May this player register for a tournament today (1.2.1, 1.5.3, 1.6.1)?"""
    if forgotten or birth_date is None:
        return [Problem("player-forgotten", "the player asked to be forgotten and can no longer register (rule 1.6.1)")]
    out: list[Problem] = []
    if blocked:
        out.append(Problem("player-blocked", "the player is blocked and may not register (rule 1.5.3)"))
    if age_on(birth_date, today) < ADULT_AGE:
        out.append(
            Problem(
                "player-under-18",
                "the player is under %(adult_age)s: registration is refused (rule 1.2.1)",
                adult_age=ADULT_AGE,
            )
        )
    return out
