"""Series on the real PostgreSQL: materialization exactly once, DST, skip, pause/resume, edits."""

from __future__ import annotations

import threading
from datetime import UTC, date, datetime, timedelta

import pytest
from sqlalchemy import Engine, text
from sqlalchemy.orm import Session

from domain.errors import DomainError
from domain.series.services.series import (
    SeriesSpec,
    add_series,
    change_status,
    edit_series,
    list_series,
    materialize,
    show_series,
    skip_date,
)
from domain.store.db import unit_of_work
from tests.support.world import club as world_club

UTC = UTC
NOW = datetime(2026, 10, 20, 12, tzinfo=UTC)  # Tuesday; Berlin leaves summer time on Sunday 25 October


@pytest.fixture
def club(session) -> int:
    return world_club(session, fresh=True, timezone="Europe/Berlin").id


def spec(club: int, **changes) -> SeriesSpec:
    base = dict(
        club_id=club,
        name="Friday Deepstack",
        kind="pusoy",
        cron="30 2 * * *",
        timezone="Europe/Berlin",
        template={"organizer": "royal", "capacity": 16},
        horizon_days=14,
        opens_before_minutes=60,
    )
    return SeriesSpec(**{**base, **changes})


def starts(session: Session, series_id: int, status: str | None = None) -> list[datetime]:
    return list(
        session.execute(
            text(
                "SELECT starts_at FROM series_occurrence WHERE series_id = :id"
                " AND (CAST(:status AS text) IS NULL OR status = :status) ORDER BY starts_at"
            ),
            {"id": series_id, "status": status},
        ).scalars()
    )


def count(session: Session, table: str) -> int:
    return session.execute(text(f"SELECT count(*) FROM {table}")).scalar_one()


def test_adding_a_series_plans_its_horizon_across_the_autumn_dst_change_once_each(session, club):
    series_id = add_series(session, spec(club), NOW)
    found = starts(session, series_id)
    assert len(found) == 14
    berlin_oct_25 = [s for s in found if s.astimezone(UTC).date() == date(2026, 10, 25)]
    assert berlin_oct_25 == [datetime(2026, 10, 25, 0, 30, tzinfo=UTC)]  # 02:30 CEST, once
    assert datetime(2026, 10, 26, 1, 30, tzinfo=UTC) in found  # 02:30 CET after the change


def test_materializing_twice_writes_nothing_the_second_time(session, club):
    series_id = add_series(session, spec(club), NOW)
    before = starts(session, series_id)
    again = materialize(session, NOW)
    assert again.planned == 0
    assert starts(session, series_id) == before
    later = materialize(session, NOW + timedelta(days=1))
    assert later.planned == 1  # the horizon moved on by one day
    assert len(starts(session, series_id)) == 15


def test_registration_opens_exactly_at_its_offset_not_one_second_before(session, club):
    series_id = add_series(session, spec(club, cron="0 19 * * *", timezone="UTC"), NOW)
    first = datetime(2026, 10, 20, 19, tzinfo=UTC)
    opens = first - timedelta(minutes=60)
    assert materialize(session, opens - timedelta(seconds=1)).opened == 0
    assert materialize(session, opens).opened == 1
    assert starts(session, series_id, "open") == [first]
    assert materialize(session, opens + timedelta(seconds=1)).opened == 0


def test_a_planned_occurrence_whose_start_passed_is_marked_missed_not_opened(session, club):
    series_id = add_series(session, spec(club, cron="0 19 * * *", timezone="UTC", opens_before_minutes=0), NOW)
    first = datetime(2026, 10, 20, 19, tzinfo=UTC)
    result = materialize(session, first)  # registration opens at the start itself: too late to open
    assert (result.opened, result.missed) == (0, 1)
    assert starts(session, series_id, "missed") == [first]
    assert materialize(session, first - timedelta(seconds=1)).opened == 0  # missed stays missed


def test_skipping_a_date_drops_that_occurrence_and_keeps_it_out(session, club):
    series_id = add_series(session, spec(club), NOW)
    assert skip_date(session, series_id, date(2026, 10, 25)) == 1
    materialize(session, NOW)
    local_dates = (
        session.execute(text("SELECT local_date FROM series_occurrence WHERE series_id = :id"), {"id": series_id})
        .scalars()
        .all()
    )
    assert date(2026, 10, 25) not in local_dates
    assert len(local_dates) == 13
    assert show_series(session, series_id)["skipped"] == [date(2026, 10, 25)]


def test_skipping_a_date_already_open_is_refused_and_changes_nothing(session, club):
    series_id = add_series(session, spec(club, cron="0 19 * * *", timezone="UTC"), NOW)
    materialize(session, datetime(2026, 10, 20, 18, tzinfo=UTC))
    with pytest.raises(DomainError) as err:
        skip_date(session, series_id, date(2026, 10, 20))
    assert err.value.code == "series-date-already-open"
    assert count(session, "series_skip") == 0


def test_pause_drops_what_is_not_open_and_resume_plans_again_from_then(session, club):
    series_id = add_series(session, spec(club, cron="0 19 * * *", timezone="UTC"), NOW)
    materialize(session, datetime(2026, 10, 20, 18, tzinfo=UTC))  # the 20th opens
    assert change_status(session, series_id, "pause", NOW) == "paused"
    assert starts(session, series_id) == [datetime(2026, 10, 20, 19, tzinfo=UTC)]  # the open one stays
    assert materialize(session, NOW + timedelta(days=2)).planned == 0  # paused: nothing planned
    resumed_at = datetime(2026, 10, 23, 12, tzinfo=UTC)
    assert change_status(session, series_id, "resume", resumed_at) == "active"
    planned = starts(session, series_id, "planned")
    assert planned[0] == datetime(2026, 10, 23, 19, tzinfo=UTC)
    assert len(planned) == 14


def test_ending_a_series_is_final(session, club):
    series_id = add_series(session, spec(club), NOW)
    change_status(session, series_id, "end", NOW)
    assert starts(session, series_id) == []
    with pytest.raises(DomainError) as err:
        change_status(session, series_id, "resume", NOW)
    assert err.value.code == "series-ended"


def test_editing_the_template_changes_only_occurrences_not_yet_open(session, club):
    series_id = add_series(session, spec(club, cron="0 19 * * *", timezone="UTC"), NOW)
    materialize(session, datetime(2026, 10, 20, 18, tzinfo=UTC))
    edit_series(session, series_id, NOW, template={"organizer": "royal", "capacity": 32})
    rows = session.execute(
        text("SELECT status, settings FROM series_occurrence WHERE series_id = :id ORDER BY starts_at"),
        {"id": series_id},
    ).all()
    assert rows[0][0] == "open" and rows[0][1]["capacity"] == 16
    assert {r.settings["capacity"] for r in rows[1:]} == {32}


def test_editing_the_cron_replans_the_occurrences_not_yet_open(session, club):
    series_id = add_series(session, spec(club, cron="0 19 * * *", timezone="UTC"), NOW)
    materialize(session, datetime(2026, 10, 20, 18, tzinfo=UTC))
    edit_series(session, series_id, datetime(2026, 10, 20, 18, tzinfo=UTC), cron="0 20 * * *")
    found = starts(session, series_id)
    assert found[0] == datetime(2026, 10, 20, 19, tzinfo=UTC)  # open: kept as it was
    assert {s.hour for s in found[1:]} == {20}


@pytest.mark.parametrize(
    ("changes", "code"),
    [
        ({"cron": "0 25 * * *"}, "series-cron-invalid"),
        ({"timezone": "Mars/Olympus"}, "series-timezone-unknown"),
        ({"horizon_days": 400}, "series-horizon-out-of-range"),
        ({"kind": "chess"}, "series-kind-unknown"),
        ({"name": "  "}, "series-name-empty"),
        ({"template": {"organizer": "royal", "capacity": 12}}, "bad-capacity"),
        ({"template": {"capacity": 16}}, "series-template-missing-setting"),
    ],
)
def test_bad_input_is_refused_with_a_specific_code_and_nothing_written(session, club, changes, code):
    with pytest.raises(DomainError) as err:
        add_series(session, spec(club, **changes), NOW)
    assert err.value.code == code
    assert count(session, "series") == 0
    assert count(session, "series_occurrence") == 0


def test_a_bad_edit_changes_nothing(session, club):
    series_id = add_series(session, spec(club), NOW)
    before = starts(session, series_id)
    with pytest.raises(DomainError) as err:
        edit_series(session, series_id, NOW, cron="0 19 * * *", timezone="Nowhere/Land")
    assert err.value.code == "series-timezone-unknown"
    assert show_series(session, series_id)["cron"] == "30 2 * * *"
    assert starts(session, series_id) == before


def test_a_second_series_of_the_same_name_in_the_club_is_refused(session, club):
    add_series(session, spec(club), NOW)
    with pytest.raises(DomainError) as err:
        add_series(session, spec(club, cron="0 19 * * *"), NOW)
    assert err.value.code == "series-name-taken"


def test_an_unknown_series_is_not_found(session, club):
    with pytest.raises(DomainError) as err:
        change_status(session, 999, "pause", NOW)
    assert err.value.code == "series-not-found"


def test_without_a_timezone_the_series_takes_the_club_s(session, club):
    series_id = add_series(session, spec(club, timezone=None, cron="0 19 * * *"), NOW)
    assert show_series(session, series_id)["timezone"] == "Europe/Berlin"
    assert starts(session, series_id)[0] == datetime(2026, 10, 20, 17, tzinfo=UTC)  # 19:00 CEST


def test_a_club_that_is_not_listed_cannot_add_a_series_and_its_series_stop_planning(session, club):
    series_id = add_series(session, spec(club), NOW)
    session.execute(text("UPDATE clubs SET listing_status = 'suspended' WHERE id = :id"), {"id": club})
    assert materialize(session, NOW + timedelta(days=1)).planned == 0
    with pytest.raises(DomainError) as err:
        add_series(session, spec(club, name="Another"), NOW)
    assert err.value.code == "series-club-not-listed"
    assert len(starts(session, series_id)) == 14


def test_an_unknown_club_is_refused(session):
    with pytest.raises(DomainError) as err:
        add_series(session, spec(424242), NOW)
    assert err.value.code == "series-club-not-found"


def test_list_shows_the_next_start(session, club):
    add_series(session, spec(club, cron="0 19 * * *", timezone="UTC"), NOW)
    [row] = list_series(session, NOW)
    assert row["next_start"] == datetime(2026, 10, 20, 19, tzinfo=UTC)
    assert row["planned"] == 14


def test_two_materializations_at_once_write_each_occurrence_exactly_once(committed: Engine):
    with unit_of_work(committed) as session:
        club = world_club(session, fresh=True, timezone="Europe/Berlin").id
        series_ids = [add_series(session, spec(club, name=f"S{i}", cron=f"{i} 19 * * *"), NOW) for i in range(5)]
        session.execute(text("DELETE FROM series_occurrence"))
    barrier = threading.Barrier(2)
    results = []

    def run() -> None:
        with unit_of_work(committed) as session:
            barrier.wait()
            results.append(materialize(session, NOW))

    threads = [threading.Thread(target=run) for _ in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sorted(r.planned for r in results) == [0, 70]
    with committed.connect() as conn:
        per_series = conn.execute(
            text("SELECT series_id, count(*) FROM series_occurrence GROUP BY series_id ORDER BY series_id")
        ).all()
    assert per_series == [(i, 14) for i in series_ids]


def test_two_openings_at_once_open_each_occurrence_exactly_once(committed: Engine):
    with unit_of_work(committed) as session:
        club = world_club(session, fresh=True, timezone="Europe/Berlin").id
        add_series(session, spec(club, cron="0 19 * * *", timezone="UTC"), NOW)
    barrier = threading.Barrier(2)
    results = []

    def run() -> None:
        with unit_of_work(committed) as session:
            barrier.wait()
            results.append(materialize(session, datetime(2026, 10, 20, 18, tzinfo=UTC)))

    threads = [threading.Thread(target=run) for _ in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sorted(r.opened for r in results) == [0, 1]


# -- live poker series: the tournament is created and opened when registration opens -------------

POKER = {
    "starting_stack": 20000,
    "currency": "RUB",
    "buy_in": 300000,
    "format": "reentry",
    "reentry_amount": 300000,
    "late_reg_minutes": 120,
    "reentry_minutes": 120,
}


def structure(session, club: int) -> int:
    from domain.poker.rules.structures import LevelSpec
    from domain.poker.services.structures import import_structure

    levels = [LevelSpec(100, 200, 0, 1200), LevelSpec(200, 400, 0, 1200)]
    return import_structure(session, club, "Deep", "none", levels, NOW).id


def test_a_poker_occurrence_opens_as_a_real_tournament_with_deadlines_from_the_start(session, club):
    template = {**POKER, "structure_id": structure(session, club)}
    series_id = add_series(session, spec(club, kind="poker", cron="0 19 * * *", timezone="UTC", template=template), NOW)
    result = materialize(session, datetime(2026, 10, 20, 18, tzinfo=UTC))
    assert (result.opened, result.failed) == (1, ())
    [occ] = [o for o in show_series(session, series_id)["occurrences"] if o["status"] == "open"]
    t = session.execute(
        text("SELECT name, status, scheduled_start, late_reg_deadline, buy_in FROM poker_tournaments WHERE id = :id"),
        {"id": occ["tournament_id"]},
    ).one()
    assert t == (
        "Friday Deepstack 20.10.2026",
        "registration_open",
        datetime(2026, 10, 20, 19, tzinfo=UTC),
        datetime(2026, 10, 20, 21, tzinfo=UTC),
        300000,
    )
    assert materialize(session, datetime(2026, 10, 20, 18, 30, tzinfo=UTC)).opened == 0
    assert count(session, "poker_tournaments") == 1


def test_an_occurrence_the_poker_rules_refuse_at_opening_fails_alone_with_the_reason(session, club):
    template = {**POKER, "structure_id": structure(session, club)}
    add_series(session, spec(club, kind="poker", cron="0 19 * * *", timezone="UTC", template=template), NOW)
    add_series(
        session, spec(club, name="Other", kind="poker", cron="30 19 * * *", timezone="UTC", template=template), NOW
    )
    session.execute(
        text(
            "UPDATE series_occurrence SET settings = settings || '{\"seat_cap\": 12}'"
            " WHERE series_id = (SELECT id FROM series WHERE name = 'Other')"
        )
    )
    result = materialize(session, datetime(2026, 10, 20, 18, 30, tzinfo=UTC))
    assert result.opened == 1
    [(occurrence_id, why)] = result.failed
    assert "seat cap 12" in why
    assert session.execute(
        text("SELECT status, problem FROM series_occurrence WHERE id = :id"), {"id": occurrence_id}
    ).one() == ("failed", why)


@pytest.mark.parametrize(
    ("template", "code"),
    [
        ({**POKER, "structure_id": 0}, "series-structure-not-found"),
        ({**POKER, "seat_cap": 11}, "seat-cap-out-of-range"),
        ({**POKER, "late_reg_minutes": -5}, "late-registration-before-start"),
        ({k: v for k, v in POKER.items() if k != "buy_in"}, "series-template-missing-setting"),
        ({**POKER, "scheduled_start": "2026-01-01"}, "series-template-unknown-setting"),
    ],
)
def test_a_poker_template_the_rules_refuse_is_refused_at_once_and_nothing_written(session, club, template, code):
    template = {"structure_id": structure(session, club), **template}
    with pytest.raises(DomainError) as err:
        add_series(session, spec(club, kind="poker", template=template), NOW)
    assert err.value.code == code
    assert count(session, "series") == 0


def test_a_pusoy_occurrence_opens_as_a_pusoy_dos_tournament_filling_at_once(session, club):
    series_id = add_series(session, spec(club, cron="0 19 * * *", timezone="UTC"), NOW)
    assert materialize(session, datetime(2026, 10, 20, 18, tzinfo=UTC)).opened == 1
    [occ] = [o for o in show_series(session, series_id)["occurrences"] if o["status"] == "open"]
    t = session.execute(
        text("SELECT name, status, capacity, organizer, club_id FROM pusoy_tournaments WHERE id = :id"),
        {"id": occ["tournament_id"]},
    ).one()
    assert t == ("Friday Deepstack 20.10.2026", "setup", 16, "royal", club)


@pytest.mark.parametrize("status, taken", [("registration_open", True), ("draft", True), ("cancelled", False)])
def test_a_series_made_of_a_tournament_leaves_that_tournament_its_own_evening(session, club, status, taken):
    """A series made of a tournament (the console's "from a tournament") whose start is one of the
    series' starts: that start is the tournament's (open, its tournament that one), and when its
    registration's time comes no second tournament is made for the evening; the later starts are
    planned as before. A cancelled tournament takes nothing: its evening is the series' own."""
    template = {**POKER, "structure_id": structure(session, club)}
    first = datetime(2026, 10, 20, 19, tzinfo=UTC)  # the first start of a daily series made at NOW (19:00 UTC)
    daily = {"kind": "poker", "cron": "0 19 * * *", "timezone": "UTC", "template": template}
    other = add_series(session, spec(club, **daily), NOW)
    materialize(session, datetime(2026, 10, 20, 18, tzinfo=UTC), [other])  # a tournament of that evening
    [own] = [o["tournament_id"] for o in show_series(session, other)["occurrences"] if o["status"] == "open"]
    session.execute(text("UPDATE poker_tournaments SET status = :s WHERE id = :id"), {"s": status, "id": own})
    before = count(session, "poker_tournaments")
    series_id = add_series(session, spec(club, name="Made of it", **daily), NOW, made_from=own)
    occ = show_series(session, series_id)["occurrences"]
    assert (occ[0]["starts_at"], occ[0]["status"], occ[0]["tournament_id"]) == (
        (first, "open", own) if taken else (first, "planned", None)
    )
    assert [o["status"] for o in occ[1:]] == ["planned"] * (len(occ) - 1) and len(occ) == 14
    materialize(session, datetime(2026, 10, 20, 18, 30, tzinfo=UTC), [series_id])  # the evening's opening time
    assert count(session, "poker_tournaments") == before + (0 if taken else 1)
