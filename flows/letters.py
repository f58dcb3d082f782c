"""The plain letters the platform sends a person (RULES AC-4): the one-time link that sets the password
of a new account (`welcome`, sent by `tourney user add`) or chooses a new one (`reset`, asked for on
`/reset` or sent by `tourney user password`). Both open `<public url>/reset/<secret>`, and following it
also confirms the address. In the account's language, from the gettext catalogs.

Through SMTP when `SMTP_URL` is set (`bootstrap.mailer()`); else written as an `.eml` file (mode 0600,
in a 0700 folder) under `TOURNEY_HOME/outbox/accounts/` for the operator to forward. The link is in the
letter only: it is never printed, logged or recorded."""

from __future__ import annotations

import os
import secrets
from datetime import datetime
from email.utils import format_datetime, make_msgid
from pathlib import Path

from domain.access.rules.credentials import LINK_LIFETIME
from domain.documents.rules.model import N_
from infra import i18n
from infra.config import Settings

SUBJECTS = {
    "welcome": N_("Your Tourney account: choose your password"),
    "reset": N_("Your new Tourney password"),
}
WHAT = {
    "welcome": N_("An account on Tourney was made for this address. Open this link to choose your password:"),
    "reset": N_(
        "Someone (we hope you) asked to set a new password for this address on Tourney. Open this link to choose it:"
    ),
}
NOT_YOU = N_("If it was not you, do nothing: your password stays as it was.")


def letter(settings: Settings, locale: str, kind: str, secret: str) -> tuple[str, str]:
    """The subject and plain-text body of a link's letter, in `locale` (Russian when unknown)."""
    t = i18n.translations(locale if locale in i18n.LOCALES else "ru")
    url = f"{settings.public_url().rstrip('/')}/reset/{secret}"
    minutes = int(LINK_LIFETIME.total_seconds() // 60)
    lasts = t.ngettext("The link works once, for %(num)s minute.", "The link works once, for %(num)s minutes.", minutes)
    text = "\n\n".join([t.gettext(WHAT[kind]), url, lasts % {"num": minutes}, t.gettext(NOT_YOU), "Tourney"])
    return t.gettext(SUBJECTS[kind]), text + "\n"


def send(
    settings: Settings,
    mailer,
    email: str,
    locale: str,
    kind: str,
    secret: str,
    now: datetime,
    *,
    outbox: Path | None = None,
) -> Path | None:
    """Send the letter by `mailer` (`bootstrap.mailer()`; its DeliveryError reaches the caller), or,
    with none, write it to `<outbox>/accounts/` (`outbox` defaults to `settings.home / "outbox"`) and
    return the file's path."""
    subject, text = letter(settings, locale, kind, secret)
    message_id = make_msgid(domain="tourney")
    if mailer is not None:
        mailer.send(email, subject, text, [], message_id)
        return None
    from infra.mail import DEFAULT_SENDER, plain

    message = plain(DEFAULT_SENDER, email, subject, text, message_id)
    message["Date"] = format_datetime(now)
    folder = (outbox or settings.home / "outbox") / "accounts"
    folder.mkdir(mode=0o700, parents=True, exist_ok=True)
    path = folder / f"{now:%Y%m%dT%H%M%S%f}-{kind}-{secrets.token_hex(4)}.eml"
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "wb") as out:
        out.write(bytes(message))
    return path
