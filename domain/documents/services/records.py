"""Documents in the database: claiming a tournament's publication, recording its PDFs, and the
delivery state machine (stored | pending → sent, or → failed → … → sent). The caller owns the
transaction; rendering, files and SMTP live in the `documents` adapter."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta

from sqlalchemy import or_, select
from sqlalchemy.dialects.postgresql import insert
from sqlalchemy.orm import Session

from domain.documents.tables import Document, DocumentPublication
from domain.errors import NotFound

# Waits after the 1st, 2nd, 3rd... failed attempt; the last one repeats. Never given up: a failed
# delivery stays visible (`tourney documents list`) and is retried until it is sent.
RETRY_DELAYS = (timedelta(minutes=1), timedelta(minutes=5), timedelta(minutes=15), timedelta(hours=1))


@dataclass(frozen=True)
class NewDocument:
    kind: str  # results | certificate | standings
    filename: str
    serial: str | None
    player: str | None
    sha256: str
    signature: str
    size_bytes: int


def claim(
    session: Session,
    *,
    source: str,
    tournament_id: int,
    tournament: str,
    club: str | None,
    folder: str,
    recipient: str | None,
    now: datetime,
    season_id: int | None = None,
    season: str | None = None,
) -> DocumentPublication | None:
    """The right to publish a tournament (or a season's standings after it), once: a new
    publication row, or None when it exists (published before, or being published by a concurrent
    run, which this waits for)."""
    new_id = session.execute(
        insert(DocumentPublication)
        .values(
            source=source,
            tournament_id=tournament_id,
            tournament=tournament,
            club=club,
            folder=folder,
            recipient=recipient,
            season_id=season_id,
            season=season,
            state="pending" if recipient else "stored",
            attempts=0,
            created_at=now,
        )
        .on_conflict_do_nothing(index_elements=["source", "tournament_id", "season_id"])
        .returning(DocumentPublication.id)
    ).scalar_one_or_none()
    return None if new_id is None else session.get(DocumentPublication, new_id)


def record(session: Session, publication: DocumentPublication, documents: Sequence[NewDocument], now: datetime) -> None:
    session.add_all(
        Document(
            publication_id=publication.id,
            kind=d.kind,
            filename=d.filename,
            serial=d.serial,
            player=d.player,
            sha256=d.sha256,
            signature=d.signature,
            size_bytes=d.size_bytes,
            created_at=now,
        )
        for d in documents
    )
    session.flush()


def next_due(session: Session, now: datetime) -> DocumentPublication | None:
    """The next delivery to attempt, locked for this transaction; concurrent senders skip it."""
    return session.scalars(
        select(DocumentPublication)
        .where(
            DocumentPublication.state.in_(("pending", "failed")),
            or_(DocumentPublication.next_attempt_at.is_(None), DocumentPublication.next_attempt_at <= now),
        )
        .order_by(DocumentPublication.id)
        .limit(1)
        .with_for_update(skip_locked=True)
    ).first()


def mark_sent(publication: DocumentPublication, now: datetime, message_id: str) -> None:
    publication.state = "sent"
    publication.attempts += 1
    publication.sent_at = now
    publication.message_id = message_id
    publication.last_error = None
    publication.next_attempt_at = None


def mark_failed(publication: DocumentPublication, now: datetime, error: str) -> None:
    publication.attempts += 1
    publication.state = "failed"
    publication.last_error = error
    publication.next_attempt_at = now + RETRY_DELAYS[min(publication.attempts, len(RETRY_DELAYS)) - 1]


def documents_of(session: Session, publication_id: int) -> list[Document]:
    return list(
        session.scalars(
            select(Document)
            .where(Document.publication_id == publication_id)
            .order_by(Document.kind.desc(), Document.id)
        )
    )


def publications(session: Session, source: str | None = None) -> list[DocumentPublication]:
    query = select(DocumentPublication).order_by(DocumentPublication.id)
    if source:
        query = query.where(DocumentPublication.source == source)
    return list(session.scalars(query))


def publication(session: Session, source: str, tournament_id: int) -> DocumentPublication:
    """A tournament's publication; for `season`, the oldest season's standings after it."""
    found = session.scalars(
        select(DocumentPublication)
        .where(DocumentPublication.source == source, DocumentPublication.tournament_id == tournament_id)
        .order_by(DocumentPublication.id)
    ).first()
    if found is None:
        raise NotFound("not-published", f"no documents were published for {source} tournament {tournament_id}")
    return found


def retry_now(session: Session, source: str, tournament_id: int, now: datetime) -> DocumentPublication:
    """Make a failed or pending delivery due now (`tourney documents send`); a sent one stays sent."""
    found = publication(session, source, tournament_id)
    if found.state == "sent":
        return found
    if found.state == "stored":
        raise NotFound(
            "no-recipient",
            f"{source} tournament {tournament_id} has no address to send to: its documents are only stored",
        )
    found.next_attempt_at = now
    return found


def resend(session: Session, publication_id: int, recipient: str, now: datetime) -> DocumentPublication | None:
    """A new delivery of a publication's documents to `recipient` (the club's address now), due now, for
    the delivery job to send (`send_next`): a sent one becomes a new message (a Message-ID of its own,
    so the receiving side does not drop it as the first one's duplicate; its attempts counted afresh);
    one not sent yet (stored, pending, failed) becomes due now, to `recipient`. None when it is on its
    way already (pending or failed, to that address, due now): a second ask makes no second message.
    The row is locked, so a sender holding it finishes first."""
    found = session.get(DocumentPublication, publication_id, with_for_update=True, populate_existing=True)
    if found is None:
        raise NotFound("publication-not-found", f"no documents {publication_id}")
    due = found.next_attempt_at is None or found.next_attempt_at <= now
    if found.state in ("pending", "failed") and found.recipient == recipient and due:
        return None
    if found.state == "sent":
        found.message_id = f"<{found.source}-{found.tournament_id}.{found.id}.{now:%Y%m%d%H%M%S%f}@tourney>"
        found.attempts, found.last_error, found.sent_at = 0, None, None
    found.state = "pending" if found.state in ("sent", "stored") else found.state
    found.recipient, found.next_attempt_at = recipient, now
    session.flush()
    return found
