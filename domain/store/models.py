"""Every model module, imported so that `metadata` is complete (Alembic, tests).
Each area adds one import on its own line below."""

from domain.store.base import Base

# area: clubs
import domain.store.clubs  # noqa: F401

# area: pusoy

# area: poker entries
import domain.store.poker  # noqa: F401,E402

# area: poker clock and seating

# area: poker knockouts and places

# area: documents

# area: series
from domain.store import series as _series  # noqa: F401

metadata = Base.metadata
