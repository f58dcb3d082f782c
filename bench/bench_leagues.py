"""Leagues (LG-1..LG-3): a season's standings over 50 finished tournaments × 100 players, derived
from the stored places on every read — set-based (`season_standings`: a constant number of
statements) beside a naive read (one query per tournament for its places and one per player for
the name). Median seconds and SQL statements of each; the statement count at 10 and 50 tournaments
shows the set-based one constant."""

from __future__ import annotations

import random
from datetime import UTC, date, datetime, timedelta
from decimal import Decimal
from fractions import Fraction

from sqlalchemy import func, insert, select, text

from bench.harness import Report
from domain.clubs.tables import Club
from domain.leagues.rules.points import Placing, results, standings
from domain.leagues.services.leagues import (
    add_to_season,
    create_season,
    season_standings,
)
from domain.leagues.tables import Season, SeasonTournament
from domain.poker.tables.knockouts_places import FinalPlace
from domain.poker.tables.tournaments import (
    Entry,
    Player,
    Registration,
    Structure,
    Tournament,
)
from domain.store.db import StatementCounter, unit_of_work
from flows import bootstrap

TOURNAMENTS = 50
PLAYERS = 100
NOW = datetime(2026, 11, 29, 20, 0, tzinfo=UTC)


def _seed(tournaments: int) -> int:
    """A club, `tournaments` finished tournaments of the same 100 players with random places
    (some shared) and credits; a season picking them all. Returns the season id."""
    rng = random.Random(tournaments)
    engine = bootstrap.engine()
    with unit_of_work(engine) as s:
        club = s.scalar(select(Club).where(Club.inn == "7707083893"))
        if club is None:
            club = Club(
                name="Bench league",
                legal_form="legal_entity",
                inn="7707083893",
                ogrn="1027700132195",
                contact_email="bench@example.org",
                timezone="Europe/Moscow",
                created_at=NOW,
                updated_at=NOW,
            )
            s.add(club)
            s.flush()
        structure = Structure(club_id=club.id, name=f"Bench {tournaments}", ante_type="none", created_at=NOW)
        s.add(structure)
        s.flush()
        base = s.scalar(select(func.coalesce(func.max(Player.id), 0)))
        s.execute(
            insert(Player),
            [
                {
                    "id": base + p,
                    "pseudonym": f"lg-{tournaments}-{p}",
                    "name": f"Player {p}",
                    "handle": f"lg{tournaments}x{p}",
                    "birth_date": date(1990, 1, 1),
                    "created_at": NOW,
                }
                for p in range(1, PLAYERS + 1)
            ],
        )
        s.execute(text("SELECT setval(pg_get_serial_sequence('players', 'id'), (SELECT max(id) FROM players))"))
        ids = []
        for n in range(tournaments):
            start = datetime(2026, 9, 1, 16, tzinfo=UTC) + timedelta(days=n)
            t = Tournament(
                club_id=club.id,
                name=f"League {n}",
                status="finished",
                scheduled_start=start,
                format="bounty",
                bounty_type="classic",
                mystery_draw=False,
                starting_stack=20000,
                structure_id=structure.id,
                seat_cap=9,
                addon_once=True,
                currency="RUB",
                buy_in=0,
                no_show_policy="drop",
                itm_percent=15,
                itm_min=1,
                created_at=NOW,
                finished_at=NOW,
            )
            s.add(t)
            s.flush()
            ids.append(t.id)
            regs = s.execute(
                insert(Registration).returning(Registration.id, Registration.player_id),
                [
                    {
                        "tournament_id": t.id,
                        "player_id": base + p,
                        "status": "active",
                        "late": False,
                        "registered_at": NOW,
                    }
                    for p in range(1, PLAYERS + 1)
                ],
            ).all()
            entries = s.execute(
                insert(Entry).returning(Entry.id, Entry.player_id),
                [
                    {
                        "tournament_id": t.id,
                        "player_id": pid,
                        "registration_id": rid,
                        "sequence": 1,
                        "state": "busted",
                        "starting_chips": 20000,
                        "created_at": NOW,
                        "busted_at": NOW,
                    }
                    for rid, pid in regs
                ],
            ).all()
            order = [pid for _, pid in entries]
            rng.shuffle(order)
            entry_of = {pid: eid for eid, pid in entries}
            rows, place = [], 1
            i = 0
            while i < len(order):
                size = 2 if i > 0 and rng.random() < 0.1 and i + 1 < len(order) else 1
                for pid in order[i : i + size]:
                    rows.append(
                        {
                            "tournament_id": t.id,
                            "player_id": pid,
                            "entry_id": entry_of[pid],
                            "place": place,
                            "bust_number": None if place == 1 else PLAYERS - place,
                            "knockouts": 0,
                            "credit_halves": rng.randint(0, 4),
                            "prize": None,
                            "placed_at": NOW,
                        }
                    )
                place += size
                i += size
            s.execute(FinalPlace.__table__.insert(), rows)
        season = create_season(
            s,
            club_id=club.id,
            name=f"Autumn {tournaments}",
            date_from=date(2026, 9, 1),
            date_to=date(2027, 1, 1),
            formula="sqrt",
            shared="average",
            bonus=Decimal("0.5"),
            best_k=10,
            now=NOW,
        )
        add_to_season(s, season.id, tournament_ids=ids)
        return season.id


def naive(season_id: int):
    """The same standings, one tournament and one name at a time."""
    with bootstrap.unit_of_work() as s:
        season = s.get(Season, season_id)
        ids = s.scalars(select(SeasonTournament.tournament_id).where(SeasonTournament.season_id == season_id)).all()
        placings = []
        for tid in ids:
            t = s.get(Tournament, tid)
            if t.status != "finished":
                continue
            for r in s.execute(
                select(FinalPlace.player_id, FinalPlace.place, FinalPlace.credit_halves).where(
                    FinalPlace.tournament_id == tid
                )
            ):
                placings.append(Placing(tid, r.player_id, r.place, Fraction(r.credit_halves, 2)))
        table = standings(
            results(placings, formula=season.formula, table=[], shared=season.shared, bonus=season.knockout_bonus),
            season.best_k,
        )
        return [(st, s.get(Player, st.player_id).name) for st in table]


def set_based(season_id: int):
    with bootstrap.unit_of_work() as s:
        return season_standings(s, season_id)[2]


def run(report: Report) -> None:
    engine = bootstrap.engine()
    small = _seed(10)
    season = _seed(TOURNAMENTS)
    a = [(r.standing, r.name) for r in set_based(season)]
    b = naive(season)
    assert a == b, "the two reads disagree"
    name = f"league standings, {TOURNAMENTS} tournaments x {PLAYERS} players"
    report.compare(
        name,
        ("naive, per tournament and player", lambda: naive(season)),
        ("set-based season_standings", lambda: set_based(season)),
        repeat=5,
    )
    for label, fn in (("set-based", set_based), ("naive", naive)):
        for size, sid in ((10, small), (TOURNAMENTS, season)):
            with StatementCounter(engine) as counter:
                fn(sid)
            report.note(name, f"SQL statements, {label}, {size} tournaments", counter.count)
