"""League points and standings, pure (RULES LG-2, LG-3)."""

from __future__ import annotations

from decimal import Decimal
from fractions import Fraction

from hypothesis import given
from hypothesis import strategies as st

from domain.leagues.rules.points import (
    Placing,
    Result,
    block_points,
    bonus_points,
    half_up,
    place_points,
    results,
    sqrt_points,
    standings,
)

D = Decimal


def test_lg2_worked_example_sqrt_16_players_places_3_and_4_shared_average():
    """LG-2: 10 × √(16/3) = 23.09, 10 × √(16/4) = 20.00, each scores 21.55 (21.545 half-up)."""
    assert sqrt_points(16, 3) == D("23.09")
    assert sqrt_points(16, 4) == D("20.00")
    assert block_points("sqrt", (), 16, 3, 2, "average") == D("21.55")
    assert block_points("sqrt", (), 16, 3, 2, "best") == D("23.09")


def test_lg2_table_places_not_listed_score_zero():
    """LG-2"""
    table = (D(25), D(18), D(15))
    assert place_points("table", table, 40, 2) == D("18.00")
    assert place_points("table", table, 40, 4) == D("0.00")
    assert block_points("table", table, 40, 3, 2, "average") == D("7.50")


def test_lg2_knockout_bonus_is_exact_then_rounded_half_up():
    """LG-2: b × credit exactly (1/3 stays 1/3), rounded half-up."""
    assert bonus_points(D("2.5"), Fraction(3, 2)) == D("3.75")
    assert bonus_points(D("1"), Fraction(1, 3)) == D("0.33")
    assert bonus_points(D("0.5"), Fraction(1, 8)) == D("0.06")  # 0.0625
    assert bonus_points(D("0.1"), Fraction(1, 4)) == D("0.03")  # 0.025 half-up
    assert half_up(Fraction(21545, 1000)) == D("21.55")


def test_lg2_a_result_adds_place_points_and_bonus():
    """LG-2"""
    rows = results(
        [Placing(1, 10, 1, Fraction(3)), Placing(1, 11, 2, Fraction(1, 2)), Placing(1, 12, 3)],
        formula="sqrt",
        table=(),
        shared="average",
        bonus=D("1"),
    )
    assert {r.player_id: r.points for r in rows} == {10: D("17.32") + 3, 11: D("12.25") + D("0.50"), 12: D("10.00")}


def test_lg3_best_k_first_places_and_shared_ranks():
    """LG-3"""
    rs = [
        Result(1, 1, 1, D("30")),
        Result(2, 1, 5, D("1")),
        Result(1, 2, 2, D("20")),
        Result(2, 2, 1, D("11")),
        Result(1, 3, 3, D("31")),
        Result(1, 4, 4, D("31")),
    ]
    table = standings(rs, best_k=1)
    assert [(s.player_id, s.rank, s.total) for s in table] == [
        (3, 1, D("31")),
        (4, 1, D("31")),
        (1, 3, D("30")),
        (2, 4, D("20")),
    ]
    all_results = standings(rs)
    # all four total 31; 1 and 2 have a first place each, the best single result puts 1 (30) before
    # 2 (20); 3 and 4 have none and the same best (31): they share rank 3
    assert [(s.player_id, s.rank) for s in all_results] == [(1, 1), (2, 2), (3, 3), (4, 3)]


@given(
    st.lists(st.tuples(st.integers(1, 5), st.integers(1, 8), st.decimals(0, 100, places=2)), max_size=30),
    st.none() | st.integers(1, 4),
)
def test_lg3_ranks_are_monotone_and_ties_share_them(raw, k):
    """LG-3: derived from the results alone; ranks never go down the table, level rows share one."""
    rs = [Result(i, p, place, pts) for i, (p, place, pts) in enumerate(raw)]
    table = standings(rs, k)
    for a, b in zip(table, table[1:]):
        assert (a.total, a.firsts, a.best) >= (b.total, b.firsts, b.best)
        if (a.total, a.firsts, a.best) == (b.total, b.firsts, b.best):
            assert a.rank == b.rank
        else:
            assert b.rank == table.index(b) + 1
