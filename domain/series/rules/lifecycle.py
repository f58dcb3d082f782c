"""A series' status: active ⇄ paused, either → ended (final)."""

from __future__ import annotations

from domain.errors import DomainError

# action -> {from status: to status}
TRANSITIONS: dict[str, dict[str, str]] = {
    "pause": {"active": "paused"},
    "resume": {"paused": "active"},
    "end": {"active": "ended", "paused": "ended"},
}


def transition(status: str, action: str) -> str:
    """The status after `action`, or a DomainError naming why it is refused."""
    allowed = TRANSITIONS[action]
    if status not in allowed:
        if status == "ended":
            raise DomainError("series-ended", f"the series has ended; it cannot {action}")
        raise DomainError(
            f"series-not-{'paused' if action == 'resume' else 'active'}", f"the series is {status}; it cannot {action}"
        )
    return allowed[status]
