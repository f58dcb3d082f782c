"""Tournament lifecycle (Sport Poker 3.9): draft -> registration_open -> running -> finished, or
cancelled from any status before finished. Settings may change only in draft and registration_open."""

from __future__ import annotations

from domain.errors import Problem

DRAFT = "draft"
OPEN = "registration_open"
RUNNING = "running"
FINISHED = "finished"
CANCELLED = "cancelled"
STATUSES = (DRAFT, OPEN, RUNNING, FINISHED, CANCELLED)
EDITABLE = (DRAFT, OPEN)

# action -> (statuses it may start from, status it leads to)
TRANSITIONS: dict[str, tuple[tuple[str, ...], str]] = {
    "open": ((DRAFT,), OPEN),
    "start": ((OPEN,), RUNNING),
    "finish": ((RUNNING,), FINISHED),
    "cancel": ((DRAFT, OPEN, RUNNING), CANCELLED),
}


def transition(status: str, action: str) -> tuple[str | None, list[Problem]]:
    """The status `action` leads to from `status`, or the problem why it may not."""
    sources, target = TRANSITIONS[action]
    if status in sources:
        return target, []
    return None, [
        Problem(
            f"cannot-{action}",
            f"cannot {action} a tournament that is {status.replace('_', ' ')}: it may {action} only from "
            f"{' or '.join(s.replace('_', ' ') for s in sources)} (rule 3.9)",
        )
    ]


def edit_problems(status: str) -> list[Problem]:
    if status in EDITABLE:
        return []
    return [
        Problem(
            "settings-frozen",
            f"the tournament is {status.replace('_', ' ')}: settings may change only in draft or registration "
            "open, they are frozen from the start (rule 3.9)",
        )
    ]
