"""The timekeeper's records (flows/jobs/timekeeper.py, domain/poker/services/due.py): a timed moment whose service
refused it, kept with the reason, and the index the no-show moments are found by."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import BigInteger, DateTime, Index, String, Text, func
from sqlalchemy.orm import Mapped, mapped_column

from domain.poker.tables.tournaments import Tournament
from domain.store.base import Base

TZ = DateTime(timezone=True)


class MomentFailure(Base):
    """One refused moment: the job, the tournament and the instant it was due, the DomainError's
    code and message. The timekeeper does not take that moment again; a new instant is a new moment."""

    __tablename__ = "poker_moment_failures"

    job: Mapped[str] = mapped_column(String(32), primary_key=True)
    tournament_id: Mapped[int] = mapped_column(BigInteger, primary_key=True)
    due_at: Mapped[datetime] = mapped_column(TZ, primary_key=True)
    code: Mapped[str] = mapped_column(String(64))
    reason: Mapped[str] = mapped_column(Text)
    failed_at: Mapped[datetime] = mapped_column(TZ)


# domain/poker/services/due.py NO_SHOWS.instant, the same expression, for running tournaments
Index(
    "ix_poker_tournaments_no_show_due",
    func.greatest(func.coalesce(Tournament.late_reg_deadline, Tournament.scheduled_start), Tournament.started_at),
    postgresql_where=Tournament.status == "running",
)
