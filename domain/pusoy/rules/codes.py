"""Join codes (RULES PD-3): 6 characters from an alphabet without look-alikes, drawn with the RNG
the caller passes (the service passes `secrets.SystemRandom()`), matched case-insensitively.
And the handles players and organizers are known by."""

from __future__ import annotations

import random

from domain.errors import Problem

ALPHABET = "23456789ABCDEFGHJKLMNPQRSTUVWXYZ"
LENGTH = 6


def new_code(rng: random.Random) -> str:
    return "".join(rng.choice(ALPHABET) for _ in range(LENGTH))


def normalise(code: str) -> str:
    """What a typed code is matched as: trimmed and upper-cased."""
    return code.strip().upper()


HANDLE_MAX = 40


def handle_problems(handle: str, what: str = "player") -> list[Problem]:
    """A player's or organizer's handle: 1 to 40 characters, no spaces, commas or '='."""
    if not handle or len(handle) > HANDLE_MAX or any(c.isspace() or c in ",=" for c in handle):
        return [
            Problem(
                f"bad-{what}",
                f"a {what} name is 1 to {HANDLE_MAX} characters without spaces, commas or '=', not {handle!r}",
            )
        ]
    return []
