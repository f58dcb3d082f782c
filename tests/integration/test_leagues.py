"""Leagues on the real database (RULES LG-1..LG-3): which tournaments count, points, standings
derived on every read."""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta
from decimal import Decimal

import pytest
from sqlalchemy import func, select

from domain.errors import DomainError
from domain.leagues.services import leagues as service
from domain.leagues.tables import Season
from domain.poker.rules.knockouts import Bust
from domain.poker.services.knockouts import record_knockouts
from domain.poker.services.results import finalize_tournaments
from domain.series.tables import Series, SeriesOccurrence
from tests.support import world as w
from tests.support.world import EVENING

pytestmark = pytest.mark.integration


def played(session, names: str, start: datetime, *, finish: bool = True):
    """A tournament at `start` with players `names`; each busted by the last, in order: the last
    name wins. Finished (places stored) unless `finish` is false."""
    t = w.tournament(session, **w.BOUNTY)
    t.scheduled_start = start
    session.flush()
    e = w.field(session, t, names)
    champion = e[names[-1]]
    for i, n in enumerate(names[:-1]):
        record_knockouts(session, t.id, [Bust(e[n].id, champion.id)], now=EVENING + timedelta(seconds=i), actor="floor")
    if finish:
        finalize_tournaments(session, EVENING + timedelta(hours=1))
    return t, e


def season(session, t, **kw):
    values = dict(
        club_id=t.club_id,
        name=f"Winter {t.id}",
        date_from=date(2026, 11, 1),
        date_to=date(2026, 12, 1),
        formula="sqrt",
        now=EVENING,
    )
    values.update(kw)
    return service.create_season(session, **values)


def test_lg1_only_finished_tournaments_in_range_in_the_clubs_timezone_count(session):
    """LG-1: the club is in Moscow (UTC+3): 30 Nov 21:30 UTC is already 1 Dec there."""
    inside, _ = played(session, "AB", datetime(2026, 11, 29, 20, 0, tzinfo=UTC))
    late, _ = played(session, "CD", datetime(2026, 11, 30, 21, 30, tzinfo=UTC))
    other, _ = played(session, "GH", datetime(2026, 11, 16, 12, 0, tzinfo=UTC))  # not picked, no series
    running, _ = played(session, "EF", datetime(2026, 11, 15, 12, 0, tzinfo=UTC), finish=False)  # made last
    s = season(session, inside)
    service.add_to_season(session, s.id, tournament_ids=[inside.id, late.id, running.id])
    _, ids, _ = service.season_standings(session, s.id)
    assert ids == [inside.id]


def test_lg1_tournaments_of_a_chosen_series_count(session):
    """LG-1"""
    t, _ = played(session, "ABC", datetime(2026, 11, 20, 16, 0, tzinfo=UTC))
    series = Series(
        club_id=t.club_id,
        name=f"Fridays {t.id}",
        kind="poker",
        cron="0 19 * * 5",
        timezone="Europe/Moscow",
        horizon_days=14,
        opens_before_minutes=60,
        template={},
        status="active",
        created_at=EVENING,
        updated_at=EVENING,
    )
    session.add(series)
    session.flush()
    session.add(
        SeriesOccurrence(
            series_id=series.id,
            starts_at=t.scheduled_start,
            opens_at=t.scheduled_start,
            local_date=date(2026, 11, 20),
            status="open",
            settings={},
            tournament_id=t.id,
            opened_at=EVENING,
        )
    )
    session.flush()
    s = season(session, t)
    service.add_to_season(session, s.id, series_ids=[series.id])
    _, ids, rows = service.season_standings(session, s.id)
    assert ids == [t.id]
    # sqrt, 3 players: C 1st 17.32, B 2nd 12.25, A 3rd 10.00
    assert [(r.name, r.standing.rank, r.standing.total) for r in rows] == [
        ("C", 1, Decimal("17.32")),
        ("B", 2, Decimal("12.25")),
        ("A", 3, Decimal("10.00")),
    ]


def test_lg2_lg3_table_bonus_best_k_and_a_derived_read(session):
    """LG-2, LG-3: table points, knockout bonus per credit, best 1 result."""
    t1, _ = played(session, "ABC", datetime(2026, 11, 6, 16, 0, tzinfo=UTC))
    s = season(
        session, t1, formula="table", table=[Decimal(10), Decimal(6), Decimal(3)], bonus=Decimal("0.5"), best_k=1
    )
    service.add_to_season(session, s.id, tournament_ids=[t1.id])
    _, _, rows = service.season_standings(session, s.id)
    # C won with 2 knockouts: 10 + 0.5 × 2 = 11.00
    assert [(r.name, r.standing.total) for r in rows] == [
        ("C", Decimal("11.00")),
        ("B", Decimal("6.00")),
        ("A", Decimal("3.00")),
    ]
    t2, _ = played(session, "XYZ", datetime(2026, 11, 13, 16, 0, tzinfo=UTC))
    service.add_to_season(session, s.id, tournament_ids=[t2.id])
    _, _, rows = service.season_standings(session, s.id)  # the next read sees it
    assert [(r.standing.rank, r.standing.total) for r in rows][:2] == [(1, Decimal("11.00")), (1, Decimal("11.00"))]


def test_lg_bad_input_is_refused_with_its_code_and_nothing_written(session):
    """LG-1, LG-2"""
    t, _ = played(session, "AB", datetime(2026, 11, 6, 16, 0, tzinfo=UTC))
    before = session.scalar(select(func.count()).select_from(Season))
    with pytest.raises(DomainError) as caught:
        with session.begin_nested():
            season(session, t, date_to=date(2026, 10, 1), formula="cubic")
    assert [p.code for p in caught.value.problems] == ["season-range-empty", "season-formula-unknown"]
    assert session.scalar(select(func.count()).select_from(Season)) == before


def test_lg1_lg3_a_season_defined_anew_and_a_tournament_taken_out_and_the_next_read_follows(session):
    """LG-1..LG-3: a season's days narrowed leave out a tournament outside them; its formula changed,
    the standings' next read scores by it; a picked tournament taken out counts no more (taken out
    again: 0); the edit is checked as a creation, its own name not counted as taken, every problem at
    once, nothing changed."""
    early, _ = played(session, "ABC", datetime(2026, 11, 6, 16, 0, tzinfo=UTC))
    later, _ = played(session, "CBA", datetime(2026, 11, 20, 16, 0, tzinfo=UTC))
    s = season(session, early, formula="table", table=[Decimal(10), Decimal(6), Decimal(3)])
    season(session, early, name="Spring")
    service.add_to_season(session, s.id, tournament_ids=[early.id, later.id])

    def totals() -> tuple[list[int], list[Decimal]]:  # each field's players are its own
        _, ids, rows = service.season_standings(session, s.id)
        return ids, [r.standing.total for r in rows]

    assert totals() == ([early.id, later.id], [Decimal(v) for v in ("10", "10", "6", "6", "3", "3")])
    same = dict(name=s.name, date_from=date(2026, 11, 1), formula="table", table=[Decimal(10), Decimal(6), Decimal(3)])
    service.edit_season(session, s.id, **same, date_to=date(2026, 11, 15))  # its own name: no problem
    assert totals() == ([early.id], [Decimal("10"), Decimal("6"), Decimal("3")])
    service.edit_season(session, s.id, name="Winter", date_from=date(2026, 11, 1), date_to=date(2026, 12, 1),
                        formula="sqrt")  # fmt: skip
    ids, points = totals()  # 10·√(3/p): 17.32, 12.25, 10.00 for places 1, 2, 3 of 3
    assert ids == [early.id, later.id] and points == [
        Decimal(v) for v in ("17.32",) * 2 + ("12.25",) * 2 + ("10.00",) * 2
    ]
    assert service.remove_from_season(session, s.id, tournament_ids=[later.id]) == 1
    assert service.remove_from_season(session, s.id, tournament_ids=[later.id]) == 0
    assert totals()[0] == [early.id]
    with pytest.raises(DomainError) as caught:
        with session.begin_nested():
            service.edit_season(session, s.id, name="Spring", date_from=date(2026, 12, 1), date_to=date(2026, 11, 1),
                                formula="table")  # fmt: skip
    assert [p.code for p in caught.value.problems] == ["season-range-empty", "season-table-empty", "season-name-taken"]
    session.expire_all()
    assert (session.get(Season, s.id).name, session.get(Season, s.id).formula) == ("Winter", "sqrt")
