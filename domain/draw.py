"""Draws by lot with a committed seed (RULES PD-12; used by Pusoy Dos and live-poker seating).

Before a draw the service stores `commitment(seed)` (its SHA-256, published); the draw itself is a
pure function of the seed, a purpose label and the items in a canonical order; after the draw the
seed is revealed, and anyone can re-run `shuffled` and check `matches`.

The shuffle is Python's `random.Random(int(sha256(f"{seed}:{purpose}"), 16)).shuffle` over the
items as given (callers pass them sorted by id), so it can be re-run outside this project too.

SP-13 (live poker): the seed of a draw is `combined(platform_seed, floor_seed)`, the SHA-256 of
`"{platform_seed}:{floor_seed}"` (an absent floor seed is the empty string). The platform's seed is
committed before the floor's seed is known, so neither side alone chooses the outcome.

The platform's seed of a pending draw is in no table: it is `platform_seed(key, description)`, an
HMAC-SHA256 of the draw's `description` (the kind of chain, the tournament, the draw's number) under
`seed_key(secret)`, a key derived from the platform secret (which the database does not hold). The
database keeps only its commitment until the draw reveals it. The entry points hand the services a
`SeedSource` (flows/bootstrap.py `draw_seeds`); this module only derives.
"""

from __future__ import annotations

import hashlib
import hmac
import random
import secrets
from collections.abc import Callable, Sequence
from typing import TypeVar

T = TypeVar("T")

SeedSource = Callable[[str], str]
"""The platform's seed of a draw from the draw's description (`description`)."""

POKER_SEAT_DRAW = "poker-seat-draw"  # a live-poker tournament's chain (SP-13, poker_seat_draws)
PUSOY_DRAW = "pusoy-draw"  # a Pusoy Dos tournament's chain (PD-12, pusoy_draws)
SEED_KEY_LABEL = b"draw-seeds"


def description(chain: str, tournament_id: int, seq: int) -> str:
    """What a platform seed is derived from: `"poker-seat-draw|<tournament id>|<seq>"` (or
    `pusoy-draw|...`). One seed per draw of a chain, and no two chains share one."""
    return f"{chain}|{tournament_id}|{seq}"


def seed_key(secret: bytes) -> bytes:
    """The key of the draw seeds, derived from the platform secret for this purpose alone, so the
    documents' signing key (DOC-2) and the draw seeds are separate."""
    return hmac.new(secret, SEED_KEY_LABEL, hashlib.sha256).digest()


def platform_seed(key: bytes, what: str) -> str:
    """SP-13, PD-12: the platform's seed of the draw `what` describes, 64 hex digits: whoever does
    not hold the key can neither compute it nor tell it from a random seed before it is revealed."""
    return hmac.new(key, what.encode(), hashlib.sha256).hexdigest()


def keyed(key: bytes) -> SeedSource:
    """The seed source of one key."""
    return lambda what: platform_seed(key, what)


def new_seed() -> str:
    """A fresh seed from the operating system's cryptographic RNG (called by services, not rules;
    the mystery prize order's, SP-11)."""
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
