"""Publishing (the adapter's I/O): render a tournament's sheet and certificates, store them in the
outbox (TOURNEY_HOME/outbox/<club>/<tournament>/) and in the database, and e-mail them.

`publish` claims the tournament first (domain.documents.services.records.claim), so a tournament is
published once however often or concurrently the job runs. `send_next` sends the next due delivery
with its row locked, in the caller's transaction (the job's loop gives each delivery its own): a
concurrent sender skips it, a failure is recorded as retryable, and nothing is sent twice. The
renderer and the mailer are ports (domain/documents/ports.py). `due_work` counts what a run would
do now, for the sweep that starts one when something is due (flows/jobs/sweeps.py).
"""

from __future__ import annotations

import hashlib
import os
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

from sqlalchemy import Select, func, literal, or_, select
from sqlalchemy.orm import Session

from domain.documents.ports import DeliveryError, Mailer, Renderer
from domain.documents.rules import signing
from domain.documents.rules.model import Bundle, PokerSheet, SeasonSheet
from domain.documents.services import records as service
from domain.documents.services.sources import pending_seasons
from domain.documents.services.sources.shared import unpublished
from domain.documents.tables import DocumentPublication
from domain.poker.tables.tournaments import Tournament as PokerTournament
from domain.pusoy.tables import PusoyTournament
from domain.webhooks.rules.endpoints import DOCUMENTS_READY
from domain.webhooks.services.outbox import emit


def outbox_root(home: Path) -> Path:
    return home / "outbox"


def _write(path: Path, data: bytes) -> None:
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_bytes(data)
    os.replace(tmp, path)


@dataclass(frozen=True)
class Rendered:
    kind: str  # results | certificate | standings
    filename: str
    serial: str | None
    player: str | None
    data: bytes
    signature: str


def rendered(renderer: Renderer, bundle: Bundle) -> list[Rendered]:
    """A tournament's documents: the results sheet, then one certificate per winner (DOC-1); a
    season's: its standings alone (LG-3)."""
    sheet = bundle.sheet
    signature = _signature(renderer.key, sheet)
    if isinstance(sheet, SeasonSheet):
        standings = renderer.season_sheet(sheet, bundle.logo)
        return [Rendered("standings", bundle.results_file, None, None, standings, signature)]
    if isinstance(sheet, PokerSheet):
        results = renderer.poker_sheet(sheet, bundle.logo)
    else:
        results = renderer.pusoy_sheet(sheet, bundle.logo)
    files = [Rendered("results", bundle.results_file, None, None, results, signature)]
    certificates = renderer.certificates(bundle.certificates, logo=bundle.logo)
    for cert, data in zip(bundle.certificates, certificates, strict=True):
        signature = _signature(renderer.key, cert)
        files.append(
            Rendered("certificate", f"certificate-{cert.serial}.pdf", cert.serial, cert.player, data, signature)
        )
    return files


def _signature(key: bytes, document) -> str:
    return signing.sign(key, signing.payload(document))


def publish(session: Session, renderer: Renderer, outbox: Path, bundle: Bundle, now: datetime) -> dict | None:
    """Render, store and record one tournament's documents (or a season's standings after one
    tournament); None when it was published before."""
    sheet = bundle.sheet
    season = (sheet.season_id, sheet.season) if isinstance(sheet, SeasonSheet) else (None, None)
    claimed = service.claim(
        session,
        source=bundle.source,
        tournament_id=sheet.tournament_id,
        tournament=sheet.tournament,
        club=sheet.club,
        folder=bundle.folder,
        recipient=bundle.recipient,
        now=now,
        season_id=season[0],
        season=season[1],
    )
    if claimed is None:
        return None
    folder = outbox / bundle.folder
    folder.mkdir(parents=True, exist_ok=True)
    files = rendered(renderer, bundle)
    for f in files:
        _write(folder / f.filename, f.data)
    service.record(
        session,
        claimed,
        [
            service.NewDocument(
                f.kind, f.filename, f.serial, f.player, hashlib.sha256(f.data).hexdigest(), f.signature, len(f.data)
            )
            for f in files
        ],
        now,
    )
    _ready_event(session, bundle, season, files, now)
    return {
        "source": bundle.source,
        "season_id": season[0],
        "tournament_id": sheet.tournament_id,
        "tournament": sheet.tournament,
        "club": sheet.club,
        "recipient": bundle.recipient,
        "state": claimed.state,
        "files": [f.filename for f in files],
        "folder": str(folder),
    }


def _ready_event(session: Session, bundle: Bundle, season, files: list[Rendered], now: datetime) -> None:
    """Players online: webhooks. The documents are stored: for the club's endpoints (and a Pusoy Dos
    cup's organizer's), which documents, by file name and serial; never whose certificate (AC-5)."""
    organizer = None
    if bundle.source == "pusoy":
        organizer = session.scalar(
            select(PusoyTournament.organizer).where(PusoyTournament.id == bundle.sheet.tournament_id)
        )
    payload = {
        "source": bundle.source,
        "tournament_id": bundle.sheet.tournament_id,
        "tournament": bundle.sheet.tournament,
        "season_id": season[0],
        "season": season[1],
        "documents": [{"kind": f.kind, "filename": f.filename, "serial": f.serial} for f in files],
    }
    emit(session, DOCUMENTS_READY, now, club_id=bundle.club_id, organizer=organizer, payload=payload)


def deliveries_due() -> Select:
    """How many deliveries a sender would attempt now: `send_next`'s condition, at the database's now()."""
    return (
        select(func.count())
        .select_from(DocumentPublication)
        .where(
            DocumentPublication.state.in_(("pending", "failed")),
            or_(DocumentPublication.next_attempt_at.is_(None), DocumentPublication.next_attempt_at <= func.now()),
        )
    )


def due_work(deliverable: bool) -> Select:
    """What a `publish-results` run would do now, in one count: the finished poker and complete Pusoy
    Dos tournaments not yet published, the seasons' standings after them (LG-3), and, only when
    `deliverable` (a mailer is configured), the deliveries due. Without one a pending delivery cannot
    be attempted: it stays in the outbox until SMTP_URL is set (docs/documents.md#delivery), so it is
    no work due, and a run for it would do nothing, every minute."""
    counts = [
        select(func.count())
        .select_from(PokerTournament)
        .where(PokerTournament.status == "finished", unpublished("poker", PokerTournament.id)),
        select(func.count())
        .select_from(PusoyTournament)
        .where(PusoyTournament.status == "complete", unpublished("pusoy", PusoyTournament.id)),
        pending_seasons(),
        *([deliveries_due()] if deliverable else []),
    ]
    return select(sum((c.scalar_subquery() for c in counts), literal(0)))


def send_next(session: Session, outbox: Path, mailer: Mailer, now: datetime) -> dict | None:
    """Attempt the next delivery that is due (its row locked until the caller commits); its outcome,
    or None when nothing is due."""
    due = service.next_due(session, now)
    return None if due is None else _attempt(session, due, outbox, mailer, now)


def _attempt(session: Session, due, outbox: Path, mailer: Mailer, now: datetime) -> dict:
    # one Message-ID for every attempt of a delivery; a delivery made again (`records.resend`) has its own
    message_id = due.message_id or f"<{due.source}-{due.tournament_id}.{due.id}@tourney>"
    subject, body = (_season_mail if due.source == "season" else _results_mail)(due)
    try:
        attachments = [
            (d.filename, _read_checked(outbox / due.folder / d.filename, d.sha256))
            for d in service.documents_of(session, due.id)
        ]
        mailer.send(due.recipient, subject, body([name for name, _ in attachments]), attachments, message_id)
    except DeliveryError as exc:
        service.mark_failed(due, now, str(exc))
    else:
        service.mark_sent(due, now, message_id)
    return {
        "source": due.source,
        "season_id": due.season_id,
        "tournament_id": due.tournament_id,
        "recipient": due.recipient,
        "state": due.state,
        "attempts": due.attempts,
        "error": due.last_error,
    }


def _read_checked(path: Path, sha256: str) -> bytes:
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise DeliveryError(f"the stored file {path} cannot be read: {exc.strerror}") from exc
    if hashlib.sha256(data).hexdigest() != sha256:
        raise DeliveryError(f"the stored file {path} differs from the one recorded")
    return data


def _results_mail(due):
    def body(filenames: list[str]) -> str:
        return (
            "\n".join(
                [
                    f"The results of {due.tournament}" + (f" ({due.club})" if due.club else "") + " are attached:",
                    "",
                    *(f"  {name}" for name in filenames),
                    "",
                    "Each certificate carries a serial and a verification code; the platform checks one with",
                    "`tourney documents verify FILE`.",
                ]
            )
            + "\n"
        )

    return f"Results: {due.tournament}", body


def _season_mail(due):
    def body(filenames: list[str]) -> str:
        return (
            "\n".join(
                [
                    f"The standings of the season {due.season} ({due.club}) after {due.tournament} are attached:",
                    "",
                    *(f"  {name}" for name in filenames),
                    "",
                    "The file is signed; the platform checks it with `tourney documents verify FILE`.",
                ]
            )
            + "\n"
        )

    return f"Season standings: {due.season} after {due.tournament}", body
