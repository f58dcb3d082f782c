"""Every model module, imported so that `metadata` is complete (Alembic, tests)."""

from domain.store.base import Base

metadata = Base.metadata
