"""Every model module, imported so that `metadata` is complete (Alembic, tests).
Each area adds one import on its own line below."""

from domain.store.base import Base

# area: clubs
import domain.store.clubs  # noqa: F401

# area: pusoy
import domain.store.pusoy  # noqa: F401

# area: poker entries
import domain.store.poker  # noqa: F401,E402

# area: poker clock and seating
import domain.store.poker_floor  # noqa: F401,E402

# area: poker knockouts and places
import domain.store.poker_results  # noqa: F401,E402

# area: documents
import domain.store.documents  # noqa: E402,F401

# area: series
from domain.store import series as _series  # noqa: F401

metadata = Base.metadata
