"""Engines, sessions and the unit of work, over the engine the caller gives (the process's engine is
the composition root's, flows/bootstrap.py). Nothing here touches the database at import time.

An engine can carry the platform's seed source (SP-13, PD-12: `domain.draw.SeedSource`, from a key
the database does not hold), handed in by the composition root with the engine; the draws services
ask `draw_seeds(session)` for it. A session's own (`session.info[SEEDS]`, a test's fixed seeds)
comes first."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import TypeVar
from weakref import WeakKeyDictionary

from sqlalchemy import Engine, create_engine, event
from sqlalchemy.orm import Session

from domain.draw import SeedSource
from domain.errors import ConfigurationError

SEEDS = "draw_seeds"
T = TypeVar("T")
_SEED_SOURCES: WeakKeyDictionary[Engine, SeedSource] = WeakKeyDictionary()


def make_engine(url: str, seeds: SeedSource | None = None, **kwargs) -> Engine:
    """An engine; with `seeds`, the platform's seed source of every session on it."""
    made = create_engine(url, **{"pool_pre_ping": True, **kwargs})
    return provide_seeds(made, seeds) if seeds is not None else made


def provide_seeds(engine: Engine, seeds: SeedSource) -> Engine:
    """Give the sessions on `engine` the platform's seed source (the composition root does)."""
    _SEED_SOURCES[engine] = seeds
    return engine


def draw_seeds(session: Session) -> SeedSource:
    """The platform's seed source of this session: its own, else its engine's; none is a
    configuration error (a draw never falls back to a seed the database would have to keep)."""
    found = session.info.get(SEEDS)
    if found is None:
        bind = session.get_bind()
        found = _SEED_SOURCES.get(getattr(bind, "engine", bind))
    if found is None:
        raise ConfigurationError(
            "no-draw-key",
            "this database connection has no platform key for draw seeds (SP-13, PD-12): open it through"
            " flows.bootstrap",
        )
    return found


@contextmanager
def unit_of_work(engine: Engine) -> Iterator[Session]:
    """`with unit_of_work(engine) as session:` — commits when the block ends normally, rolls back on
    error. The caller owns the transaction: a use case takes the session and never opens its own."""
    with Session(bind=engine, expire_on_commit=False) as session, session.begin():  # not a sessionmaker per
        yield session  # call: each makes a Session subclass, and SQLAlchemy's events are set up anew for it


HELD = "held"


def hold(session: Session, obj: T) -> T:
    """Keep `obj` in the session's identity map until the session closes (the map holds what nobody
    references weakly, and lets it go): a row that many steps of one transaction name (a tournament,
    its club, its structure) is then read once, and `session.get` finds it without a statement."""
    session.info.setdefault(HELD, set()).add(obj)
    return obj


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
