"""Engines, sessions and the unit of work, over the engine the caller gives (the process's engine is
the composition root's, flows/bootstrap.py). Nothing here touches the database at import time."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from sqlalchemy import Engine, create_engine, event
from sqlalchemy.orm import Session, sessionmaker


def make_engine(url: str, **kwargs) -> Engine:
    return create_engine(url, pool_pre_ping=True, **kwargs)


@contextmanager
def unit_of_work(engine: Engine) -> Iterator[Session]:
    """`with unit_of_work(engine) as session:` — commits when the block ends normally, rolls back on
    error. The caller owns the transaction: a use case takes the session and never opens its own."""
    factory = sessionmaker(bind=engine, expire_on_commit=False)
    with factory.begin() as session:
        yield session


class StatementCounter:
    """Counts SQL statements sent through an engine (benchmarks report statements per call)."""

    def __init__(self, engine: Engine):
        self.engine = engine
        self.count = 0

    def _on_execute(self, *args) -> None:
        self.count += 1

    def __enter__(self) -> StatementCounter:
        event.listen(self.engine, "before_cursor_execute", self._on_execute)
        return self

    def __exit__(self, *exc) -> None:
        event.remove(self.engine, "before_cursor_execute", self._on_execute)
