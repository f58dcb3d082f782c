"""Domain errors: a stable code and a message a club's floor manager understands.

Validators return every problem they find as `Problem`s; `raise_problems` is the one thin wrapper
that turns a non-empty list into a `DomainError`.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass


@dataclass(frozen=True)
class Problem:
    code: str
    message: str


class DomainError(Exception):
    """A refused request. `code` is stable (for scripts and tests); `str()` is the plain message."""

    def __init__(self, code: str, message: str, problems: tuple[Problem, ...] = ()):
        super().__init__(message)
        self.code = code
        self.message = message
        self.problems = problems or (Problem(code, message),)


class NotFound(DomainError):
    pass


class ConfigurationError(DomainError):
    """The environment is not usable (database unreachable, data folder broken, ...)."""


def raise_problems(problems: Iterable[Problem]) -> None:
    found = tuple(problems)
    if found:
        raise DomainError(found[0].code, "; ".join(p.message for p in found), found)
