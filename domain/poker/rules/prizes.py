"""Prize lines, the four presets, ITM and the bubble (Sport Poker 3.4, RULES SP-3, SP-4).

A prize list is a tuple of non-monetary descriptions: line n is the prize of place n. An empty list
is a tournament without prizes.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from domain.errors import Problem, raise_problems
from domain.poker.rules.wording.check import MAX_DESCRIPTION_CHARS, money_problem

MAX_LINES = 200


def prize_line_problems(lines: Sequence[str]) -> list[Problem]:
    """Every problem of a prize list (SP-4): too many lines, empty or too long lines, money."""
    problems: list[Problem] = []
    if len(lines) > MAX_LINES:
        problems.append(
            Problem(
                "prizes-too-many-lines",
                "%(count_lines)s prize lines: at most %(max_lines)s are allowed",
                count_lines=len(lines),
                max_lines=MAX_LINES,
            )
        )
    for n, line in enumerate(lines, start=1):
        problems += prize_line_problem(n, line)
    return problems


def prize_line_problem(n: int, line: str) -> list[Problem]:
    """The problems of prize line `n` alone (SP-4): empty, too long, naming money."""
    problems: list[Problem] = []
    if not line.strip():
        problems.append(Problem("prize-line-empty", "prize line %(n)s is empty", n=n))
    elif len(line) > MAX_DESCRIPTION_CHARS:
        problems.append(
            Problem(
                "prize-line-too-long",
                "prize line %(n)s has %(count_line)s characters: at most %(max_description_chars)s are allowed",
                n=n,
                count_line=len(line),
                max_description_chars=MAX_DESCRIPTION_CHARS,
            )
        )
    found = money_problem(line, f"prize line {n}")
    if found:
        problems.append(found)
    return problems


def validated_prize_lines(lines: Sequence[str]) -> tuple[str, ...]:
    """The lines as stored (stripped), or a DomainError naming every problem."""
    cleaned = tuple(line.strip() for line in lines)
    raise_problems(prize_line_problems(cleaned))
    return cleaned


# -- ITM and the bubble (SP-3) -------------------------------------------------------------------


def paid_places(entries: int, players: int, percent: int, minimum: int = 1) -> int:
    """SP-3: round-half-up(percent × entries / 100), at least max(minimum, 1), at most `players`.

    `entries` counts every non-voided entry (re-entries included); `players` the distinct players.
    Integer arithmetic: floor(x + 1/2) = (2·percent·entries + 100) // 200.
    """
    rounded = (2 * percent * entries + 100) // 200
    return min(max(rounded, minimum, 1), players)


@dataclass(frozen=True)
class Itm:
    paid_places: int
    remaining: int

    @property
    def remaining_to_money(self) -> int:
        return self.remaining - self.paid_places

    @property
    def on_bubble(self) -> bool:
        return self.remaining_to_money == 1

    @property
    def in_money(self) -> bool:
        return self.remaining_to_money <= 0


def itm(entries: int, players: int, remaining: int, percent: int, minimum: int = 1) -> Itm:
    """SP-3: paid places and where the remaining players stand."""
    return Itm(paid_places(entries, players, percent, minimum), remaining)


# -- presets (3.4) -------------------------------------------------------------------------------

PRESETS: dict[str, str] = {
    "cup": "Cup and free entries: a classic for the top 3",
    "merch": "Club merch: hoodie, T-shirt, cap for the top 3",
    "certificates": "Venue certificates: dinner and drinks from the club for the top 3",
    "freerolls": "Freerolls for all ITM: a free entry for each paid place, 10% of the field",
}
FREEROLL_PERCENT = 10
# The presets' lines in each language the club's documents speak (stored as written, like any prize
# line: a document prints them as they are, so they are stored in the club's language).
_FIXED: dict[str, dict[str, tuple[str, ...]]] = {
    "cup": {
        "en": ("Cup and a free entry", "Free entry", "Free entry"),
        "ru": ("Кубок и вход на турнир клуба", "Вход на турнир клуба", "Вход на турнир клуба"),
    },
    "merch": {
        "en": ("Club hoodie", "Club T-shirt", "Club cap"),
        "ru": ("Худи клуба", "Футболка клуба", "Кепка клуба"),
    },
    "certificates": {
        "en": ("Dinner for 2 at the club", "Dinner for 1 at the club", "Drinks for 2 at the bar"),
        "ru": ("Ужин на двоих в клубе", "Ужин на одного в клубе", "Напитки на двоих в баре"),
    },
}
FREEROLL_LINE = {
    "en": "Free entry (freeroll) to a next tournament of the club",
    "ru": "Вход на следующий турнир клуба (фриролл)",
}
PRESET_LOCALES = tuple(FREEROLL_LINE)


def preset_lines(name: str, entries: int, players: int, locale: str) -> tuple[str, ...]:
    """A preset's lines in `locale` (the club's documents language), trimmed to the field: no more
    lines than players (3.4).

    "freerolls" has one line per paid place at 10% of the field (SP-3 with percent 10, minimum 1).
    """
    if locale not in PRESET_LOCALES:
        raise ValueError(f"no preset prize lines in {locale!r}")
    if name == "freerolls":
        return (FREEROLL_LINE[locale],) * paid_places(entries, players, FREEROLL_PERCENT)
    if name not in _FIXED:
        known = ", ".join(PRESETS)
        raise_problems(
            [
                Problem(
                    "prize-preset-unknown",
                    "unknown prize preset '%(name)s'; presets: %(known)s",
                    name=name,
                    known=known,
                )
            ]
        )
    return _FIXED[name][locale][:players]
