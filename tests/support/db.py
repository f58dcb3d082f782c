"""Database helpers shared by the integration tests."""

from __future__ import annotations

import pytest
from sqlalchemy import text
from sqlalchemy.exc import DBAPIError
from sqlalchemy.orm import Session


def refused(session: Session, constraint: str, statement: str, **params) -> None:
    """`statement` is refused by the database, and by the constraint (or trigger message) named, not by
    any other error: a test of one invariant cannot pass on another's refusal."""
    with pytest.raises(DBAPIError) as caught:
        with session.begin_nested():
            session.execute(text(statement), params)
    diag = caught.value.orig.diag
    fired = diag.constraint_name or diag.message_primary
    assert fired == constraint, f"refused by {fired!r} ({diag.sqlstate}), not by {constraint!r}"
