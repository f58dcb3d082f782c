"""The world builder's Pusoy Dos part: tournaments created, filled, played and completed through the
services, as a floor would, at PUSOY_NOW."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from sqlalchemy import select
from sqlalchemy.orm import Session

from domain.pusoy.services import reports as pusoy_reports
from domain.pusoy.services import rounds as pusoy_rounds
from domain.pusoy.services import setup as pusoy_setup
from domain.pusoy.tables import PusoyRound, PusoySeat
from tests.unit.pusoy_cases import TWO_FOR_ONE

PUSOY_NOW = datetime(2026, 11, 29, 12, 0, tzinfo=UTC)


def created(session: Session, capacity: int = 8, games: int = 1, **kw):
    kw.setdefault("name", f"Pusoy {capacity}")
    kw.setdefault("organizer", "org")
    return pusoy_setup.create(session, capacity=capacity, games_per_round=games, now=PUSOY_NOW, **kw)


def filled(session: Session, capacity: int = 8, games: int = 1, **kw):
    t = created(session, capacity, games, **kw)
    for i in range(capacity):
        pusoy_setup.join(session, t.code, f"u{i:02d}", PUSOY_NOW + timedelta(seconds=i))
    return t


def seating(session: Session, tournament_id: int, round_no: int, stage: int = 0) -> dict[int, list[str]]:
    """table -> players in seat order."""
    rows = session.execute(
        select(PusoySeat.table_no, PusoySeat.seat_no, PusoySeat.player)
        .where(PusoySeat.tournament_id == tournament_id, PusoySeat.round_no == round_no, PusoySeat.stage == stage)
        .order_by(PusoySeat.table_no, PusoySeat.seat_no)
    ).all()
    out: dict[int, list[str]] = {}
    for table, _, player in rows:
        out.setdefault(table, []).append(player)
    return out


def play(session: Session, tournament, round_no: int, case: dict) -> dict[str, str]:
    """Report a hand-built round (tests/unit/pusoy_cases.py): the case's players of table t, in
    sorted order, are the players in seats 1-4 of table t. Returns case name -> real player."""
    seated = seating(session, tournament.id, round_no)
    roles: dict[str, str] = {}
    for table, games in case.items():
        names = sorted({p for order, _ in games for p in order.split()})
        roles |= dict(zip(names, seated[table]))
    last = None
    for table, games in case.items():
        for number, (order, diamond) in enumerate(games, start=1):
            last = pusoy_reports.report(
                session,
                tournament.code,
                round_no=round_no,
                table=table,
                game=number,
                finishes=[(roles[p], i) for i, p in enumerate(order.split(), start=1)],
                two_of_diamonds=roles[diamond] if diamond else None,
                now=PUSOY_NOW,
                by="floor",
            )
    assert last is not None and last.round_ready
    return roles


def play_playoff(session: Session, tournament, round_no: int, stage: int, orders: dict[int, list[str]]):
    last = None
    for table, order in orders.items():
        last = one_game(session, tournament, round_no, table, order, PUSOY_NOW, playoff=stage)
    return last


def one_game(session: Session, tournament, round_no: int, table: int, order, now: datetime, playoff=0, by=None):
    """Game 1 at `table` (of the playoff stage `playoff`), its players finishing in `order`."""
    return pusoy_reports.report(
        session,
        tournament.code,
        round_no=round_no,
        table=table,
        game=1,
        playoff=playoff,
        finishes=[(p, i) for i, p in enumerate(order, start=1)],
        two_of_diamonds=None,
        now=now,
        by=by,
    )


def complete_pusoy(session, crown: bool = True, **kw):
    """A finished tournament: 8 players, 2 games a round; round 1 needs a playoff between p02 and p06
    (PD-9). Returns (tournament, round-1 roles, final roles). `crown=False`: the final's games are
    reported and the round is not completed yet (the champion is the next completion's)."""
    t = filled(session, 8, games=2, name="Кубок <Пусой>", **kw)
    roles = play(session, t, 1, TWO_FOR_ONE)
    done = pusoy_rounds.complete_round(session, t.id, 1, PUSOY_NOW)
    assert done.outcome == "playoff"
    stage = session.get(PusoyRound, (t.id, 1)).stage
    play_playoff(session, t, 1, stage, {1: [roles["p06"], roles["p02"]]})
    assert pusoy_rounds.complete_round(session, t.id, 1, PUSOY_NOW).outcome == "advanced"
    final = {1: [("f1 f2 f3 f4", None), ("f2 f1 f3 f4", None)]}  # f1, f2 level on 5: PD-7 step 6
    finalists = play(session, t, 2, final)
    if not crown:
        return t, roles, finalists
    assert pusoy_rounds.complete_round(session, t.id, 2, PUSOY_NOW).outcome == "champion"
    session.refresh(t)
    return t, roles, finalists


def in_order(session: Session, tournament, round_no: int, first: str | None = None, now: datetime = PUSOY_NOW):
    """Report one game at every table of a round (1 game a round): `first` wins wherever it sits, the
    others finish in name order. With 1 game, the only ties are between tables' same places (the k-th
    of every table level after all eight steps), and with the default brackets the cut-off falls between
    two places, so no playoff is ever needed (PD-9). Returns the last report's outcome."""
    last = None
    for table, players in seating(session, tournament.id, round_no).items():
        order = sorted(players, key=lambda p: (p != first, p))
        last = one_game(session, tournament, round_no, table, order, now, by="floor")
    return last


def won_by(session: Session, champion: str, now: datetime = PUSOY_NOW, **kw):
    """An 8-player, 1-game cup that `champion` wins: `champion` and u01..u07 join, every round is played
    `in_order` with `champion` first. Completed; refreshed."""
    kw.setdefault("organizer", "org")
    t = pusoy_setup.create(session, name=kw.pop("name", "Cup"), capacity=8, games_per_round=1, now=now, **kw)
    for name in (champion, *(f"u{i:02d}" for i in range(1, 8))):
        pusoy_setup.join(session, t.code, name, now)
    for round_no in (1, 2):
        in_order(session, t, round_no, champion, now)
        pusoy_rounds.complete_round(session, t.id, round_no, now)
    session.refresh(t)
    assert t.champion == champion
    return t
