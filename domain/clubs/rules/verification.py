"""What one registry check means for an application or a verified club (CL-2, CL-3, CL-4): pure.

A pending application: the registry's decision verifies, refuses or sends it to the moderator queue;
a failed lookup only counts an attempt until `max_attempts`, then queues it. A verified club being
re-checked: still matching keeps the status (a `recheck` entry), no longer matching revokes it with
the reason; a failure or an answer that needs a human leaves it verified and is tried again later.
"""

from __future__ import annotations

from dataclasses import dataclass

from domain.clubs.rules.registry import Outcome, decide
from domain.clubs.rules.status import Action, Verification


@dataclass(frozen=True)
class Candidate:
    """A claimed row: a pending application, or a verified club due for its re-check."""

    club_id: int
    application_no: int
    legal_form: str
    inn: str
    ogrn: str
    verification: Verification
    attempts: int


@dataclass(frozen=True)
class Check:
    candidate: Candidate
    raw: str | None  # the registry's body, verbatim
    error: str | None = None  # why there is no answer


@dataclass(frozen=True)
class Step:
    """`action` None: nothing decided this time (`note` is kept as the club's last error)."""

    action: Action | None
    reason: str
    counts_attempt: bool = False
    checked: bool = False  # the registry answered with a usable record


_FOR_APPLICATION = {Outcome.VERIFY: Action.VERIFY, Outcome.REFUSE: Action.REFUSE, Outcome.MODERATE: Action.QUEUE}


def step_for(check: Check, max_attempts: int) -> Step:
    candidate = check.candidate
    recheck = candidate.verification is Verification.VERIFIED
    if check.raw is None:
        attempts = candidate.attempts + 1
        if not recheck and attempts >= max_attempts:
            return Step(
                Action.QUEUE,
                f"the registry kept failing ({attempts} attempts): {check.error}",
                counts_attempt=True,
            )
        return Step(None, check.error or "no answer", counts_attempt=not recheck)
    decision = decide(candidate.legal_form, candidate.inn, candidate.ogrn, check.raw)
    checked = decision.outcome is not Outcome.MODERATE
    if not recheck:
        return Step(_FOR_APPLICATION[decision.outcome], decision.reason, checked=checked)
    if decision.outcome is Outcome.VERIFY:
        return Step(Action.RECHECK, decision.reason, checked=True)
    if decision.outcome is Outcome.REFUSE:
        return Step(Action.REVOKE, f"no longer matches the registry: {decision.reason}", checked=True)
    return Step(None, decision.reason)
