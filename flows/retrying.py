"""When a failed task is retried: its retries (with backoff, set on each task) are for failures that
can pass (a dropped connection, a database restart, a lock timeout, an API hiccup). A `DomainError`
(bad data, a refused rule, a broken configuration such as a missing font) fails the run at once and
loudly: running it again would fail the same way."""

from __future__ import annotations

from typing import Any

from domain.errors import DomainError


def unless_refused(task: Any, task_run: Any, state: Any) -> bool:
    """Prefect's `retry_condition_fn`: retry unless the task failed with a DomainError."""
    return not isinstance(state.data, DomainError)
