"""The schema the migrations build is the schema the models declare: every table, every column,
type, index and constraint, with nothing filtered out; and every check constraint by the name the
models give it (Alembic does not compare those names)."""

from __future__ import annotations

import re

from alembic.autogenerate import compare_metadata
from alembic.runtime.migration import MigrationContext
from sqlalchemy import CheckConstraint, text
from sqlalchemy.dialects import postgresql
from sqlalchemy.schema import AddConstraint

from domain.tables import metadata


def test_the_migrated_database_matches_every_model(engine):
    with engine.connect() as conn:
        context = MigrationContext.configure(conn, opts={"compare_type": True, "compare_server_default": False})
        diff = compare_metadata(context, metadata)
    assert diff == []


def _model_check_names() -> set[tuple[str, str]]:
    """(table, name) of every check constraint of the models, named as the DDL names it."""
    names = set()
    for table in metadata.tables.values():
        for constraint in table.constraints:
            if isinstance(constraint, CheckConstraint):
                ddl = str(AddConstraint(constraint).compile(dialect=postgresql.dialect()))
                names.add((table.name, re.search(r"ADD CONSTRAINT (\S+) CHECK", ddl)[1].strip('"')))
    return names


def test_every_check_constraint_has_the_name_the_models_give_it(engine):
    with engine.connect() as conn:
        migrated = set(
            conn.execute(
                text(
                    "SELECT c.relname, x.conname FROM pg_constraint x JOIN pg_class c ON c.oid = x.conrelid"
                    " JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = current_schema() AND x.contype = 'c'"
                )
            ).all()
        )
    models = _model_check_names()
    assert len(models) > 100  # every area's, not an empty comparison
    assert sorted(migrated - models) == [] and sorted(models - migrated) == []
