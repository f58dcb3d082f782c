"""Clubs: the catalog (one row per club, its listing and verification status) and the audit history
of every decision about it (CL-1..CL-4).

The moderator queue is `verification_status = 'pending' AND queued_at IS NOT NULL`; pending rows
without `queued_at` wait for the automatic check. `claimed_until` is the lease a `verify-clubs` run
holds on an application while it asks the registry, so two runs never check the same one at once.
"""

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
    LargeBinary,
    Text,
    UniqueConstraint,
    text,
)
from sqlalchemy.orm import Mapped, mapped_column

from domain.clubs.rules.status import Action, LegalForm, Listing, Verification
from domain.store.base import Base


def _one_of(column: str, values) -> str:
    return f"{column} IN ({', '.join(repr(str(v)) for v in values)})"


class Club(Base):
    __tablename__ = "clubs"

    id: Mapped[int] = mapped_column(BigInteger, Identity(), primary_key=True)
    name: Mapped[str] = mapped_column(Text)
    legal_form: Mapped[str] = mapped_column(Text)
    inn: Mapped[str] = mapped_column(Text)
    ogrn: Mapped[str] = mapped_column(Text)  # OGRN (13 digits) or OGRNIP (15 digits)
    contact_email: Mapped[str] = mapped_column(Text)  # where results and certificates go
    timezone: Mapped[str] = mapped_column(Text)  # IANA name, e.g. Europe/Moscow
    listing_status: Mapped[str] = mapped_column(Text, server_default=Listing.LISTED.value)
    listing_reason: Mapped[str | None] = mapped_column(Text)
    verification_status: Mapped[str] = mapped_column(Text, server_default=Verification.UNVERIFIED.value)
    verification_reason: Mapped[str | None] = mapped_column(Text)
    application_no: Mapped[int] = mapped_column(Integer, server_default="0")  # +1 on each apply
    applied_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))
    attempts: Mapped[int] = mapped_column(Integer, server_default="0")  # failed registry calls
    last_error: Mapped[str | None] = mapped_column(Text)
    queued_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))
    claimed_until: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))
    verified_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))
    last_checked_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    updated_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))

    __table_args__ = (
        UniqueConstraint("inn"),
        UniqueConstraint("ogrn"),
        CheckConstraint("length(btrim(name)) > 0", name="name_given"),
        CheckConstraint(_one_of("legal_form", LegalForm), name="legal_form"),
        CheckConstraint(
            "(legal_form = 'legal_entity' AND inn ~ '^[0-9]{10}$' AND ogrn ~ '^[0-9]{13}$')"
            " OR (legal_form = 'entrepreneur' AND inn ~ '^[0-9]{12}$' AND ogrn ~ '^[0-9]{15}$')",
            name="identifiers_match_form",
        ),
        CheckConstraint("position('@' in contact_email) > 1", name="contact_email"),
        CheckConstraint(_one_of("listing_status", Listing), name="listing_status"),
        CheckConstraint(_one_of("verification_status", Verification), name="verification_status"),
        CheckConstraint("queued_at IS NULL OR verification_status = 'pending'", name="queue_is_pending"),
        CheckConstraint("attempts >= 0 AND application_no >= 0", name="counters"),
        Index(
            "ix_clubs_pending",
            "applied_at",
            postgresql_where=text("verification_status = 'pending' AND queued_at IS NULL"),
        ),
        Index(
            "ix_clubs_verified_checked",
            "last_checked_at",
            postgresql_where=text("verification_status = 'verified'"),
        ),
    )


class ClubDecision(Base):
    """One audited decision: when, what, by whom (provider or moderator), why, the raw registry answer."""

    __tablename__ = "club_decisions"

    id: Mapped[int] = mapped_column(BigInteger, Identity(), primary_key=True)
    club_id: Mapped[int] = mapped_column(BigInteger, ForeignKey("clubs.id"), index=True)
    application_no: Mapped[int] = mapped_column(Integer)
    action: Mapped[str] = mapped_column(Text)
    verification_status: Mapped[str] = mapped_column(Text)  # after the decision
    listing_status: Mapped[str] = mapped_column(Text)  # after the decision
    source: Mapped[str] = mapped_column(Text)  # registry | moderator | operator | club
    actor: Mapped[str] = mapped_column(Text)  # the provider's or the person's name
    reason: Mapped[str | None] = mapped_column(Text)
    raw_answer: Mapped[str | None] = mapped_column(Text)  # the registry's body, verbatim
    decided_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))

    __table_args__ = (
        CheckConstraint(_one_of("action", Action), name="action"),
        CheckConstraint("source IN ('registry', 'moderator', 'operator', 'club')", name="source"),
        # One decision of each kind per application: a second run of a job cannot audit twice.
        Index(
            "uq_club_decisions_once",
            "club_id",
            "application_no",
            "action",
            unique=True,
            postgresql_where=text("action <> 'recheck'"),
        ),
    )


class RegistryRate(Base):
    """The registry's request budget, shared by every process and machine using the database
    (REGISTRY_RATE): the next free instant to send a request to each provider (by its address)."""

    __tablename__ = "registry_rate"

    provider: Mapped[str] = mapped_column(Text, primary_key=True)
    next_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))


class ClubLogo(Base):
    """A club's logo on its documents (domain.clubs.rules.logo checks it before it is stored)."""

    __tablename__ = "club_logos"
    __table_args__ = (
        CheckConstraint("media_type IN ('image/png', 'image/jpeg')", name="media_type"),
        CheckConstraint("octet_length(data) BETWEEN 1 AND 524288", name="data_size"),
        CheckConstraint("width BETWEEN 1 AND 2000 AND height BETWEEN 1 AND 2000", name="dimensions"),
    )

    club_id: Mapped[int] = mapped_column(BigInteger, ForeignKey("clubs.id", ondelete="CASCADE"), primary_key=True)
    media_type: Mapped[str] = mapped_column(Text)
    width: Mapped[int] = mapped_column(Integer)
    height: Mapped[int] = mapped_column(Integer)
    data: Mapped[bytes] = mapped_column(LargeBinary)
    sha256: Mapped[str] = mapped_column(Text)
    updated_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
