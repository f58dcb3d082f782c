"""Schema by Alembic migrations (infra/migrations): upgrade, and where a database stands."""

from __future__ import annotations

from pathlib import Path

from alembic import command
from alembic.config import Config
from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory
from sqlalchemy import Engine

INI = Path(__file__).resolve().parents[2] / "infra" / "alembic.ini"


def _config() -> Config:
    return Config(str(INI))


def upgrade(engine: Engine) -> None:
    """Apply every migration not yet applied (all heads). Safe to run concurrently: one advisory
    lock serialises concurrent upgraders."""
    config = _config()
    with engine.begin() as conn:
        conn.exec_driver_sql("SELECT pg_advisory_xact_lock(7411001)")
        config.attributes["connection"] = conn
        command.upgrade(config, "heads")


def script_heads() -> set[str]:
    return set(ScriptDirectory.from_config(_config()).get_heads())


def database_heads(engine: Engine) -> set[str]:
    with engine.connect() as conn:
        return set(MigrationContext.configure(conn).get_current_heads())
