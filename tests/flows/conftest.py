"""One real Prefect server for the whole test session, on its own PostgreSQL database
(tests/support/prefect_server.py)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.support.prefect_server import prefect_server


@pytest.fixture(scope="session")
def prefect_api(database_url: str) -> Iterator[None]:
    with prefect_server(database_url):
        yield
