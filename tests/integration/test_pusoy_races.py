"""Races for the last seats (RULES PD-4): many players joining at once over real PostgreSQL connections,
one thread each at a time, for the last seats of many cups. Exactly capacity is let in, every other
join is refused "tournament is full", and each cup starts once (one round 1, its seats drawn once)."""

from __future__ import annotations

import threading
from collections import Counter
from concurrent.futures import ThreadPoolExecutor

from sqlalchemy import func, select

from domain.errors import DomainError
from domain.pusoy.services import setup as pusoy_setup
from domain.pusoy.tables import PusoyEntry, PusoyRound, PusoySeat, PusoyTournament
from domain.store.db import unit_of_work
from tests.support.world import PUSOY_NOW as NOW
from tests.support.world import created

CAPACITY, LEFT = 8, 2  # each cup has 6 seats taken, 2 to race for


def _race(engine, cups: int, joins: int, threads: int) -> tuple[list[str], Counter]:
    with unit_of_work(engine) as s:
        codes = []
        for c in range(cups):
            t = created(s, CAPACITY, name=f"Race {c}")
            for i in range(CAPACITY - LEFT):
                pusoy_setup.join(s, t.code, f"c{c:02d}s{i}", NOW)
            codes.append(t.code)
    start = threading.Barrier(threads)
    local = threading.local()

    def attempt(i: int) -> tuple[str, str]:
        if not getattr(local, "ready", False):  # every thread starts together
            local.ready = True
            start.wait()
        code = codes[i % cups]
        try:
            with unit_of_work(engine) as s:
                done = pusoy_setup.join(s, code, f"r{i:03d}", NOW)
                return code, "started" if done.started else "seated"
        except DomainError as exc:
            return code, exc.code

    with ThreadPoolExecutor(max_workers=threads) as pool:
        outcomes = list(pool.map(attempt, range(joins)))
    return codes, Counter(outcomes)


def _assert_each_cup_full_and_started_once(engine, codes, outcomes: Counter) -> None:
    for code in codes:
        assert outcomes[(code, "started")] == 1, code
        assert outcomes[(code, "seated")] == LEFT - 1, code
        assert set(outcome for c, outcome in outcomes if c == code) <= {"started", "seated", "tournament-full"}
    with unit_of_work(engine) as s:
        rows = s.execute(
            select(PusoyTournament.code, PusoyTournament.status, PusoyTournament.entrants, PusoyTournament.id).where(
                PusoyTournament.code.in_(codes)
            )
        ).all()
        for code, status, entrants, tid in rows:
            assert (status, entrants) == ("active", CAPACITY), code
            assert s.scalar(select(func.count()).select_from(PusoyEntry).where(PusoyEntry.tournament_id == tid)) == 8
            assert s.scalar(select(func.count()).select_from(PusoyRound).where(PusoyRound.tournament_id == tid)) == 1
            seats = s.scalar(select(func.count()).select_from(PusoySeat).where(PusoySeat.tournament_id == tid))
            assert seats == CAPACITY
    assert len(rows) == len(codes)


def test_pd_4_200_concurrent_joins_for_the_last_seats_of_16_cups_let_in_exactly_capacity_and_start_each_once(
    committed,
):
    """PD-4: 16 cups with 2 seats left each (32 seats), 200 joins at once over 16 connections: 32 let in
    (each cup's last seat starts it, once), 168 refused as full."""
    codes, outcomes = _race(committed, cups=16, joins=200, threads=16)
    _assert_each_cup_full_and_started_once(committed, codes, outcomes)
    assert sum(n for (_, o), n in outcomes.items() if o == "tournament-full") == 200 - 16 * LEFT
