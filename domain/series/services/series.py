"""Series services: add, edit, pause, resume, end, skip, read, and `materialize` (the hourly job).

The caller owns the transaction. Races are settled by the database: the series row is locked
`FOR UPDATE` by every change and `FOR SHARE` by materialization, and each (series, start) exists
once by a unique constraint (inserts are `ON CONFLICT DO NOTHING`)."""

from __future__ import annotations

import json
from dataclasses import dataclass, replace
from datetime import date, datetime, timedelta
from typing import Any

from sqlalchemy import text
from sqlalchemy.orm import Session

from domain.errors import DomainError, NotFound, Problem, raise_problems
from domain.series.rules.lifecycle import transition
from domain.series.rules.schedule import (
    DEFAULT_HORIZON_DAYS,
    Schedule,
    occurrences,
    schedule_problems,
)
from domain.series.rules.templates import (
    poker_settings,
    template_problems,
    tournament_name,
)

SCHEDULE_FIELDS = ("cron", "timezone", "horizon_days", "opens_before_minutes")


@dataclass(frozen=True)
class SeriesSpec:
    club_id: int
    name: str
    kind: str
    cron: str
    timezone: str | None  # None: the club's timezone
    template: dict[str, Any]
    horizon_days: int = DEFAULT_HORIZON_DAYS
    opens_before_minutes: int = 24 * 60

    @property
    def schedule(self) -> Schedule:
        return Schedule(self.cron, self.timezone or "", self.horizon_days, timedelta(minutes=self.opens_before_minutes))


@dataclass(frozen=True)
class Materialized:
    planned: int  # occurrences newly written
    opened: int  # occurrences whose registration opened in this run
    missed: int  # planned occurrences whose start passed before they opened
    failed: tuple[tuple[int, str], ...] = ()  # (occurrence id, why) the rules refused to create


def spec_problems(session: Session, spec: SeriesSpec, now: datetime) -> list[Problem]:
    problems = []
    if not spec.name.strip():
        problems.append(Problem("series-name-empty", "the series needs a name"))
    problems += template_problems(spec.kind, spec.template)
    if spec.kind == "poker" and not problems:
        problems += _structure_problems(session, spec.club_id, spec.template["structure_id"])
    return problems + schedule_problems(spec.schedule, now)


def _structure_problems(session: Session, club_id: int, structure_id: Any) -> list[Problem]:
    owner = session.execute(
        text("SELECT club_id FROM poker_structures WHERE id = :id"),
        {"id": structure_id if isinstance(structure_id, int) and not isinstance(structure_id, bool) else -1},
    ).scalar()
    if owner is None:
        return [Problem("series-structure-not-found", f"no blind structure {structure_id}")]
    if owner != club_id:
        return [Problem("series-structure-other-club", f"blind structure {structure_id} belongs to another club")]
    return []


def add_series(session: Session, spec: SeriesSpec, now: datetime, made_from: int | None = None) -> int:
    """A new active series of a listed club (timezone: the club's unless given); its occurrences
    within the horizon are materialized at once. `made_from`: the club's tournament the series was
    made of; when it starts at one of the series' starts and is neither finished nor cancelled, that
    start is taken by it (open, its tournament that one), so the series does not make a second
    tournament for the same evening."""
    club = session.execute(
        text("SELECT timezone, listing_status FROM clubs WHERE id = :id"), {"id": spec.club_id}
    ).first()
    if club is None:
        raise NotFound("series-club-not-found", f"no club #{spec.club_id}")
    if club.listing_status != "listed":
        raise DomainError(
            "series-club-not-listed", f"club #{spec.club_id} is {club.listing_status}; it cannot add a series"
        )
    spec = replace(spec, timezone=spec.timezone or club.timezone)
    raise_problems(spec_problems(session, spec, now))
    series_id = session.execute(
        text(
            "INSERT INTO series (club_id, name, kind, cron, timezone, horizon_days, opens_before_minutes,"
            " template, status, created_at, updated_at)"
            " VALUES (:club_id, :name, :kind, :cron, :timezone, :horizon_days, :opens_before_minutes,"
            " CAST(:template AS jsonb), 'active', :now, :now)"
            " ON CONFLICT (club_id, name) DO NOTHING RETURNING id"
        ),
        {**_row(spec), "now": now},
    ).scalar()
    if series_id is None:
        raise DomainError("series-name-taken", f"the club already has a series named '{spec.name}'")
    if made_from is not None:
        _taken_by(session, series_id, spec, made_from, now)
    materialize(session, now, [series_id])
    return series_id


def _taken_by(session: Session, series_id: int, spec: SeriesSpec, tournament_id: int, now: datetime) -> None:
    """The start at the tournament's own time, written as opened by it (materialize plans the rest)."""
    start = session.execute(
        text(
            "SELECT scheduled_start FROM poker_tournaments WHERE id = :t AND club_id = :club"
            " AND status IN ('draft', 'registration_open', 'running')"
        ),
        {"t": tournament_id, "club": spec.club_id},
    ).scalar()
    for occ in occurrences(spec.schedule, now, frozenset()):
        if occ.starts_at == start:
            session.execute(
                text(
                    "INSERT INTO series_occurrence (series_id, starts_at, opens_at, local_date, status, settings,"
                    " tournament_id, opened_at) SELECT :id, :starts_at, :opens_at, :local_date, 'open', s.template,"
                    " :t, :now FROM series s WHERE s.id = :id"
                ),
                {"id": series_id, "starts_at": occ.starts_at, "opens_at": occ.opens_at,
                 "local_date": occ.local_date, "t": tournament_id, "now": now},
            )  # fmt: skip


def edit_series(session: Session, series_id: int, now: datetime, **changes: Any) -> None:
    """Change the name, the template and/or the calendar. Occurrences already open keep what they
    opened with; planned ones take the new template, and are re-planned when the calendar changed.
    Every problem at once, a name another series of the club bears among them (`series-name-taken`)."""
    current = _lock(session, series_id)
    if current["status"] == "ended":
        raise DomainError("series-ended", "the series has ended; it cannot be edited")
    spec = replace(_spec(current), **changes)
    problems = spec_problems(session, spec, now)
    taken = {"club": spec.club_id, "name": spec.name, "id": series_id}
    if spec.name != current["name"] and session.execute(_NAME_TAKEN, taken).first():
        problems.append(Problem("series-name-taken", f"the club already has a series named '{spec.name}'"))
    raise_problems(problems)
    session.execute(
        text(
            "UPDATE series SET name = :name, kind = :kind, cron = :cron, timezone = :timezone,"
            " horizon_days = :horizon_days, opens_before_minutes = :opens_before_minutes,"
            " template = CAST(:template AS jsonb), updated_at = :now WHERE id = :id"
        ),
        {**_row(spec), "now": now, "id": series_id},
    )
    if any(getattr(spec, f) != current[f] for f in SCHEDULE_FIELDS):
        _drop_planned(session, series_id)
        materialize(session, now, [series_id])
    else:
        session.execute(
            text(
                "UPDATE series_occurrence SET settings = CAST(:template AS jsonb)"
                " WHERE series_id = :id AND status = 'planned'"
            ),
            {"template": _row(spec)["template"], "id": series_id},
        )


def change_status(session: Session, series_id: int, action: str, now: datetime) -> str:
    """pause / resume / end. Pausing or ending drops the occurrences not yet open; resuming plans
    again from now."""
    current = _lock(session, series_id)
    status = transition(current["status"], action)
    session.execute(
        text("UPDATE series SET status = :status, updated_at = :now WHERE id = :id"),
        {"status": status, "now": now, "id": series_id},
    )
    if status == "active":
        materialize(session, now, [series_id])
    else:
        _drop_planned(session, series_id)
    return status


def skip_date(session: Session, series_id: int, local_date: date) -> int:
    """The series does not run on `local_date` (its timezone). Returns the occurrences dropped."""
    current = _lock(session, series_id)
    if current["status"] == "ended":
        raise DomainError("series-ended", "the series has ended; there is nothing to skip")
    opened = session.execute(
        text(
            "SELECT starts_at FROM series_occurrence"
            " WHERE series_id = :id AND local_date = :day AND status <> 'planned' LIMIT 1"
        ),
        {"id": series_id, "day": local_date},
    ).scalar()
    if opened is not None:
        raise DomainError(
            "series-date-already-open",
            f"registration for the {local_date:%Y-%m-%d} tournament is already open; cancel that tournament instead",
        )
    session.execute(
        text("INSERT INTO series_skip (series_id, local_date) VALUES (:id, :day) ON CONFLICT DO NOTHING"),
        {"id": series_id, "day": local_date},
    )
    return session.execute(
        text("DELETE FROM series_occurrence WHERE series_id = :id AND local_date = :day AND status = 'planned'"),
        {"id": series_id, "day": local_date},
    ).rowcount


def materialize(session: Session, now: datetime, series_ids: list[int] | None = None) -> Materialized:
    """Write every occurrence of every active series of a listed club within its horizon (each
    exactly once), open
    registration of those due, and mark missed the planned ones whose start has passed.
    A constant number of statements, whatever the number of series."""
    rows = session.execute(
        text(
            "SELECT id, cron, timezone, horizon_days, opens_before_minutes,"
            " ARRAY(SELECT local_date FROM series_skip k WHERE k.series_id = s.id) AS skipped"
            " FROM series s WHERE status = 'active'"
            " AND EXISTS (SELECT 1 FROM clubs c WHERE c.id = s.club_id AND c.listing_status = 'listed')"
            " AND (CAST(:ids AS bigint[]) IS NULL OR id = ANY(:ids)) ORDER BY id FOR SHARE OF s"
        ),
        {"ids": series_ids},
    ).all()
    columns: dict[str, list] = {"series_id": [], "starts_at": [], "opens_at": [], "local_date": []}
    for row in rows:
        schedule = Schedule(row.cron, row.timezone, row.horizon_days, timedelta(minutes=row.opens_before_minutes))
        for occ in occurrences(schedule, now, frozenset(row.skipped)):
            columns["series_id"].append(row.id)
            columns["starts_at"].append(occ.starts_at)
            columns["opens_at"].append(occ.opens_at)
            columns["local_date"].append(occ.local_date)
    planned = 0
    if columns["series_id"]:
        planned = session.execute(
            text(
                "INSERT INTO series_occurrence (series_id, starts_at, opens_at, local_date, status, settings)"
                " SELECT u.series_id, u.starts_at, u.opens_at, u.local_date, 'planned', s.template"
                " FROM unnest(CAST(:series_id AS bigint[]), CAST(:starts_at AS timestamptz[]),"
                " CAST(:opens_at AS timestamptz[]), CAST(:local_date AS date[]))"
                " AS u(series_id, starts_at, opens_at, local_date)"
                " JOIN series s ON s.id = u.series_id"
                " ON CONFLICT (series_id, starts_at) DO NOTHING"
            ),
            columns,
        ).rowcount
    opened = session.execute(
        text(
            "UPDATE series_occurrence o SET status = 'open', opened_at = :now FROM series s"
            " WHERE s.id = o.series_id AND s.status = 'active' AND o.status = 'planned'"
            " AND o.opens_at <= :now AND o.starts_at > :now"
            " AND (CAST(:ids AS bigint[]) IS NULL OR o.series_id = ANY(:ids))"
            " RETURNING o.id, o.series_id, s.club_id, s.kind, s.name, o.starts_at, o.local_date, o.settings"
        ),
        {"now": now, "ids": series_ids},
    ).all()
    failed = _create_tournaments(session, opened, now)
    missed = session.execute(
        text(
            "UPDATE series_occurrence o SET status = 'missed'"
            " WHERE o.status = 'planned' AND o.starts_at <= :now"
            " AND (CAST(:ids AS bigint[]) IS NULL OR o.series_id = ANY(:ids))"
        ),
        {"now": now, "ids": series_ids},
    ).rowcount
    return Materialized(planned=planned, opened=len(opened) - len(failed), missed=missed, failed=failed)


def _create_tournaments(session: Session, opened: list, now: datetime) -> tuple[tuple[int, str], ...]:
    """Create and open the tournament of each occurrence just opened, each in its own savepoint: an
    occurrence the tournament rules refuse becomes `failed` with the reason, the others go on."""
    from domain.poker.services import tournaments as poker_tournaments
    from domain.pusoy.services import setup as pusoy_setup

    created: dict[str, list] = {"id": [], "tournament_id": []}
    failed: list[tuple[int, str]] = []
    for occ in opened:
        name = tournament_name(occ.name, occ.local_date)
        try:
            with session.begin_nested():
                if occ.kind == "poker":
                    settings = poker_settings(occ.settings, name, occ.starts_at)
                    tournament = poker_tournaments.create_tournament(
                        session, occ.club_id, occ.settings["structure_id"], settings, now
                    )
                    poker_tournaments.change_status(session, tournament.id, "open", now)
                else:  # a Pusoy Dos tournament is open (filling, Setup) from its creation
                    tournament = pusoy_setup.create(session, name=name, club_id=occ.club_id, now=now, **occ.settings)
        except DomainError as exc:
            failed.append((occ.id, exc.message))
            continue
        created["id"].append(occ.id)
        created["tournament_id"].append(tournament.id)
    if created["id"]:
        session.execute(
            text(
                "UPDATE series_occurrence o SET tournament_id = u.tournament_id"
                " FROM unnest(CAST(:id AS bigint[]), CAST(:tournament_id AS bigint[])) AS u(id, tournament_id)"
                " WHERE o.id = u.id"
            ),
            created,
        )
    if failed:
        session.execute(
            text(
                "UPDATE series_occurrence o SET status = 'failed', opened_at = NULL, problem = u.problem"
                " FROM unnest(CAST(:id AS bigint[]), CAST(:problem AS text[])) AS u(id, problem)"
                " WHERE o.id = u.id"
            ),
            {"id": [f[0] for f in failed], "problem": [f[1] for f in failed]},
        )
    return tuple(failed)


def upcoming_openings(session: Session, now: datetime, until: datetime) -> list[datetime]:
    """The distinct instants in (now, until] at which a planned occurrence's registration opens."""
    return list(
        session.execute(
            text(
                "SELECT DISTINCT o.opens_at FROM series_occurrence o JOIN series s ON s.id = o.series_id"
                " WHERE o.status = 'planned' AND s.status = 'active' AND o.opens_at > :now"
                " AND o.opens_at <= :until ORDER BY o.opens_at"
            ),
            {"now": now, "until": until},
        ).scalars()
    )


def list_series(session: Session, now: datetime) -> list[dict[str, Any]]:
    rows = session.execute(
        text(
            "SELECT s.id, s.club_id, s.name, s.kind, s.cron, s.timezone, s.status,"
            " (SELECT min(starts_at) FROM series_occurrence o"
            "   WHERE o.series_id = s.id AND o.starts_at > :now) AS next_start,"
            " (SELECT count(*) FROM series_occurrence o"
            "   WHERE o.series_id = s.id AND o.status = 'planned') AS planned"
            " FROM series s ORDER BY s.club_id, s.name"
        ),
        {"now": now},
    ).mappings()
    return [dict(r) for r in rows]


def show_series(session: Session, series_id: int) -> dict[str, Any]:
    row = _read(session, series_id, lock=False)
    skipped = session.execute(
        text("SELECT local_date FROM series_skip WHERE series_id = :id ORDER BY local_date"), {"id": series_id}
    ).scalars()
    occs = session.execute(
        text(
            "SELECT starts_at, opens_at, local_date, status, tournament_id, problem FROM series_occurrence"
            " WHERE series_id = :id ORDER BY starts_at"
        ),
        {"id": series_id},
    ).mappings()
    return {**row, "skipped": list(skipped), "occurrences": [dict(o) for o in occs]}


def _lock(session: Session, series_id: int) -> dict[str, Any]:
    return _read(session, series_id, lock=True)


_READ = (
    "SELECT id, club_id, name, kind, cron, timezone, horizon_days, opens_before_minutes, template,"
    " status, created_at, updated_at FROM series WHERE id = :id"
)
_READ_SERIES, _LOCK_SERIES = text(_READ), text(_READ + " FOR UPDATE")
_NAME_TAKEN = text("SELECT 1 FROM series WHERE club_id = :club AND name = :name AND id <> :id")


def _read(session: Session, series_id: int, lock: bool) -> dict[str, Any]:
    row = session.execute(_LOCK_SERIES if lock else _READ_SERIES, {"id": series_id}).mappings().first()
    if row is None:
        raise NotFound("series-not-found", f"no series #{series_id}")
    return dict(row)


def _spec(row: dict[str, Any]) -> SeriesSpec:
    return SeriesSpec(
        club_id=row["club_id"],
        name=row["name"],
        kind=row["kind"],
        cron=row["cron"],
        timezone=row["timezone"],
        template=row["template"],
        horizon_days=row["horizon_days"],
        opens_before_minutes=row["opens_before_minutes"],
    )


def _row(spec: SeriesSpec) -> dict[str, Any]:
    return {
        "club_id": spec.club_id,
        "name": spec.name.strip(),
        "kind": spec.kind,
        "cron": spec.cron,
        "timezone": spec.timezone,
        "horizon_days": spec.horizon_days,
        "opens_before_minutes": spec.opens_before_minutes,
        "template": json.dumps(spec.template, ensure_ascii=False, sort_keys=True),
    }


def _drop_planned(session: Session, series_id: int) -> None:
    session.execute(
        text("DELETE FROM series_occurrence WHERE series_id = :id AND status = 'planned'"), {"id": series_id}
    )
