"""Shared fixtures. Unit tests need none of these; the database ones start lazily.

Integration and flow tests run against a real PostgreSQL: the project's embedded cluster, or the
server named by DATABASE_URL. Each test session creates a fresh database (tourney_test_<random>),
migrates it to head, points DATABASE_URL at it, and drops it at the end, so a test run never touches
the application's own database and two runs at once never meet.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Iterator

import pytest
from sqlalchemy import Engine
from sqlalchemy.orm import Session

from flows import bootstrap
from tests.support.net import reserved_port

os.environ.setdefault("PREFECT_SERVER_ANALYTICS_ENABLED", "false")
os.environ.setdefault("PREFECT_HOME", tempfile.mkdtemp(prefix="tourney-prefect-"))
# the session's Prefect server listens here once a test needs it (tests/support/prefect_server.py): set
# before anything imports Prefect, which reads its settings once; never a server started elsewhere
os.environ["PREFECT_API_URL"] = f"http://127.0.0.1:{reserved_port()}/api"
os.environ.pop("PREFECT_API_AUTH_STRING", None)
os.environ.setdefault("TOURNEY_SECRET_KEY", "test-secret-key-of-at-least-32-bytes")  # DOC-2: >= 32 bytes
os.environ.setdefault("TOURNEY_WARM_IDLE", "60")  # a warm server the tests' `tourney` started ends soon after them


@pytest.fixture(scope="session")
def database_url() -> Iterator[str]:
    from domain.store.scratch import scratch_database

    previous = os.environ.get("DATABASE_URL")
    with scratch_database(bootstrap.server_url(), "test") as url:
        os.environ["DATABASE_URL"] = url
        try:
            yield url
        finally:
            bootstrap.dispose()
            if previous is None:
                os.environ.pop("DATABASE_URL", None)
            else:
                os.environ["DATABASE_URL"] = previous


@pytest.fixture(scope="session")
def prefect_api(database_url: str) -> Iterator[None]:
    """One real Prefect server for the whole test session, on its own PostgreSQL database
    (tests/support/prefect_server.py), started by the first test that asks."""
    from tests.support.prefect_server import prefect_server

    with prefect_server(database_url):
        yield


@pytest.fixture(scope="session")
def engine(database_url: str) -> Engine:
    from domain.store.migrate import upgrade

    engine = bootstrap.engine()
    upgrade(engine)
    return engine


@pytest.fixture
def session(engine: Engine) -> Iterator[Session]:
    """A session inside a transaction that is rolled back after the test (commits become savepoints)."""
    with engine.connect() as conn:
        outer = conn.begin()
        db = Session(bind=conn, join_transaction_mode="create_savepoint", expire_on_commit=False)
        try:
            yield db
        finally:
            db.close()
            outer.rollback()


@pytest.fixture
def committed(engine: Engine) -> Iterator[Engine]:
    """For tests that need real commits (concurrency, flows): every table is emptied afterwards."""
    yield engine
    from domain.tables import metadata

    names = ", ".join(f'"{t.name}"' for t in metadata.sorted_tables)
    if names:
        from tests.support.db import empty_tables

        with engine.begin() as conn:
            empty_tables(conn, names)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Each test carries its layer's marker, from its folder: `-m "not integration and not flows"`
    (or `make test-unit`) runs the pure tests alone, with no database."""
    for item in items:
        parts = item.path.parts
        if "integration" in parts:
            item.add_marker(pytest.mark.integration)
        elif "flows" in parts:
            item.add_marker(pytest.mark.flows)
        elif "web" in parts:
            item.add_marker(pytest.mark.web)
