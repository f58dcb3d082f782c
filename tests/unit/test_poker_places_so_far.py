"""SP-7 while the tournament runs: the place each bust gives, for the live results page."""

from hypothesis import given
from hypothesis import strategies as st

from domain.poker.rules.places import (
    LiveKnockout,
    PlacedEntry,
    PlaceSoFar,
    bust_places,
    places_so_far,
)


def test_sp7_a_bust_is_placed_after_the_players_still_in_and_those_busted_later():
    assert bust_places(5, [9, 8, 7]) == [6, 7, 8]


def test_sp7_a_block_of_simultaneous_busts_shares_the_best_place_and_the_next_bust_skips_its_places():
    # 4 still in; bust 9 alone, bust 8 two at once, bust 7 alone
    assert bust_places(4, [9, 8, 8, 7]) == [5, 6, 6, 8]


def test_sp7_places_so_far_take_each_players_last_entry_and_ignore_voided_entries_and_the_busted_earlier():
    entries = [
        PlacedEntry(1, 10, 1),
        PlacedEntry(2, 20, 1),
        PlacedEntry(3, 30, 1),
        PlacedEntry(4, 40, 1),
        PlacedEntry(5, 20, 2),  # 20 re-entered after bust 1: still in
        PlacedEntry(6, 50, 1, voided=True),
    ]
    knockouts = [LiveKnockout(2, 1), LiveKnockout(3, 2), LiveKnockout(4, 2), LiveKnockout(6, 3)]
    assert places_so_far(entries, knockouts, ["Cup", "Medal", "Ticket"]) == (
        PlaceSoFar(3, 30, "Ticket"),
        PlaceSoFar(3, 40, "Ticket"),
    )


def test_sp7_no_bust_yet_no_place():
    assert places_so_far([PlacedEntry(1, 10, 1), PlacedEntry(2, 20, 1)], []) == ()


@given(st.integers(1, 50), st.lists(st.integers(1, 4), max_size=12))
def test_sp7_each_block_takes_the_best_place_of_its_block_and_the_places_after_it_follow_on(still_in, blocks):
    numbers = [100 - b for b, size in enumerate(blocks) for _ in range(size)]  # latest first
    places = bust_places(still_in, numbers)
    expected, busted_later = [], 0
    for size in blocks:
        expected += [still_in + busted_later + 1] * size
        busted_later += size
    assert places == expected
    assert all(p > still_in for p in places) and places == sorted(places)
