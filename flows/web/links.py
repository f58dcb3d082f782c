"""Delivering an account's one-time link (RULES AC-4): a plain-text e-mail in the account's language
with the link (`<public url>/reset/<secret>` to choose a new password, `<public url>/verify-email/<secret>`
to confirm the address), through SMTP when `SMTP_URL` is set, else written as an .eml file under
`TOURNEY_HOME/outbox/accounts/` (readable by the platform's operator only: it holds a live secret)."""

from __future__ import annotations

import logging
import secrets
from datetime import UTC, datetime
from email.message import EmailMessage
from email.utils import make_msgid
from pathlib import Path

from domain.access.rules.credentials import LINK_LIFETIME
from domain.documents.ports import DeliveryError
from domain.documents.rules.model import N_
from infra import i18n
from infra.config import Settings
from infra.mail import DEFAULT_SENDER

log = logging.getLogger(__name__)

PATHS = {"reset": "/reset/{secret}", "verify": "/verify-email/{secret}"}
SUBJECTS = {
    "reset": N_("Your new Tourney password"),
    "verify": N_("Confirm your e-mail address for Tourney"),
}
WHAT = {
    "reset": N_(
        "Someone (we hope you) asked to set a new password for this address on Tourney. Open this link to choose it:"
    ),
    "verify": N_("Open this link to confirm that this address is yours and to choose your Tourney password:"),
}
NOT_YOU = N_("If it was not you, do nothing: your password stays as it was.")


def body(settings: Settings, locale: str, purpose: str, secret: str) -> tuple[str, str]:
    """The subject and plain-text body of a link's e-mail, in `locale`."""
    t = i18n.translations(locale if locale in i18n.LOCALES else "ru")
    url = settings.public_url().rstrip("/") + PATHS[purpose].format(secret=secret)
    minutes = int(LINK_LIFETIME.total_seconds() // 60)
    lasts = t.ngettext("The link works once, for %(num)s minute.", "The link works once, for %(num)s minutes.", minutes)
    text = "\n\n".join([t.gettext(WHAT[purpose]), url, lasts % {"num": minutes}, t.gettext(NOT_YOU), "Tourney"])
    return t.gettext(SUBJECTS[purpose]), text + "\n"


def send_link(
    settings: Settings, mailer, email: str, locale: str, purpose: str, secret: str, *, outbox: Path | None = None
) -> Path | None:
    """Send the link to `email`: by `mailer` (an `infra.mail.SmtpMailer`, `flows.bootstrap.mailer()`)
    when there is one, else as `<outbox>/accounts/<when>-<purpose>-<random>.eml` (`outbox` defaults to
    `settings.home / "outbox"`; the file is mode 0600), whose path is returned. A failed SMTP delivery
    is logged (never the secret) and not retried: the person asks again."""
    if purpose not in PATHS:
        raise ValueError(f"no link purpose {purpose!r}")
    subject, text = body(settings, locale, purpose, secret)
    message_id = make_msgid(domain="tourney")
    if mailer is not None:
        try:
            mailer.send(email, subject, text, [], message_id)
        except DeliveryError as exc:
            log.warning("the %s link to %s was not delivered: %s", purpose, email, exc)
        return None
    msg = EmailMessage()
    msg["From"] = DEFAULT_SENDER
    msg["To"] = email
    msg["Subject"] = subject
    msg["Message-ID"] = message_id
    msg.set_content(text)
    folder = (outbox or settings.home / "outbox") / "accounts"
    folder.mkdir(parents=True, exist_ok=True, mode=0o700)
    path = folder / f"{datetime.now(UTC):%Y%m%dT%H%M%S}-{purpose}-{secrets.token_hex(4)}.eml"
    path.touch(mode=0o600)
    path.write_bytes(msg.as_bytes())
    return path
