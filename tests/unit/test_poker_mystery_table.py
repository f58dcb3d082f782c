"""The mystery prize table, pure rules (RULES SP-11)."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from domain.draw import shuffled
from domain.poker.rules.mystery import (
    Phase,
    next_prize,
    parse_phase,
    phase_reached,
    prize_order,
    prize_table_problems,
    table_draw_problems,
)


def codes(problems):
    return [p.code for p in problems]


def test_sp11_phases_parse_and_bad_ones_are_named():
    """SP-11"""
    assert parse_phase("start") == (Phase("start"), [])
    assert parse_phase("ITM") == (Phase("itm"), [])
    assert parse_phase("level:4") == (Phase("level", 4), [])
    for bad in ("level:0", "level:x", "later", ""):
        assert codes(parse_phase(bad)[1]) == ["mystery-phase-unknown"]


def test_sp11_every_prize_line_is_checked_for_money():
    """SP-11, SP-4"""
    assert prize_table_problems(["Кубок", "Dinner for 2"]) == []
    found = prize_table_problems(["Кубок", "5 000 р", " "])
    assert codes(found) == ["money-wording", "mystery-prize-blank"]
    assert "mystery prize 2" in found[0].message


@given(st.text(min_size=1, max_size=20), st.integers(1, 60))
def test_sp11_the_seed_orders_every_prize_once_and_draw_n_takes_the_nth(seed, n):
    """SP-11, PD-12: a permutation of the positions, re-runnable from the seed alone."""
    order = prize_order(seed, n)
    assert sorted(order) == list(range(1, n + 1))
    assert order == shuffled(seed, "mystery-prizes", list(range(1, n + 1)))
    assert [next_prize(seed, n, k) for k in range(n)] == order
    assert next_prize(seed, n, n) is None


def test_sp11_phase_start_itm_and_level():
    """SP-11"""
    assert phase_reached(Phase("start"), remaining_after=50, paid_places=3, knockout_level=None) == []
    assert codes(phase_reached(Phase("itm"), remaining_after=4, paid_places=3, knockout_level=None)) == [
        "mystery-phase-not-started"
    ]
    assert phase_reached(Phase("itm"), remaining_after=3, paid_places=3, knockout_level=None) == []
    assert codes(phase_reached(Phase("level", 3), remaining_after=9, paid_places=3, knockout_level=2)) == [
        "mystery-phase-not-started"
    ]
    assert codes(phase_reached(Phase("level", 3), remaining_after=9, paid_places=3, knockout_level=None)) == [
        "mystery-level-unknown"
    ]
    assert phase_reached(Phase("level", 3), remaining_after=9, paid_places=3, knockout_level=3) == []


def test_sp11_who_draws_and_no_prizes_left():
    """SP-11"""
    kw = dict(knockout_drawn=False, draws_made=1, prize_count=3, description=None, killer_entry_id=7)
    assert codes(table_draw_problems(mode="per_killer_entry", killer_drew_before=True, **kw)) == [
        "mystery-already-drawn"
    ]
    assert table_draw_problems(mode="per_knockout", killer_drew_before=True, **kw) == []
    assert codes(table_draw_problems(mode="per_knockout", killer_drew_before=False, **(kw | {"draws_made": 3}))) == [
        "mystery-no-prizes-left"
    ]
