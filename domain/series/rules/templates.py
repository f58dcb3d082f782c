"""What a series holds as its template: the settings of one tournament of its kind, with the times
that depend on the start given as offsets from it.

A live poker template is the tournament's settings (Sport Poker 3.1-3.9) without `name` and
`scheduled_start` (they come from the series and the occurrence), with `structure_id` (the club's
blind structure), and with deadlines as minutes after the start: `late_reg_minutes`,
`reentry_minutes`, `addon_minutes`, `rebuy_until_minutes` (SP-12). The poker rules' own validator checks it when the series is
added or edited, so a template the rules refuse is refused at once, not at the first occurrence.

A Pusoy Dos template is the arguments of `domain.pusoy.services.setup.create`: `organizer` and `capacity`
(required), `games_per_round`, `private`, `advancing`, `organizer_email`; the Pusoy Dos rules
(PD-1, PD-2, PD-5) check it. A Pusoy Dos tournament starts when it is full, so its occurrence's
start is nominal: what counts is when registration (filling) opens."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import MISSING, fields
from datetime import UTC, date, datetime, timedelta
from typing import Any

from domain.errors import Problem
from domain.poker.rules.settings import TournamentSettings, settings_problems
from domain.pusoy.rules.bracket import (
    bracket_problems,
    capacity_problems,
    games_problems,
)
from domain.pusoy.rules.codes import handle_problems

KINDS = ("poker", "pusoy")
POKER_OFFSETS = {
    "late_reg_minutes": "late_reg_deadline",
    "reentry_minutes": "reentry_deadline",
    "addon_minutes": "addon_deadline",
    "rebuy_until_minutes": "rebuy_until",  # SP-12: the rebuy window's instant, after the start
}
_POKER_FROM_SERIES = ("name", "scheduled_start", *POKER_OFFSETS.values())
POKER_KEYS = (
    ("structure_id",)
    + tuple(f.name for f in fields(TournamentSettings) if f.name not in _POKER_FROM_SERIES)
    + tuple(POKER_OFFSETS)
)
_SAMPLE_START = datetime(2000, 1, 1, tzinfo=UTC)
PUSOY_KEYS = ("organizer", "capacity", "games_per_round", "private", "advancing", "organizer_email")


def tournament_name(series_name: str, local_date: date) -> str:
    return f"{series_name} {local_date:%d.%m.%Y}"


def poker_settings(template: Mapping[str, Any], name: str, starts_at: datetime) -> TournamentSettings:
    """The settings of the occurrence starting at `starts_at` (template checked beforehand)."""
    values = {k: v for k, v in template.items() if k != "structure_id" and k not in POKER_OFFSETS}
    for key, field in POKER_OFFSETS.items():
        if template.get(key) is not None:
            values[field] = starts_at + timedelta(minutes=template[key])
    return TournamentSettings(name=name, scheduled_start=starts_at, **values)


def _poker_problems(template: Mapping[str, Any]) -> list[Problem]:
    unknown = sorted(set(template) - set(POKER_KEYS))
    if unknown:
        return [
            Problem(
                "series-template-unknown-setting",
                f"a poker template has no setting {', '.join(unknown)}; it takes: {', '.join(POKER_KEYS)}",
            )
        ]
    required = [
        f.name
        for f in fields(TournamentSettings)
        if f.default is MISSING and f.default_factory is MISSING and f.name not in _POKER_FROM_SERIES
    ]
    missing = [key for key in ("structure_id", *required) if key not in template]
    if missing:
        return [Problem("series-template-missing-setting", f"the poker template needs {', '.join(missing)}")]
    problems = [
        Problem("series-template-offset-invalid", f"{key} must be a whole number of minutes after the start")
        for key in POKER_OFFSETS
        if template.get(key) is not None and (isinstance(template[key], bool) or not isinstance(template[key], int))
    ]
    if problems:
        return problems
    return settings_problems(poker_settings(template, "template", _SAMPLE_START))


def _pusoy_problems(template: Mapping[str, Any]) -> list[Problem]:
    unknown = sorted(set(template) - set(PUSOY_KEYS))
    if unknown:
        return [
            Problem(
                "series-template-unknown-setting",
                f"a Pusoy Dos template has no setting {', '.join(unknown)}; it takes: {', '.join(PUSOY_KEYS)}",
            )
        ]
    missing = [key for key in ("organizer", "capacity") if key not in template]
    if missing:
        return [Problem("series-template-missing-setting", f"the Pusoy Dos template needs {', '.join(missing)}")]
    capacity = template["capacity"]
    problems = capacity_problems(capacity) + games_problems(template.get("games_per_round", 1))
    problems += handle_problems(str(template["organizer"]), "organizer")
    if template.get("advancing") is not None and not capacity_problems(capacity):
        problems += bracket_problems(capacity, template["advancing"])
    return problems


def template_problems(kind: str, settings: Any) -> list[Problem]:
    if kind not in KINDS:
        return [Problem("series-kind-unknown", f"unknown tournament kind '{kind}'; use one of: {', '.join(KINDS)}")]
    if not isinstance(settings, Mapping):
        return [Problem("series-template-invalid", "the template must be a JSON object of tournament settings")]
    return _poker_problems(settings) if kind == "poker" else _pusoy_problems(settings)
