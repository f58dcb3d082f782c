"""Recurring series: the series (template + calendar), the dates an operator skipped, and the
materialized occurrences (one row per series and start, enforced by a unique constraint)."""

from __future__ import annotations

from datetime import date, datetime

from sqlalchemy import (
    BigInteger,
    CheckConstraint,
    Date,
    DateTime,
    ForeignKey,
    Identity,
    Index,
    Integer,
    Text,
    UniqueConstraint,
    func,
)
from sqlalchemy.dialects.postgresql import JSONB
from sqlalchemy.orm import Mapped, mapped_column

from domain.clubs.tables import Club
from domain.store.base import Base

SERIES_STATUSES = ("active", "paused", "ended")
OCCURRENCE_STATUSES = ("planned", "open", "missed", "failed")
KINDS = ("poker", "pusoy")


def _in(column: str, values: tuple[str, ...]) -> str:
    return f"{column} IN ({', '.join(repr(v) for v in values)})"


class Series(Base):
    __tablename__ = "series"
    __table_args__ = (
        UniqueConstraint("club_id", "name"),
        CheckConstraint(_in("kind", KINDS), name="kind"),
        CheckConstraint(_in("status", SERIES_STATUSES), name="status"),
        CheckConstraint("horizon_days BETWEEN 1 AND 365", name="horizon"),
        CheckConstraint("opens_before_minutes BETWEEN 0 AND 525600", name="opens_before"),
        CheckConstraint("jsonb_typeof(template) = 'object'", name="template_object"),
    )

    id: Mapped[int] = mapped_column(BigInteger, Identity(), primary_key=True)
    club_id: Mapped[int] = mapped_column(BigInteger, ForeignKey(Club.id))
    name: Mapped[str] = mapped_column(Text)
    kind: Mapped[str] = mapped_column(Text)
    cron: Mapped[str] = mapped_column(Text)
    timezone: Mapped[str] = mapped_column(Text)
    horizon_days: Mapped[int] = mapped_column(Integer, default=14)
    opens_before_minutes: Mapped[int] = mapped_column(Integer)
    template: Mapped[dict] = mapped_column(JSONB)
    status: Mapped[str] = mapped_column(Text, default="active")
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    updated_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))


class SeriesSkip(Base):
    """A local date (in the series' timezone) on which the series does not run."""

    __tablename__ = "series_skip"

    series_id: Mapped[int] = mapped_column(BigInteger, ForeignKey("series.id", ondelete="CASCADE"), primary_key=True)
    local_date: Mapped[date] = mapped_column(Date, primary_key=True)


class SeriesOccurrence(Base):
    """One start of a series. `planned` follows template edits; `open` is frozen (registration
    opened, the tournament exists); `missed` started before anyone opened it; `failed`: the
    tournament rules refused to create it when registration was due to open (`problem` says why)."""

    __tablename__ = "series_occurrence"
    __table_args__ = (
        UniqueConstraint("series_id", "starts_at"),
        CheckConstraint(_in("status", OCCURRENCE_STATUSES), name="status"),
        CheckConstraint("opens_at <= starts_at", name="opens_before_start"),
        CheckConstraint("(status = 'open') = (opened_at IS NOT NULL)", name="opened_at"),
        CheckConstraint("(status = 'failed') = (problem IS NOT NULL)", name="problem"),
        Index("ix_series_occurrence_planned_opens_at", "opens_at", postgresql_where="status = 'planned'"),
    )

    id: Mapped[int] = mapped_column(BigInteger, Identity(), primary_key=True)
    series_id: Mapped[int] = mapped_column(BigInteger, ForeignKey("series.id", ondelete="CASCADE"))
    starts_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    opens_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    local_date: Mapped[date] = mapped_column(Date)
    status: Mapped[str] = mapped_column(Text, default="planned")
    settings: Mapped[dict] = mapped_column(JSONB)
    tournament_id: Mapped[int | None] = mapped_column(BigInteger, nullable=True)
    problem: Mapped[str | None] = mapped_column(Text, nullable=True)  # why the tournament could not be created
    opened_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), nullable=True)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), server_default=func.now())
