"""Signed deliveries (Players online: webhooks): `Tourney-Signature: t=<unix>,v1=<hex>` where the hex is
HMAC-SHA256 under the endpoint's secret of `f"{t}.{body}"` (Stripe's scheme). The timestamp is signed
with the body, so a captured delivery replayed later than the tolerance (300 s) fails verification.

An endpoint's secret is never stored: it is derived from the platform key, the endpoint's id and the
instant it was registered, `HMAC-SHA256(platform key, "webhook|<id>|<created_at ISO, UTC>")`, shown
once at registration, and derived again for each delivery."""

from __future__ import annotations

import hashlib
import hmac
from datetime import UTC, datetime

from domain.errors import Problem

SIGNATURE_HEADER = "Tourney-Signature"
EVENT_ID_HEADER = "Tourney-Event-Id"
EVENT_HEADER = "Tourney-Event"
TOLERANCE_S = 300
SECRET_PREFIX = "whsec_"
SCHEME = "v1"


def derive_secret(platform_key: bytes, endpoint_id: int, created_at: datetime) -> str:
    """The endpoint's secret: the same for the same endpoint, unknowable without the platform key."""
    material = f"webhook|{endpoint_id}|{created_at.astimezone(UTC).isoformat()}".encode()
    return SECRET_PREFIX + hmac.new(platform_key, material, hashlib.sha256).hexdigest()


def _mac(secret: str, timestamp: int, body: bytes) -> str:
    return hmac.new(secret.encode(), f"{timestamp}.".encode() + body, hashlib.sha256).hexdigest()


def sign(secret: str, timestamp: int, body: bytes) -> str:
    """The `Tourney-Signature` header's value for `body` sent at `timestamp` (Unix seconds)."""
    return f"t={timestamp},{SCHEME}={_mac(secret, timestamp, body)}"


def parse(header: str) -> tuple[int | None, list[str]]:
    """The header's timestamp (None when missing or not a number) and its `v1` signatures."""
    timestamp, signatures = None, []
    for part in header.split(","):
        key, _, value = part.strip().partition("=")
        if key == "t" and value.isascii() and value.isdigit() and len(value) <= 12:  # "³" is no number
            timestamp = int(value)
        elif key == SCHEME and value:
            signatures.append(value)
    return timestamp, signatures


def verify(secret: str, header: str | None, body: bytes, now: datetime, tolerance: int = TOLERANCE_S) -> Problem | None:
    """None when `header` signs `body` under `secret` at an instant within `tolerance` seconds of `now`
    (either side); else what is wrong."""
    timestamp, signatures = parse(header or "")
    if timestamp is None or not signatures:
        return Problem("signature-malformed", "The signature header has no timestamp or no v1 signature.")
    if abs(now.timestamp() - timestamp) > tolerance:
        return Problem("signature-too-old", f"The signature's timestamp is more than {tolerance} s from now.")
    expected = _mac(secret, timestamp, body)
    if not any(hmac.compare_digest(expected, given) for given in signatures):
        return Problem("signature-mismatch", "The signature does not match the body.")
    return None
