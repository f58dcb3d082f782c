"""The owner's console, part two (issue 39, "The club runs itself", docs/console.md): the club's
recurring series, its league seasons and its documents, over `/api/v1`.

- **Series** (docs/series.md): a tournament template and a calendar in the club's timezone (DST as the
  series' schedule reads it). The calendar is an RFC 5545 RRULE or a simple weekly form (days and a
  time), read as the cron the series keeps (domain/series/rules/recurrence.py), every problem with its
  code at once; the template is one of the club's tournaments' settings (its deadlines as minutes after
  its start) and/or the settings given. Listed with the next starts in the club's zone; edited (its
  name, calendar, template), paused, resumed, ended, a date of it skipped (`tourney series` does the same for
  the operator).
- **Seasons** (RULES LG-1..LG-3, docs/leagues.md): created, their series and tournaments named, their
  standings read (derived now from the stored places). Another club's series or tournament is not
  found, as a missing one (AC-2), never "of another club".
- **Documents** (DOC-1..DOC-5, docs/documents.md): each finished tournament's results sheet and
  certificates (and the season standings after it) as stored, with the delivery state; a stored PDF
  downloaded by the club's owner (checked against its sha256); the documents re-sent to the club's
  e-mail: a new delivery the delivery job (`publish-results`) sends, never a second message while one
  is on its way (`records.resend`).

Each operation is one action of the policy (`club.*`, the owner's), runs `Op.run` (the policy, the use
case, the audit row, AC-3) and calls the use cases the CLI calls. A change that would change nothing
answers 204 and writes nothing. The console's pages (flows/web/club_series.py) run the same `*_use`."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from datetime import UTC, date, datetime, timedelta
from decimal import Decimal
from typing import Annotated, Any, Literal
from zoneinfo import ZoneInfo

from fastapi import Response
from pydantic import BaseModel, ConfigDict, Field
from sqlalchemy import func, or_, select
from sqlalchemy.orm import Session

from domain.access.services.gate import UNCHANGED
from domain.clubs.services import clubs as club_service
from domain.documents.services import records
from domain.documents.tables import Document, DocumentPublication
from domain.errors import DomainError, NotFound, Problem, raise_problems
from domain.leagues.services import leagues
from domain.leagues.tables import Season, SeasonSeries, SeasonTournament
from domain.poker.rules.settings import SETTING_FIELDS
from domain.poker.services import tournaments as tournament_service
from domain.poker.tables.tournaments import Tournament
from domain.pusoy.tables import PusoyTournament
from domain.series.rules.recurrence import Read, as_rrule, read_rrule, weekly_rrule
from domain.series.rules.schedule import Schedule, starts_between
from domain.series.rules.templates import POKER_OFFSETS
from domain.series.services import series as series_service
from domain.series.tables import Series, SeriesOccurrence, SeriesSkip
from flows.web.api.core import ID_MAX, PAGED, Cursor, Id, Limit, Op, Operations, Strict, club_of
from flows.web.certificates import stored_file

ops = Operations("owner")
router = ops.router

Do = Callable[[Session, Any, datetime], Any]
INT32 = 2**31 - 1
AMOUNT = 10**15
NEXT = 5  # the next starts a series shows
DayName = Literal["mon", "tue", "wed", "thu", "fri", "sat", "sun"]
PLACEHOLDER_CRON = "0 12 * * *"  # checks the rest of a series whose rule does not read (never stored)


# -- series ----------------------------------------------------------------------------------------


class Weekly(Strict):
    """The simple weekly form: the days and the time of day, in the club's time."""

    days: list[DayName] = Field(min_length=1, max_length=7, examples=[["fri"]])
    time: str = Field(pattern=r"^[0-9]{1,2}:[0-9]{2}$", max_length=5, examples=["19:00"])


class PokerTemplate(Strict):
    """A poker series' template (docs/series.md#templates): the tournament's settings without its name and
    start, `structure_id` one of the club's structures, and the deadlines as minutes after the start.
    Given with `from_tournament`, each field given overrides that tournament's (`null` unsets one)."""

    structure_id: int | None = Field(None, ge=1, le=ID_MAX)
    starting_stack: int | None = Field(None, ge=-AMOUNT, le=AMOUNT)
    currency: str | None = Field(None, max_length=10, examples=["RUB"])
    buy_in: int | None = Field(None, ge=-AMOUNT, le=AMOUNT, description="minor units")
    format: Literal["freezeout", "rebuy", "reentry", "addon", "bounty"] | None = None
    bounty_type: Literal["none", "classic", "pko", "mystery"] | None = None
    mystery_draw: bool | None = None
    seat_cap: int | None = Field(None, ge=-INT32, le=INT32)
    addon_break: int | None = Field(None, ge=-INT32, le=INT32)
    addon_once: bool | None = None
    addon_chips: int | None = Field(None, ge=-AMOUNT, le=AMOUNT)
    rebuy_amount: int | None = Field(None, ge=-AMOUNT, le=AMOUNT)
    reentry_amount: int | None = Field(None, ge=-AMOUNT, le=AMOUNT)
    addon_amount: int | None = Field(None, ge=-AMOUNT, le=AMOUNT)
    no_show_policy: Literal["drop", "absent_mode"] | None = None
    itm_percent: int | None = Field(None, ge=-INT32, le=INT32)
    itm_min: int | None = Field(None, ge=-INT32, le=INT32)
    pko_head: int | None = Field(None, ge=-INT32, le=INT32)
    shared_knockouts: bool | None = None
    rebuy_until_level: int | None = Field(None, ge=-INT32, le=INT32)
    rebuy_limit: int | None = Field(None, ge=-INT32, le=INT32)
    reentry_limit: int | None = Field(None, ge=-INT32, le=INT32)
    mystery_phase: str | None = Field(None, max_length=40, examples=["itm"])
    mystery_draw_per: Literal["per_killer_entry", "per_knockout"] | None = None
    late_reg_minutes: int | None = Field(None, ge=-(10**6), le=10**6, description="late registration closes")
    reentry_minutes: int | None = Field(None, ge=-(10**6), le=10**6)
    addon_minutes: int | None = Field(None, ge=-(10**6), le=10**6)
    rebuy_until_minutes: int | None = Field(None, ge=-(10**6), le=10**6, description="SP-12")


class SeriesBody(Strict):
    """A new poker series of the club. Its calendar: `rrule` (RFC 5545, e.g.
    `FREQ=WEEKLY;BYDAY=FR;BYHOUR=19;BYMINUTE=0`) or `weekly` (`{"days": ["fri"], "time": "19:00"}`), in
    the club's timezone; its template: `from_tournament` (a tournament of the club: its structure and
    settings, the deadlines as minutes after its start) and/or `template`. Every problem at once (409),
    each with its code: the rule's (`series-rrule-*`, `series-weekly-*`, `series-rule-missing`,
    `series-rule-both`), the template's (`series-template-missing-setting`, the poker rules' own codes,
    `series-structure-not-found`), the calendar's (`series-cron-too-frequent`, `series-cron-never-fires`,
    `series-horizon-out-of-range`, `series-opens-before-out-of-range`), `series-name-taken`."""

    name: str = Field(min_length=1, max_length=200, examples=["Пятничный турбо"])
    rrule: str | None = Field(None, max_length=600, examples=["FREQ=WEEKLY;BYDAY=FR;BYHOUR=19;BYMINUTE=0"])
    weekly: Weekly | None = None
    from_tournament: int | None = Field(None, ge=1, le=ID_MAX, description="a tournament of the club: its settings")
    template: PokerTemplate | None = None
    horizon_days: int = Field(14, ge=-(10**6), le=10**6, description="days planned ahead: 1 to 365")
    opens_before_minutes: int = Field(
        24 * 60, ge=-(10**7), le=10**7, description="registration opens this long before each start (0 to 365 days)"
    )


class Start(BaseModel):
    starts_at: datetime = Field(description="UTC")
    local: str = Field(description="the start in the club's time, ISO 8601 with its offset")
    opens_at: datetime = Field(description="registration opens (UTC)")
    status: Literal["planned", "open", "missed", "failed"]
    tournament_id: int | None
    problem: str | None = Field(description="why its tournament could not be created (failed)")


class SeriesView(BaseModel):
    id: int
    club_id: int
    name: str
    kind: str
    status: Literal["active", "paused", "ended"]
    rrule: str | None = Field(description="the calendar as an RRULE; none when its cron says more (the CLI's)")
    cron: str = Field(description="the calendar the series keeps: 5-field cron in its timezone")
    timezone: str
    horizon_days: int
    opens_before_minutes: int
    template: dict[str, Any]
    planned: int = Field(description="starts planned, not yet open")
    next: list[Start] = Field(description="the next starts, in order (at most 5)")
    skipped: list[date] = Field(description="the days of the club's calendar, today or later, it does not run on")


def _series_rows(s: Session, club_id: int, series_id: int | None, now: datetime) -> list[dict]:
    """The club's series (or one of them) with their next starts and the dates skipped ahead: three
    statements whatever their number."""
    query = select(Series).where(Series.club_id == club_id).order_by(Series.name, Series.id)
    if series_id is not None:
        query = query.where(Series.id == series_id)
    found = list(s.scalars(query.execution_options(populate_existing=True)))
    if not found:
        return []
    zone = ZoneInfo(club_service.get_club(s, club_id).timezone)
    ordinal = func.row_number().over(partition_by=SeriesOccurrence.series_id, order_by=SeriesOccurrence.starts_at)
    upcoming = (
        select(SeriesOccurrence, ordinal.label("n"))
        .where(
            SeriesOccurrence.series_id.in_([r.id for r in found]),
            SeriesOccurrence.starts_at > now,
            SeriesOccurrence.status.in_(("planned", "open")),
        )
        .subquery()
    )
    starts: dict[int, list[dict]] = {}
    planned: dict[int, int] = {}
    for row in s.execute(select(upcoming).order_by(upcoming.c.series_id, upcoming.c.starts_at)).mappings():
        planned[row["series_id"]] = planned.get(row["series_id"], 0) + (row["status"] == "planned")
        if row["n"] <= NEXT:
            starts.setdefault(row["series_id"], []).append(
                {
                    "starts_at": row["starts_at"],
                    "local": row["starts_at"].astimezone(zone).isoformat(),
                    "opens_at": row["opens_at"],
                    "status": row["status"],
                    "tournament_id": row["tournament_id"],
                    "problem": row["problem"],
                }
            )
    skipped: dict[int, list[date]] = {}
    today = now.astimezone(zone).date()
    for sid, day in s.execute(
        select(SeriesSkip.series_id, SeriesSkip.local_date)
        .where(SeriesSkip.series_id.in_([r.id for r in found]), SeriesSkip.local_date >= today)
        .order_by(SeriesSkip.series_id, SeriesSkip.local_date)
    ):
        skipped.setdefault(sid, []).append(day)
    return [
        {
            "id": r.id,
            "club_id": r.club_id,
            "name": r.name,
            "kind": r.kind,
            "status": r.status,
            "rrule": as_rrule(r.cron),
            "cron": r.cron,
            "timezone": r.timezone,
            "horizon_days": r.horizon_days,
            "opens_before_minutes": r.opens_before_minutes,
            "template": r.template,
            "planned": planned.get(r.id, 0),
            "next": starts.get(r.id, []),
            "skipped": skipped.get(r.id, []),
        }
        for r in found
    ]


def series_list(s: Session, club_id: int, now: datetime) -> list[dict]:
    return _series_rows(s, club_id, None, now)


def series_view(s: Session, club_id: int, series_id: int, now: datetime) -> dict:
    """One series of the club; another club's is not found, as a missing one (AC-2)."""
    found = _series_rows(s, club_id, series_id, now)
    if not found:
        raise NotFound("series-not-found", f"no series #{series_id}")
    return found[0]


def template_of(s: Session, club_id: int, tournament_id: int) -> dict[str, Any]:
    """A tournament of the club as a series' template: its structure and settings, each deadline as the
    minutes after its start; another club's tournament is not found, as a missing one."""
    t = tournament_service.get_tournament(s, tournament_id)
    if t.club_id != club_id:
        raise NotFound("tournament-not-found", "no tournament %(tournament_id)s", tournament_id=tournament_id)
    deadlines = set(POKER_OFFSETS.values())
    template: dict[str, Any] = {"structure_id": t.structure_id}
    for field in SETTING_FIELDS:
        if field not in ("name", "scheduled_start", *deadlines) and getattr(t, field) is not None:
            template[field] = getattr(t, field)
    for offset, field in POKER_OFFSETS.items():
        if getattr(t, field) is not None:
            template[offset] = int((getattr(t, field) - t.scheduled_start).total_seconds() // 60)
    return template


def read_rule(rrule: str | None, weekly: tuple[list[str], str] | None) -> Read:
    """The calendar given: an RRULE or the weekly form, exactly one."""
    if rrule is not None and weekly is not None:
        return Read(None, (Problem("series-rule-both", "give the calendar once: an RRULE or the weekly form"),))
    if rrule is None and weekly is None:
        return Read(None, (Problem("series-rule-missing", "give the calendar: an RRULE or the weekly form"),))
    return read_rrule(rrule) if rrule is not None else weekly_rrule(*weekly)


def add_series_use(
    club_id: int,
    name: str,
    *,
    rrule: str | None = None,
    weekly: tuple[list[str], str] | None = None,
    from_tournament: int | None = None,
    template: dict[str, Any] | None = None,
    horizon_days: int = 14,
    opens_before_minutes: int = 24 * 60,
) -> Do:
    """A new active poker series of the club (`series.add_series`, as `tourney series add`), its
    starts within the horizon planned at once; every problem at once: the rule's and the rest's."""

    def do(s, actor, now):
        rule = read_rule(rrule, weekly)
        values = template_of(s, club_id, from_tournament) if from_tournament is not None else {}
        for key, value in (template or {}).items():
            if value is None:
                values.pop(key, None)
            else:
                values[key] = value
        spec = series_service.SeriesSpec(
            club_id, name, "poker", rule.cron or PLACEHOLDER_CRON, None, values, horizon_days, opens_before_minutes
        )
        if rule.problems:
            zone = club_service.get_club(s, club_id).timezone
            raise_problems([*rule.problems, *series_service.spec_problems(s, replace(spec, timezone=zone), now)])
        made = series_service.add_series(s, spec, now, made_from=from_tournament)
        return series_view(s, club_id, made, now)

    return do


def edit_series_use(
    club_id: int,
    series_id: int,
    *,
    name: str | None = None,
    rrule: str | None = None,
    weekly: tuple[list[str], str] | None = None,
    from_tournament: int | None = None,
    template: dict[str, Any] | None = None,
    horizon_days: int | None = None,
    opens_before_minutes: int | None = None,
) -> Do:
    """A series of the club changed (`series.edit_series`, as `tourney series edit`): its name, its
    calendar (an RRULE or the weekly form), its template (a tournament of the club's settings and/or
    fields over the current template; `None` unsets one), how far ahead it plans and when registration
    opens; what is not given stays. The starts already open keep what they opened with; the planned
    ones take the new template, and are planned again when the calendar changed. Nothing different:
    UNCHANGED. Every problem at once (the rule's, `series-name-taken`, the rest's); `series-ended`."""

    def do(s, actor, now):
        current = series_view(s, club_id, series_id, now)  # another club's: not found (AC-2)
        changes: dict[str, Any] = {}
        problems: list[Problem] = []
        if name is not None and name.strip() != current["name"]:
            changes["name"] = name.strip()
        if rrule is not None or weekly is not None:
            rule = read_rule(rrule, weekly)
            problems += rule.problems
            if rule.cron is not None and rule.cron != current["cron"]:
                changes["cron"] = rule.cron
        if from_tournament is not None or template:
            values = (
                template_of(s, club_id, from_tournament) if from_tournament is not None else dict(current["template"])
            )
            for key, value in (template or {}).items():
                if value is None:
                    values.pop(key, None)
                else:
                    values[key] = value
            if values != current["template"]:
                changes["template"] = values
        for key, value in (("horizon_days", horizon_days), ("opens_before_minutes", opens_before_minutes)):
            if value is not None and value != current[key]:
                changes[key] = value
        if problems:  # the rule does not read: its problems and the rest's, at once
            kept = {k: changes.get(k, current[k]) for k in ("name", "template", "horizon_days", "opens_before_minutes")}
            spec = series_service.SeriesSpec(
                club_id, kept["name"], current["kind"], current["cron"], current["timezone"], kept["template"],
                kept["horizon_days"], kept["opens_before_minutes"],
            )  # fmt: skip
            raise_problems([*problems, *series_service.spec_problems(s, spec, now)])
        if not changes:
            return UNCHANGED
        series_service.edit_series(s, series_id, now, **changes)
        return series_view(s, club_id, series_id, now)

    return do


TARGETS = {"pause": "paused", "resume": "active", "end": "ended"}


def series_status_use(club_id: int, series_id: int, action: Literal["pause", "resume", "end"]) -> Do:
    """Pause (nothing new planned; starts not yet open dropped), resume (planned again from now) or end
    (for good). Already so: UNCHANGED. Refused by the series' lifecycle: `series-ended`,
    `series-not-active`, `series-not-paused`."""

    def do(s, actor, now):
        current = series_view(s, club_id, series_id, now)
        if current["status"] == TARGETS[action]:
            return UNCHANGED
        series_service.change_status(s, series_id, action, now)
        return series_view(s, club_id, series_id, now)

    return do


def skip_date_use(club_id: int, series_id: int, local_date: date) -> Do:
    """The series does not run on `local_date`, a day of the club's calendar (`series.skip_date`, as
    `tourney series skip`): its start that day, planned, is dropped and never planned again. Skipped
    already: UNCHANGED. Refused: a day before today (`series-skip-past`), a day the calendar has no start
    on (`series-skip-no-start`), a start whose registration is open already (`series-date-already-open`:
    cancel that tournament instead), an ended series (`series-ended`)."""

    def do(s, actor, now):
        current = series_view(s, club_id, series_id, now)  # another club's: not found (AC-2)
        if current["status"] == "ended":
            raise DomainError("series-ended", "the series has ended; there is nothing to skip")
        zone = ZoneInfo(current["timezone"])
        if local_date < now.astimezone(zone).date():
            raise_problems([Problem("series-skip-past", f"{local_date:%Y-%m-%d} is past: nothing to skip")])
        if local_date in current["skipped"]:
            return UNCHANGED
        midnight = datetime(local_date.year, local_date.month, local_date.day, tzinfo=zone)
        after = midnight.astimezone(UTC) - timedelta(microseconds=1)
        until = (midnight + timedelta(days=1)).astimezone(UTC) - timedelta(microseconds=1)
        if not starts_between(Schedule(current["cron"], current["timezone"]), after, until, limit=1):
            raise_problems(
                [Problem("series-skip-no-start", f"the series has no start on {local_date:%Y-%m-%d}: nothing to skip")]
            )
        series_service.skip_date(s, series_id, local_date)
        return series_view(s, club_id, series_id, now)

    return do


PAGE_OF = {200: {"description": "a page of them", "headers": PAGED}}


@ops.get("/clubs/{club_id}/series", "club.series", response=list[SeriesView], responses=PAGE_OF)
def club_series(op: Op, club_id: Id, limit: Limit = 50, cursor: Cursor = None):
    """The club's series by name, each with its calendar (an RRULE, its cron, its timezone), its template
    and its next starts in the club's time; a page at a time."""
    return op.run(
        club_of(club_id),
        lambda s, actor, now: op.page(series_list(s, club_id, now), lambda r: (r["name"], r["id"]), limit, cursor),
        describe=f"club {club_id}",
    )


@ops.get("/clubs/{club_id}/series/{series_id}", "club.show-series", response=SeriesView)
def club_show_series(op: Op, club_id: Id, series_id: Id):
    """One series: its calendar, template and next starts. Another club's: 404 as a missing one."""
    return op.run(
        club_of(club_id), lambda s, actor, now: series_view(s, club_id, series_id, now), describe=f"club {club_id}"
    )


@ops.post("/clubs/{club_id}/series", "club.add-series", response=SeriesView, status=201)
def club_add_series(op: Op, club_id: Id, body: SeriesBody):
    """Add a poker series: a template and a calendar in the club's timezone.
    Its starts within the horizon are planned at once (the next ones answered in the club's time); each
    opens registration `opens_before_minutes` before it (the job `materialize-series`)."""
    weekly = (list(body.weekly.days), body.weekly.time) if body.weekly is not None else None
    return op.run(
        club_of(club_id),
        add_series_use(
            club_id,
            body.name,
            rrule=body.rrule,
            weekly=weekly,
            from_tournament=body.from_tournament,
            template=body.template.model_dump(exclude_unset=True) if body.template is not None else None,
            horizon_days=body.horizon_days,
            opens_before_minutes=body.opens_before_minutes,
        ),
        describe=f"series {body.name.strip()}",
        data=body.model_dump(mode="json", exclude_unset=True),
    )


class SeriesEditBody(Strict):
    """What changes of a series; what is not given stays. The calendar: `rrule` or `weekly`, once; the
    template: `from_tournament` (a tournament of the club's settings, replacing the template) and/or
    `template` (fields over it, `null` unsets one). Every problem at once (409), each with its code, as
    for a new series (`series-rrule-*`, `series-weekly-*`, `series-rule-both`, the template's, the
    calendar's, `series-name-taken`); an ended series: 409 `series-ended`."""

    name: str | None = Field(None, min_length=1, max_length=200)
    rrule: str | None = Field(None, max_length=600, examples=["FREQ=WEEKLY;BYDAY=SA;BYHOUR=18;BYMINUTE=0"])
    weekly: Weekly | None = None
    from_tournament: int | None = Field(None, ge=1, le=ID_MAX, description="a tournament of the club: its settings")
    template: PokerTemplate | None = None
    horizon_days: int | None = Field(None, ge=-(10**6), le=10**6, description="days planned ahead: 1 to 365")
    opens_before_minutes: int | None = Field(
        None, ge=-(10**7), le=10**7, description="registration opens this long before each start (0 to 365 days)"
    )


@ops.post("/clubs/{club_id}/series/{series_id}", "club.edit-series", response=SeriesView, unchanged=True)
def club_edit_series(op: Op, club_id: Id, series_id: Id, body: SeriesEditBody):
    """Change a series: its name, calendar, template, horizon or registration's opening.
    The starts already open keep what they opened with; the planned ones take the new template, planned
    again when the calendar changed. Nothing different: 204. Another club's series: 404 as a missing one."""
    weekly = (list(body.weekly.days), body.weekly.time) if body.weekly is not None else None
    return op.run(
        club_of(club_id),
        edit_series_use(
            club_id,
            series_id,
            name=body.name,
            rrule=body.rrule,
            weekly=weekly,
            from_tournament=body.from_tournament,
            template=body.template.model_dump(exclude_unset=True) if body.template is not None else None,
            horizon_days=body.horizon_days,
            opens_before_minutes=body.opens_before_minutes,
        ),
        describe=f"series {series_id}",
        data=body.model_dump(mode="json", exclude_unset=True),
    )


def _status_op(action: Literal["pause", "resume", "end"], doc: str):
    def handler(op: Op, club_id: Id, series_id: Id):
        return op.run(club_of(club_id), series_status_use(club_id, series_id, action), describe=f"series {series_id}")

    handler.__doc__ = doc
    handler.__name__ = f"club_{action}_series"
    return ops.post(
        f"/clubs/{{club_id}}/series/{{series_id}}/{action}",
        f"club.{action}-series",
        response=SeriesView,
        unchanged=True,
    )(handler)


_status_op("pause", "Pause a series: nothing new is planned, its starts not yet open are dropped.\nPaused: 204.")
_status_op("resume", "Resume a paused series: its starts are planned again from now.\nActive: 204.")
_status_op("end", "End a series for good (paused or active); its starts not yet open are dropped.\nEnded: 204.")


class SkipBody(Strict):
    """A day the series does not run on: a day of the club's calendar (the series' timezone), today or later,
    on which its calendar has a start."""

    local_date: date = Field(description="YYYY-MM-DD in the club's calendar", examples=["2026-12-31"])


@ops.post("/clubs/{club_id}/series/{series_id}/skips", "club.skip-series-date", response=SeriesView, unchanged=True)
def club_skip_series_date(op: Op, club_id: Id, series_id: Id, body: SkipBody):
    """Skip one date of a series: its start that day (planned, registration not open yet) is dropped and not
    planned again; the answer lists it in `skipped`. Skipped already: 204, nothing written. Refused (409,
    nothing written): `series-skip-past`, `series-skip-no-start`, `series-date-already-open` (cancel that
    tournament instead), `series-ended`. Another club's series: 404 as a missing one."""
    return op.run(
        club_of(club_id),
        skip_date_use(club_id, series_id, body.local_date),
        describe=f"series {series_id}",
        data=body.model_dump(mode="json"),
    )


# -- league seasons ----------------------------------------------------------------------------------


class SeasonBody(Strict):
    """A season (LG-1..LG-3); every problem at once (409): `season-name-blank`, `season-name-taken`,
    `season-range-empty`, `season-formula-unknown`, `season-table-empty`, `season-table-bad`,
    `season-shared-unknown`, `season-bonus-bad`, `season-best-k-bad`."""

    name: str = Field(min_length=1, max_length=200, examples=["Зима 2027"])
    date_from: date = Field(alias="from", description="the first day, in the club's timezone (included)")
    date_to: date = Field(alias="to", description="the end day, in the club's timezone (excluded)")
    formula: str = Field("sqrt", max_length=20, description="table | sqrt (LG-2)")
    table: list[float] = Field([], max_length=500, description="points by place, for the table formula")
    shared: str = Field("best", max_length=20, description="shared places score best | average (LG-2)")
    bonus: float | None = Field(None, ge=-(10**6), le=10**6, description="points per knockout credit (LG-2)")
    best_k: int | None = Field(None, ge=-(10**6), le=10**6, description="count each player's best K results")

    model_config = ConfigDict(extra="forbid", populate_by_name=True)

    def definition(self) -> dict[str, Any]:
        """The season as the use cases take it (`add_season_use`, `edit_season_use`): numbers as Decimals."""
        return {
            "name": self.name, "date_from": self.date_from, "date_to": self.date_to, "formula": self.formula,
            "table": [_number(v) for v in self.table], "shared": self.shared,
            "bonus": None if self.bonus is None else _number(self.bonus), "best_k": self.best_k,
        }  # fmt: skip


class MembersBody(Strict):
    """Series and tournaments of the club whose finished tournaments, started within the season's days,
    count (LG-1). Another club's is `season-series-unknown` / `season-tournament-unknown`, as a missing one."""

    series: list[Annotated[int, Field(ge=1, le=ID_MAX)]] = Field([], max_length=100)
    tournaments: list[Annotated[int, Field(ge=1, le=ID_MAX)]] = Field([], max_length=500)


class Counted(BaseModel):
    id: int
    name: str
    scheduled_start: datetime


class SeasonView(BaseModel):
    id: int
    club_id: int
    name: str
    date_from: date = Field(alias="from")
    date_to: date = Field(alias="to")
    formula: str
    table: list[str]
    knockout_bonus: str | None
    shared: str
    best_k: int | None
    series: list[int] = Field(description="the series it follows")
    tournaments: list[int] = Field(description="the tournaments picked")
    counted: list[Counted] = Field(description="the finished tournaments that count now (LG-1)")

    model_config = ConfigDict(populate_by_name=True)


class StandingRow(BaseModel):
    rank: int
    player_id: int
    player: str
    total: str = Field(description="points, exact to hundredths (LG-2)")
    counted: int
    played: int
    firsts: int
    best: str


class SeasonStandings(SeasonView):
    standings: list[StandingRow]


def _seasons(s: Session, club_id: int, season_id: int | None = None) -> list[dict]:
    """The club's seasons (or one), newest first, with their series, picks and counted tournaments: four
    statements whatever their number."""
    query = select(Season).where(Season.club_id == club_id).order_by(Season.date_from.desc(), Season.id.desc())
    if season_id is not None:
        query = query.where(Season.id == season_id)
    found = list(s.scalars(query.execution_options(populate_existing=True)))  # as stored (numeric(12, 2))
    ids = [r.id for r in found]
    if not ids:
        return []
    chosen: dict[int, list[int]] = {}
    for season, series in s.execute(
        select(SeasonSeries.season_id, SeasonSeries.series_id).where(SeasonSeries.season_id.in_(ids))
    ).all():
        chosen.setdefault(season, []).append(series)
    picked: dict[int, list[int]] = {}
    for season, tournament in s.execute(
        select(SeasonTournament.season_id, SeasonTournament.tournament_id).where(SeasonTournament.season_id.in_(ids))
    ).all():
        picked.setdefault(season, []).append(tournament)
    counted: dict[int, list[dict]] = {}
    counting = leagues.counted_tournaments().where(Season.id.in_(ids))
    for row in s.execute(
        counting.add_columns(Tournament.name, Tournament.scheduled_start).order_by(
            Tournament.scheduled_start, Tournament.id
        )
    ):
        counted.setdefault(row.season_id, []).append(
            {"id": row.tournament_id, "name": row.name, "scheduled_start": row.scheduled_start}
        )
    return [
        {
            "id": r.id,
            "club_id": r.club_id,
            "name": r.name,
            "from": r.date_from,
            "to": r.date_to,
            "formula": r.formula,
            "table": [str(v) for v in r.points_table],
            "knockout_bonus": None if r.knockout_bonus is None else str(r.knockout_bonus),
            "shared": r.shared,
            "best_k": r.best_k,
            "series": sorted(chosen.get(r.id, [])),
            "tournaments": sorted(picked.get(r.id, [])),
            "counted": counted.get(r.id, []),
        }
        for r in found
    ]


def season_list(s: Session, club_id: int) -> list[dict]:
    return _seasons(s, club_id)


def season_full(s: Session, club_id: int, season_id: int) -> dict:
    """One season of the club with its standings now (LG-2, LG-3); another club's is not found."""
    found = _seasons(s, club_id, season_id)
    if not found:
        raise NotFound("season-not-found", f"no season {season_id}")
    _, _, rows = leagues.season_standings(s, season_id)
    return found[0] | {
        "standings": [
            {
                "rank": r.standing.rank,
                "player_id": r.standing.player_id,
                "player": r.name,
                "total": str(r.standing.total),
                "counted": r.standing.counted,
                "played": r.standing.played,
                "firsts": r.standing.firsts,
                "best": str(r.standing.best),
            }
            for r in rows
        ]
    }


def _number(value: float) -> Decimal:
    return Decimal(str(value))


def add_season_use(
    club_id: int,
    name: str,
    date_from: date,
    date_to: date,
    *,
    formula: str = "sqrt",
    table: list[Decimal] = (),
    shared: str = "best",
    bonus: Decimal | None = None,
    best_k: int | None = None,
) -> Do:
    """A season of the club (`leagues.create_season`, as `tourney league create`)."""

    def do(s, actor, now):
        made = leagues.create_season(
            s,
            club_id=club_id,
            name=name,
            date_from=date_from,
            date_to=date_to,
            formula=formula,
            table=list(table),
            shared=shared,
            bonus=bonus,
            best_k=best_k,
            now=now,
        )
        return season_full(s, club_id, made.id)

    return do


def add_to_season_use(club_id: int, season_id: int, series_ids: list[int], tournament_ids: list[int]) -> Do:
    """The season follows these series and counts these tournaments too (`leagues.add_to_season`, as
    `tourney league add`); another club's series or tournament is refused as a missing one (AC-2). All
    named already: UNCHANGED."""

    def do(s, actor, now):
        current = season_full(s, club_id, season_id)
        ours_s = set(s.scalars(select(Series.id).where(Series.club_id == club_id, Series.id.in_(series_ids))))
        ours_t = set(
            s.scalars(select(Tournament.id).where(Tournament.club_id == club_id, Tournament.id.in_(tournament_ids)))
        )
        problems = [Problem("season-series-unknown", f"no series {i}") for i in series_ids if i not in ours_s]
        problems += [
            Problem("season-tournament-unknown", f"no poker tournament {i}") for i in tournament_ids if i not in ours_t
        ]
        if not series_ids and not tournament_ids:
            problems.append(Problem("season-add-nothing", "name a series or a tournament"))
        raise_problems(problems)
        if set(series_ids) <= set(current["series"]) and set(tournament_ids) <= set(current["tournaments"]):
            return UNCHANGED
        leagues.add_to_season(s, season_id, series_ids=series_ids, tournament_ids=tournament_ids)
        return season_full(s, club_id, season_id)

    return do


def edit_season_use(
    club_id: int,
    season_id: int,
    name: str,
    date_from: date,
    date_to: date,
    *,
    formula: str = "sqrt",
    table: list[Decimal] = (),
    shared: str = "best",
    bonus: Decimal | None = None,
    best_k: int | None = None,
) -> Do:
    """The season defined anew (`leagues.edit_season`): its name, days and scoring as at its creation,
    every problem at once; its series and tournaments stay. The same as it is: UNCHANGED. Another
    club's season: not found, as a missing one (AC-2)."""

    def do(s, actor, now):
        current = season_full(s, club_id, season_id)
        same = (
            (current["name"], current["from"], current["to"], current["formula"], current["shared"], current["best_k"])
            == (name.strip(), date_from, date_to, formula, shared, best_k)
            and [Decimal(v) for v in current["table"]] == list(table)
            and (None if current["knockout_bonus"] is None else Decimal(current["knockout_bonus"])) == bonus
        )
        if same:
            return UNCHANGED
        leagues.edit_season(
            s, season_id, name=name, date_from=date_from, date_to=date_to, formula=formula, table=list(table),
            shared=shared, bonus=bonus, best_k=best_k,
        )  # fmt: skip
        return season_full(s, club_id, season_id)

    return do


def remove_from_season_use(club_id: int, season_id: int, series_ids: list[int], tournament_ids: list[int]) -> Do:
    """The season no longer follows these series nor counts these picked tournaments
    (`leagues.remove_from_season`); none of them in the season: UNCHANGED. Another club's season: not
    found, as a missing one (AC-2)."""

    def do(s, actor, now):
        season_full(s, club_id, season_id)
        if not series_ids and not tournament_ids:
            raise_problems([Problem("season-remove-nothing", "name a series or a tournament")])
        if not leagues.remove_from_season(s, season_id, series_ids=series_ids, tournament_ids=tournament_ids):
            return UNCHANGED
        return season_full(s, club_id, season_id)

    return do


@ops.get("/clubs/{club_id}/seasons", "club.seasons", response=list[SeasonView], responses=PAGE_OF)
def club_seasons(op: Op, club_id: Id, limit: Limit = 50, cursor: Cursor = None):
    """The club's seasons, the latest first, each with the tournaments that count now; a page at a time."""
    return op.run(
        club_of(club_id),
        lambda s, actor, now: op.page(
            season_list(s, club_id), lambda r: (-r["from"].toordinal(), -r["id"]), limit, cursor
        ),
        describe=f"club {club_id}",
    )


@ops.get("/clubs/{club_id}/seasons/{season_id}", "club.season", response=SeasonStandings)
def club_season(op: Op, club_id: Id, season_id: Id):
    """A season and its standings now (LG-2, LG-3: derived from the stored places on every read).
    Another club's season: 404 as a missing one."""
    return op.run(
        club_of(club_id), lambda s, actor, now: season_full(s, club_id, season_id), describe=f"club {club_id}"
    )


@ops.post("/clubs/{club_id}/seasons", "club.add-season", response=SeasonStandings, status=201)
def club_add_season(op: Op, club_id: Id, body: SeasonBody):
    """Create a season: its days [from, to) in the club's timezone and one points formula (LG-1, LG-2)."""
    return op.run(
        club_of(club_id),
        add_season_use(club_id, **body.definition()),
        describe=f"season {body.name.strip()}",
        data=body.model_dump(mode="json", by_alias=True, exclude_unset=True),
    )


@ops.post(
    "/clubs/{club_id}/seasons/{season_id}/members", "club.add-to-season", response=SeasonStandings, unchanged=True
)
def club_add_to_season(op: Op, club_id: Id, season_id: Id, body: MembersBody):
    """Name the season's series and tournaments (LG-1: those finished, started within its days, count).
    All of them named already: 204, nothing written."""
    return op.run(
        club_of(club_id),
        add_to_season_use(club_id, season_id, body.series, body.tournaments),
        describe=f"season {season_id}",
        data=body.model_dump(),
    )


@ops.post("/clubs/{club_id}/seasons/{season_id}", "club.edit-season", response=SeasonStandings, unchanged=True)
def club_edit_season(op: Op, club_id: Id, season_id: Id, body: SeasonBody):
    """Define the season anew, as at its creation (its name, days, formula, shared places, bonus, best K;
    LG-1..LG-3); its series and tournaments stay, its standings follow. Every problem at once (409). The
    same as it is: 204, nothing written."""
    return op.run(
        club_of(club_id),
        edit_season_use(club_id, season_id, **body.definition()),
        describe=f"season {season_id}",
        data=body.model_dump(mode="json", by_alias=True, exclude_unset=True),
    )


@ops.post(
    "/clubs/{club_id}/seasons/{season_id}/removals",
    "club.remove-from-season",
    response=SeasonStandings,
    unchanged=True,
)
def club_remove_from_season(op: Op, club_id: Id, season_id: Id, body: MembersBody):
    """Take series and picked tournaments out of the season (LG-1): they count no more, at the next read
    of its standings. None of them in it: 204, nothing written; naming none: 409 `season-remove-nothing`."""
    return op.run(
        club_of(club_id),
        remove_from_season_use(club_id, season_id, body.series, body.tournaments),
        describe=f"season {season_id}",
        data=body.model_dump(),
    )


# -- documents ----------------------------------------------------------------------------------------


class DocumentFile(BaseModel):
    id: int
    kind: Literal["results", "certificate", "standings"]
    filename: str
    serial: str | None
    player: str | None = Field(description="a certificate's holder, as printed (AC-5: the club's staff)")
    size_bytes: int


class Documents(BaseModel):
    """A tournament's documents (or a season's standings after one) and their delivery."""

    id: int | None = Field(description="the documents' id (none: not published yet)")
    source: Literal["poker", "pusoy", "season"]
    tournament_id: int
    tournament: str
    season_id: int | None
    season: str | None
    state: Literal["not-published", "stored", "pending", "failed", "sent"] = Field(
        description="not published yet; stored (no address); pending; failed (retried: attempts, the "
        "error, the next attempt); sent"
    )
    recipient: str | None
    attempts: int
    last_error: str | None
    next_attempt_at: datetime | None
    sent_at: datetime | None
    published_at: datetime | None
    files: list[DocumentFile]


ORDER = {"poker": 0, "pusoy": 1, "season": 2}


def _of_club(club_id: int):
    """The publications of the club's tournaments: its poker tournaments' (and the seasons' standings
    after them) and its Pusoy Dos cups'."""
    poker = select(Tournament.id).where(Tournament.club_id == club_id)
    pusoy = select(PusoyTournament.id).where(PusoyTournament.club_id == club_id)
    return or_(
        DocumentPublication.source.in_(("poker", "season")) & DocumentPublication.tournament_id.in_(poker),
        (DocumentPublication.source == "pusoy") & DocumentPublication.tournament_id.in_(pusoy),
    )


def documents_row(p: DocumentPublication | None, files: list[Document], **unpublished: Any) -> dict:
    """A tournament's documents as `Documents` answers them (none published yet: `unpublished` names it)."""
    if p is None:
        return unpublished | {
            "id": None,
            "season_id": None,
            "season": None,
            "state": "not-published",
            "recipient": None,
            "attempts": 0,
            "last_error": None,
            "next_attempt_at": None,
            "sent_at": None,
            "published_at": None,
            "files": [],
        }
    return {
        "id": p.id,
        "source": p.source,
        "tournament_id": p.tournament_id,
        "tournament": p.tournament,
        "season_id": p.season_id,
        "season": p.season,
        "state": p.state,
        "recipient": p.recipient,
        "attempts": p.attempts,
        "last_error": p.last_error,
        "next_attempt_at": p.next_attempt_at,
        "sent_at": p.sent_at,
        "published_at": p.created_at,
        "files": [
            {
                "id": d.id,
                "kind": d.kind,
                "filename": d.filename,
                "serial": d.serial,
                "player": d.player,
                "size_bytes": d.size_bytes,
            }
            for d in files
        ],
    }


def documents_list(s: Session, club_id: int) -> list[dict]:
    """Every finished poker tournament and complete Pusoy Dos cup of the club with its documents (not
    published yet: said so), and every season standings after one: four statements."""
    published = list(
        s.scalars(select(DocumentPublication).where(_of_club(club_id)).execution_options(populate_existing=True))
    )
    files: dict[int, list[Document]] = {}
    if published:
        for d in s.scalars(
            select(Document)
            .where(Document.publication_id.in_([p.id for p in published]))
            .order_by(Document.kind.desc(), Document.id)
        ):
            files.setdefault(d.publication_id, []).append(d)
    rows = [documents_row(p, files.get(p.id, [])) for p in published]
    have = {(p.source, p.tournament_id) for p in published}
    done = [
        ("poker", r.id, r.name)
        for r in s.execute(
            select(Tournament.id, Tournament.name).where(Tournament.club_id == club_id, Tournament.status == "finished")
        )
    ] + [
        ("pusoy", r.id, r.name)
        for r in s.execute(
            select(PusoyTournament.id, PusoyTournament.name).where(
                PusoyTournament.club_id == club_id, PusoyTournament.status == "complete"
            )
        )
    ]
    rows += [
        documents_row(None, [], source=source, tournament_id=tid, tournament=name)
        for source, tid, name in done
        if (source, tid) not in have
    ]
    return rows


def documents_key(row: dict) -> tuple:
    """The list's order: poker tournaments, Pusoy Dos cups, seasons' standings, each the latest first."""
    return (ORDER[row["source"]], -row["tournament_id"], row["season_id"] or 0)


def publication_of(s: Session, club_id: int, publication_id: int) -> DocumentPublication:
    found = s.scalar(select(DocumentPublication).where(DocumentPublication.id == publication_id, _of_club(club_id)))
    if found is None:
        raise NotFound("documents-not-found", f"no documents {publication_id}")
    return found


def documents_view(s: Session, club_id: int, publication_id: int) -> dict:
    p = publication_of(s, club_id, publication_id)
    return documents_row(p, records.documents_of(s, p.id))


def stored_document(s: Session, club_id: int, publication_id: int, document_id: int) -> tuple[str, str, str]:
    """(folder, filename, sha256) of a stored document of the club's; another club's is not found."""
    p = publication_of(s, club_id, publication_id)
    d = s.scalar(select(Document).where(Document.id == document_id, Document.publication_id == p.id))
    if d is None:
        raise NotFound("document-not-found", f"no document {document_id}")
    return p.folder, d.filename, d.sha256


def resend_use(club_id: int, publication_id: int) -> Do:
    """The documents again to the club's e-mail (its address now): a new delivery, due now, sent by the
    delivery job (`records.resend`); one on its way already: UNCHANGED, no second message."""

    def do(s, actor, now):
        p = publication_of(s, club_id, publication_id)
        if records.resend(s, p.id, club_service.get_club(s, club_id).contact_email, now) is None:
            return UNCHANGED
        return documents_view(s, club_id, publication_id)

    return do


@ops.get("/clubs/{club_id}/documents", "club.documents", response=list[Documents], responses=PAGE_OF)
def club_documents(op: Op, club_id: Id, limit: Limit = 50, cursor: Cursor = None):
    """Every finished tournament's results sheet and certificates (and the season standings after it), as
    stored, with the delivery state; a finished one not published yet too. A page at a time."""
    return op.run(
        club_of(club_id),
        lambda s, actor, now: op.page(documents_list(s, club_id), documents_key, limit, cursor),
        describe=f"club {club_id}",
    )


PDF = {
    200: {
        "content": {"application/pdf": {"schema": {"type": "string", "format": "binary"}}},
        "description": "the stored, signed PDF",
    }
}


@ops.get(
    "/clubs/{club_id}/documents/{documents_id}/files/{document_id}",
    "club.download-document",
    response_class=Response,
    responses=PDF,
)
def club_download_document(op: Op, club_id: Id, documents_id: Id, document_id: Id) -> Response:
    """A stored document (a results sheet, a certificate, season standings): the signed PDF as it was
    published and mailed, checked against its sha256. Another club's: 404 as a missing one; the file not
    in the outbox or changed: 404 `document-file-missing`."""
    found = op.run(
        club_of(club_id),
        lambda s, actor, now: stored_document(s, club_id, documents_id, document_id),
        describe=f"club {club_id}",
    )
    return pdf_answer(op, document_id, *found)


def pdf_answer(op: Op, document_id: int, folder: str, filename: str, sha256: str) -> Response:
    """A stored document's PDF from the outbox, checked against its sha256 (else 404 `document-file-missing`)."""
    data = stored_file(op.request.app.state.outbox, folder, filename, sha256)
    if data is None:
        raise NotFound("document-file-missing", f"the file of document {document_id} is not in the outbox")
    return Response(
        data,
        media_type="application/pdf",
        headers={
            "content-disposition": f'attachment; filename="{filename}"',
            "cache-control": "private, no-store",
        },
    )


@ops.post(
    "/clubs/{club_id}/documents/{documents_id}/deliveries",
    "club.resend-documents",
    response=Documents,
    status=202,
    unchanged=True,
)
def club_resend_documents(op: Op, club_id: Id, documents_id: Id):
    """Send the documents again to the club's e-mail (its address now).
    A new delivery, due now, that the delivery job sends (its state in the answer: pending); sent
    before, it is a new message with its own Message-ID. On its way already (pending or failed to that
    address, due now): 204, nothing written, no second message."""
    return op.run(club_of(club_id), resend_use(club_id, documents_id), describe=f"documents {documents_id}")
