"""The plain letters the platform sends a person (RULES AC-4): the link that sets or resets an account's
password. Through SMTP_URL when it is set; else written as an `.eml` file (mode 0600) under
TOURNEY_HOME/outbox/accounts/ for the operator to forward. The link is in the letter only: it is never
printed, logged or recorded; what the caller is told is where the letter went."""

from __future__ import annotations

import os
import re
from datetime import datetime
from email.utils import format_datetime, make_msgid
from pathlib import Path

from domain.access.rules.credentials import LINK_LIFETIME
from domain.documents.ports import DeliveryError
from domain.errors import DomainError
from flows import bootstrap

LETTERS_FOLDER = ("outbox", "accounts")

_WORDING = {
    "ru": (
        "Tourney: задайте пароль",
        "Здравствуйте!\n\n"
        "Чтобы задать пароль учётной записи Tourney {email}, откройте эту ссылку в течение {hours} ч "
        "(она действует один раз):\n\n{url}\n\n"
        "Если вы не ждали этого письма, удалите его: ничего не изменится.\n",
    ),
    "en": (
        "Tourney: set your password",
        "Hello,\n\n"
        "To set the password of your Tourney account {email}, open this link within {hours} h "
        "(it works once):\n\n{url}\n\n"
        "If you did not expect this letter, delete it: nothing changes.\n",
    ),
}


def password_letter(email: str, locale: str, url: str) -> tuple[str, str]:
    """(subject, body) of the letter with the link to set the password, in the account's language."""
    subject, body = _WORDING.get(locale, _WORDING["en"])
    return subject, body.format(email=email, url=url, hours=int(LINK_LIFETIME.total_seconds() // 3600))


def send_password_link(email: str, locale: str, secret: str, now: datetime) -> str:
    """Deliver the link `{public_url}/reset/{secret}` to `email`; returns what to tell the operator
    (where it went, never the link). A server that refuses is one DomainError line."""
    settings = bootstrap.settings()
    subject, body = password_letter(email, locale, f"{settings.public_url()}/reset/{secret}")
    message_id = make_msgid(domain="tourney")
    mailer = bootstrap.mailer()
    if mailer is not None:
        try:
            mailer.send(email, subject, body, [], message_id)
        except DeliveryError as exc:
            raise DomainError("mail-failed", f"the letter to {email} was not sent ({exc}); nothing changed") from None
        return f"a link to set the password was sent to {email}"
    from infra.mail import DEFAULT_SENDER, plain

    letter = plain(DEFAULT_SENDER, email, subject, body, message_id)
    letter["Date"] = format_datetime(now)
    path = _outbox(settings.home) / f"{now:%Y%m%dT%H%M%S%f}-{re.sub(r'[^A-Za-z0-9@._+-]', '_', email)}.eml"
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "wb") as out:
        out.write(bytes(letter))
    return f"SMTP_URL is not set: the letter with a link to set the password was written to {path}"


def _outbox(home: Path) -> Path:
    folder = home.joinpath(*LETTERS_FOLDER)
    folder.mkdir(mode=0o700, parents=True, exist_ok=True)
    return folder
