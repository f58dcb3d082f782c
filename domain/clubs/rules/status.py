"""The club's two statuses, the audited actions, and which transitions each action allows (CL-3, CL-4)."""

from __future__ import annotations

from dataclasses import dataclass, replace
from enum import StrEnum

from domain.errors import Problem, raise_problems


class LegalForm(StrEnum):
    LEGAL_ENTITY = "legal_entity"  # INN 10 digits + OGRN 13
    ENTREPRENEUR = "entrepreneur"  # INN 12 digits + OGRNIP 15


class Listing(StrEnum):
    LISTED = "listed"
    SUSPENDED = "suspended"
    TERMINATED = "terminated"


class Verification(StrEnum):
    UNVERIFIED = "unverified"
    PENDING = "pending"
    VERIFIED = "verified"
    REFUSED = "refused"
    REVOKED = "revoked"


class Action(StrEnum):
    """What an audit entry records. Every action but `recheck` happens at most once per application."""

    CREATE = "create"
    APPLY = "apply"
    QUEUE = "queue"  # to the moderator queue (CL-3)
    VERIFY = "verify"  # by the registry or a moderator
    REFUSE = "refuse"
    REVOKE = "revoke"
    RECHECK = "recheck"  # a verified club still matches the registry (CL-4)
    SUSPEND = "suspend"
    REINSTATE = "reinstate"  # a suspended listing listed again
    TERMINATE = "terminate"


@dataclass(frozen=True)
class State:
    listing: Listing
    verification: Verification
    queued: bool = False  # pending and waiting for a moderator (CL-3)


# action -> (verification statuses it starts from, the status it leads to); None: not a verification action
_VERIFICATION_MOVES: dict[Action, tuple[frozenset[Verification], Verification]] = {
    Action.APPLY: (
        frozenset({Verification.UNVERIFIED, Verification.REFUSED, Verification.REVOKED}),
        Verification.PENDING,
    ),
    Action.QUEUE: (frozenset({Verification.PENDING}), Verification.PENDING),
    Action.VERIFY: (frozenset({Verification.PENDING}), Verification.VERIFIED),
    Action.REFUSE: (frozenset({Verification.PENDING}), Verification.REFUSED),
    Action.REVOKE: (frozenset({Verification.VERIFIED}), Verification.REVOKED),
    Action.RECHECK: (frozenset({Verification.VERIFIED}), Verification.VERIFIED),
}
_LISTING_MOVES: dict[Action, tuple[frozenset[Listing], Listing]] = {
    Action.SUSPEND: (frozenset({Listing.LISTED}), Listing.SUSPENDED),
    Action.REINSTATE: (frozenset({Listing.SUSPENDED}), Listing.LISTED),
    Action.TERMINATE: (frozenset({Listing.LISTED, Listing.SUSPENDED}), Listing.TERMINATED),
}
_NEEDS = {
    Action.APPLY: "an unverified, refused or revoked club can apply",
    Action.QUEUE: "only a pending application goes to the moderator queue",
    Action.VERIFY: "only a pending application can be verified",
    Action.REFUSE: "only a pending application can be refused",
    Action.REVOKE: "only a verified club can lose its status",
    Action.RECHECK: "only a verified club is re-checked",
    Action.SUSPEND: "only a listed club can be suspended",
    Action.REINSTATE: "only a suspended club can be reinstated",
    Action.TERMINATE: "a terminated club's listing is final",
}


def transition_problems(state: State, action: Action) -> list[Problem]:
    """CL-3, CL-4: why `action` is not allowed from `state` (empty when it is)."""
    problems = []
    if action in _VERIFICATION_MOVES:
        sources, _ = _VERIFICATION_MOVES[action]
        if state.verification not in sources:
            problems.append(
                Problem(f"cannot-{action.value}", f"the club is {state.verification.value}: {_NEEDS[action]}")
            )
        elif action is Action.QUEUE and state.queued:
            problems.append(Problem("cannot-queue", "the application is already in the moderator queue"))
        if action is Action.APPLY and state.listing is Listing.TERMINATED:
            problems.append(Problem("cannot-apply", "the club's listing is terminated: it cannot apply"))
    else:
        sources, _ = _LISTING_MOVES[action]
        if state.listing not in sources:
            problems.append(Problem(f"cannot-{action.value}", f"the club is {state.listing.value}: {_NEEDS[action]}"))
    return problems


def transition(state: State, action: Action) -> State:
    """CL-3, CL-4: the state after `action`; DomainError with the reason when it is not allowed."""
    raise_problems(transition_problems(state, action))
    if action in _LISTING_MOVES:
        return replace(state, listing=_LISTING_MOVES[action][1])
    return replace(state, verification=_VERIFICATION_MOVES[action][1], queued=action is Action.QUEUE)
