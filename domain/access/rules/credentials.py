"""Credentials (RULES AC-4), as pure decisions: how many failed sign-ins an account and an address may
make before they wait, when a session has expired, what a new password must be, how an e-mail is keyed.

The figures are the product's choices (docs/access.md): 5 failures per account and 20 per address in
15 minutes, then the sign-in waits until the oldest failure of the window leaves it, so guessing stays
under 10 a minute per account whatever the number of callers; a session ends after 12 hours unused or
14 days after it began; a link (verify, reset) lasts 1 hour, and a reset asked again within a minute
sends no second link.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta

from domain.errors import Problem

THROTTLE_WINDOW = timedelta(minutes=15)
MAX_FAILURES_PER_ACCOUNT = 5
MAX_FAILURES_PER_ADDRESS = 20
SESSION_IDLE = timedelta(hours=12)
SESSION_ABSOLUTE = timedelta(days=14)
SEEN_EVERY = timedelta(minutes=1)  # a session's last use is written at most once a minute
LINK_LIFETIME = timedelta(hours=1)
LINK_RESEND = timedelta(minutes=1)  # a reset asked again within a minute sends no second link
MIN_PASSWORD = 10
MAX_PASSWORD = 256


@dataclass(frozen=True)
class Throttle:
    allowed: bool
    retry_after_s: int = 0


def throttle(account_failures: Sequence[datetime], address_failures: Sequence[datetime], now: datetime) -> Throttle:
    """May one more sign-in be tried now, given the failures inside the window (per account, per address)?"""
    waits = []
    for failures, limit in ((account_failures, MAX_FAILURES_PER_ACCOUNT), (address_failures, MAX_FAILURES_PER_ADDRESS)):
        recent = sorted(at for at in failures if at > now - THROTTLE_WINDOW)
        if len(recent) >= limit:
            waits.append(recent[len(recent) - limit] + THROTTLE_WINDOW - now)
    if not waits:
        return Throttle(True)
    return Throttle(False, max(1, int(max(waits).total_seconds() + 0.999)))


def session_expired(started: datetime, last_seen: datetime, now: datetime) -> bool:
    """A session ends 12 hours after its last use or 14 days after it began, whichever comes first."""
    return now >= last_seen + SESSION_IDLE or now >= started + SESSION_ABSOLUTE


def password_problems(password: str, email: str) -> list[Problem]:
    """Every problem of a new password: long enough, not absurdly long, not the e-mail itself."""
    found = []
    if len(password) < MIN_PASSWORD:
        found.append(Problem("password-too-short", f"A password has at least {MIN_PASSWORD} characters."))
    if len(password) > MAX_PASSWORD:
        found.append(Problem("password-too-long", f"A password has at most {MAX_PASSWORD} characters."))
    if password.strip().casefold() in (email.casefold(), email.partition("@")[0].casefold()):
        found.append(Problem("password-is-email", "A password cannot be the e-mail address."))
    return found


def email_key(email: str) -> str:
    """The key an e-mail is found and throttled by: trimmed and case-folded."""
    return email.strip().casefold()


def email_problems(email: str) -> list[Problem]:
    """An e-mail address a link can be sent to: one @, something on both sides, no spaces, ≤ 254."""
    text = email.strip()
    local, at, domain = text.rpartition("@")
    if not at or not local or "." not in domain or any(c.isspace() for c in text) or len(text) > 254:
        return [Problem("bad-email", f"{email!r} is not an e-mail address.")]
    return []
