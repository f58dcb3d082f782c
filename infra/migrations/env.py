"""Alembic environment: runs migrations on the connection or URL handed in by domain.store.migrate."""

from alembic import context
from sqlalchemy import create_engine

from domain.tables import metadata

config = context.config
connection = config.attributes.get("connection")


def run(conn) -> None:
    context.configure(connection=conn, target_metadata=metadata, compare_type=True)
    with context.begin_transaction():
        context.run_migrations()


if connection is not None:
    run(connection)
else:
    engine = create_engine(config.get_main_option("sqlalchemy.url"))
    with engine.connect() as conn:
        run(conn)
    engine.dispose()
