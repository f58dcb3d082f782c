"""Writes sent with an `Idempotency-Key` happen once (docs/api.md, "Retries"): the first answer is
kept with the change, in its transaction, and the same caller sending the same key again within 24
hours gets it again, with nothing done twice. The same key with another request is refused (409
`idempotency-key-reused`); two at once with one key: the second is refused (409
`idempotency-key-in-use`) and its change rolled back with it. Its caller owns the transaction."""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime, timedelta

from sqlalchemy import delete, select
from sqlalchemy.dialects.postgresql import insert
from sqlalchemy.orm import Session

from domain.access.tables import IdempotentAnswer
from domain.errors import DomainError

WINDOW = timedelta(hours=24)
KEY = re.compile(r"^[\x21-\x7e]{1,255}$")  # printable ASCII, as Stripe's and the IETF draft's keys
SWEPT = 100  # expired answers deleted with each new one (the table stays about a day's writes)


@dataclass(frozen=True)
class Asked:
    caller: str  # `token:ID` or `account:ID`
    key: str
    fingerprint: bytes


@dataclass(frozen=True)
class Kept:
    status: int
    answer: dict | list | None


def checked(key: str) -> str:
    if not KEY.match(key):
        raise DomainError(
            "bad-idempotency-key", "An Idempotency-Key is 1 to 255 printable ASCII characters (a UUID, say)."
        )
    return key


def recall(session: Session, asked: Asked, now: datetime) -> Kept | None:
    """The answer kept for this caller's key within the window (locked until the transaction ends),
    or None: the first time. Refused when the key was sent with another request."""
    session.execute(
        delete(IdempotentAnswer).where(
            IdempotentAnswer.caller == asked.caller,
            IdempotentAnswer.key == asked.key,
            IdempotentAnswer.created_at <= now - WINDOW,
        )
    )
    row = session.execute(
        select(IdempotentAnswer.fingerprint, IdempotentAnswer.status, IdempotentAnswer.answer)
        .where(IdempotentAnswer.caller == asked.caller, IdempotentAnswer.key == asked.key)
        .with_for_update()
    ).first()
    if row is None:
        return None
    if row.fingerprint != asked.fingerprint:
        raise DomainError(
            "idempotency-key-reused",
            "This Idempotency-Key was sent with another request: use a new key for a new request.",
        )
    return Kept(row.status, row.answer)


def keep(session: Session, asked: Asked, kept: Kept, now: datetime) -> None:
    """Keep the answer with the change. Another request with the same key that got there first
    (two at once) refuses this one, and its change is rolled back with it."""
    made = session.execute(
        insert(IdempotentAnswer)
        .values(
            caller=asked.caller,
            key=asked.key,
            fingerprint=asked.fingerprint,
            status=kept.status,
            answer=kept.answer,
            created_at=now,
        )
        .on_conflict_do_nothing(index_elements=["caller", "key"])
        .returning(IdempotentAnswer.id)
    ).first()
    if made is None:
        raise DomainError(
            "idempotency-key-in-use", "A request with this Idempotency-Key is being answered: try again in a moment."
        )
    expired = select(IdempotentAnswer.id).where(IdempotentAnswer.created_at <= now - WINDOW).limit(SWEPT)
    session.execute(delete(IdempotentAnswer).where(IdempotentAnswer.id.in_(expired.scalar_subquery())))
