"""What every source shares: a tournament not publishable yet, the local date a sheet prints, and
the check that a tournament was not published."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, date, datetime
from zoneinfo import ZoneInfo

from sqlalchemy import exists

from domain.documents.tables import DocumentPublication


@dataclass(frozen=True)
class Skipped:
    source: str
    tournament_id: int
    reason: str


def local_date(at: datetime, timezone: str | None) -> date:
    """The day of `at` in the club's zone (UTC without one): the day a tournament was held."""
    return at.astimezone(ZoneInfo(timezone)).date() if timezone else at.astimezone(UTC).date()


def unpublished(source: str, tournament_id) -> object:
    return ~exists().where(DocumentPublication.source == source, DocumentPublication.tournament_id == tournament_id)
