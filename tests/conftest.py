"""Shared fixtures. Unit tests need none of these; the database ones start lazily.

Integration and flow tests run against a real PostgreSQL: the project's embedded cluster, or the
server named by DATABASE_URL. Each test session creates a fresh database (tourney_test_<random>),
migrates it to head, points DATABASE_URL at it, and drops it at the end, so a test run never touches
the application's own database and two runs at once never meet.
"""

from __future__ import annotations

import os
import secrets
import tempfile
from collections.abc import Iterator

import psycopg
import pytest
from sqlalchemy import Engine, text
from sqlalchemy.engine import make_url
from sqlalchemy.orm import Session

os.environ.setdefault("PREFECT_SERVER_ANALYTICS_ENABLED", "false")
os.environ.setdefault("PREFECT_HOME", tempfile.mkdtemp(prefix="tourney-prefect-"))
os.environ.setdefault("TOURNEY_SECRET_KEY", "test-secret-key")


def _server_url() -> str:
    from domain.config import load_settings
    from domain.store.cluster import Cluster
    from domain.store.db import database_url

    settings = load_settings()
    if settings.embedded:
        Cluster(settings.home).up()
    return database_url(settings)


@pytest.fixture(scope="session")
def database_url() -> Iterator[str]:
    base = make_url(_server_url())
    name = f"{base.database}_test_{secrets.token_hex(4)}"
    admin = dict(
        host=base.host, port=base.port, user=base.username, password=base.password, dbname="postgres"
    )
    with psycopg.connect(**admin, autocommit=True) as conn:
        conn.execute(f'CREATE DATABASE "{name}"')
    url = base.set(database=name).render_as_string(hide_password=False)
    previous = os.environ.get("DATABASE_URL")
    os.environ["DATABASE_URL"] = url
    try:
        yield url
    finally:
        from domain.store.db import _engine_for

        _engine_for.cache_clear()
        if previous is None:
            os.environ.pop("DATABASE_URL", None)
        else:
            os.environ["DATABASE_URL"] = previous
        with psycopg.connect(**admin, autocommit=True) as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


@pytest.fixture(scope="session")
def engine(database_url: str) -> Engine:
    from domain.store.db import get_engine
    from domain.store.migrate import upgrade

    engine = get_engine()
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
    from domain.store.models import metadata

    names = ", ".join(f'"{t.name}"' for t in metadata.sorted_tables)
    if names:
        with engine.begin() as conn:
            conn.execute(text(f"TRUNCATE {names} RESTART IDENTITY CASCADE"))
