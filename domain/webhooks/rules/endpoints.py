"""What an endpoint may be (Players online: webhooks): an HTTPS URL (plain HTTP only to a loopback
host, 127.0.0.1, localhost or [::1], for a developer's machine and the tests), subscribed to one or
more of the events. The database holds the same URL rule (a CHECK); the API also refuses hosts that
are private or loopback addresses (the platform must not be made to POST into its own network), the
operator's CLI may name them."""

from __future__ import annotations

import ipaddress
from collections.abc import Sequence
from urllib.parse import urlsplit

from domain.errors import Problem

ROUND_COMPLETED = "round.completed"  # a Pusoy Dos round's standings locked
CHAMPION = "champion.crowned"  # a Pusoy Dos cup's champion
TOURNAMENT_FINISHED = "tournament.finished"  # a poker tournament's places, a Pusoy Dos cup's final positions
DOCUMENTS_READY = "documents.ready"  # a results sheet and certificates (or a season's standings) stored
KINDS = (ROUND_COMPLETED, CHAMPION, TOURNAMENT_FINISHED, DOCUMENTS_READY)  # what an endpoint may hear
# the platform's own events, on the same outbox, heard by the event consumer only (flows/jobs/events.py)
ROUND_READY = "round.ready"  # a Pusoy Dos round's (or playoff's) last game reported: complete it
EVENT_KINDS = (*KINDS, ROUND_READY)

LOOPBACK_HOSTS = ("127.0.0.1", "localhost", "[::1]")
# the database's CHECK on webhook_endpoints.url: the same rule as `url_problems` without the private hosts
URL_CHECK = r"url ~ '^https://[^/?#\s]+' OR url ~ '^http://(127\.0\.0\.1|localhost|\[::1\])(:[0-9]{1,5})?(/|$)'"
MAX_URL = 2000


def _private(host: str) -> bool:
    if host in ("localhost",) or host.endswith(".localhost"):
        return True
    try:
        address = ipaddress.ip_address(host.strip("[]"))
    except ValueError:
        return False
    return not address.is_global


def url_problems(url: str, *, private_hosts: bool = False) -> list[Problem]:
    """Every problem of `url` as an endpoint; `private_hosts`: a loopback or private address is allowed
    (the operator's CLI, the tests), else refused (the API)."""
    if len(url) > MAX_URL:
        return [Problem("webhook-url", f"The URL is longer than {MAX_URL} characters.")]
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError:
        return [Problem("webhook-url", "The URL is not a valid URL.")]
    host = (parts.hostname or "").lower()
    if parts.scheme not in ("https", "http") or not host or any(c.isspace() for c in url):
        return [Problem("webhook-url", "The URL must be https://host/path.")]
    if parts.username or parts.password:
        return [Problem("webhook-url", "The URL must not carry a user name or password.")]
    netloc_host = f"[{host}]" if ":" in host else host
    if parts.scheme == "http" and netloc_host not in LOOPBACK_HOSTS:
        return [Problem("webhook-https", "The URL must use https:// (plain http only to 127.0.0.1, localhost, [::1]).")]
    if port == 0:
        return [Problem("webhook-url", "The URL's port must be 1 to 65535.")]
    if not private_hosts and _private(host):
        return [Problem("webhook-private-host", "The URL names a loopback or private address: name a public host.")]
    return []


def event_problems(events: Sequence[str]) -> list[Problem]:
    """An endpoint hears at least one event, each one of KINDS."""
    if not events:
        return [Problem("webhook-events", "Name at least one event: " + ", ".join(KINDS) + ".")]
    unknown = sorted(set(events) - set(KINDS))
    if unknown:
        return [Problem("webhook-events", f"No event {', '.join(unknown)}: the events are {', '.join(KINDS)}.")]
    return []
