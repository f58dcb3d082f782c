"""Whose certificate is it (RULES AC-1, AC-2, AC-5, DOC-1): the player a stored certificate was issued
to, and a player's own certificates, read from what decided them rather than from the printed name.

- Poker: the certificates of a tournament go, in its results sheet's order, to the places that carry a
  prize line and to the champion (`poker_certificates`: best place first, then the printed name); the
  n-th of them is serial `SP-<tournament>-<n>`. The stored place rows give the same order, so the n-th
  prize place's player holds the n-th serial (the printed name must match too: a certificate whose name
  is not that player's belongs to nobody here).
- Pusoy Dos: the one certificate, `PD-<tournament>-01`, is the champion's; a seat is held by handle, so
  it belongs to the player whose handle is the champion's.

A certificate nobody can be shown to hold belongs to nobody: no player may download it (the organizer
and the club get it by e-mail)."""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy import func, or_, select
from sqlalchemy.orm import Session

from domain.documents.rules.model import serial as serial_of
from domain.documents.tables import Document, DocumentPublication
from domain.poker.tables.knockouts_places import FinalPlace
from domain.poker.tables.tournaments import Player
from domain.pusoy.tables import PusoyTournament


@dataclass(frozen=True)
class Held:
    """A stored certificate and who holds it (None: nobody can be shown to)."""

    serial: str
    source: str  # poker | pusoy
    tournament_id: int
    folder: str  # relative to the outbox
    filename: str
    sha256: str
    player_id: int | None


def _display():
    return func.coalesce(Player.name, Player.pseudonym)


def _poker_holders(session: Session, tournament_ids) -> dict[str, tuple[int, str]]:
    """serial -> (player id, printed name) for the poker tournaments' certificates, in the sheet's order."""
    ordinal = (
        func.row_number()
        .over(partition_by=FinalPlace.tournament_id, order_by=(FinalPlace.place, _display(), FinalPlace.player_id))
        .label("ordinal")
    )
    rows = session.execute(
        select(FinalPlace.tournament_id, FinalPlace.player_id, _display().label("name"), ordinal)
        .join(Player, Player.id == FinalPlace.player_id)
        .where(
            FinalPlace.tournament_id.in_(tournament_ids),
            or_(FinalPlace.prize.is_not(None), FinalPlace.place == 1),
        )
    ).all()
    return {serial_of("poker", r.tournament_id, r.ordinal): (r.player_id, r.name) for r in rows}


def stored_certificate(session: Session, serial: str) -> tuple[Document, DocumentPublication] | None:
    """The latest stored certificate with this serial and its publication, or None."""
    row = session.execute(
        select(Document, DocumentPublication)
        .join(DocumentPublication, DocumentPublication.id == Document.publication_id)
        .where(Document.kind == "certificate", Document.serial == serial)
        .order_by(Document.id.desc())
        .limit(1)
    ).first()
    return None if row is None else (row[0], row[1])


def holder(session: Session, serial: str) -> Held | None:
    """The stored certificate with this serial and its holder, or None when there is no such certificate."""
    row = stored_certificate(session, serial)
    if row is None:
        return None
    doc, pub = row
    player_id = None
    if pub.source == "poker":
        found = _poker_holders(session, [pub.tournament_id]).get(serial)
        player_id = found[0] if found and found[1] == doc.player else None
    elif pub.source == "pusoy" and serial == serial_of("pusoy", pub.tournament_id, 1):
        player_id = session.scalar(
            select(Player.id)
            .join(PusoyTournament, func.lower(PusoyTournament.champion) == func.lower(Player.handle))
            .where(PusoyTournament.id == pub.tournament_id)
        )
    return Held(serial, pub.source, pub.tournament_id, pub.folder, doc.filename, doc.sha256, player_id)


def certificates_of(session: Session, player_id: int) -> dict[tuple[str, int], str]:
    """(source, tournament id) -> the serial of the player's own stored certificate there."""
    stored = {
        (pub.source, pub.tournament_id, doc.serial): doc.player
        for doc, pub in session.execute(
            select(Document, DocumentPublication)
            .join(DocumentPublication, DocumentPublication.id == Document.publication_id)
            .where(
                Document.kind == "certificate",
                or_(
                    (DocumentPublication.source == "poker")
                    & DocumentPublication.tournament_id.in_(
                        select(FinalPlace.tournament_id).where(FinalPlace.player_id == player_id)
                    ),
                    (DocumentPublication.source == "pusoy")
                    & DocumentPublication.tournament_id.in_(
                        select(PusoyTournament.id)
                        .join(Player, func.lower(Player.handle) == func.lower(PusoyTournament.champion))
                        .where(Player.id == player_id)
                    ),
                ),
            )
        )
    }
    poker_ids = sorted({tid for source, tid, _ in stored if source == "poker"})
    poker = _poker_holders(session, poker_ids) if poker_ids else {}
    mine: dict[tuple[str, int], str] = {}
    for (source, tid, serial), printed in stored.items():
        if source == "pusoy" and serial == serial_of("pusoy", tid, 1):
            mine[(source, tid)] = serial
        elif source == "poker" and poker.get(serial) == (player_id, printed):
            mine[(source, tid)] = serial
    return mine
