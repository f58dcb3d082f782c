"""Passwords as argon2id hashes (argon2-cffi), with OWASP's parameters (RULES AC-4): 19 MiB of memory,
2 iterations, 1 lane. A hash made with older parameters is replaced at the next sign-in."""

from __future__ import annotations

from argon2 import PasswordHasher as Argon2
from argon2 import Type
from argon2.exceptions import InvalidHashError, VerificationError, VerifyMismatchError

OWASP = {"time_cost": 2, "memory_cost": 19 * 1024, "parallelism": 1, "type": Type.ID}


class Argon2idHasher:
    def __init__(self) -> None:
        self._argon2 = Argon2(**OWASP)

    def hash(self, password: str) -> str:
        return self._argon2.hash(password)

    def verify(self, hashed: str, password: str) -> bool:
        try:
            return self._argon2.verify(hashed, password)
        except (VerifyMismatchError, VerificationError, InvalidHashError):
            return False

    def needs_rehash(self, hashed: str) -> bool:
        return self._argon2.check_needs_rehash(hashed)
