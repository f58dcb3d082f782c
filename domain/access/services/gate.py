"""The one place the policy is checked (RULES AC-1, AC-2, AC-4), before any use case acts.

`allow(actor, action, target, missing)` raises `missing` (the very NotFound a missing object gets)
when the target is not there or the policy refuses with `not-found`, and `Refused` for the other
refusals (`sign-in`, `club-suspended`). Nothing has been written when it raises.
"""

from __future__ import annotations

from domain.access.rules.policy import NOT_FOUND, Actor, Target, may
from domain.errors import DomainError, NotFound


class Refused(DomainError):
    """A refusal that names no object: sign in first, or the club is suspended."""


def allow(actor: Actor, action: str, target: Target | None, missing: NotFound | None = None) -> None:
    problem = may(actor, action, target)
    if problem is None:
        return
    if problem.code == NOT_FOUND:
        raise missing or NotFound("not-found", "not found")
    raise Refused(problem.code, problem.message)
