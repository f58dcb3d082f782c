"""Round standings: points from finishes and the eight-step cascade (PD-6, PD-7, PD-8)."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from domain.pusoy.rules.standings import CASCADE, round_stats, standings
from tests.unit.pusoy_cases import WORKED_EXAMPLE, Round, finishes, players


def rank(games: Round, last_game: int | None = None, earlier: dict[str, int] | None = None):
    last = last_game or max(len(g) for g in games.values())
    return standings(players(games), finishes(games), last, earlier)


def order_and_reasons(ranked):
    return [(s.player, s.points, s.rank, s.decided_by) for s in ranked]


def test_pd_7_the_cascade_is_the_eight_steps_in_order():
    """PD-7"""
    assert [name for name, _ in CASCADE] == [
        "first-places",
        "first-places-on-2d",
        "second-places",
        "third-places",
        "head-to-head",
        "earliest-first-place",
        "last-game-position",
        "earlier-rounds-points",
    ]


def test_pd_6_pd_7_the_worked_example_of_the_rules_exactly():
    """PD-6, PD-7, PD-8: RULES.md's 8-player round of 2 games."""
    assert order_and_reasons(rank(WORKED_EXAMPLE)) == [
        ("B", 6, 1, None),
        ("E", 5, 2, "points"),
        ("A", 5, 3, "first-places-on-2d"),
        ("G", 4, 4, "points"),
        ("H", 2, 5, "points"),
        ("F", 2, 6, "last-game-position"),
        ("D", 1, 7, "points"),
        ("C", 1, 8, "last-game-position"),
    ]


def neighbours(ranked, upper: str, lower: str) -> str | None:
    names = [s.player for s in ranked]
    assert names.index(lower) == names.index(upper) + 1, names
    return ranked[names.index(lower)].decided_by


# Each case: a round in which X and Y are level on points and on every step before `step`, and
# `step` puts X directly above Y.
STEP_CASES = {
    # X 3+0, Y 2+1: one win against none
    "first-places": {1: [("X Y C D", None), ("C D Y X", None)]},
    # X 4+0, Y 1+3: one win each, X's on the 2♦
    "first-places-on-2d": {1: [("X C Y D", "X"), ("Y D C X", None)]},
    # X 2+2+0, Y 1+1+2: no wins, two seconds against one
    "second-places": {
        1: [("C X D E", None), ("C X D E", None), ("C E D X", None)],
        2: [("F G Y H", None), ("F G Y H", None), ("F Y G H", None)],
    },
    # X 3+1+2, Y 2+3+1, same counts; X finished ahead of Y in games 1 and 3
    "head-to-head": {1: [("X Y C D", None), ("Y D X C", None), ("C X Y D", None)]},
    # X 3+0 at table 1, Y 0+3 at table 2: never met; X won first (game 1 against game 2)
    "earliest-first-place": {
        1: [("X C D E", None), ("C D E X", None)],
        2: [("F G H Y", None), ("Y F G H", None)],
    },
}


@pytest.mark.parametrize("step", sorted(STEP_CASES))
def test_pd_7_each_step_decides_when_the_steps_before_it_are_level(step):
    """PD-7"""
    ranked = rank(STEP_CASES[step])
    points = {s.player: s.points for s in ranked}
    assert points["X"] == points["Y"]
    assert neighbours(ranked, "X", "Y") == step


def test_pd_7_the_last_game_decides_after_six_level_steps():
    """PD-7 step 7: X and Y each one second and one fourth at different tables, no wins."""
    ranked = rank({1: [("C X D E", None), ("C D E X", None)], 2: [("F G H Y", None), ("F Y G H", None)]})
    assert neighbours(ranked, "Y", "X") == "last-game-position"


def test_pd_7_earlier_rounds_points_decide_last_and_are_level_in_round_one():
    """PD-7 step 8"""
    games = {1: [("C X D E", None)], 2: [("F Y G H", None)]}
    ranked = rank(games, earlier={"X": 7, "Y": 10})
    assert neighbours(ranked, "Y", "X") == "earlier-rounds-points"
    first_round = rank(games)
    shared = {s.player: s.rank for s in first_round}
    assert shared["X"] == shared["Y"]
    assert [s.decided_by for s in first_round if s.player in "XY"] == ["points", None]


def test_pd_7_third_places_cannot_decide_once_points_firsts_2d_and_seconds_are_level():
    """PD-7 step 4: points = 3·firsts + 2♦ wins + 2·seconds + thirds, so equal earlier steps and
    equal points leave the thirds equal; the step is kept in the cascade as the rules list it."""
    ranked = rank(
        {
            1: [("A B C D", None), ("B C D A", None), ("C D A B", None)],
            2: [("E F G H", None), ("F G H E", None), ("G H E F", None)],
        }
    )
    assert "third-places" not in {s.decided_by for s in ranked}


def test_pd_7_head_to_head_counts_only_games_against_the_same_still_level_group():
    """PD-7 step 5: C (all fourths ahead of nobody) does not count; X and Y are 1–1 between them,
    so step 5 leaves them level, although X finished ahead of C more often."""
    ranked = rank({1: [("X Y C D", None), ("Y X D C", None)]})
    by = {s.player: s for s in ranked}
    assert by["X"].points == by["Y"].points == 5
    # level through step 5 (1–1); step 6: X won game 1
    assert neighbours(ranked, "X", "Y") == "earliest-first-place"


def test_pd_7_a_player_who_shared_no_game_counts_zero_head_to_head():
    """PD-7 step 5: X (table 1) and Y (table 2) never met: 0–0, the step is level."""
    ranked = rank({1: [("C X D E", None)], 2: [("F Y G H", None)]}, earlier={"X": 1, "Y": 0})
    assert neighbours(ranked, "X", "Y") == "earlier-rounds-points"


def test_pd_8_players_level_after_all_eight_steps_share_one_rank():
    """PD-8"""
    ranked = rank({1: [("A B C D", None)], 2: [("E F G H", None)]})
    assert [(s.player, s.rank) for s in ranked] == [
        ("A", 1),
        ("E", 1),
        ("B", 3),
        ("F", 3),
        ("C", 5),
        ("G", 5),
        ("D", 7),
        ("H", 7),
    ]


@st.composite
def rounds(draw):
    tables = draw(st.integers(1, 4))
    games = draw(st.integers(1, 4))
    names = [f"p{i:02d}" for i in range(4 * tables)]
    out: Round = {}
    for t in range(tables):
        seated = names[4 * t : 4 * t + 4]
        played = []
        for _ in range(games):
            order = draw(st.permutations(seated))
            played.append((" ".join(order), order[0] if draw(st.booleans()) else None))
        out[t + 1] = played
    return out


@settings(max_examples=60, deadline=None)
@given(rounds())
def test_pd_8_standings_order_players_consistently_with_points(games):
    """PD-6, PD-8 (property): points never rise down the standings; ranks are shared only by
    neighbours level on points; every player is listed once."""
    ranked = rank(games)
    assert sorted(s.player for s in ranked) == players(games)
    assert all(a.points >= b.points for a, b in zip(ranked, ranked[1:]))
    for i, (a, b) in enumerate(zip(ranked, ranked[1:]), start=2):
        assert b.rank == (a.rank if b.decided_by is None else i)
        assert b.decided_by != "points" or a.points > b.points
    stats = round_stats(players(games), finishes(games), max(len(g) for g in games.values()))
    played = [game for g in games.values() for game in g]
    assert sum(s.points for s in stats.values()) == 6 * len(played) + sum(1 for _, d in played if d)
