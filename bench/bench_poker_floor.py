"""Poker floor: `advance-clocks` over 100, 1,000 and 3,000 running tournaments with due level changes
(each with a dead stack to charge) in one set-based run beside one tournament at a time — time, SQL
statements, and the set-based run's time per tournament (flat when it is linear); and the pure
clock's level at an instant for a 40-level structure with 10 pauses."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from sqlalchemy import text

from bench.harness import Report
from domain.poker.rules import clock as pure
from domain.poker.rules.clock_model import Clock, Level, Pause, Segment
from domain.poker.services import clock as clock_service
from domain.store.db import StatementCounter
from flows import bootstrap

T0 = datetime(2026, 11, 29, 18, 0, tzinfo=UTC)
NOW = T0 + timedelta(minutes=21)  # level 2 began at 18:20
COUNTS = (100, 1000, 3000)
COUNT = max(COUNTS)  # tournaments seeded; the first n of them are due in each measure

WORLD = """
INSERT INTO clubs (name, legal_form, inn, ogrn, contact_email, timezone, created_at, updated_at)
VALUES ('Bench', 'legal_entity', '7707083893', '1027700132195', 'b@example.org', 'UTC', :t0, :t0);
INSERT INTO poker_structures (club_id, name, ante_type, created_at) SELECT id, 'Bench', 'classic', :t0 FROM clubs;
INSERT INTO poker_levels (structure_id, position, small_blind, big_blind, ante, duration_seconds, is_break)
SELECT s.id, n, 100 * n, 200 * n, 25 * n, 1200, false FROM poker_structures s, generate_series(1, 12) n;
INSERT INTO poker_tournaments (club_id, name, status, scheduled_start, format, bounty_type, mystery_draw,
  starting_stack, structure_id, seat_cap, addon_once, currency, buy_in, no_show_policy, itm_percent, itm_min,
  created_at, started_at)
SELECT c.id, 'T' || n, 'running', :t0, 'freezeout', 'none', false, 10000, s.id, 9, true, 'RUB', 0, 'absent_mode',
  15, 1, :t0, :t0 FROM clubs c, poker_structures s, generate_series(1, :count) n;
INSERT INTO players (pseudonym, name, handle, birth_date, created_at)
SELECT 'P' || id, 'Player ' || id, 'p' || id, DATE '1990-01-01', :t0 FROM poker_tournaments;
INSERT INTO poker_registrations (tournament_id, player_id, status, late, registered_at)
SELECT t.id, p.id, 'active', false, :t0 FROM poker_tournaments t JOIN players p ON p.handle = 'p' || t.id;
INSERT INTO poker_entries (tournament_id, player_id, registration_id, sequence, state, starting_chips, created_at)
SELECT tournament_id, player_id, id, 1, 'active', 10000, :t0 FROM poker_registrations;
INSERT INTO poker_tables (tournament_id, table_no, opened_at) SELECT id, 1, :t0 FROM poker_tournaments;
INSERT INTO poker_seats (entry_id, tournament_id, table_no, seat_no, seated_at)
SELECT id, tournament_id, 1, 1, :t0 FROM poker_entries;
INSERT INTO poker_dead_stacks (tournament_id, registration_id, entry_id, chips, seated_at)
SELECT tournament_id, registration_id, id, 10000, :t0 FROM poker_entries;
INSERT INTO poker_clock (tournament_id, segments, pauses, overrides, hands_per_hour, next_change_at, updated_at)
SELECT id, jsonb_build_array(jsonb_build_array(0, CAST(:t0s AS text))), '[]', '[]', 30,
  CAST(:t0 AS timestamptz) + interval '20 minutes', :t0
FROM poker_tournaments;
"""

RESET = """
DELETE FROM poker_dead_stack_charges;
DELETE FROM poker_clock_events;
UPDATE poker_clock SET next_change_at = CASE WHEN tournament_id < :first + :count
  THEN CAST(:t0 AS timestamptz) + interval '20 minutes' END;
UPDATE poker_dead_stacks SET chips = 10000, busted_at = NULL;
"""


def _sql(script: str, count: int = COUNT, first: int = 0) -> None:
    with bootstrap.engine().begin() as conn:
        for statement in filter(str.strip, script.split(";")):
            conn.execute(text(statement), {"t0": T0, "t0s": T0.isoformat(), "count": count, "first": first})


def run(report: Report) -> None:
    _sql(WORLD)
    engine = bootstrap.engine()
    with engine.connect() as conn:
        all_ids = conn.execute(text("SELECT id FROM poker_tournaments ORDER BY id")).scalars().all()
    for count in COUNTS:
        _advance_clocks(report, engine, all_ids[:count])
    _clock_read(report)


def _clock_read(report: Report) -> None:
    levels = tuple(Level(100 * n, 200 * n, 25 * n, 1200, is_break=n % 4 == 0) for n in range(1, 41))
    clock = Clock(
        segments=(Segment(0, T0),),
        pauses=tuple(Pause(T0 + timedelta(minutes=30 * k + 5), T0 + timedelta(minutes=30 * k + 8)) for k in range(10)),
    )
    at = T0 + timedelta(hours=9, minutes=7)
    calls = 1000

    def from_history() -> None:
        for _ in range(calls):
            [e for e in pure.events_until(clock, levels, at) if e.kind == "level-started"][-1]

    def direct() -> None:
        for _ in range(calls):
            pure.read(clock, levels, at)

    row = report.compare(
        f"clock level at an instant (40 levels, 10 pauses), {calls} calls",
        ("replaying the event history", from_history),
        ("read (computed directly)", direct),
        repeat=5,
    )
    report.note("clock level at an instant", "µs per read() call", round(row["candidate_median_s"] / calls * 1e6, 1))


def _advance_clocks(report: Report, engine, ids: list[int]) -> None:
    """The first len(ids) tournaments due: one set-based run beside one run per tournament."""
    count = len(ids)

    def one_at_a_time() -> None:
        for tid in ids:
            with bootstrap.unit_of_work() as session:
                clock_service.advance_clocks(session, NOW, tid)

    def set_based() -> None:
        with bootstrap.unit_of_work() as session:
            done = clock_service.advance_clocks(session, NOW)
        assert len(done) == count

    def reset() -> None:
        _sql(RESET, count, ids[0])

    name = f"advance-clocks, {count} due tournaments"
    row = report.compare(
        name,
        ("one tournament at a time", one_at_a_time),
        ("one set-based run", set_based),
        repeat=3 if count <= 1000 else 1,
        before_each=reset,
    )
    report.note(name, "set-based: ms per tournament", round(row["candidate_median_s"] / count * 1e3, 3))
    for label, fn in (("one tournament at a time", one_at_a_time), ("one set-based run", set_based)):
        reset()
        with StatementCounter(engine) as counter:
            fn()
        report.note(name, f"SQL statements, {label}", counter.count)
    with engine.connect() as conn:
        charged = conn.execute(text("SELECT count(*) FROM poker_dead_stack_charges")).scalar_one()
    report.note(name, "dead-stack charges made (levels 1 and 2, once each)", charged)
