"""The owner's console, part two (issue 39, "The club runs itself", docs/console.md): the club's series,
its league seasons and its documents, as server-rendered pages of `/club/<id>` in the club's language
(DOC-4), over the use cases of `/api/v1`'s operations (flows/web/api/owner_series.py): a page and its
operation cannot differ.

- `/club/<id>/series`: the club's series with their calendar and next start in the club's time; a new
  one (the weekly form or an RRULE, its template one of the club's tournaments); `/club/<id>/series/<sid>`:
  its next starts, a date of it skipped, its name, calendar and template changed, pause, resume, end.
- `/club/<id>/seasons`: the seasons and a new one; `/club/<id>/seasons/<sid>`: the counted tournaments,
  the standings now (LG-1..LG-3), the season's series and tournaments named.
- `/club/<id>/documents`: every finished tournament's results sheet and certificates with their delivery
  state, each PDF downloaded, the documents sent again to the club's e-mail.

Every read and change takes the part one's steps (flows/web/club.py: the session's cookie, the form's
CSRF field, `gate.act`: the policy, the use case, the audit row); a refusal shows the page again with
every problem in the club's language and nothing written; another club's object is the missing one's 404."""

from __future__ import annotations

from collections.abc import Callable
from datetime import date, datetime, timedelta
from decimal import Decimal, InvalidOperation
from typing import Any

from babel.dates import get_day_names
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import Response

from domain.documents.rules.model import N_
from domain.errors import NotFound, Problem
from domain.poker.services import tournaments as tournament_service
from flows.web import club, refusals
from flows.web.api import owner_series
from flows.web.club import Ctx, _club_ctx, _done, _post, _SignedOut, _to_sign_in
from flows.web.site import Site, path_id
from infra import i18n

DAYS = ("mon", "tue", "wed", "thu", "fri", "sat", "sun")
SERIES_STATUS = {"active": N_("active"), "paused": N_("paused"), "ended": N_("ended")}
START_STATUS = {
    "planned": N_("planned"),
    "open": N_("registration open"),
    "missed": N_("missed"),
    "failed": N_("not created"),
}
DELIVERY = {
    "not-published": N_("not published yet"),
    "stored": N_("stored: no address to send to"),
    "pending": N_("waiting to be sent"),
    "failed": N_("not sent yet: the mail server refused or was down"),
    "sent": N_("sent"),
}
KINDS = {"results": N_("results sheet"), "certificate": N_("certificate"), "standings": N_("season standings")}
SOURCES = {"poker": N_("poker"), "pusoy": N_("Pusoy Dos"), "season": N_("season standings")}
FORMULAS = {"sqrt": N_("10 × √(players / place)"), "table": N_("points by place")}
SHARED = {"best": N_("the best place of the block"), "average": N_("the average of the places covered")}
DONE = {
    "created": N_("Created."),
    "paused": N_("The series is paused: its starts not yet open are dropped."),
    "resumed": N_("The series is resumed: its starts are planned again."),
    "ended": N_("The series is ended."),
    "skipped": N_("The series skips that day: its start is dropped and not planned again."),
    "edited": N_("The series is changed: its planned starts follow it, those already open keep what they had."),
    "named": N_("Added to the season."),
    "saved": N_("Saved."),
    "taken-out": N_("Taken out of the season: it counts no more."),
    "resent": N_("The documents will be sent again to the club's e-mail."),
    "unchanged": N_("Nothing to change: it is so already."),
}
PROBLEMS = {  # the console's words for the problems of series, seasons and documents, by code
    "series-rule-missing": N_("Choose the days and the time, or type a recurrence rule (RRULE)."),
    "series-rule-both": N_("Give the calendar once: the days and the time, or a recurrence rule, not both."),
    "series-rrule-empty": N_("The recurrence rule is empty."),
    "series-rrule-too-long": N_("The recurrence rule is too long."),
    "series-rrule-syntax": N_("Recurrence rule: '%(part)s' is not NAME=VALUE."),
    "series-rrule-part-unknown": N_("Recurrence rule: there is no part %(part)s."),
    "series-rrule-part-repeated": N_("Recurrence rule: %(part)s is given twice."),
    "series-rrule-part-unsupported": N_(
        "Recurrence rule: %(part)s is not supported (a series runs until it is ended)."
    ),
    "series-rrule-freq-missing": N_("Recurrence rule: name FREQ (DAILY, WEEKLY or MONTHLY)."),
    "series-rrule-freq-unsupported": N_(
        "Recurrence rule: FREQ=%(freq)s is not supported: use DAILY, WEEKLY or MONTHLY."
    ),
    "series-rrule-interval-unsupported": N_("Recurrence rule: only every period is supported (INTERVAL=1)."),
    "series-rrule-day-invalid": N_("Recurrence rule: '%(value)s' is not a day (MO..SU)."),
    "series-rrule-day-ordinal-unsupported": N_(
        "Recurrence rule: %(value)s: a day's ordinal (the first, the last) is not supported."
    ),
    "series-rrule-day-missing": N_("Recurrence rule: name the days (BYDAY, or BYMONTHDAY for a monthly rule)."),
    "series-rrule-hour-invalid": N_("Recurrence rule: the hour '%(value)s' is not from 0 to 23."),
    "series-rrule-minute-invalid": N_("Recurrence rule: the minute '%(value)s' is not from 0 to 59."),
    "series-rrule-monthday-invalid": N_(
        "Recurrence rule: '%(value)s' is not a day of the month (1 to 31, or -1: the last)."
    ),
    "series-rrule-month-invalid": N_("Recurrence rule: the month '%(value)s' is not from 1 to 12."),
    "series-rrule-time-missing": N_("Recurrence rule: name the time of day (BYHOUR and BYMINUTE)."),
    "series-rrule-second-unsupported": N_("Recurrence rule: a start is on a whole minute (BYSECOND=0)."),
    "series-weekly-days-empty": N_("Choose at least one day of the week."),
    "series-weekly-day-invalid": N_("'%(value)s' is not a day of the week."),
    "series-weekly-time-invalid": N_("'%(value)s' is not a time of day such as 19:00."),
    "series-cron-too-frequent": N_("The series would start tournaments less than an hour apart."),
    "series-cron-never-fires": N_("The calendar has no start in the next year."),
    "series-cron-invalid": N_("The calendar does not read."),
    "series-horizon-out-of-range": N_("Plan from 1 to 365 days ahead."),
    "series-opens-before-out-of-range": N_("Registration opens from 0 minutes to 365 days before the start."),
    "series-name-empty": N_("The series needs a name."),
    "series-name-taken": N_("The club has a series of that name already."),
    "series-template-missing-setting": N_("Choose the tournament whose settings the series takes."),
    "series-template-unknown-setting": N_("The template has a setting a tournament does not have."),
    "series-template-offset-invalid": N_(
        "A deadline of the template is not a whole number of minutes after the start."
    ),
    "series-structure-not-found": N_("The template's blind structure is not the club's."),
    "series-structure-other-club": N_("The template's blind structure is not the club's."),
    "series-ended": N_("The series is ended: it cannot change any more."),
    "series-not-active": N_("The series is not active."),
    "series-not-paused": N_("The series is not paused."),
    "series-skip-date-invalid": N_("Choose the day to skip."),
    "series-skip-past": N_("That day is past: there is nothing to skip."),
    "series-skip-no-start": N_("The series has no start on that day: there is nothing to skip."),
    "series-date-already-open": N_(
        "Registration for that day's tournament is open already: cancel that tournament instead."
    ),
    "tournament-not-found": N_("There is no such tournament of the club."),
    "season-name-blank": N_("The season needs a name."),
    "season-name-taken": N_("The club has a season of that name already."),
    "season-range-empty": N_("The season's last day comes before its first: choose the days again."),
    "season-formula-unknown": N_("Choose how places score."),
    "season-table-empty": N_("Type the points of place 1 at least, for points by place."),
    "season-table-bad": N_("Points by place are numbers from 0, separated by spaces."),
    "season-shared-unknown": N_("Choose how shared places score."),
    "season-bonus-bad": N_("The knockout bonus is a number from 0."),
    "season-best-k-bad": N_("Count at least the best 1 result, or leave it empty: all of them."),
    "season-number-invalid": N_("%(field)s: type a number."),
    "season-date-invalid": N_("%(field)s: choose a date."),
    "season-add-nothing": N_("Tick a series or a tournament to add."),
    "season-remove-nothing": N_("Choose a series or a tournament to take out."),
    "season-series-unknown": N_("There is no such series of the club."),
    "season-tournament-unknown": N_("There is no such tournament of the club."),
    "field-not-a-number": N_("%(field)s: type a whole number."),
}
FIELDS = {
    "horizon_days": N_("Days planned ahead"),
    "opens_before_minutes": N_("Registration opens, minutes before the start"),
    "from": N_("First day"),
    "to": N_("Day after the last"),
    "table": N_("Points by place"),
    "bonus": N_("Knockout bonus"),
    "best_k": N_("Best results counted"),
}


def _worded(problems: list[Problem], ctx: Ctx) -> list[dict]:
    """Each problem in the club's language: the console's words for these codes (their values filled
    in), else the poker services' refusals by their catalog (a template's settings), else as said."""
    t = i18n.translations(ctx.locale)
    out = []
    for p in problems:
        if p.code not in PROBLEMS:
            out.append({"code": p.code, "message": refusals.said(p, ctx.locale, ctx.zone, ctx.now)})
            continue
        text = t.gettext(PROBLEMS[p.code])
        values = {k: t.gettext(FIELDS[v]) if isinstance(v, str) and v in FIELDS else v for k, v in p.values.items()}
        try:
            text = text % values if "%(" in text else text
        except (KeyError, TypeError):
            text = p.message
        out.append({"code": p.code, "message": text})
    return out


NAMES = {
    "series": SERIES_STATUS,
    "start": START_STATUS,
    "delivery": DELIVERY,
    "kinds": KINDS,
    "sources": SOURCES,
    "formulas": FORMULAS,
    "shared": SHARED,
    "status": club.STATUS_NAMES,
}


def _show(
    site: Site,
    request: Request,
    club_id: int,
    template: str,
    build: Callable[[Ctx], dict],
    *,
    here: str,
    status: int = 200,
    problems: list[Problem] = (),
    **extra: Any,
):
    """A page of part two: the console's page (`club._show`) with this part's words."""
    return club._show(
        site, request, club_id, template, build, here=here, status=status, problems=problems,
        done_words=DONE, names=NAMES, worded=_worded, **extra,
    )  # fmt: skip


# -- series -----------------------------------------------------------------------------------------


def _day_names(locale: str) -> dict[str, str]:
    names = get_day_names("wide", "format", locale=i18n.checked(locale))
    return {day: names[n] for n, day in enumerate(DAYS)}


def _calendar(row: dict, locale: str) -> str:
    """A series' calendar in words when it is weekly ("пятница, 19:00"), else its RRULE (or its cron)."""
    rule = row["rrule"] or ""
    parts = dict(p.split("=", 1) for p in rule.split(";") if "=" in p)
    minute, hour, _, _, dow = row["cron"].split()
    if parts.get("FREQ") == "WEEKLY" and "," not in minute + hour and "BYMONTH" not in parts:
        words = _day_names(locale)
        days = ", ".join(words[d] for d in dow.split(","))
        return i18n.translations(locale).gettext("weekly: %(days)s, %(time)s") % {
            "days": days,
            "time": f"{int(hour)}:{int(minute):02d}",
        }
    return rule or row["cron"]


def _shown_series(row: dict, ctx: Ctx) -> dict:
    starts = [
        s | {"text": i18n.day_and_time(local, ctx.locale), "local_date": local.date().isoformat()}
        for s in row["next"]
        for local in [datetime.fromisoformat(s["local"])]
    ]
    skipped = [{"date": d.isoformat(), "text": i18n.long_date(d, ctx.locale)} for d in row.get("skipped", [])]
    return row | {"calendar": _calendar(row, ctx.locale), "next": starts, "skipped": skipped}


def _tournaments(ctx: Ctx) -> list[dict]:
    """The club's tournaments, the latest first, for choosing a template or a season's tournaments."""
    rows = ctx.read("club.tournaments", lambda s, a, n: tournament_service.list_tournaments(s, club_id=ctx.club_id))
    return [
        t | {"start_text": i18n.day_and_time(t["scheduled_start"].astimezone(ctx.zone), ctx.locale)}
        for t in sorted(rows, key=lambda t: (t["scheduled_start"], t["id"]), reverse=True)
    ]


def _series_page(site, request, club_id, *, draft=None, problems=(), status=200):
    def build(ctx: Ctx) -> dict:
        rows = ctx.read("club.series", lambda s, a, n: owner_series.series_list(s, club_id, n))
        return {
            "series": [_shown_series(r, ctx) for r in rows],
            "tournaments": [t for t in _tournaments(ctx) if t["status"] != "cancelled"],
            "day_names": _day_names(ctx.locale),
        }

    draft = draft or {"name": "", "days": [], "time": "19:00", "rrule": "", "from_tournament": None,
                      "horizon_days": "14", "opens_before_minutes": "1440"}  # fmt: skip
    return _show(
        site, request, club_id, "club_series.html", build, here="series", status=status, problems=list(problems),
        draft=draft, days=DAYS,
    )  # fmt: skip


def _int_field(form, name: str, problems: list[Problem], default: int) -> int:
    raw = str(form.get(name) or "").strip().replace(" ", "")
    if not raw:
        return default
    try:
        value = int(raw)
    except ValueError:
        problems.append(Problem("field-not-a-number", "%(field)s: type a whole number", field=name))
        return default
    return max(min(value, 10**6), -(10**6))


async def series_page(site: Site, request: Request) -> Response:
    """`/club/<id>/series`: the club's series; posted, a new one (`club.add-series`)."""
    club_id = path_id(request.path_params["id"])
    if request.method == "GET":
        return await _series_page(site, request, club_id)
    form = await request.form()
    problems: list[Problem] = []
    days = [d for d in DAYS if form.get(f"day_{d}")]
    draft = {
        "name": str(form.get("name") or "").strip()[:200],
        "days": days,
        "time": str(form.get("time") or "").strip()[:5],
        "rrule": str(form.get("rrule") or "").strip()[:600],
        "from_tournament": str(form.get("from_tournament") or ""),
        "horizon_days": str(form.get("horizon_days") or "")[:10],
        "opens_before_minutes": str(form.get("opens_before_minutes") or "")[:10],
    }
    horizon = _int_field(form, "horizon_days", problems, 14)
    opens = _int_field(form, "opens_before_minutes", problems, 24 * 60)
    try:
        template = int(draft["from_tournament"]) if draft["from_tournament"] else None
    except ValueError:
        template = None
    if problems:
        return await _series_page(site, request, club_id, draft=draft, problems=problems, status=422)
    weekly = (days, draft["time"]) if days else None
    use = owner_series.add_series_use(
        club_id, draft["name"], rrule=draft["rrule"] or None, weekly=weekly, from_tournament=template,
        horizon_days=horizon, opens_before_minutes=opens,
    )  # fmt: skip
    return await _post(
        site, request, club_id, form, "club.add-series", use,
        describe=f"series {draft['name']}", data={k: v for k, v in draft.items() if v},
        then=lambda r: f"/club/{club_id}/series/{r['id']}?done=created",
        again=lambda found: _series_page(site, request, club_id, draft=draft, problems=found, status=409),
    )  # fmt: skip


def _edit_draft(row: dict) -> dict:
    """The edit form over a series as it is: a weekly calendar as its days and time, else its RRULE."""
    minute, hour, monthday, month, weekdays = row["cron"].split()
    weekly = monthday == month == "*" and minute.isdigit() and hour.isdigit() and set(weekdays.split(",")) <= set(DAYS)
    return {
        "name": row["name"],
        "days": weekdays.split(",") if weekly else [],
        "time": f"{int(hour):02d}:{int(minute):02d}" if weekly else "",
        "rrule": "" if weekly else row["rrule"] or "",
        "from_tournament": "",
        "horizon_days": str(row["horizon_days"]),
        "opens_before_minutes": str(row["opens_before_minutes"]),
    }


def _one_series_page(site, request, club_id, series_id, *, draft=None, problems=(), status=200):
    def build(ctx: Ctx) -> dict:
        row = ctx.read("club.show-series", lambda s, a, n: owner_series.series_view(s, club_id, series_id, n))
        tournaments = _tournaments(ctx)
        names = {t["id"]: t["name"] for t in tournaments}
        return {
            "one": _shown_series(row, ctx),
            "tournament_names": names,
            "tournaments": [t for t in tournaments if t["status"] != "cancelled"],
            "day_names": _day_names(ctx.locale),
            "draft": draft or _edit_draft(row),
            "today": ctx.now.astimezone(ctx.zone).date().isoformat(),
        }

    return _show(
        site, request, club_id, "club_series_one.html", build, here="series", status=status, problems=list(problems),
        days=DAYS,
    )  # fmt: skip


async def one_series(site: Site, request: Request) -> Response:
    """`/club/<id>/series/<sid>`: a series' calendar, next starts in the club's time and template; posted,
    the series changed (`club.edit-series`, the use case of `tourney series edit`): its name, its calendar
    (the weekly form or an RRULE; neither given: it stays), its template (one of the club's tournaments;
    none chosen: it stays), how far ahead it plans and when registration opens."""
    club_id, sid = path_id(request.path_params["id"]), path_id(request.path_params["sid"])
    if request.method == "GET":
        return await _one_series_page(site, request, club_id, sid)
    form = await request.form()
    problems: list[Problem] = []
    days = [d for d in DAYS if form.get(f"day_{d}")]
    draft = {
        "name": str(form.get("name") or "").strip()[:200],
        "days": days,
        "time": str(form.get("time") or "").strip()[:5],
        "rrule": str(form.get("rrule") or "").strip()[:600],
        "from_tournament": str(form.get("from_tournament") or ""),
        "horizon_days": str(form.get("horizon_days") or "")[:10],
        "opens_before_minutes": str(form.get("opens_before_minutes") or "")[:10],
    }
    horizon = _int_field(form, "horizon_days", problems, 0) if draft["horizon_days"].strip() else None
    opens = _int_field(form, "opens_before_minutes", problems, 0) if draft["opens_before_minutes"].strip() else None
    chosen = draft["from_tournament"]
    template = int(chosen) if chosen.isascii() and chosen.isdigit() and len(chosen) < 19 else None
    if problems:
        return await _one_series_page(site, request, club_id, sid, draft=draft, problems=problems, status=422)
    use = owner_series.edit_series_use(
        club_id, sid, name=draft["name"], rrule=draft["rrule"] or None, weekly=(days, draft["time"]) if days else None,
        from_tournament=template or None,
        horizon_days=horizon, opens_before_minutes=opens,
    )  # fmt: skip
    return await _post(
        site, request, club_id, form, "club.edit-series", use,
        describe=f"series {sid}", data={k: v for k, v in draft.items() if v},
        then=lambda r: _done(f"/club/{club_id}/series/{sid}", r, "edited"),
        again=lambda found: _one_series_page(site, request, club_id, sid, draft=draft, problems=found, status=409),
    )  # fmt: skip


async def skip_date(site: Site, request: Request) -> Response:
    """`POST /club/<id>/series/<sid>/skip` (`club.skip-series-date`, the use case of `tourney series skip`):
    the series does not run on the day posted (`local_date`, the club's calendar)."""
    club_id, sid = path_id(request.path_params["id"]), path_id(request.path_params["sid"])
    form = await request.form()
    raw = str(form.get("local_date") or "").strip()[:10]
    try:
        day = date.fromisoformat(raw)
    except ValueError:
        problems = [Problem("series-skip-date-invalid", "choose the day to skip")]
        return await _one_series_page(site, request, club_id, sid, problems=problems, status=422)
    return await _post(
        site, request, club_id, form, "club.skip-series-date", owner_series.skip_date_use(club_id, sid, day),
        describe=f"series {sid}", data={"local_date": day.isoformat()},
        then=lambda r: _done(f"/club/{club_id}/series/{sid}", r, "skipped"),
        again=lambda found: _one_series_page(site, request, club_id, sid, problems=found, status=409),
    )  # fmt: skip


SERIES_ACTIONS = {"pause": "paused", "resume": "resumed", "end": "ended"}


async def series_status(site: Site, request: Request) -> Response:
    """`POST /club/<id>/series/<sid>/<pause|resume|end>` (`club.pause-series`, …)."""
    club_id, sid = path_id(request.path_params["id"]), path_id(request.path_params["sid"])
    action = request.path_params["action"]
    if action not in SERIES_ACTIONS:
        return site.error(request, HTTPException(404))
    form = await request.form()
    return await _post(
        site, request, club_id, form, f"club.{action}-series", owner_series.series_status_use(club_id, sid, action),
        describe=f"series {sid}",
        then=lambda r: _done(f"/club/{club_id}/series/{sid}", r, SERIES_ACTIONS[action]),
        again=lambda found: _one_series_page(site, request, club_id, sid, problems=found, status=409),
    )  # fmt: skip


# -- seasons ----------------------------------------------------------------------------------------


def _shown_season(row: dict, ctx: Ctx) -> dict:
    last = row["to"] - timedelta(days=1)
    return row | {
        "days_text": f"{i18n.long_date(row['from'], ctx.locale)} – {i18n.long_date(last, ctx.locale)}",
        "counted": [
            t | {"start_text": i18n.day_and_time(t["scheduled_start"].astimezone(ctx.zone), ctx.locale)}
            for t in row["counted"]
        ],
        "table_text": ", ".join(i18n.points(Decimal(v), ctx.locale) for v in row["table"]),
        "bonus_text": i18n.points(Decimal(row["knockout_bonus"]), ctx.locale) if row["knockout_bonus"] else "",
    }


def _seasons_page(site, request, club_id, *, draft=None, problems=(), status=200):
    def build(ctx: Ctx) -> dict:
        rows = ctx.read("club.seasons", lambda s, a, n: owner_series.season_list(s, club_id))
        return {"seasons": [_shown_season(r, ctx) for r in rows]}

    draft = draft or {"name": "", "from": "", "to": "", "formula": "sqrt", "table": "", "shared": "best",
                      "bonus": "", "best_k": ""}  # fmt: skip
    return _show(
        site, request, club_id, "club_seasons.html", build, here="seasons", status=status, problems=list(problems),
        draft=draft,
    )  # fmt: skip


def _date_field(draft: dict, key: str, problems: list[Problem]) -> date | None:
    try:
        return date.fromisoformat(draft[key])
    except ValueError:
        problems.append(Problem("season-date-invalid", "%(field)s: choose a date", field=key))
        return None


def _points(text: str) -> list[str]:
    """Points by place as typed: separated by semicolons or spaces (a comma then the decimal mark:
    "25 18 15,5"), or by commas alone ("25,18,15", as the command line takes them)."""
    text = text.strip()
    if ";" in text:
        return [v.strip() for v in text.split(";") if v.strip()]
    if any(c.isspace() for c in text):
        return [v.strip().rstrip(",;") for v in text.split() if v.strip().rstrip(",;")]
    return [v for v in text.split(",") if v]


def _decimal(raw: str, key: str, problems: list[Problem]) -> Decimal | None:
    try:
        value = Decimal(raw.replace(",", ".").replace(" ", "").replace("\u00a0", ""))
    except InvalidOperation:
        value = None
    if value is None or not value.is_finite() or abs(value) >= 10**6:
        problems.append(Problem("season-number-invalid", "%(field)s: type a number", field=key))
        return None
    return value


SEASON_FIELDS = ("name", "from", "to", "formula", "table", "shared", "bonus", "best_k")


def _season_form(form) -> tuple[dict, dict | None, list[Problem]]:
    """A season's fields as typed (`draft`, shown again), read: (draft, the use case's arguments or None,
    every problem of the typing)."""
    draft = {k: str(form.get(k) or "").strip()[:400] for k in SEASON_FIELDS}
    problems: list[Problem] = []
    first, end = _date_field(draft, "from", problems), _date_field(draft, "to", problems)
    table = [_decimal(v, "table", problems) for v in _points(draft["table"])]
    bonus = _decimal(draft["bonus"], "bonus", problems) if draft["bonus"] else None
    best = _int_field(form, "best_k", problems, 0) if draft["best_k"] else None
    read = {
        "name": draft["name"], "date_from": first, "date_to": end, "formula": draft["formula"] or "sqrt",
        "table": table, "shared": draft["shared"] or "best", "bonus": bonus, "best_k": best,
    }  # fmt: skip
    return draft, None if problems else read, problems


def _season_draft(row: dict, locale: str) -> dict:
    """A season's fields as the form shows them."""
    number = lambda v: i18n.points(Decimal(v), locale)  # noqa: E731
    return {
        "name": row["name"], "from": row["from"].isoformat(), "to": row["to"].isoformat(),
        "formula": row["formula"], "table": " ".join(number(v) for v in row["table"]), "shared": row["shared"],
        "bonus": number(row["knockout_bonus"]) if row["knockout_bonus"] is not None else "",
        "best_k": str(row["best_k"] or ""),
    }  # fmt: skip


async def seasons_page(site: Site, request: Request) -> Response:
    """`/club/<id>/seasons`: the club's seasons; posted, a new one (`club.add-season`)."""
    club_id = path_id(request.path_params["id"])
    if request.method == "GET":
        return await _seasons_page(site, request, club_id)
    form = await request.form()
    draft, read, problems = _season_form(form)
    if read is None:
        return await _seasons_page(site, request, club_id, draft=draft, problems=problems, status=422)
    use = owner_series.add_season_use(club_id, **read)
    return await _post(
        site, request, club_id, form, "club.add-season", use,
        describe=f"season {draft['name']}", data={k: v for k, v in draft.items() if v},
        then=lambda r: f"/club/{club_id}/seasons/{r['id']}?done=created",
        again=lambda found: _seasons_page(site, request, club_id, draft=draft, problems=found, status=409),
    )  # fmt: skip


def _one_season_page(site, request, club_id, season_id, *, draft=None, problems=(), status=200):
    def build(ctx: Ctx) -> dict:
        row = ctx.read("club.season", lambda s, a, n: owner_series.season_full(s, club_id, season_id))
        standings = [
            r | {"total_text": i18n.points(Decimal(r["total"]), ctx.locale),
                 "best_text": i18n.points(Decimal(r["best"]), ctx.locale)}
            for r in row["standings"]
        ]  # fmt: skip
        series = ctx.read("club.series", lambda s, a, n: owner_series.series_list(s, club_id, n))
        tournaments = [t for t in _tournaments(ctx) if t["status"] not in ("cancelled",)]
        members = [  # what the season follows (a series) or picked (a tournament), each to take out
            {"kind": "series", "id": r["id"], "name": r["name"]} for r in series if r["id"] in row["series"]
        ] + [
            {"kind": "tournament", "id": t["id"], "name": t["name"], "start_text": t["start_text"]}
            for t in tournaments if t["id"] in row["tournaments"]
        ]  # fmt: skip
        return {
            "season": _shown_season(row, ctx) | {"standings": standings},
            "all_series": series,
            "tournaments": tournaments,
            "members": members,
            "draft": draft or _season_draft(row, ctx.locale),
        }

    return _show(
        site, request, club_id, "club_seasons_one.html", build, here="seasons", status=status, problems=list(problems)
    )


async def edit_season(site: Site, request: Request) -> Response:
    """`POST /club/<id>/seasons/<sid>/edit`: the season defined anew (`club.edit-season`)."""
    club_id, sid = path_id(request.path_params["id"]), path_id(request.path_params["sid"])
    form = await request.form()
    draft, read, problems = _season_form(form)
    if read is None:
        return await _one_season_page(site, request, club_id, sid, draft=draft, problems=problems, status=422)
    return await _post(
        site, request, club_id, form, "club.edit-season", owner_series.edit_season_use(club_id, sid, **read),
        describe=f"season {sid}", data={k: v for k, v in draft.items() if v},
        then=lambda r: _done(f"/club/{club_id}/seasons/{sid}", r, "saved"),
        again=lambda found: _one_season_page(site, request, club_id, sid, draft=draft, problems=found, status=409),
    )  # fmt: skip


async def remove_from_season(site: Site, request: Request) -> Response:
    """`POST /club/<id>/seasons/<sid>/remove`: a series or a tournament taken out (`club.remove-from-season`)."""
    club_id, sid = path_id(request.path_params["id"]), path_id(request.path_params["sid"])
    form = await request.form()
    series_ids, tournament_ids = _ids(form.getlist("series")), _ids(form.getlist("tournament"))
    return await _post(
        site, request, club_id, form, "club.remove-from-season",
        owner_series.remove_from_season_use(club_id, sid, series_ids, tournament_ids),
        describe=f"season {sid}", data={"series": series_ids, "tournaments": tournament_ids},
        then=lambda r: _done(f"/club/{club_id}/seasons/{sid}", r, "taken-out"),
        again=lambda found: _one_season_page(site, request, club_id, sid, problems=found, status=409),
    )  # fmt: skip


async def one_season(site: Site, request: Request) -> Response:
    """`/club/<id>/seasons/<sid>`: the standings now; posted, its series and tournaments named
    (`club.add-to-season`)."""
    club_id, sid = path_id(request.path_params["id"]), path_id(request.path_params["sid"])
    if request.method == "GET":
        return await _one_season_page(site, request, club_id, sid)
    form = await request.form()
    series_ids = _ids(form.getlist("series"))
    tournament_ids = _ids(form.getlist("tournament"))
    return await _post(
        site, request, club_id, form, "club.add-to-season",
        owner_series.add_to_season_use(club_id, sid, series_ids, tournament_ids),
        describe=f"season {sid}", data={"series": series_ids, "tournaments": tournament_ids},
        then=lambda r: _done(f"/club/{club_id}/seasons/{sid}", r, "named"),
        again=lambda found: _one_season_page(site, request, club_id, sid, problems=found, status=409),
    )  # fmt: skip


def _ids(values) -> list[int]:
    out = []
    for v in list(values)[:500]:
        try:
            n = int(str(v))
        except ValueError:
            continue
        if 1 <= n <= 2**53 - 1 and n not in out:
            out.append(n)
    return out


# -- documents --------------------------------------------------------------------------------------


def _shown_documents(row: dict, ctx: Ctx) -> dict:
    def when(value: datetime | None) -> str:
        return i18n.day_and_time(value.astimezone(ctx.zone), ctx.locale) if value else ""

    return row | {
        "sent_text": when(row["sent_at"]),
        "next_text": when(row["next_attempt_at"]),
        "published_text": when(row["published_at"]),
        "files": [
            f | {"size_text": i18n.number(max(1, round(f["size_bytes"] / 1024)), ctx.locale)} for f in row["files"]
        ],
    }


def _documents_page(site, request, club_id, *, problems=(), status=200):
    def build(ctx: Ctx) -> dict:
        rows = ctx.read("club.documents", lambda s, a, n: owner_series.documents_list(s, club_id))
        from domain.clubs.services.clubs import get_club

        return {
            "documents": [_shown_documents(r, ctx) for r in sorted(rows, key=owner_series.documents_key)],
            "contact": get_club(ctx.session, club_id).contact_email,
        }

    return _show(
        site, request, club_id, "club_documents.html", build, here="documents", status=status, problems=list(problems)
    )


async def documents_page(site: Site, request: Request) -> Response:
    """`/club/<id>/documents`: every finished tournament's documents and their delivery state."""
    return await _documents_page(site, request, path_id(request.path_params["id"]))


async def download(site: Site, request: Request) -> Response:
    """`/club/<id>/documents/<pid>/files/<did>` (`club.download-document`): the stored, signed PDF."""
    club_id = path_id(request.path_params["id"])
    pid, did = path_id(request.path_params["pid"]), path_id(request.path_params["did"])
    now = site.clock()

    def run(session):
        _, _, ctx = _club_ctx(site, session, request, club_id, now)
        return ctx.read("club.download-document", lambda s, a, n: owner_series.stored_document(s, club_id, pid, did))

    try:
        found = await site.write(run)
    except _SignedOut:
        return _to_sign_in(request)
    except NotFound:
        return site.error(request, HTTPException(404))
    return stored_pdf(site, request, *found)


def stored_pdf(site: Site, request: Request, folder: str, filename: str, sha256: str) -> Response:
    """A published document's PDF from the outbox, as stored (its sha256 checked), to download; gone or
    changed: the 404 page."""
    from flows.web.certificates import stored_file

    data = stored_file(site.outbox, folder, filename, sha256)
    if data is None:
        return site.error(request, HTTPException(404))
    return Response(
        data,
        media_type="application/pdf",
        headers={"content-disposition": f'attachment; filename="{filename}"', "cache-control": "private, no-store"},
    )


async def resend(site: Site, request: Request) -> Response:
    """`POST /club/<id>/documents/<pid>/resend` (`club.resend-documents`): again to the club's e-mail."""
    club_id, pid = path_id(request.path_params["id"]), path_id(request.path_params["pid"])
    form = await request.form()
    return await _post(
        site, request, club_id, form, "club.resend-documents", owner_series.resend_use(club_id, pid),
        describe=f"documents {pid}",
        then=lambda r: _done(f"/club/{club_id}/documents", r, "resent") + f"#documents-{pid}",
        again=lambda found: _documents_page(site, request, club_id, problems=found, status=409),
    )  # fmt: skip
