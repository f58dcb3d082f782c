"""Draws by lot with a committed seed (RULES PD-12; used by Pusoy Dos and live-poker seating).

Before a draw the service stores `commitment(seed)` (its SHA-256, published); the draw itself is a
pure function of the seed, a purpose label and the items in a canonical order; after the draw the
seed is revealed, and anyone can re-run `shuffled` and check `matches`.

The shuffle is Python's `random.Random(int(sha256(f"{seed}:{purpose}"), 16)).shuffle` over the
items as given (callers pass them sorted by id), so it can be re-run outside this project too.

SP-13 (live poker): the seed of a draw is `combined(platform_seed, floor_seed)`, the SHA-256 of
`"{platform_seed}:{floor_seed}"` (an absent floor seed is the empty string). The platform's seed is
committed before the floor's seed is known, so neither side alone chooses the outcome.
"""

from __future__ import annotations

import hashlib
import hmac
import random
import secrets
from collections.abc import Sequence
from typing import TypeVar

T = TypeVar("T")


def new_seed() -> str:
    """A fresh seed from the operating system's cryptographic RNG (called by services, not rules)."""
    return secrets.token_hex(32)


def commitment(seed: str) -> str:
    return hashlib.sha256(seed.encode()).hexdigest()


def matches(seed: str, published: str) -> bool:
    return hmac.compare_digest(commitment(seed), published)


def combined(platform_seed: str, floor_seed: str | None) -> str:
    """SP-13: the seed of a draw from the platform's committed seed (64 hex digits, so the colon
    after it is unambiguous) and the floor's optional seed."""
    return hashlib.sha256(f"{platform_seed}:{floor_seed or ''}".encode()).hexdigest()


def rng(seed: str, purpose: str) -> random.Random:
    """The seeded RNG of one draw: same seed and purpose, same sequence."""
    return random.Random(int(hashlib.sha256(f"{seed}:{purpose}".encode()).hexdigest(), 16))


def shuffled(seed: str, purpose: str, items: Sequence[T]) -> list[T]:
    out = list(items)
    rng(seed, purpose).shuffle(out)
    return out
