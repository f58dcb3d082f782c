"""Documents and their delivery (RULES DOC-1..DOC-3, LG-3): one publication per tournament, and one
per (season, tournament) for a season's standings after that tournament; the PDFs each produced
(stored under TOURNEY_HOME/outbox), and the e-mail delivery state.

`document_publications` has one row per (source, tournament, season): inserting it is how a worker
claims the right to publish, so two concurrent runs never publish (or send) it twice. Its
delivery state: stored (no address: kept in the outbox only) | pending | failed (retryable, with
attempts, last error and next attempt) | sent.
"""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import (
    BigInteger,
    CheckConstraint,
    DateTime,
    ForeignKey,
    Index,
    Integer,
    Text,
    UniqueConstraint,
    text,
)
from sqlalchemy.orm import Mapped, mapped_column

from domain.store.base import Base

SOURCES = ("poker", "pusoy", "season")


class DocumentPublication(Base):
    __tablename__ = "document_publications"
    __table_args__ = (
        # a season's standings: one per (season, tournament that triggered it); NULLs equal, so a
        # results sheet (no season) stays one per (source, tournament)
        UniqueConstraint("source", "tournament_id", "season_id", postgresql_nulls_not_distinct=True),
        CheckConstraint("source IN ('poker', 'pusoy', 'season')", name="source"),
        CheckConstraint(
            "(source = 'season') = (season_id IS NOT NULL AND season IS NOT NULL)", name="season_when_season"
        ),
        CheckConstraint("state IN ('stored', 'pending', 'failed', 'sent')", name="state"),
        CheckConstraint("(state = 'stored') = (recipient IS NULL)", name="recipient_unless_stored"),
        CheckConstraint("(state = 'sent') = (sent_at IS NOT NULL)", name="sent_at_when_sent"),
        CheckConstraint("attempts >= 0", name="attempts"),
        Index(
            "ix_document_publications_due", "next_attempt_at", postgresql_where=text("state IN ('pending', 'failed')")
        ),
    )

    id: Mapped[int] = mapped_column(BigInteger, primary_key=True)
    source: Mapped[str] = mapped_column(Text)
    tournament_id: Mapped[int] = mapped_column(BigInteger)  # a season's: the tournament after which
    tournament: Mapped[str] = mapped_column(Text)
    club: Mapped[str | None] = mapped_column(Text)
    season_id: Mapped[int | None] = mapped_column(BigInteger)  # source 'season' only (no foreign key:
    season: Mapped[str | None] = mapped_column(Text)  # the documents area's migrations stand alone)
    folder: Mapped[str] = mapped_column(Text)  # relative to TOURNEY_HOME/outbox
    recipient: Mapped[str | None] = mapped_column(Text)
    state: Mapped[str] = mapped_column(Text)
    attempts: Mapped[int] = mapped_column(Integer, default=0)
    last_error: Mapped[str | None] = mapped_column(Text)
    next_attempt_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))
    sent_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))
    message_id: Mapped[str | None] = mapped_column(Text)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))


class Document(Base):
    __tablename__ = "documents"
    __table_args__ = (
        UniqueConstraint("publication_id", "filename"),
        UniqueConstraint("serial"),
        CheckConstraint("kind IN ('results', 'certificate', 'standings')", name="kind"),
        CheckConstraint("(kind = 'certificate') = (serial IS NOT NULL)", name="serial_on_certificates"),
    )

    id: Mapped[int] = mapped_column(BigInteger, primary_key=True)
    publication_id: Mapped[int] = mapped_column(ForeignKey("document_publications.id", ondelete="CASCADE"))
    kind: Mapped[str] = mapped_column(Text)
    filename: Mapped[str] = mapped_column(Text)
    serial: Mapped[str | None] = mapped_column(Text)
    player: Mapped[str | None] = mapped_column(Text)
    sha256: Mapped[str] = mapped_column(Text)
    signature: Mapped[str] = mapped_column(Text)
    size_bytes: Mapped[int] = mapped_column(Integer)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))


class DocumentLocale(Base):
    """The language of a club's documents, or of one Pusoy Dos tournament's (its organizer's choice)
    (DOC-4). No row: Russian for a Sport Poker club; a Pusoy Dos tournament follows its club, else
    English. `ref_id` is the club's or the Pusoy Dos tournament's id (no foreign key: the documents
    area's migrations stand alone; a row for a removed club is simply never read)."""

    __tablename__ = "document_locales"
    __table_args__ = (
        CheckConstraint("scope IN ('club', 'pusoy')", name="scope"),
        CheckConstraint("locale IN ('ru', 'en')", name="locale"),
    )

    scope: Mapped[str] = mapped_column(Text, primary_key=True)
    ref_id: Mapped[int] = mapped_column(BigInteger, primary_key=True)
    locale: Mapped[str] = mapped_column(Text)
    updated_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))


# The status report's count for publish-results: tournaments to publish plus deliveries due.
PENDING_SQL = (
    "SELECT (SELECT count(*) FROM poker_tournaments t WHERE t.status = 'finished' AND NOT EXISTS "
    "(SELECT 1 FROM document_publications p WHERE p.source = 'poker' AND p.tournament_id = t.id))"
    " + (SELECT count(*) FROM pusoy_tournaments t WHERE t.status = 'complete' AND NOT EXISTS "
    "(SELECT 1 FROM document_publications p WHERE p.source = 'pusoy' AND p.tournament_id = t.id))"
    " + (SELECT count(*) FROM document_publications WHERE state IN ('pending', 'failed') "
    "AND (next_attempt_at IS NULL OR next_attempt_at <= now()))"
)
