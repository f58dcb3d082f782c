"""The store against the real PostgreSQL: migrations, the unit of work, clear errors."""

from __future__ import annotations

import pytest
from sqlalchemy import text

from domain.errors import ConfigurationError
from domain.store.db import make_engine, unit_of_work
from domain.store.migrate import database_heads, script_heads, upgrade
from infra.config import load_settings
from infra.database import check_reachable


def test_migrations_bring_a_fresh_database_to_every_head(engine):
    assert database_heads(engine) == script_heads()


def test_upgrading_twice_changes_nothing(engine):
    upgrade(engine)
    assert database_heads(engine) == script_heads()


def test_a_unit_of_work_rolls_back_when_the_block_fails(engine):
    with engine.begin() as conn:
        conn.execute(text("CREATE TABLE IF NOT EXISTS uow_probe (n int)"))
    with pytest.raises(RuntimeError):
        with unit_of_work(engine) as session:
            session.execute(text("INSERT INTO uow_probe VALUES (1)"))
            raise RuntimeError("boom")
    with unit_of_work(engine) as session:
        session.execute(text("INSERT INTO uow_probe VALUES (2)"))
    with engine.begin() as conn:
        assert [r[0] for r in conn.execute(text("SELECT n FROM uow_probe"))] == [2]
        conn.execute(text("DROP TABLE uow_probe"))


def test_an_unreachable_database_gives_one_line_naming_the_host():
    engine = make_engine("postgresql+psycopg://nobody@127.0.0.1:1/nowhere", connect_args={"connect_timeout": 2})
    with pytest.raises(ConfigurationError) as caught:
        check_reachable(load_settings(), engine)
    assert caught.value.code == "database-unreachable"
    assert "127.0.0.1:1/nowhere" in caught.value.message
    assert "\n" not in caught.value.message


def test_the_status_of_a_database_behind_the_migrations_says_so_and_counts_nothing(database_url):
    from domain.ops.services.status import read_status
    from domain.store.scratch import scratch_database

    with scratch_database(database_url, "behind") as url:
        behind = make_engine(url)
        try:
            status = read_status(behind)
        finally:
            behind.dispose()
    assert status.migrations_applied == ()
    assert status.at_head is False
    assert status.pending == ()
