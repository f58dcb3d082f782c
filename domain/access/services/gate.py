"""The one place the policy is checked (RULES AC-1, AC-2, AC-4), before any use case acts.

`allow(actor, action, target, missing)` raises `missing` (the very NotFound a missing object gets)
when the target is not there or the policy refuses with `not-found`, and `Refused` for the other
refusals (`sign-in`, `club-suspended`). Nothing has been written when it raises.

`act(...)` is one action after its caller identified the actor (and checked CSRF): allow, the use
case, and the audit row of a change (AC-3), in the caller's transaction. The API (`Api.run`) and the
account pages call it, so a page and its API operation take the same steps.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from typing import Any

from sqlalchemy.orm import Session

from domain.access.rules.policy import NOT_FOUND, POLICY, Actor, Target, may
from domain.access.services import audit
from domain.errors import DomainError, NotFound
from domain.store import live

NOWHERE = Target()  # an action that names no object (my account)


class Unchanged:
    """What a use case returns when the change asked for is already so (a sign-out with no session, a
    sign-out everywhere with none open): nothing is written, not even the audit row, and the API
    answers 204."""


UNCHANGED = Unchanged()


class Refused(DomainError):
    """A refusal that names no object: sign in first, or the club is suspended."""


def allow(actor: Actor, action: str, target: Target | None, missing: NotFound | None = None) -> None:
    problem = may(actor, action, target)
    if problem is None:
        return
    if problem.code == NOT_FOUND:
        raise missing or NotFound("not-found", "not found")
    raise Refused(problem.code, problem.message)


def act(
    session: Session,
    actor: Actor,
    action: str,
    now: datetime,
    do: Callable[[Session, Actor, datetime], Any],
    *,
    target: Target | None = NOWHERE,
    missing: NotFound | None = None,
    describe: str | Callable[[Any], str | None],
    data: dict | None = None,
) -> Any:
    """`action` by `actor`: allowed by the policy, done, and audited when it writes (AC-3). `describe`
    may be a function of the use case's result: None when the use case changed nothing (a reset asked
    for an address with no account, a wrong current password), and then no row is written; nor when
    the use case answers `UNCHANGED`. A write to a poker tournament or a cup tells its followers'
    streams on every web process when it commits (`domain.store.live`)."""
    allow(actor, action, target, missing)
    result = do(session, actor, now)
    if POLICY[action].writes and result is not UNCHANGED:
        described = describe(result) if callable(describe) else describe
        if described is not None:
            club_id = target.club_id if target else None
            audit.record(session, actor, action, now, target=described, club_id=club_id, data=data)
        if target is not None and target.tournament is not None:
            live.changed(session, live.poker(target.tournament))
        elif target is not None and target.cup is not None:
            live.changed(session, f"pusoy:{target.cup}")
    return result
