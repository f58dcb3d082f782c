"""`tourney series ...`: recurring tournaments of a club."""

from __future__ import annotations

import json
from datetime import date
from pathlib import Path
from typing import Annotated, Any

import typer

from domain.errors import DomainError
from domain.series.rules.schedule import DEFAULT_HORIZON_DAYS
from flows.cli.clock import now as _now
from flows.cli.lazy import lazy
from flows.cli.output import emit, say, transaction
from flows.cli.params import INT_MAX, read_text_file

service = lazy("domain.series.services.series")

app = typer.Typer(
    rich_markup_mode=None,
    no_args_is_help=True,
    help="Recurring tournaments: a template, a cron in the club's timezone.",
)

TemplateOpt = Annotated[str | None, typer.Option("--template", help="tournament settings as JSON, or @file.json")]


def _template(raw: str) -> dict[str, Any]:
    source = read_text_file(Path(raw[1:]), "template") if raw.startswith("@") else raw
    try:
        return json.loads(source)
    except json.JSONDecodeError as exc:
        raise DomainError(
            "series-template-not-json", f"the template is not valid JSON: {exc.msg} (at character {exc.pos})"
        ) from None


def _day(raw: str) -> date:
    try:
        return date.fromisoformat(raw)
    except ValueError:
        raise DomainError("series-date-invalid", f"'{raw}' is not a date (use YYYY-MM-DD)") from None


@app.command("add")
def add(
    club: Annotated[int, typer.Option(help="the club's id")],
    name: Annotated[str, typer.Option()],
    kind: Annotated[str, typer.Option(help="poker or pusoy")],
    cron: Annotated[str, typer.Option(help="5-field cron in the club's timezone, e.g. '0 19 * * fri'")],
    template: TemplateOpt = None,
    tz: Annotated[str | None, typer.Option("--timezone", help="IANA zone; default the club's")] = None,
    horizon_days: Annotated[int, typer.Option(help="days planned ahead", max=INT_MAX)] = DEFAULT_HORIZON_DAYS,
    opens_before_minutes: Annotated[
        int, typer.Option(help="registration opens this long before the start", max=INT_MAX)
    ] = 24 * 60,
) -> None:
    """Add a series; its tournaments within the horizon are planned at once."""
    spec = service.SeriesSpec(
        club, name, kind, cron, tz, _template(template or "{}"), horizon_days, opens_before_minutes
    )
    with transaction() as session:
        series_id = service.add_series(session, spec, _now())
        shown = service.show_series(session, series_id)
    emit(_summary(shown), f"series #{series_id} added")


@app.command("list")
def list_() -> None:
    """Every series with its status and next start."""
    with transaction() as session:
        rows = service.list_series(session, _now())
    emit(rows, "series")


@app.command("show")
def show(series_id: int) -> None:
    """A series: its calendar, template, skipped dates and occurrences."""
    with transaction() as session:
        shown = service.show_series(session, series_id)
    emit(shown, f"series #{series_id}")


def _status_command(action: str, doc: str):
    def command(series_id: int) -> None:
        with transaction() as session:
            status = service.change_status(session, series_id, action, _now())
        emit({"id": series_id, "status": status})

    command.__doc__ = doc
    app.command(action)(command)


_status_command("pause", "Pause: nothing new is planned; tournaments not yet open are dropped.")
_status_command("resume", "Resume a paused series: plans again from now.")
_status_command("end", "End the series for good; tournaments not yet open are dropped.")


@app.command("skip")
def skip(
    series_id: int, day: Annotated[str, typer.Argument(metavar="DATE", help="YYYY-MM-DD, the club's local date")]
) -> None:
    """The series does not run on that date."""
    local = _day(day)
    with transaction() as session:
        dropped = service.skip_date(session, series_id, local)
    emit({"id": series_id, "skipped": local, "occurrences_dropped": dropped})


@app.command("edit")
def edit(
    series_id: int,
    template: TemplateOpt = None,
    name: Annotated[str | None, typer.Option()] = None,
    cron: Annotated[str | None, typer.Option()] = None,
    tz: Annotated[str | None, typer.Option("--timezone")] = None,
    horizon_days: Annotated[int | None, typer.Option(max=INT_MAX)] = None,
    opens_before_minutes: Annotated[int | None, typer.Option(max=INT_MAX)] = None,
) -> None:
    """Change the template or the calendar; tournaments already open keep what they opened with."""
    changes: dict[str, Any] = {
        key: value
        for key, value in {
            "name": name,
            "cron": cron,
            "timezone": tz,
            "horizon_days": horizon_days,
            "opens_before_minutes": opens_before_minutes,
        }.items()
        if value is not None
    }
    if template is not None:
        changes["template"] = _template(template)
    if not changes:
        say("nothing to change")
        return
    with transaction() as session:
        service.edit_series(session, series_id, _now(), **changes)
        shown = service.show_series(session, series_id)
    emit(_summary(shown), f"series #{series_id} edited")


def _summary(shown: dict[str, Any]) -> dict[str, Any]:
    occs = shown["occurrences"]
    return {
        **{k: v for k, v in shown.items() if k != "occurrences"},
        "planned": sum(1 for o in occs if o["status"] == "planned"),
        "next_start": next((o["starts_at"] for o in occs if o["status"] in ("planned", "open")), None),
    }
