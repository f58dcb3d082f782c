"""Engine, sessions and the unit of work. Nothing here touches the database at import time."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from sqlalchemy import Engine, create_engine, event, text
from sqlalchemy.engine import make_url
from sqlalchemy.exc import OperationalError
from sqlalchemy.orm import Session, sessionmaker

from infra.config import Settings, load_settings
from domain.errors import ConfigurationError
from infra.cluster import Cluster


def database_url(settings: Settings | None = None) -> str:
    """DATABASE_URL normalised to the psycopg 3 driver, else the embedded cluster's URL."""
    settings = settings or load_settings()
    if settings.database_url:
        url = make_url(settings.database_url)
        if url.drivername in ("postgresql", "postgres"):
            url = url.set(drivername="postgresql+psycopg")
        return url.render_as_string(hide_password=False)
    return Cluster(settings.home).url()


def make_engine(url: str, **kwargs) -> Engine:
    return create_engine(url, pool_pre_ping=True, **kwargs)


_ENGINES: dict[str, Engine] = {}


def _engine_for(url: str) -> Engine:
    if url not in _ENGINES:
        _ENGINES[url] = make_engine(url)
    return _ENGINES[url]


def dispose_engines() -> None:
    """Close every pooled connection and forget the engines (the configured URL may change)."""
    for engine in list(_ENGINES.values()):
        engine.dispose()
    _ENGINES.clear()


def get_engine() -> Engine:
    """The process-wide engine for the configured database (created on first use)."""
    return _engine_for(database_url())


def check_reachable(engine: Engine) -> None:
    """One clear line when the database cannot be reached, naming the host and what to do."""
    try:
        with engine.connect() as conn:
            conn.execute(text("SELECT 1"))
    except OperationalError as exc:
        raise unreachable(exc, engine.url) from None


def unreachable(exc: Exception, url=None) -> ConfigurationError:
    """The one-line error for a database that does not answer: which one (URL without its password,
    or the embedded cluster's data folder) and what to do."""
    settings = load_settings()
    url = make_url(url or database_url(settings))
    orig = getattr(exc, "orig", None) or exc
    reason = (str(orig).strip().splitlines() or [type(orig).__name__])[0]
    if settings.embedded:
        where = f"the embedded cluster at {url.host}:{url.port} (data folder {Cluster(settings.home).data_dir})"
        hint = ("start it with `tourney db up` (or `make run`), or set TOURNEY_HOME to the data folder "
                "you meant, or DATABASE_URL to another server")
    else:
        where = url.render_as_string(hide_password=True)
        hint = "check DATABASE_URL, or unset it to use the embedded cluster"
    return ConfigurationError("database-unreachable", f"cannot reach PostgreSQL, {where}: {reason} — {hint}")


@contextmanager
def unit_of_work(engine: Engine | None = None) -> Iterator[Session]:
    """`with unit_of_work() as session:` — commits when the block ends normally, rolls back on error."""
    factory = sessionmaker(bind=engine or get_engine(), expire_on_commit=False)
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
