"""What publishing needs from the outside world, named here and implemented in infra: a renderer of
PDFs (infra/render.py, WeasyPrint) and a mailer (infra/mail.py, SMTP). The composition root
(flows/bootstrap.py) builds them."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Protocol

from domain.clubs.rules.logo import Logo
from domain.documents.rules.model import (
    Certificate,
    PokerSheet,
    PusoySheet,
    SeasonSheet,
)


class DeliveryError(Exception):
    """The server could not be reached or refused the message: recorded, retried later."""


class Renderer(Protocol):
    key: bytes  # the platform key the documents are signed with (DOC-2)

    def poker_sheet(self, sheet: PokerSheet, logo: Logo | None = None) -> bytes: ...

    def pusoy_sheet(self, sheet: PusoySheet, logo: Logo | None = None) -> bytes: ...

    def season_sheet(self, sheet: SeasonSheet, logo: Logo | None = None) -> bytes: ...

    def certificates(self, certs: Sequence[Certificate], *, logo: Logo | None = None) -> Iterable[bytes]: ...


class Mailer(Protocol):
    def send(
        self, recipient: str, subject: str, body: str, attachments: list[tuple[str, bytes]], message_id: str
    ) -> None:
        """Send one message with PDF attachments; DeliveryError when it could not be delivered."""
