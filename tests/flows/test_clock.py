"""One clock for every process of a test run: the tests, PostgreSQL, a `tourney` process and the
Prefect API read the same time. Under `make test-shifted` this shows that the shifted clock reached
each of them: a process left on the real clock would be a year off."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from email.utils import parsedate_to_datetime

import httpx
from prefect.settings import PREFECT_API_URL
from sqlalchemy import select, text

from domain.poker.tables.tournaments import Player
from domain.store.db import unit_of_work
from tests.support.cli import run_process


def test_the_tests_the_database_a_tourney_process_and_the_prefect_api_read_one_clock(prefect_api, committed):
    before = datetime.now(UTC)
    added = run_process("--json", "player", "add", "Clock", "clock", "--born", "1990-01-01")
    assert added.returncode == 0, added.stderr
    with committed.connect() as conn:
        database = conn.execute(text("SELECT now()")).scalar_one()
    served = parsedate_to_datetime(httpx.get(f"{PREFECT_API_URL.value()}/health").headers["date"])
    after = datetime.now(UTC)
    with unit_of_work(committed) as session:
        written = session.scalars(select(Player.created_at).where(Player.handle == "clock")).one()
    assert before <= written <= after  # the `tourney` process stamped the row with its clock
    assert before <= database <= after
    # the Date header has whole seconds, and uvicorn renews it once a second: up to a second behind
    assert before.replace(microsecond=0) - timedelta(seconds=1) <= served <= after
