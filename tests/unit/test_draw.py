"""PD-12: draws by lot use a committed seed that anyone can re-check."""

from hypothesis import given
from hypothesis import strategies as st

from domain.draw import commitment, matches, new_seed, shuffled


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
