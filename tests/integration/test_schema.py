"""The schema the migrations build is the schema the models declare: every table, every column,
type, index and constraint, with nothing filtered out."""

from __future__ import annotations

from alembic.autogenerate import compare_metadata
from alembic.runtime.migration import MigrationContext

from domain.tables import metadata


def test_the_migrated_database_matches_every_model(engine):
    with engine.connect() as conn:
        context = MigrationContext.configure(conn, opts={"compare_type": True, "compare_server_default": False})
        diff = compare_metadata(context, metadata)
    assert diff == []
