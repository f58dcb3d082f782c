"""Throwaway databases for test runs and benchmarks: created fresh, migrated, dropped afterwards."""

from __future__ import annotations

import secrets
from collections.abc import Iterator
from contextlib import contextmanager

import psycopg
from sqlalchemy.engine import make_url


@contextmanager
def scratch_database(server_url: str, purpose: str) -> Iterator[str]:
    """Create `<db>_<purpose>_<random>` on the server of `server_url`; yield its URL; drop it."""
    base = make_url(server_url)
    name = f"{base.database}_{purpose}_{secrets.token_hex(4)}"
    admin = dict(host=base.host, port=base.port, user=base.username, password=base.password, dbname="postgres")
    with psycopg.connect(**admin, autocommit=True) as conn:
        conn.execute(f'CREATE DATABASE "{name}"')
    try:
        yield base.set(database=name).render_as_string(hide_password=False)
    finally:
        with psycopg.connect(**admin, autocommit=True) as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
