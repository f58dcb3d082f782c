"""Seating, balancing and table breaking (Sport Poker 3.6, draws by lot per PD-12)."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from domain import draw
from domain.errors import DomainError
from domain.poker.rules import seating as s
from domain.poker.rules.seating import Move, Seat, Seating


def sizes(seating: Seating) -> list[int]:
    return [seating.counts()[t] for t in seating.tables]


@pytest.mark.parametrize(
    ("field", "cap", "expected"),
    [
        (9, 9, [9]),
        (10, 9, [5, 5]),
        (19, 9, [7, 6, 6]),
        (23, 10, [8, 8, 7]),
        (2, 2, [2]),
        (7, 2, [2, 2, 2, 1]),
    ],
)
def test_the_initial_draw_opens_ceil_field_over_cap_tables_spread_evenly(field, cap, expected):
    seating = s.initial_seating(list(range(1, field + 1)), cap, "seed")
    assert sizes(seating) == expected
    assert s.invariant_problems(seating, range(1, field + 1)) == []


def test_pd_12_the_initial_draw_is_reproducible_from_its_seed():
    """PD-12: the r-th drawn entry sits at table r mod T + 1, seat r div T + 1."""
    seating = s.initial_seating([5, 3, 1, 2, 4], 3, "abc")
    drawn = draw.shuffled("abc", "initial-seating", [1, 2, 3, 4, 5])
    assert [seating.seat_of(e) for e in drawn] == [
        Seat(1, 1, drawn[0]),
        Seat(2, 1, drawn[1]),
        Seat(1, 2, drawn[2]),
        Seat(2, 2, drawn[3]),
        Seat(1, 3, drawn[4]),
    ]


@pytest.mark.parametrize("cap", [1, 11, 0])
def test_a_seat_cap_outside_2_to_10_is_refused_not_clamped(cap):
    with pytest.raises(DomainError) as err:
        s.initial_seating([1, 2, 3], cap, "x")
    assert err.value.code == "seating-bad-seat-cap"


def table(seat_cap: int, layout: dict[int, list[int]], broken: frozenset[int] = frozenset()) -> Seating:
    """layout: table -> entries in seats 1, 2, ... (0 leaves the seat empty)."""
    seats = [Seat(t, n, e) for t, entries in layout.items() for n, e in enumerate(entries, 1) if e]
    return Seating(seat_cap, tuple(sorted(layout)), broken).with_seats(seats)


def test_a_late_entry_sits_at_the_table_with_fewest_players_on_its_lowest_free_seat():
    seating = table(3, {1: [1, 2, 3], 2: [4, 0, 5], 3: [0, 6, 0]})
    after, seat, opened = s.seat_new_entry(seating, 7)
    assert (seat, opened) == (Seat(3, 1, 7), False)
    assert s.invariant_problems(after, range(1, 8)) == []


def test_a_late_entry_opens_a_new_table_when_every_seat_is_taken_never_reusing_a_broken_one():
    seating = table(2, {1: [1, 2], 3: [3, 4]}, broken=frozenset({2, 4}))
    after, seat, opened = s.seat_new_entry(seating, 9)
    assert (seat, opened, after.tables) == (Seat(5, 1, 9), True, (1, 3, 5))


def test_the_floor_moves_a_player_and_undoes_the_last_move():
    seating = table(3, {1: [1, 2, 3], 2: [4, 0, 0]})
    moved, done = s.move(seating, 3, 2, 3)
    assert done == Move(3, 1, 3, 2, 3)
    assert moved.seat_of(3) == Seat(2, 3, 3)
    back, reverse = s.undo(moved, done)
    assert back == seating
    assert reverse == Move(3, 2, 3, 1, 3)


@pytest.mark.parametrize(
    ("entry", "target", "code"),
    [
        (3, (2, 1), "seating-seat-taken"),
        (3, (5, 1), "seating-table-broken"),
        (3, (9, 1), "seating-no-such-table"),
        (3, (2, 4), "seating-no-such-seat"),
        (42, (2, 2), "seating-not-seated"),
    ],
)
def test_bad_moves_are_refused_with_a_specific_code(entry, target, code):
    seating = table(3, {1: [1, 2, 3], 2: [4, 0, 0]}, broken=frozenset({5}))
    with pytest.raises(DomainError) as err:
        s.move(seating, entry, *target)
    assert err.value.code == code


def test_undo_is_refused_when_the_seat_left_is_taken_since():
    seating = table(3, {1: [1, 2, 3], 2: [4, 0, 0]})
    moved, done = s.move(seating, 3, 2, 3)
    taken, _ = s.move(moved, 4, 1, 3)
    with pytest.raises(DomainError) as err:
        s.undo(taken, done)
    assert err.value.code == "seating-undo-blocked"


def test_breaking_a_table_sends_its_players_to_the_emptiest_tables_by_lot():
    seating = table(4, {1: [1, 2, 3, 0], 2: [4, 5, 0, 0], 3: [6, 7, 0, 0]})
    after, moves = s.break_table(seating, 1, "seed")
    assert sorted(m.entry for m in moves) == [1, 2, 3]
    assert after.tables == (2, 3) and 1 in after.broken
    assert sorted(sizes(after)) == [3, 4]
    assert s.invariant_problems(after, range(1, 8)) == []
    assert s.break_table(seating, 1, "seed") == (after, moves)  # PD-12: same seed, same draw


def test_breaking_a_table_is_refused_when_the_others_lack_room():
    seating = table(3, {1: [1, 2, 3], 2: [4, 5, 0], 3: [6, 0, 7]})
    with pytest.raises(DomainError) as err:
        s.break_table(seating, 1, "seed")
    assert err.value.code == "seating-no-room"
    assert str(err.value) == "table 1 has 3 players but the other tables have only 2 free seats"


def test_suggestions_break_the_emptiest_table_when_the_others_can_take_it():
    seating = table(4, {1: [1, 2, 3, 0], 2: [4, 0, 0, 0], 3: [5, 6, 0, 0]})
    assert s.suggest(seating) == (s.Suggestion("break-table", 2),)


def test_suggestions_balance_tables_to_differ_by_at_most_one_without_moving_anyone():
    seating = table(5, {1: [1, 2, 3, 4, 5], 2: [6, 7, 0, 0, 0]})
    suggestions = s.suggest(seating)
    assert suggestions == (s.Suggestion("move", 1, Move(5, 1, 5, 2, 3)),)
    assert seating.seat_of(5) == Seat(1, 5, 5)  # only suggested


def test_the_final_table_is_proposed_once_the_field_fits_one_table_and_the_floor_confirms_it():
    seating = table(4, {1: [1, 0, 2, 0], 2: [0, 3, 0, 4]})
    assert s.stage(seating) == "final-table-proposed"
    assert s.final_table_proposal(seating) == s.FinalTable(1, (1, 2, 3, 4))
    final, moves = s.assemble_final_table(seating, "seed")
    assert final.tables == (1,) and final.broken == frozenset({2})
    assert sorted(x.seat for x in final.seats) == [1, 2, 3, 4]
    assert len(moves) == 4
    assert s.stage(final) == "final-table"
    heads_up = s.bust(s.bust(final, 1), 2)
    assert s.stage(heads_up) == "heads-up"
    assert s.stage(s.bust(heads_up, 3)) == "over"


def test_no_final_table_while_the_field_needs_two_tables():
    seating = table(3, {1: [1, 2, 0], 2: [3, 4, 0]})
    assert s.stage(seating) == "play"
    with pytest.raises(DomainError) as err:
        s.assemble_final_table(seating, "seed")
    assert err.value.code == "seating-no-final-table"


# -- invariants ------------------------------------------------------------------------------------


@settings(max_examples=80, deadline=None)
@given(st.integers(1, 60), st.integers(2, 10), st.text(min_size=1, max_size=8))
def test_the_initial_draw_seats_everyone_once_and_table_sizes_differ_by_at_most_one(field, cap, seed):
    seating = s.initial_seating(list(range(1, field + 1)), cap, seed)
    assert s.invariant_problems(seating, range(1, field + 1)) == []
    assert max(sizes(seating)) - min(sizes(seating)) <= 1
    assert len(seating.tables) == -(-field // cap)


OPS = st.lists(
    st.tuples(st.sampled_from(["late", "bust", "move", "break", "final", "undo"]), st.integers(0, 10**6)),
    max_size=25,
)


@settings(max_examples=80, deadline=None)
@given(st.integers(2, 40), st.integers(2, 10), OPS)
def test_no_seat_holds_two_players_and_every_active_entry_has_exactly_one_seat(field, cap, ops):
    seating = s.initial_seating(list(range(1, field + 1)), cap, "seed")
    active = set(range(1, field + 1))
    next_entry = field + 1
    last: Move | None = None
    for op, pick in ops:
        try:
            if op == "late":
                seating, _, _ = s.seat_new_entry(seating, next_entry, str(pick))
                active.add(next_entry)
                next_entry += 1
            elif op == "bust" and active:
                gone = sorted(active)[pick % len(active)]
                seating = s.bust(seating, gone)
                active.discard(gone)
            elif op == "move" and active:
                who = sorted(active)[pick % len(active)]
                where = seating.tables[pick % len(seating.tables)]
                seating, last = s.move(seating, who, where, pick % cap + 1)
            elif op == "break":
                seating, _ = s.break_table(seating, seating.tables[pick % len(seating.tables)], str(pick))
            elif op == "final":
                seating, _ = s.assemble_final_table(seating, str(pick))
            elif op == "undo" and last:
                seating, last = s.undo(seating, last)
        except DomainError:
            pass
        assert s.invariant_problems(seating, active) == []


def test_sp_13_a_recorded_draw_rechecks_from_both_seeds_and_a_tampered_one_does_not():
    """SP-13: re-running each kind of draw from its record gives its outcome."""
    platform, floor = "d" * 64, "floor"
    seed = draw.combined(platform, floor)
    entries = list(range(1, 13))
    start = s.initial_seating(entries, 4, seed)  # 4, 4, 4
    initial = s.outcome("initial-seating", start)
    assert sorted(initial) == sorted([x.entry, x.table, x.seat] for x in start.seats)
    play = start
    for table in (1, 2):
        for x in start.players_at(table)[:2]:
            play = s.bust(play, x.entry)  # 2, 2, 4
    broken = s.outcome("break-table-3", s.break_table(play, 3, seed))
    last = play
    for x in [*start.players_at(1)[2:3], *start.players_at(3)[:3]]:
        last = s.bust(last, x.entry)  # 1, 2, 1
    final = s.outcome("final-table", s.assemble_final_table(last, seed))
    records = [
        ("initial-seating", {"seat_cap": 4, "entries": entries}, initial),
        ("break-table-3", s.snapshot(play), broken),
        ("final-table", s.snapshot(last), final),
    ]
    for purpose, items, outcome in records:
        assert s.recheck(purpose, draw.commitment(platform), platform, floor, items, outcome)
        assert not s.recheck(purpose, draw.commitment(platform), platform, "other", items, outcome)
        assert not s.recheck(purpose, draw.commitment("e" * 64), platform, floor, items, outcome)
        assert not s.recheck(purpose, draw.commitment(platform), platform, floor, items, outcome[::-1])
    assert not s.recheck("break-table-3", draw.commitment(platform), platform, floor, {"seat_cap": 4}, broken)


def test_sp_13_a_late_seating_tie_is_drawn_by_lot_and_rechecks():
    """SP-13: a late entry with two tables tied on the fewest players (4 and 4) goes to one drawn by
    lot from the seed, not always to the lowest number; the draw re-checks from its record."""
    seating = table(9, {1: [1, 2, 3, 4], 2: [5, 6, 7, 8], 3: [9, 10, 11, 12, 13]})
    assert s.late_seating_tie(seating) == (1, 2)
    with pytest.raises(DomainError) as err:
        s.seat_new_entry(seating, 20)
    assert err.value.code == "seating-tie-needs-draw"
    platform = "d" * 64
    tables = {}
    for floor in map(str, range(40)):
        seed = draw.combined(platform, floor)
        after, seat, opened = s.seat_new_entry(seating, 20, seed)
        assert (seat.seat, opened) == (5, False) and seat.table == draw.rng(seed, "late-seating").choice((1, 2))
        tables[floor] = seat.table
        items = s.snapshot(seating) | {"entry": 20}
        outcome = s.outcome("late-seating", (after, seat, opened))
        assert outcome == [[20, seat.table, 5]]
        assert s.recheck("late-seating", draw.commitment(platform), platform, floor, items, outcome)
        assert not s.recheck(
            "late-seating", draw.commitment(platform), platform, floor, items, [[20, 3 - seat.table, 5]]
        )
    assert set(tables.values()) == {1, 2}
    lone = table(9, {1: [1, 2, 3], 2: [5, 6, 7, 8]})  # no tie: no draw, a recorded "draw" does not re-check
    assert s.seat_new_entry(lone, 20)[1] == Seat(1, 4, 20)
    assert not s.recheck(
        "late-seating", draw.commitment(platform), platform, None, s.snapshot(lone) | {"entry": 20}, [[20, 1, 4]]
    )


@pytest.mark.parametrize("seed", ["", " ", "x" * 201, "a\x1b[2J", "line\nbreak"])
def test_sp_13_a_floor_seed_is_one_to_200_printable_characters(seed):
    """SP-13"""
    assert [p.code for p in s.floor_seed_problems(seed)] == ["seating-bad-floor-seed"]
    assert s.floor_seed_problems(None) == s.floor_seed_problems("x" * 200) == s.floor_seed_problems("Пятница 13") == []
