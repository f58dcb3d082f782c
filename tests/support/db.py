"""Database helpers shared by the integration tests."""

from __future__ import annotations

import re
from collections.abc import Iterator
from contextlib import contextmanager

import pytest
from sqlalchemy import func, select, text
from sqlalchemy.exc import DBAPIError
from sqlalchemy.orm import Session

from domain.errors import DomainError


def refused(session: Session, constraint: str, statement: str, **params) -> None:
    """`statement` is refused by the database, and by the constraint (or trigger message) named, not by
    any other error: a test of one invariant cannot pass on another's refusal."""
    with refused_by(constraint), session.begin_nested():
        session.execute(text(statement), params)


@contextmanager
def refused_by(constraint: str | re.Pattern[str]) -> Iterator[None]:
    """The block (an ORM flush, a commit, a statement on a connection) is refused by the database, by
    the constraint named or the trigger message given (a pattern when it carries ids), not by another."""
    with pytest.raises(DBAPIError) as caught:
        yield
    diag = caught.value.orig.diag
    fired = diag.constraint_name or diag.message_primary
    if isinstance(constraint, re.Pattern):
        assert fired and constraint.fullmatch(fired), (
            f"refused by {fired!r} ({diag.sqlstate}), not by {constraint.pattern!r}"
        )
    else:
        assert fired == constraint, f"refused by {fired!r} ({diag.sqlstate}), not by {constraint!r}"


def row_counts(session: Session) -> dict[str, int]:
    """Every table's row count, as this session sees it (pending changes flushed)."""
    from domain.tables import metadata

    session.flush()
    return {t.name: session.scalar(select(func.count()).select_from(t)) for t in metadata.sorted_tables}


def contents(session: Session) -> dict[str, str | None]:
    """A digest of every table's rows, as this session sees it (pending changes flushed): any insert,
    update or delete changes its table's digest. The web's throttle counts are left out: a request
    refused for its input still counts as an ask (docs/web.md#processes), which changes nothing else."""
    from domain.tables import metadata

    session.flush()
    return {
        t.name: session.scalar(text(f"SELECT md5(string_agg(r::text, '|' ORDER BY r::text)) FROM \"{t.name}\" r"))
        for t in metadata.sorted_tables
        if t.name != "web_throttle_hits"
    }


def refused_call(session: Session, code: str, fn, *args, **kwargs) -> DomainError:
    """`fn(*args, **kwargs)` is refused with the DomainError `code` and writes nothing: no row of any
    table is added, changed or removed. Returns the error."""
    before = contents(session)
    with pytest.raises(DomainError) as caught, session.begin_nested():
        fn(*args, **kwargs)
    assert caught.value.code == code, caught.value.message
    assert contents(session) == before
    return caught.value


def empty_tables(conn, names: str) -> None:
    """TRUNCATE `names` (a comma-separated list) between tests and benchmark rounds. The audit trail
    refuses TRUNCATE (AC-3): its owner lifts that trigger for this one transaction, so the scratch
    database starts empty again while no other path can empty the trail."""
    conn.execute(text("ALTER TABLE audit_trail DISABLE TRIGGER audit_trail_no_truncate"))
    conn.execute(text(f"TRUNCATE {names} RESTART IDENTITY CASCADE"))
    conn.execute(text("ALTER TABLE audit_trail ENABLE TRIGGER audit_trail_no_truncate"))
