"""Fees (Sport Poker 3.4): settling a 500-player tournament with 1,000 top-ups, as one
batch (`settle_all`, set-based) beside one call per player (`settle`, each in its own unit of work
as at the counter), with the SQL statements each way; the batch's count must not grow with players."""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta

from sqlalchemy import text

from bench.harness import Report
from domain.clubs.tables import Club
from domain.poker.rules.settings import TournamentSettings
from domain.poker.rules.structures import LevelSpec
from domain.poker.services import entries as poker_entries
from domain.poker.services import fees as poker_fees
from domain.poker.services import players as poker_players
from domain.poker.services import structures as poker_structures
from domain.poker.services import tournaments as poker_tournaments
from domain.store.db import StatementCounter
from flows import bootstrap

NOW = datetime(2026, 12, 4, 17, 0, tzinfo=UTC)
START = NOW + timedelta(hours=2)


def _tournament(session, n_players: int, rebuys_each: int, tag: str) -> tuple[int, list[int]]:
    club = Club(
        name=f"Bench {tag}",
        legal_form="legal_entity",
        inn=f"{hash(tag) % 10**10:010d}",
        ogrn=f"{hash(tag) % 10**13:013d}",
        contact_email="bench@example.org",
        timezone="UTC",
        created_at=NOW,
        updated_at=NOW,
    )
    session.add(club)
    session.flush()
    structure = poker_structures.import_structure(
        session, club.id, "Grid", "none", [LevelSpec(100, 200, 0, 1200)] * 12, NOW
    )
    t = poker_tournaments.create_tournament(
        session,
        club.id,
        structure.id,
        TournamentSettings(
            name=f"Bench {tag}",
            scheduled_start=START,
            starting_stack=20000,
            currency="RUB",
            buy_in=150000,
            late_reg_deadline=START + timedelta(hours=2),
            rebuy_amount=100000,
        ),
        NOW,
    )
    poker_tournaments.change_status(session, t.id, "open", NOW)
    players = []
    for i in range(n_players):
        pid = poker_players.add_player(session, f"Bench {i}", f"b{tag}x{i}", date(1990, 1, 1), NOW).id
        poker_entries.register(session, t.id, pid, NOW)
        poker_entries.check_in(session, t.id, pid, NOW)
        players.append(pid)
    poker_tournaments.change_status(session, t.id, "start", START)
    for _ in range(rebuys_each):
        for pid in players:
            poker_entries.rebuy(session, t.id, pid, START + timedelta(minutes=30))
    return t.id, players


def _unsettle(tid: int) -> None:
    with bootstrap.unit_of_work() as session:
        session.execute(text("UPDATE poker_fees SET settlement_id = NULL WHERE tournament_id = :t"), {"t": tid})
        session.execute(text("DELETE FROM poker_settlements WHERE tournament_id = :t"), {"t": tid})


def run(report: Report) -> None:
    engine = bootstrap.engine()
    with bootstrap.unit_of_work() as session:
        big, players = _tournament(session, 500, 2, "big")
        small, _ = _tournament(session, 50, 2, "small")

    def per_player() -> None:
        for pid in players:
            with bootstrap.unit_of_work() as session:
                poker_fees.settle(session, big, pid, "cash", "Olga", START)

    def batch(tid: int = big) -> None:
        with bootstrap.unit_of_work() as session:
            made = poker_fees.settle_all(session, tid, "cash", "Olga", START)
        assert len(made) in (50, 500)

    name = "settle 500 players, 1,000 top-ups"
    report.compare(
        name, ("one call per player", per_player), ("one batch", batch), repeat=3, before_each=lambda: _unsettle(big)
    )
    for label, fn, tid in (
        ("one call per player", per_player, big),
        ("one batch, 500 players", batch, big),
        ("one batch, 50 players", lambda: batch(small), small),
    ):
        _unsettle(tid)
        with StatementCounter(engine) as counter:
            fn()
        report.note(name, f"SQL statements, {label}", counter.count)
