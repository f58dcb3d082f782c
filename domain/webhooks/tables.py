"""Webhooks (Players online): the endpoints clubs and organizers register, the outbox of events
(written in the transaction of the change that caused them) and one delivery per event and endpoint.

No endpoint's secret is stored: it is derived from the platform key, which is outside the database
(domain/webhooks/rules/signing.py)."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import (
    BigInteger,
    CheckConstraint,
    DateTime,
    ForeignKey,
    Identity,
    Index,
    Integer,
    Text,
    UniqueConstraint,
    text,
)
from sqlalchemy.dialects.postgresql import ARRAY, JSONB
from sqlalchemy.orm import Mapped, mapped_column

from domain.clubs.tables import Club
from domain.store.base import Base
from domain.webhooks.rules.endpoints import EVENT_KINDS, KINDS, URL_CHECK

TZ = DateTime(timezone=True)


def _array(kinds: tuple[str, ...]) -> str:
    return "ARRAY[" + ", ".join(f"'{k}'" for k in kinds) + "]::text[]"


KINDS_SQL = _array(KINDS)


class Endpoint(Base):
    """An HTTPS endpoint of one club or one Pusoy Dos organizer, hearing the `events` named."""

    __tablename__ = "webhook_endpoints"

    id: Mapped[int] = mapped_column(BigInteger, Identity(), primary_key=True)
    club_id: Mapped[int | None] = mapped_column(BigInteger, ForeignKey(Club.id), index=True)
    organizer: Mapped[str | None] = mapped_column(Text, index=True)
    url: Mapped[str] = mapped_column(Text)
    events: Mapped[list[str]] = mapped_column(ARRAY(Text))
    created_at: Mapped[datetime] = mapped_column(TZ)
    disabled_at: Mapped[datetime | None] = mapped_column(TZ)

    __table_args__ = (
        CheckConstraint("(club_id IS NULL) <> (organizer IS NULL)", name="one_owner"),
        CheckConstraint(URL_CHECK, name="url"),
        CheckConstraint(f"cardinality(events) > 0 AND events <@ {KINDS_SQL}", name="events"),
    )


class Event(Base):
    """One event of the outbox: what happened, whose it is (a club, an organizer), its public payload;
    and when the event consumer reacted to it (flows/jobs/events.py), in the transaction of its
    reaction, with what it did: NULL while it is still to do."""

    __tablename__ = "webhook_events"

    id: Mapped[str] = mapped_column(Text, primary_key=True)  # a UUID: the receiver's de-duplication key
    kind: Mapped[str] = mapped_column(Text)
    club_id: Mapped[int | None] = mapped_column(BigInteger)  # a record of what happened: no key to hold
    organizer: Mapped[str | None] = mapped_column(Text)
    payload: Mapped[dict] = mapped_column(JSONB)
    created_at: Mapped[datetime] = mapped_column(TZ, index=True)
    reacted_at: Mapped[datetime | None] = mapped_column(TZ)
    reaction: Mapped[str | None] = mapped_column(Text)

    __table_args__ = (
        CheckConstraint(f"kind = ANY ({_array(EVENT_KINDS)})", name="kind"),
        CheckConstraint("(reacted_at IS NULL) = (reaction IS NULL)", name="reacted"),
        Index("ix_webhook_events_to_react", "created_at", postgresql_where=text("reacted_at IS NULL")),
    )


class Delivery(Base):
    """One event to one endpoint: pending until delivered (a 2xx answer) or given up (failed)."""

    __tablename__ = "webhook_deliveries"

    id: Mapped[int] = mapped_column(BigInteger, Identity(), primary_key=True)
    event_id: Mapped[str] = mapped_column(Text, ForeignKey("webhook_events.id", ondelete="CASCADE"))
    endpoint_id: Mapped[int] = mapped_column(
        BigInteger, ForeignKey("webhook_endpoints.id", ondelete="CASCADE"), index=True
    )
    attempts: Mapped[int] = mapped_column(Integer, server_default="0")
    next_attempt_at: Mapped[datetime] = mapped_column(TZ)
    delivered_at: Mapped[datetime | None] = mapped_column(TZ)
    failed_at: Mapped[datetime | None] = mapped_column(TZ)
    last_status: Mapped[int | None] = mapped_column(Integer)
    last_error: Mapped[str | None] = mapped_column(Text)

    __table_args__ = (
        UniqueConstraint("event_id", "endpoint_id"),
        CheckConstraint("attempts >= 0", name="attempts"),
        CheckConstraint("delivered_at IS NULL OR failed_at IS NULL", name="delivered_or_failed"),
        Index(
            "ix_webhook_deliveries_due",
            "next_attempt_at",
            postgresql_where=text("delivered_at IS NULL AND failed_at IS NULL"),
        ),
    )
