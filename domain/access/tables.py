"""Accounts and access: people's accounts and their roles per club, sessions, machine tokens, the links
of e-mail verification and password reset, the sign-in attempts that throttle guessing, and the audit
trail of every change (RULES AC-1..AC-4).

No secret is stored where the database can give it back: a password is an argon2id hash; a session's,
a token's and a link's secret are stored as SHA-256 digests (they are 32 random bytes: a digest cannot
be reversed, and a stolen table opens nothing)."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import (
    BigInteger,
    Boolean,
    CheckConstraint,
    DateTime,
    ForeignKey,
    Identity,
    Index,
    LargeBinary,
    Text,
    func,
    text,
)
from sqlalchemy.dialects.postgresql import ARRAY, JSONB
from sqlalchemy.orm import Mapped, mapped_column

from domain.clubs.tables import Club
from domain.poker.tables.tournaments import Player
from domain.store.base import Base

TZ = DateTime(timezone=True)


class Account(Base):
    """A person who signs in. `player_id` links the player they are (AC-1 `player`)."""

    __tablename__ = "accounts"

    id: Mapped[int] = mapped_column(BigInteger, Identity(), primary_key=True)
    email: Mapped[str] = mapped_column(Text)
    email_key: Mapped[str] = mapped_column(Text, unique=True)  # trimmed, case-folded
    password_hash: Mapped[str | None] = mapped_column(Text)  # argon2id; None until a password is set
    email_verified_at: Mapped[datetime | None] = mapped_column(TZ)
    player_id: Mapped[int | None] = mapped_column(BigInteger, ForeignKey(Player.id), unique=True)
    locale: Mapped[str] = mapped_column(Text, server_default="ru")
    blocked_at: Mapped[datetime | None] = mapped_column(TZ)
    blocked_reason: Mapped[str | None] = mapped_column(Text)
    created_at: Mapped[datetime] = mapped_column(TZ)

    __table_args__ = (
        CheckConstraint("password_hash IS NULL OR password_hash LIKE '$argon2id$%'", name="argon2id_only"),
        CheckConstraint("(blocked_at IS NULL) = (blocked_reason IS NULL)", name="block_has_reason"),
    )


class Grant(Base):
    """One role one account holds: in a club (owner, floor, cashier) or on the platform (operator, organizer)."""

    __tablename__ = "account_roles"

    id: Mapped[int] = mapped_column(BigInteger, Identity(), primary_key=True)
    account_id: Mapped[int] = mapped_column(BigInteger, ForeignKey("accounts.id", ondelete="CASCADE"))
    role: Mapped[str] = mapped_column(Text)
    club_id: Mapped[int | None] = mapped_column(BigInteger, ForeignKey(Club.id))
    granted_at: Mapped[datetime] = mapped_column(TZ)

    __table_args__ = (
        Index("uq_account_roles_held", "account_id", "role", func.coalesce(text("club_id"), 0), unique=True),
        Index("ix_account_roles_club_id", "club_id"),
        CheckConstraint(
            "(role IN ('owner', 'floor', 'cashier') AND club_id IS NOT NULL)"
            " OR (role IN ('operator', 'organizer') AND club_id IS NULL)",
            name="role_in_club",
        ),
    )


class UserSession(Base):
    """A signed-in browser: the cookie holds the secret, this row its digest."""

    __tablename__ = "account_sessions"

    id: Mapped[int] = mapped_column(BigInteger, Identity(), primary_key=True)
    account_id: Mapped[int] = mapped_column(BigInteger, ForeignKey("accounts.id", ondelete="CASCADE"), index=True)
    secret_hash: Mapped[bytes] = mapped_column(LargeBinary, unique=True)
    started_at: Mapped[datetime] = mapped_column(TZ)
    last_seen_at: Mapped[datetime] = mapped_column(TZ)
    ended_at: Mapped[datetime | None] = mapped_column(TZ)
    address: Mapped[str | None] = mapped_column(Text)
    agent: Mapped[str | None] = mapped_column(Text)


class Token(Base):
    """A machine's bearer token: shown once, stored as its digest, scoped, revocable."""

    __tablename__ = "account_tokens"

    id: Mapped[int] = mapped_column(BigInteger, Identity(), primary_key=True)
    account_id: Mapped[int] = mapped_column(BigInteger, ForeignKey("accounts.id", ondelete="CASCADE"), index=True)
    name: Mapped[str] = mapped_column(Text)
    secret_hash: Mapped[bytes] = mapped_column(LargeBinary, unique=True)
    scopes: Mapped[list[str]] = mapped_column(ARRAY(Text))
    created_at: Mapped[datetime] = mapped_column(TZ)
    last_used_at: Mapped[datetime | None] = mapped_column(TZ)
    revoked_at: Mapped[datetime | None] = mapped_column(TZ)


class Link(Base):
    """A one-time link sent by e-mail: verify the address, or reset the password."""

    __tablename__ = "account_links"

    id: Mapped[int] = mapped_column(BigInteger, Identity(), primary_key=True)
    account_id: Mapped[int] = mapped_column(BigInteger, ForeignKey("accounts.id", ondelete="CASCADE"), index=True)
    purpose: Mapped[str] = mapped_column(Text)
    secret_hash: Mapped[bytes] = mapped_column(LargeBinary, unique=True)
    created_at: Mapped[datetime] = mapped_column(TZ)
    expires_at: Mapped[datetime] = mapped_column(TZ)
    used_at: Mapped[datetime | None] = mapped_column(TZ)

    __table_args__ = (CheckConstraint("purpose IN ('verify', 'reset')", name="purpose"),)


class SignInAttempt(Base):
    """One sign-in tried: the failures of the last 15 minutes throttle the account and the address."""

    __tablename__ = "account_sign_ins"

    id: Mapped[int] = mapped_column(BigInteger, Identity(), primary_key=True)
    email_key: Mapped[str] = mapped_column(Text)
    address: Mapped[str] = mapped_column(Text)
    at: Mapped[datetime] = mapped_column(TZ)
    succeeded: Mapped[bool] = mapped_column(Boolean)

    __table_args__ = (
        Index("ix_account_sign_ins_email_key_at", "email_key", "at"),
        Index("ix_account_sign_ins_address_at", "address", "at"),
    )


class ThrottleHit(Base):
    """One counted ask of a web throttle (`bucket`: the join codes a client looked up, the reset links or
    sign-ups an address asked for; `key`, the code, when distinct asks are what count): every web process
    and host counts in this one table (flows/web/site.RateLimit); the hits past the window are deleted."""

    __tablename__ = "web_throttle_hits"

    id: Mapped[int] = mapped_column(BigInteger, Identity(), primary_key=True)
    bucket: Mapped[str] = mapped_column(Text)
    client: Mapped[str] = mapped_column(Text)
    key: Mapped[str] = mapped_column(Text)
    at: Mapped[datetime] = mapped_column(TZ)

    __table_args__ = (
        Index("ix_web_throttle_hits_bucket_client_at", "bucket", "client", "at"),
        Index("ix_web_throttle_hits_bucket_at", "bucket", "at"),
    )


class AuditRecord(Base):
    """One change: who (actor), when, what (action), on what (target), in which club, with the request
    and what it changed (AC-3). Written in the change's own transaction."""

    __tablename__ = "audit_trail"

    id: Mapped[int] = mapped_column(BigInteger, Identity(), primary_key=True)
    at: Mapped[datetime] = mapped_column(TZ)
    actor_kind: Mapped[str] = mapped_column(Text)
    actor_label: Mapped[str] = mapped_column(Text)
    account_id: Mapped[int | None] = mapped_column(BigInteger, ForeignKey("accounts.id"))
    token_id: Mapped[int | None] = mapped_column(BigInteger, ForeignKey("account_tokens.id"))
    club_id: Mapped[int | None] = mapped_column(BigInteger, ForeignKey(Club.id))
    action: Mapped[str] = mapped_column(Text)
    target: Mapped[str] = mapped_column(Text)
    data: Mapped[dict] = mapped_column(JSONB, server_default="{}")

    __table_args__ = (Index("ix_audit_trail_club_id_at", "club_id", "at"),)


class IdempotentAnswer(Base):
    """The answer of a write sent with an `Idempotency-Key` (docs/api.md): the same caller sending the
    same key again within 24 hours gets this answer again and nothing is done twice. Kept with the
    change, in its transaction; `fingerprint` is the SHA-256 of the method, path and body."""

    __tablename__ = "api_idempotency"

    id: Mapped[int] = mapped_column(BigInteger, Identity(), primary_key=True)
    caller: Mapped[str] = mapped_column(Text)  # `token:ID` or `account:ID`
    key: Mapped[str] = mapped_column(Text)
    fingerprint: Mapped[bytes] = mapped_column(LargeBinary)
    status: Mapped[int] = mapped_column(BigInteger)
    answer: Mapped[dict | list | None] = mapped_column(JSONB)
    created_at: Mapped[datetime] = mapped_column(TZ)

    __table_args__ = (
        Index("uq_api_idempotency_caller_key", "caller", "key", unique=True),
        Index("ix_api_idempotency_created_at", "created_at"),
        CheckConstraint("length(key) BETWEEN 1 AND 255", name="key_length"),
    )
