"""Final places (Sport Poker 3.7, RULES SP-7): hand-worked elimination graphs and properties."""

from __future__ import annotations

from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from domain.errors import DomainError
from domain.poker.rules.places import LiveKnockout, PlacedEntry, final_places

PLAYERS = {name: n for n, name in enumerate("BCDEFGHIJK", start=1)}


def sp7_example():
    """RULES SP-7: eleven entries of ten players B..K; B re-enters (entry 12 after entry 1)."""
    entries = [PlacedEntry(entry_id=PLAYERS[p], player_id=PLAYERS[p], order=PLAYERS[p]) for p in PLAYERS]
    entries.append(PlacedEntry(entry_id=12, player_id=PLAYERS["B"], order=12))
    e = PLAYERS
    knockouts = [
        LiveKnockout(e["C"], 1, killer_entry_id=e["K"]),
        LiveKnockout(e["B"], 2, killer_entry_id=e["K"]),
        LiveKnockout(e["D"], 3, killer_entry_id=12),
        LiveKnockout(e["E"], 3, killer_entry_id=12, credit_halves=1),
        LiveKnockout(e["F"], 4, killer_entry_id=e["J"]),
        LiveKnockout(e["G"], 5, killer_entry_id=e["K"]),
        LiveKnockout(12, 6, killer_entry_id=e["H"]),
        LiveKnockout(e["H"], 7, killer_entry_id=e["K"]),
        LiveKnockout(e["I"], 8, killer_entry_id=e["J"]),
        LiveKnockout(e["J"], 9, killer_entry_id=e["K"]),
    ]
    return entries, knockouts


def by_name(places):
    names = {v: k for k, v in PLAYERS.items()}
    return {names[p.player_id]: p for p in places}


def test_sp_7_worked_example_gives_exactly_the_places_of_the_rules():
    """SP-7: K 1 · J 2 · I 3 · H 4 · B 5 · G 6 · F 7 · D and E 8 · C 10."""
    entries, knockouts = sp7_example()
    places = by_name(final_places(entries, knockouts))
    assert {name: p.place for name, p in places.items()} == {
        "K": 1,
        "J": 2,
        "I": 3,
        "H": 4,
        "B": 5,
        "G": 6,
        "F": 7,
        "D": 8,
        "E": 8,
        "C": 10,
    }


def test_sp_7_a_reentered_player_is_placed_by_the_last_entry_and_credits_sum_over_entries():
    """3.7: B's bust #2 gives no place; B's credit is summed over both entries (1 + 0.5)."""
    entries, knockouts = sp7_example()
    places = by_name(final_places(entries, knockouts))
    assert places["B"].entry_id == 12
    assert places["B"].bust_number == 6
    assert places["B"].credit == Fraction(3, 2)
    assert places["B"].knockouts == 2
    assert places["K"].credit == Fraction(5)
    assert places["K"].bust_number is None


def test_sp_7_places_are_refused_while_two_players_remain():
    """3.7: the calculation is not performed while more than one player is active."""
    entries, knockouts = sp7_example()
    with pytest.raises(DomainError) as refused:
        final_places(entries, knockouts[:-1])
    assert refused.value.code == "places-players-remain"
    assert "2 players are still in" in refused.value.message


def test_sp_7_voided_entries_are_excluded_with_their_knockouts_and_credits():
    """3.7: a voided entry gets no place, and its bust does not count."""
    entries = [
        PlacedEntry(1, 1, 1),
        PlacedEntry(2, 2, 2),
        PlacedEntry(3, 3, 3, voided=True),
        PlacedEntry(4, 4, 4),
    ]
    knockouts = [LiveKnockout(3, 1, killer_entry_id=1), LiveKnockout(2, 2, killer_entry_id=1), LiveKnockout(4, 3, 1)]
    places = final_places(entries, knockouts)
    assert [(p.player_id, p.place, p.credit) for p in places] == [
        (1, 1, Fraction(2)),
        (4, 2, Fraction(0)),
        (2, 3, Fraction(0)),
    ]


def test_sp_7_two_blocks_in_a_row_each_share_the_best_place_of_their_block():
    """SP-7: 6 players; #1 a block of 3 (places 4), #2 a block of 2 (places 2), the last is 1st."""
    entries = [PlacedEntry(n, n, n) for n in range(1, 7)]
    knockouts = [LiveKnockout(n, 1, 6) for n in (1, 2, 3)] + [LiveKnockout(n, 2, 6) for n in (4, 5)]
    assert [(p.player_id, p.place) for p in final_places(entries, knockouts)] == [
        (6, 1),
        (4, 2),
        (5, 2),
        (1, 4),
        (2, 4),
        (3, 4),
    ]


def test_sp_7_prizes_go_to_places_and_a_shared_place_shares_its_line():
    """3.4/3.7: line n to place n; the line of the place a block skips is not awarded."""
    entries = [PlacedEntry(n, n, n) for n in range(1, 5)]
    knockouts = [LiveKnockout(1, 1, 4), LiveKnockout(2, 2, 4), LiveKnockout(3, 2, 4)]
    places = final_places(entries, knockouts, prizes=("Cup", "Medal", "Cap"))
    assert [(p.player_id, p.place, p.prize) for p in places] == [
        (4, 1, "Cup"),
        (2, 2, "Medal"),
        (3, 2, "Medal"),
        (1, 4, None),
    ]


def test_sp_7_a_knockout_without_killer_places_the_player_and_credits_nobody():
    """SP-6 dead stack: no killer, a normal bust number."""
    entries = [PlacedEntry(1, 1, 1), PlacedEntry(2, 2, 2)]
    places = final_places(entries, [LiveKnockout(1, 1, None)])
    assert [(p.player_id, p.place, p.credit, p.knockouts) for p in places] == [
        (2, 1, Fraction(0), 0),
        (1, 2, Fraction(0), 0),
    ]


@st.composite
def tournaments(draw):
    """A random finished tournament: players, re-entries, blocks; returns entries and knockouts."""
    players = draw(st.integers(min_value=2, max_value=12))
    entries: list[PlacedEntry] = []
    knockouts: list[LiveKnockout] = []
    order = 0
    active: dict[int, int] = {}
    for p in range(1, players + 1):
        order += 1
        entries.append(PlacedEntry(order, p, order))
        active[p] = order
    number = 0
    while len(active) > 1:
        number += 1
        block = draw(st.integers(min_value=1, max_value=len(active) - 1))
        busted = draw(st.permutations(sorted(active)))[:block]
        killer = next(p for p in sorted(active) if p not in busted)
        for p in busted:
            knockouts.append(LiveKnockout(active.pop(p), number, active[killer], draw(st.sampled_from([1, 2]))))
            if draw(st.booleans()) and draw(st.booleans()):
                order += 1
                entries.append(PlacedEntry(order, p, order))
                active[p] = order
    return entries, knockouts, players


@settings(max_examples=60, deadline=None)
@given(tournaments())
def test_sp_7_every_player_gets_exactly_one_place_and_places_follow_the_bust_order(t):
    """SP-7 properties: one place per player, one champion, later bust never worse, ties share."""
    entries, knockouts, players = t
    places = final_places(entries, knockouts)
    assert sorted(p.player_id for p in places) == list(range(1, players + 1))
    assert [p.place for p in places].count(1) == 1
    busted = [p for p in places if p.bust_number is not None]
    for a in busted:
        for b in busted:
            if a.bust_number > b.bust_number:
                assert a.place < b.place
            if a.bust_number == b.bust_number:
                assert a.place == b.place
        # R − k + 1 with R the players in before the block and k its size
        k = sum(1 for b in busted if b.bust_number == a.bust_number)
        remaining_before = 1 + sum(1 for b in busted if b.bust_number >= a.bust_number)
        assert a.place == remaining_before - k + 1
    total = sum((p.credit for p in places), Fraction(0))
    assert total == sum(Fraction(k.credit_halves, 2) for k in knockouts)
