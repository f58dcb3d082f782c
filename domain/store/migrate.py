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
    """The revisions a fully upgraded database records: the heads, less any head another head
    depends on (`depends_on`), which Alembic does not keep in its version table."""
    revisions = ScriptDirectory.from_config(_config()).revision_map
    heads = set(revisions.heads)
    covered = {r.revision for head in heads for r in revisions.iterate_revisions(head, "base") if r.revision != head}
    return heads - covered


def database_heads(engine: Engine) -> set[str]:
    with engine.connect() as conn:
        return set(MigrationContext.configure(conn).get_current_heads())
