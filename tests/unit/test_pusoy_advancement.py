"""Advancement, playoffs, reseating and final standings (PD-8, PD-9, PD-10, PD-12, PD-13)."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from domain.pusoy.rules.advancement import (
    Advance,
    Playoff,
    Seat,
    advance,
    final_standings,
    playoff_tables,
    reseat_order,
    seats,
)
from domain.pusoy.rules.bracket import default_bracket
from domain.pusoy.rules.scoring import Finish
from domain.pusoy.rules.standings import Standing, standings
from tests.unit.pusoy_cases import (
    SIX_FOR_THREE,
    THREE_FOR_TWO,
    TWO_FOR_ONE,
    WORKED_EXAMPLE,
    finishes,
    players,
)


def rank(games, playoffs=()):
    return standings(players(games), finishes(games), max(len(g) for g in games.values()), None, playoffs)


def test_pd_8_the_worked_example_advances_the_top_four_and_seats_the_final_table():
    """PD-8, PD-10: B, E, A, G advance; B seat 1, E seat 2, A seat 3, G seat 4."""
    outcome = advance(rank(WORKED_EXAMPLE), 4)
    assert isinstance(outcome, Advance)
    assert [s.player for s in outcome.advancers] == ["B", "E", "A", "G"]
    assert [s.player for s in outcome.eliminated] == ["H", "F", "D", "C"]
    order = reseat_order(outcome.advancers, "seed", "round-2 reseat")
    assert seats(order) == (Seat("B", 1, 1), Seat("E", 1, 2), Seat("A", 1, 3), Seat("G", 1, 4))


def test_pd_8_a_complete_tie_inside_the_advancers_needs_no_playoff():
    """PD-8/PD-9: A and E share rank 1, B and F rank 3; all four advance."""
    ranked = rank({1: [("A B C D", None)], 2: [("E F G H", None)]})
    outcome = advance(ranked, 4)
    assert isinstance(outcome, Advance)
    assert {s.player for s in outcome.advancers} == {"A", "E", "B", "F"}


def test_pd_9_two_tied_for_one_spot_play_off_and_the_winner_advances():
    """PD-9"""
    assert advance(rank(TWO_FOR_ONE), 4) == Playoff(("p02", "p06"), 1)
    after = rank(TWO_FOR_ONE, [{"p06": 1, "p02": 2}])
    outcome = advance(after, 4)
    assert [s.player for s in outcome.advancers] == ["p05", "p07", "p01", "p06"]
    assert [(s.player, s.rank, s.decided_by) for s in after[3:5]] == [
        ("p06", 4, "first-places"),
        ("p02", 5, "playoff-1"),
    ]


def test_pd_9_three_tied_for_two_spots_play_one_table():
    """PD-9"""
    playoff = advance(rank(THREE_FOR_TWO), 8)
    assert playoff == Playoff(("p03", "p09", "p15"), 2)
    (table,) = playoff_tables(playoff.players, "seed", "round-1 playoff-1")
    assert sorted(table) == ["p03", "p09", "p15"]
    after = rank(THREE_FOR_TWO, [{"p09": 1, "p03": 2, "p15": 3}])
    outcome = advance(after, 8)
    assert isinstance(outcome, Advance)
    assert {"p09", "p03"} <= {s.player for s in outcome.advancers}
    assert [s.player for s in outcome.eliminated][0] == "p15"


def test_pd_9_six_tied_for_three_spots_play_two_tables_then_the_seconds_play_again():
    """PD-9: six tied for three spots → two tables of three; both winners advance; the two
    seconds tie again on the cutoff → a further playoff among just those two."""
    first = advance(rank(SIX_FOR_THREE), 8)
    assert first == Playoff(("p02", "p06", "p10", "p14", "p26", "p30"), 3)
    tables = playoff_tables(first.players, "committed-seed", "round-1 playoff-1")
    assert sorted(len(t) for t in tables) == [3, 3]
    assert sorted(p for t in tables for p in t) == list(first.players)
    results = {p: i for t in tables for i, p in enumerate(t, start=1)}
    again = advance(rank(SIX_FOR_THREE, [results]), 8)
    seconds = tuple(sorted(t[1] for t in tables))
    assert again == Playoff(seconds, 1)
    settled = rank(SIX_FOR_THREE, [results, {seconds[1]: 1, seconds[0]: 2}])
    outcome = advance(settled, 8)
    assert isinstance(outcome, Advance)
    winners = {t[0] for t in tables}
    assert {s.player for s in outcome.advancers} >= winners | {seconds[1]}
    assert seconds[0] not in {s.player for s in outcome.advancers}
    ranks = {s.player: s.rank for s in settled}
    assert ranks[seconds[1]] == 8 and ranks[seconds[0]] == 9
    assert {ranks[t[2]] for t in tables} == {10}


def test_pd_9_a_tie_for_first_at_the_final_is_played_off_and_ties_for_second_stay_shared():
    """PD-9. Four players at one table can never be level after step 7 (their last-game positions
    differ), so this final is built from standings directly."""
    tied = (
        Standing("A", 9, 1, None),
        Standing("B", 9, 1, None),
        Standing("C", 5, 3, "points"),
        Standing("D", 5, 3, None),
    )
    assert advance(tied, 1) == Playoff(("A", "B"), 1)
    shared = (
        Standing("A", 9, 1, None),
        Standing("B", 5, 2, "points"),
        Standing("C", 5, 2, None),
        Standing("D", 1, 4, "points"),
    )
    outcome = advance(shared, 1)
    assert [s.player for s in outcome.advancers] == ["A"]
    assert [(s.player, s.rank) for s in outcome.eliminated] == [("B", 2), ("C", 2), ("D", 4)]


@pytest.mark.parametrize(
    ("k", "sizes"), [(2, [2]), (4, [4]), (5, [3, 2]), (6, [3, 3]), (8, [4, 4]), (9, [3, 3, 3]), (13, [4, 3, 3, 3])]
)
def test_pd_9_more_than_four_tied_split_into_ceil_k_over_4_even_tables(k, sizes):
    """PD-9, PD-12"""
    tables = playoff_tables([f"p{i:02d}" for i in range(k)], "seed", "round-1 playoff-1")
    assert [len(t) for t in tables] == sizes
    assert playoff_tables([f"p{i:02d}" for i in range(k)], "seed", "round-1 playoff-1") == tables


def test_pd_10_rank_r_sits_at_table_r_mod_t_seat_r_div_t():
    """PD-10"""
    order = [f"r{r:02d}" for r in range(1, 17)]
    placed = {s.player: (s.table, s.seat) for s in seats(order)}
    assert placed["r01"] == (1, 1) and placed["r02"] == (2, 1) and placed["r04"] == (4, 1)
    assert placed["r05"] == (1, 2) and placed["r16"] == (4, 4)


def test_pd_10_players_sharing_a_rank_are_ordered_by_the_seeded_draw():
    """PD-10, PD-12"""
    level = [Standing(p, 3, 1, None) for p in ("a", "b", "c", "d")]
    first = reseat_order(level, "seed-1", "round-2 reseat")
    assert sorted(first) == ["a", "b", "c", "d"]
    assert reseat_order(level, "seed-1", "round-2 reseat") == first
    assert {reseat_order(level, f"seed-{i}", "round-2 reseat") for i in range(20)} != {first}


def test_pd_13_every_entrant_gets_a_final_position_by_the_round_they_left():
    """PD-13"""
    round_1 = rank(WORKED_EXAMPLE)
    final = (
        Standing("E", 9, 1, None),
        Standing("B", 7, 2, "points"),
        Standing("G", 5, 3, "points"),
        Standing("A", 5, 3, None),
    )
    assert final_standings([round_1, final], [["B", "E", "A", "G"], []]) == (
        ("E", 1),
        ("B", 2),
        ("A", 3),
        ("G", 3),
        ("H", 5),
        ("F", 6),
        ("D", 7),
        ("C", 8),
    )


# -- properties ------------------------------------------------------------------------------------


@st.composite
def tournaments(draw):
    capacity = draw(st.sampled_from([8, 16, 32]))
    games = draw(st.integers(1, 3))
    return capacity, games, draw(st.randoms(use_true_random=False))


def play_table(seated, games, rnd, first_game=1):
    out = []
    for g in range(first_game, first_game + games):
        order = list(seated)
        rnd.shuffle(order)
        diamond = rnd.random() < 0.2
        out += [Finish(0, g, p, i, diamond and i == 1) for i, p in enumerate(order, start=1)]
    return out


@settings(max_examples=40, deadline=None)
@given(tournaments())
def test_pd_8_to_pd_13_random_tournaments_advance_exactly_n_reseat_every_seat_once_and_place_everyone(case):
    """PD-8, PD-9, PD-10, PD-13 (property): each completion advances exactly N or opens a playoff
    among players sharing a rank that straddles the cutoff; nobody advances twice; reseating fills
    every seat of the next round once; every entrant ends with one final position."""
    capacity, games, rnd = case
    fields = default_bracket(capacity)
    field = [f"p{i:02d}" for i in range(capacity)]
    locked, advanced = [], []
    for number, size in enumerate(fields, start=1):
        assert len(field) == size
        placed = seats(field)
        assert sorted((s.table, s.seat) for s in placed) == [
            (t, s) for t in range(1, size // 4 + 1) for s in range(1, 5)
        ]
        results = []
        for t in range(1, size // 4 + 1):
            at = [s.player for s in placed if s.table == t]
            results += [Finish(t, f.game, f.player, f.position, f.two_of_diamonds) for f in play_table(at, games, rnd)]
        n = fields[number] if number < len(fields) else 1
        playoffs: list[dict[str, int]] = []
        while True:
            ranked = standings(field, results, games, None, playoffs)
            outcome = advance(ranked, n)
            if isinstance(outcome, Advance):
                break
            by_rank = {s.player: s.rank for s in ranked}
            assert len({by_rank[p] for p in outcome.players}) == 1
            top = by_rank[outcome.players[0]]
            assert top <= n < top + len(outcome.players) - 1 and outcome.spots == n - top + 1
            result = {}
            for table in playoff_tables(outcome.players, "seed", f"{number}-{len(playoffs)}"):
                order = list(table)
                rnd.shuffle(order)
                result |= {p: i for i, p in enumerate(order, start=1)}
            playoffs.append(result)
        assert len(outcome.advancers) == n
        assert len({s.player for s in outcome.advancers}) == n
        locked.append(ranked)
        went_on = [] if number == len(fields) else list(reseat_order(outcome.advancers, "seed", f"r{number}"))
        advanced.append(went_on)
        field = went_on
    places = dict(final_standings(locked, advanced))
    assert sorted(places) == [f"p{i:02d}" for i in range(capacity)]
    assert sorted(places.values())[0] == 1 and list(places.values()).count(1) == 1
