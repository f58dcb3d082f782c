"""Pusoy Dos: completing a 32-player round of 10 games a table — the pure rule (standings, cascade,
advancement, reseat) beside the whole service call, with SQL statements per completion — and joins
per second with 1 client beside 8 parallel clients."""

from __future__ import annotations

import random
from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, datetime

from sqlalchemy import select
from sqlalchemy.orm import Session

from bench.harness import Report
from domain.pusoy.rules.advancement import Advance, advance, reseat_order, seats
from domain.pusoy.rules.scoring import Finish
from domain.pusoy.rules.standings import standings
from domain.pusoy.services import reports as pusoy_reports
from domain.pusoy.services import rounds as pusoy_rounds
from domain.pusoy.services import setup as pusoy_setup
from domain.pusoy.tables import PusoyFinish, PusoySeat
from domain.store.db import StatementCounter
from flows import bootstrap

NOW = datetime(2026, 11, 29, 12, 0, tzinfo=UTC)


def _ready_round(capacity: int, games: int, rnd: random.Random) -> int:
    """A committed tournament whose round 1 has every game reported; returns its id."""
    with bootstrap.unit_of_work() as s:
        t = pusoy_setup.create(s, name="bench", organizer="bench", capacity=capacity, games_per_round=games, now=NOW)
        for i in range(capacity):
            pusoy_setup.join(s, t.code, f"p{i:02d}", NOW)
        tables: dict[int, list[str]] = {}
        for table, player in s.execute(
            select(PusoySeat.table_no, PusoySeat.player).where(PusoySeat.tournament_id == t.id, PusoySeat.round_no == 1)
        ):
            tables.setdefault(table, []).append(player)
        for table, players in tables.items():
            for game in range(1, games + 1):
                order = rnd.sample(players, 4)
                pusoy_reports.report(
                    s,
                    t.code,
                    round_no=1,
                    table=table,
                    game=game,
                    finishes=[(p, i) for i, p in enumerate(order, 1)],
                    two_of_diamonds=order[0] if rnd.random() < 0.2 else None,
                    now=NOW,
                )
        return t.id


def _complete_and_roll_back(tournament_id: int, counter: list[int] | None = None) -> None:
    engine = bootstrap.engine()
    with engine.connect() as conn:
        outer = conn.begin()
        session = Session(bind=conn, join_transaction_mode="create_savepoint")
        if counter is None:
            pusoy_rounds.complete_round(session, tournament_id, 1, NOW)
            session.flush()
        else:
            with StatementCounter(engine) as counted:
                pusoy_rounds.complete_round(session, tournament_id, 1, NOW)
                session.flush()
            counter.append(counted.count)
        session.close()
        outer.rollback()


def _pure(tournament_id: int):
    with bootstrap.unit_of_work() as s:
        rows = s.execute(
            select(
                PusoyFinish.table_no,
                PusoyFinish.game_no,
                PusoyFinish.player,
                PusoyFinish.position,
                PusoyFinish.two_of_diamonds,
            ).where(PusoyFinish.tournament_id == tournament_id)
        ).all()
    finishes = [Finish(*r) for r in rows]
    players = sorted({f.player for f in finishes})

    def rule() -> None:
        ranked = standings(players, finishes, 10)
        outcome = advance(ranked, 16)
        if isinstance(outcome, Advance):
            seats(reseat_order(outcome.advancers, "seed", "round-2 reseat order"))

    return rule


def _joins(clients: int, codes: list[str]) -> None:
    def join(pair):
        code, player = pair
        with bootstrap.unit_of_work() as s:
            pusoy_setup.join(s, code, player, NOW)

    pairs = [(code, f"p{i:02d}") for code in codes for i in range(32)]
    with ThreadPoolExecutor(max_workers=clients) as pool:
        list(pool.map(join, pairs))


def run(report: Report) -> None:
    rnd = random.Random(7)
    big = _ready_round(32, 10, rnd)
    small = _ready_round(8, 1, rnd)
    report.compare(
        "pusoy round completion (32 players, 10 games a table)",
        ("pure rule", _pure(big)),
        ("service call", lambda: _complete_and_roll_back(big)),
        repeat=7,
    )
    for label, tid in (("8 players, 1 game", small), ("32 players, 10 games", big)):
        spent: list[int] = []
        _complete_and_roll_back(tid, spent)
        report.note("pusoy round completion", f"SQL statements per completion ({label})", spent[0])

    codes: list[str] = []

    def fresh() -> None:
        codes.clear()
        with bootstrap.unit_of_work() as s:
            codes.extend(
                pusoy_setup.create(s, name="bench", organizer="bench", capacity=32, now=NOW).code for _ in range(4)
            )

    timing = report.compare(
        "pusoy joins (4 tournaments x 32 seats)",
        ("1 client", lambda: _joins(1, codes)),
        ("8 parallel clients", lambda: _joins(8, codes)),
        repeat=3,
        before_each=fresh,
    )
    report.note("pusoy joins", "joins per second, 1 client", round(128 / timing["baseline_median_s"]))
    report.note("pusoy joins", "joins per second, 8 parallel clients", round(128 / timing["candidate_median_s"]))
