"""Tournament lifecycle (Sport Poker 3.9): draft -> registration_open -> running -> finished, or
cancelled from any status before finished. Settings may change only in draft and registration_open."""

from __future__ import annotations

from domain.errors import Problem, Word

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
    now = Word(status.replace("_", " "))
    refused = {
        "open": Problem(
            "cannot-open",
            "cannot open a tournament that is %(status)s: it may open only from draft (rule 3.9)",
            status=now,
        ),
        "start": Problem(
            "cannot-start",
            "cannot start a tournament that is %(status)s: it may start only from registration open (rule 3.9)",
            status=now,
        ),
        "finish": Problem(
            "cannot-finish",
            "cannot finish a tournament that is %(status)s: it may finish only from running (rule 3.9)",
            status=now,
        ),
        "cancel": Problem(
            "cannot-cancel",
            "cannot cancel a tournament that is %(status)s: it may cancel only from draft or registration open or "
            "running (rule 3.9)",
            status=now,
        ),
    }
    return None, [refused[action]]


def edit_problems(status: str) -> list[Problem]:
    if status in EDITABLE:
        return []
    return [
        Problem(
            "settings-frozen",
            "the tournament is %(status)s: settings may change only in draft or registration open, they are frozen from the start (rule 3.9)",
            status=Word(status.replace("_", " ")),
        )
    ]
