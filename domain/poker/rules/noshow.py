"""No-shows (Sport Poker 3.8) and the dead stack of an absent player (RULES SP-6).

At the close of late registration every registered player not checked in gets the tournament's
policy: `drop` cancels the registration; `absent_mode` seats a dead stack that pays the forced bets
of each level until the player arrives or the stack reaches 0 (a bust with no killer).

SP-6: hands_per_level = level minutes × hands_per_hour / 60; per hand the ante (classic ante), plus
the small and big blind once per orbit of the table's size (a big-blind ante is paid with the big
blind, once per orbit). Choices where the rules are silent: the charge for a level is made when the
level starts (a level that starts after the dead stack was seated), computed exactly in fractions
and rounded down to a whole chip; break levels cost nothing; a table of fewer than two counts as two;
dead stacks that reach 0 at the same level start bust together (one bust number).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction
from math import floor

POLICIES = ("drop", "absent_mode")
ANTE_TYPES = ("none", "classic", "bb_ante")
DEFAULT_HANDS_PER_HOUR = 30


@dataclass(frozen=True)
class Registration:
    id: int
    player_id: int
    checked_in: bool


@dataclass(frozen=True)
class NoShow:
    registration: int
    player_id: int
    action: str  # "cancel" or "dead-stack"


@dataclass(frozen=True)
class Charge:
    paid: int
    stack: int
    busted: bool


def no_shows(policy: str, registrations: Sequence[Registration]) -> tuple[NoShow, ...]:
    """What the policy does to each registered player who has not checked in."""
    if policy not in POLICIES:
        raise ValueError(f"unknown no-show policy {policy!r}")
    action = "cancel" if policy == "drop" else "dead-stack"
    return tuple(
        NoShow(r.id, r.player_id, action) for r in sorted(registrations, key=lambda r: r.id) if not r.checked_in
    )


def level_cost(
    small: int, big: int, ante: int, seconds: int, ante_type: str, table_size: int, hands_per_hour: int
) -> int:
    """SP-6: the forced bets one seat pays over a level's estimated hands (rounded down)."""
    if ante_type not in ANTE_TYPES:
        raise ValueError(f"unknown ante type {ante_type!r}")
    hands = Fraction(seconds * hands_per_hour, 3600)
    orbits = hands / max(table_size, 2)
    per_orbit = small + big + (ante if ante_type == "bb_ante" else 0)
    per_hand = ante if ante_type == "classic" else 0
    return floor(hands * per_hand + orbits * per_orbit)


def charge(stack: int, cost: int) -> Charge:
    """The dead stack pays `cost`, at most what it has; at 0 it busts."""
    paid = min(stack, cost)
    return Charge(paid, stack - paid, stack - paid == 0)
