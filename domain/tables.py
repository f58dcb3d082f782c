"""Every area's tables, imported so that `metadata` is complete (Alembic, tests)."""

from domain.access import tables as access_tables  # noqa: F401  (imported for their tables)
from domain.clubs import tables as clubs_tables  # noqa: F401
from domain.documents import tables as documents_tables  # noqa: F401
from domain.leagues import tables as leagues_tables  # noqa: F401
from domain.poker.tables import clock_seating, knockouts_places, moments, tournaments  # noqa: F401
from domain.pusoy import tables as pusoy_tables  # noqa: F401
from domain.series import tables as series_tables  # noqa: F401
from domain.store.base import Base
from domain.webhooks import tables as webhooks_tables  # noqa: F401

metadata = Base.metadata
