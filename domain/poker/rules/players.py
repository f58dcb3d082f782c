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
        out.append(Problem("name-too-long", f"the name is {len(name)} characters long: at most {MAX_NAME}"))
    if not HANDLE.match(handle):
        out.append(
            Problem(
                "handle-invalid",
                f"handle '{handle}' must start with a letter and be 2–32 letters, digits, '.', '-' or '_'",
            )
        )
    if birth_date < EARLIEST_BIRTH:
        out.append(
            Problem(
                "birth-date-too-early", f"date of birth {birth_date.isoformat()} is before {EARLIEST_BIRTH.isoformat()}"
            )
        )
    elif birth_date > today:
        out.append(Problem("birth-date-in-future", f"date of birth {birth_date.isoformat()} is in the future"))
    elif age_on(birth_date, today) < ADULT_AGE:
        out.append(
            Problem("player-under-18", f"the player is under {ADULT_AGE}: the service is for adults only (rule 1.2.1)")
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
        out.append(Problem("player-under-18", f"the player is under {ADULT_AGE}: registration is refused (rule 1.2.1)"))
    return out
