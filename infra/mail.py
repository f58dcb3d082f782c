"""E-mail through SMTP_URL with the standard library (smtplib): smtp://[user:pass@]host:port
(smtps:// for implicit TLS; `?starttls=1` to upgrade; `?from=addr` for the sender)."""

from __future__ import annotations

import re
import smtplib
import ssl
from dataclasses import dataclass, field
from email.message import EmailMessage
from urllib.parse import parse_qs, unquote, urlsplit

from domain.documents.ports import DeliveryError
from domain.errors import ConfigurationError
from infra.config import masked

DEFAULT_SENDER = "tourney@localhost"
TIMEOUT_S = 30


@dataclass(frozen=True)
class SmtpTarget:
    host: str
    port: int
    user: str | None
    password: str | None = field(repr=False)
    sender: str
    tls: bool
    starttls: bool


def parse_url(url: str) -> SmtpTarget:
    """The SMTP target; a malformed URL is refused with its password masked (never printed)."""
    bad = ConfigurationError(
        "bad-smtp-url", f"SMTP_URL must look like smtp://[user:pass@]host:port, got {masked(url)!r}"
    )
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError:
        raise bad from None
    if parts.scheme not in ("smtp", "smtps") or not parts.hostname:
        raise bad
    query = parse_qs(parts.query)
    return SmtpTarget(
        host=parts.hostname,
        port=port or (465 if parts.scheme == "smtps" else 25),
        user=unquote(parts.username) if parts.username else None,
        password=unquote(parts.password) if parts.password else None,
        sender=query.get("from", [DEFAULT_SENDER])[0],
        tls=parts.scheme == "smtps",
        starttls=query.get("starttls", ["0"])[0] in ("1", "true", "yes"),
    )


_BREAKS = re.compile("[\r\n\x0b\x0c\x85\u2028\u2029]+")


def plain(sender: str, recipient: str, subject: str, body: str, message_id: str) -> EmailMessage:
    """A plain text message; a line break in the subject (a club's or tournament's name) becomes a
    space, as a header is one line (DOC-3: user text is never interpreted, here as a header of its own)."""
    msg = EmailMessage()
    msg["From"] = sender
    msg["To"] = recipient
    msg["Subject"] = _BREAKS.sub(" ", subject)
    msg["Message-ID"] = message_id  # the same on every attempt: a receiver can drop a duplicate
    msg.set_content(body)
    return msg


def message(
    target: SmtpTarget, recipient: str, subject: str, body: str, attachments: list[tuple[str, bytes]], message_id: str
) -> EmailMessage:
    """The message with its PDF attachments."""
    msg = plain(target.sender, recipient, subject, body, message_id)
    for filename, data in attachments:
        msg.add_attachment(data, maintype="application", subtype="pdf", filename=filename)
    return msg


def send(target: SmtpTarget, msg: EmailMessage) -> None:
    try:
        if target.tls:
            client = smtplib.SMTP_SSL(target.host, target.port, timeout=TIMEOUT_S, context=ssl.create_default_context())
        else:
            client = smtplib.SMTP(target.host, target.port, timeout=TIMEOUT_S)
        with client:
            if target.starttls:
                client.starttls(context=ssl.create_default_context())
            if target.user:
                client.login(target.user, target.password or "")
            client.send_message(msg)
    except (OSError, smtplib.SMTPException) as exc:
        reason = _describe(exc)
        if target.password:  # a server or library might echo it back: never recorded nor shown
            reason = reason.replace(target.password, "***")
        raise DeliveryError(f"{target.host}:{target.port}: {reason}") from None


@dataclass(frozen=True)
class SmtpMailer:
    """The mailer of the documents (domain/documents/ports.py) over one SMTP server."""

    target: SmtpTarget

    def send(
        self, recipient: str, subject: str, body: str, attachments: list[tuple[str, bytes]], message_id: str
    ) -> None:
        send(self.target, message(self.target, recipient, subject, body, attachments, message_id))


def _describe(exc: Exception) -> str:
    if isinstance(exc, smtplib.SMTPRecipientsRefused):
        return "recipient refused: " + "; ".join(
            f"{rcpt} ({code} {msg.decode(errors='replace')})" for rcpt, (code, msg) in exc.recipients.items()
        )
    if isinstance(exc, smtplib.SMTPResponseException):
        return f"refused: {exc.smtp_code} {exc.smtp_error.decode(errors='replace') if isinstance(exc.smtp_error, bytes) else exc.smtp_error}"
    if isinstance(exc, ConnectionRefusedError):
        return "connection refused (is the SMTP server down?)"
    return f"{type(exc).__name__}: {exc}"
