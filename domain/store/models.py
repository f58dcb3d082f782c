"""Every model module, imported so that `metadata` is complete (Alembic, tests)."""

from domain.store import (  # noqa: F401  (imported for their tables)
    clubs,
    documents,
    poker,
    poker_floor,
    poker_moments,
    poker_results,
    pusoy,
    series,
)
from domain.store.base import Base

metadata = Base.metadata
