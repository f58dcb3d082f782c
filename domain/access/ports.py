"""What accounts need from the outside world, named here and implemented in infra: the password
hasher (infra/passwords.py, argon2id). flows/bootstrap.py builds it."""

from __future__ import annotations

from typing import Protocol


class PasswordHasher(Protocol):
    def hash(self, password: str) -> str: ...

    def verify(self, hashed: str, password: str) -> bool:
        """True when `password` matches; False otherwise (never raises for a wrong password)."""
        ...

    def needs_rehash(self, hashed: str) -> bool: ...
