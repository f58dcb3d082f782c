"""Join codes (RULES PD-3): 6 characters from an alphabet without look-alikes, drawn with the RNG
the caller passes (the service passes `secrets.SystemRandom()`), matched case-insensitively."""

from __future__ import annotations

import random

ALPHABET = "23456789ABCDEFGHJKLMNPQRSTUVWXYZ"
LENGTH = 6


def new_code(rng: random.Random) -> str:
    return "".join(rng.choice(ALPHABET) for _ in range(LENGTH))


def normalise(code: str) -> str:
    """What a typed code is matched as: trimmed and upper-cased."""
    return code.strip().upper()
