"""The world at the real now, for tests whose servers and processes run on the wall clock (the web
tests, `make screenshots`, the web benchmark): each builder commits its own unit of work on `engine`."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from decimal import Decimal

from domain.poker.services import clock as clock_service
from domain.poker.services.results import set_prizes
from domain.store import live
from domain.store.db import unit_of_work
from tests.support.world import poker

# L1 20 min · L2 20 min · break 15 min · L3 · L4 (poker.LEVELS)


def now() -> datetime:
    return datetime.now(UTC)


def running_poker(
    engine,
    players: int = 12,
    *,
    name: str | None = None,
    start: bool = True,
    prizes=("Cup and a free entry", "Free entry"),
    levels=None,
    names: str = "Player {n}",
    handles: str = "ace{n}",
    seat_cap: int = 9,
) -> dict:
    """A running tournament of the club Pik (Moscow; Russian, it chose no language) with checked-in
    entries of players named `names` with handles `handles` (n from 1; handles are unique in a
    database, so the tournaments of one world each give their own), its clock started now, and
    prizes; `levels` (small, big, ante, seconds, is_break) rows, default poker_poker.LEVELS; `seat_cap` the
    seats a table has."""
    with unit_of_work(engine) as session:
        structure_id = poker.structure(session, levels=levels).id if levels else None
        t = poker.tournament(
            session,
            structure_id=structure_id,
            name=name,
            start=now() - timedelta(minutes=5),
            late_reg=timedelta(hours=1, minutes=5),
            seat_cap=seat_cap,
        )
        people = [
            poker.player(session, names.format(n=n), handle=handles.format(n=n), at=t.scheduled_start)
            for n in range(1, players + 1)
        ]
        entries = [poker.enter(session, t, player_id=p.id) for p in people]
        set_prizes(session, t.id, list(prizes))
        if start:
            clock_service.act(session, t.id, "start", now())
        return {"id": t.id, "club_id": t.club_id, "entries": [e.id for e in entries]}


def upcoming_poker(
    engine,
    starts_in: timedelta,
    players: int = 8,
    *,
    name: str | None = None,
    prizes=("Кубок и вход на турнир клуба", "Вход на турнир клуба"),
) -> dict:
    """A tournament open for registration, starting `starts_in` from now, with `players` registered."""
    with unit_of_work(engine) as session:
        start = now().replace(microsecond=0) + starts_in
        t = poker.tournament(session, status="registration_open", name=name, start=start, late_reg=timedelta(hours=1))
        for i in range(players):
            poker.register(session, t, checked_in=False, name=f"Игрок {i + 1}")
        set_prizes(session, t.id, list(prizes))
        return {"id": t.id, "club_id": t.club_id, "start": start}


def finish(engine, tournament_id: int) -> None:
    """The director finishes the tournament (one player left, 3.7)."""
    from domain.poker.services.results import finish as finish_tournament

    with unit_of_work(engine) as session:
        finish_tournament(session, tournament_id, now())


def clock(engine, tournament_id: int, action: str) -> dict:
    """The floor's clock action, telling the tournament's streams as the desk's does (`gate.act`)."""
    with unit_of_work(engine) as session:
        live.changed(session, live.poker(tournament_id))
        return clock_service.act(session, tournament_id, action, now())


def with_session(engine, fn):
    with unit_of_work(engine) as session:
        return fn(session)


def knock_out(engine, tournament_id: int, busted_entry_id: int, killer_entry_id: int | None = None) -> None:
    """A bust as the floor records it (`poker knockout`): at the level the clock shows, telling the
    tournament's streams as the desk's does (`gate.act`)."""
    from domain.poker.rules.knockouts import Bust
    from domain.poker.services.desk import knock_out

    with unit_of_work(engine) as session:
        live.changed(session, live.poker(tournament_id))
        knock_out(session, tournament_id, [Bust(busted_entry_id, killer_entry_id)], now=now(), actor="floor")


def season(engine, *, name: str = "Зима", locale: str | None = None) -> dict:
    """A season of the club's current month-ish (30 days either side of now) with two finished
    tournaments of three players (table 10 · 6 · 3, LG-2): boris 16, anna 13, <b>vera</b> 9 by
    their handles (full names Борис Гельфанд, Анна Белова, Вера Менчик; vera's handle is markup
    written past the services, which refuse it, to prove the page escapes it)."""
    from domain.documents.services.locales import set_locale
    from domain.leagues.services import leagues

    today = now().date()
    with unit_of_work(engine) as session:
        anna, boris, vera = [
            poker.player(session, n, handle=h)
            for n, h in (("Анна Белова", "anna"), ("Борис Гельфанд", "boris"), ("Вера Менчик", "<b>vera</b>"))
        ]
        first = poker.played(session, [vera, boris, anna], now() - timedelta(days=7), "Пятница 1")
        second = poker.played(session, [anna, vera, boris], now() - timedelta(days=2), "Пятница 2")
        s = leagues.create_season(
            session,
            club_id=first.club_id,
            name=name,
            date_from=today - timedelta(days=30),
            date_to=today + timedelta(days=30),
            formula="table",
            table=[Decimal(10), Decimal(6), Decimal(3)],
            now=now(),
        )
        leagues.add_to_season(session, s.id, tournament_ids=[first.id, second.id])
        if locale:
            set_locale(session, "club", first.club_id, locale, now())
        return {"id": s.id, "club_id": first.club_id, "tournaments": [first.id, second.id]}
