"""The secrets of sessions, tokens and links: 32 random bytes shown once, stored only as a SHA-256
digest. A token says what it is (`tny_…`) so a leaked one is recognised by secret scanners."""

from __future__ import annotations

import hashlib
import secrets

TOKEN_PREFIX = "tny_"


def new_secret() -> str:
    return secrets.token_urlsafe(32)


def new_token() -> str:
    return TOKEN_PREFIX + secrets.token_urlsafe(32)


def digest(secret: str) -> bytes:
    return hashlib.sha256(secret.encode()).digest()
