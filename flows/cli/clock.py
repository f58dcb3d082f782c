"""The CLI's one clock: a command reads the wall clock here and hands the instant to the services,
which never read it themselves."""

from __future__ import annotations

from datetime import UTC, datetime


def now() -> datetime:
    return datetime.now(UTC)
