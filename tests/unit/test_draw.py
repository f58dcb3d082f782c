"""PD-12, SP-13: draws by lot use a committed seed that anyone can re-check."""

import hashlib
import hmac
import re

from hypothesis import given
from hypothesis import strategies as st

from domain.draw import (
    POKER_SEAT_DRAW,
    PUSOY_DRAW,
    combined,
    commitment,
    description,
    keyed,
    matches,
    new_seed,
    platform_seed,
    seed_key,
    shuffled,
)


def test_pd_12_the_commitment_is_the_sha256_of_the_seed():
    """PD-12"""
    assert commitment("abc") == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
    assert matches("abc", commitment("abc"))
    assert not matches("abd", commitment("abc"))


def test_pd_12_a_draw_is_reproducible_from_its_seed_and_purpose():
    """PD-12"""
    seed = new_seed()
    items = list(range(32))
    assert shuffled(seed, "round-1", items) == shuffled(seed, "round-1", items)
    assert shuffled(seed, "round-1", items) != shuffled(seed, "round-2", items)


@given(st.text(min_size=1), st.lists(st.integers(), unique=True))
def test_pd_12_a_draw_is_a_permutation_of_its_items(seed, items):
    """PD-12"""
    assert sorted(shuffled(seed, "x", items)) == sorted(items)


PLATFORM = st.text(alphabet="0123456789abcdef", min_size=64, max_size=64)
FLOOR = st.none() | st.text(min_size=1, max_size=200)


def test_sp_13_the_draw_seed_is_the_sha256_of_platform_colon_floor():
    """SP-13: the combining function anyone can re-run: sha256("{platform}:{floor}")."""
    assert combined("a" * 64, "lucky") == hashlib.sha256(f"{'a' * 64}:lucky".encode()).hexdigest()
    assert combined("a" * 64, None) == combined("a" * 64, "") == hashlib.sha256(f"{'a' * 64}:".encode()).hexdigest()


@given(PLATFORM, FLOOR, PLATFORM, FLOOR)
def test_sp_13_two_different_pairs_of_seeds_never_give_the_same_draw_seed(p1, f1, p2, f2):
    """SP-13: the draw seed depends on both seeds: change either and it changes (the platform seed's
    fixed 64 hex digits keep "{platform}:{floor}" unambiguous)."""
    seed = combined(p1, f1)
    assert len(seed) == 64 and set(seed) <= set("0123456789abcdef")
    assert seed == combined(p1, f1)
    assert (seed == combined(p2, f2)) == ((p1, f1 or "") == (p2, f2 or ""))


@given(PLATFORM, FLOOR, st.lists(st.integers(), min_size=2, max_size=20, unique=True))
def test_sp_13_a_floor_seed_alone_does_not_fix_the_draw(platform, floor, items):
    """SP-13: the same floor seed with the platform's seed reversed draws from another seed."""
    other = platform[::-1] if platform[::-1] != platform else "f" * 64 if platform != "f" * 64 else "0" * 64
    assert combined(platform, floor) != combined(other, floor)
    assert sorted(shuffled(combined(platform, floor), "x", items)) == sorted(items)


def test_sp_13_the_platform_seed_is_the_hmac_sha256_of_the_draw_under_the_draw_key():
    """SP-13, PD-12: a seed derived from the platform secret by two HMAC-SHA256 steps (the key for
    draw seeds, then the draw's description), re-computable with the standard library alone."""
    secret = b"a-platform-secret-of-at-least-32-bytes!"
    key = hmac.new(secret, b"draw-seeds", hashlib.sha256).digest()
    assert seed_key(secret) == key != secret
    what = description(POKER_SEAT_DRAW, 7, 1)
    assert what == "poker-seat-draw|7|1"
    assert platform_seed(key, what) == hmac.new(key, b"poker-seat-draw|7|1", hashlib.sha256).hexdigest()
    assert re.fullmatch("[0-9a-f]{64}", platform_seed(key, what))
    assert keyed(key)(what) == platform_seed(key, what)


def test_sp_13_another_key_another_draw_or_another_chain_gives_another_seed():
    """SP-13, PD-12"""
    key, other = seed_key(b"one-platform-secret-of-32-bytes-or-more"), seed_key(b"another-platform-secret-of-32-bytes")
    seeds = {
        platform_seed(key, description(POKER_SEAT_DRAW, 7, 1)),
        platform_seed(other, description(POKER_SEAT_DRAW, 7, 1)),
        platform_seed(key, description(POKER_SEAT_DRAW, 7, 2)),
        platform_seed(key, description(POKER_SEAT_DRAW, 71, 1)),
        platform_seed(key, description(PUSOY_DRAW, 7, 1)),
    }
    assert len(seeds) == 5
