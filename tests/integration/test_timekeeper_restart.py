"""The database restarting under the timekeeper (flows/jobs/timekeeper_loop.py): on a PostgreSQL cluster of
the test's own, stopped for 3 s while level changes fall due, then started again. The timekeeper
reconnects, takes the lock again and catches up: every level change recorded once, in order, each
as of its own instant — the ones due while the database was down included."""

from __future__ import annotations

import logging
import os
import shutil
import socket
import tempfile
import time
from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path

import pytest
from sqlalchemy.orm import Session

from domain.store.migrate import upgrade
from flows import bootstrap
from infra.cluster import Cluster
from tests.support.timekeeper import (
    keeping_time,
    level_starts,
    nothing_due,
    now,
    quick_structure,
    running,
    wait_for,
)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture
def own_cluster(monkeypatch) -> Iterator[Cluster]:
    home = Path(tempfile.mkdtemp(prefix="tourney-restart-", dir="/tmp"))
    os.chmod(home, 0o755)  # the postgres user runs the cluster when the tests run as root
    monkeypatch.setenv("TOURNEY_PG_PORT", str(_free_port()))
    cluster = Cluster(home)
    cluster.up()
    monkeypatch.setenv("DATABASE_URL", cluster.url())
    bootstrap.dispose()
    try:
        upgrade(bootstrap.engine())
        yield cluster
    finally:
        bootstrap.dispose()
        cluster.stop()
        shutil.rmtree(home, ignore_errors=True)


class Said(logging.Handler):
    def __init__(self) -> None:
        super().__init__()
        self.lines: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.lines.append(record.getMessage())


def test_after_a_database_restart_it_reconnects_and_catches_up_each_moment_at_its_own_instant(own_cluster):
    engine = bootstrap.engine()
    with Session(engine) as s, s.begin():
        sid = quick_structure(s, seconds=1, count=60)
        t0 = now() + timedelta(seconds=1)
        tids = [running(s, sid, t0 + timedelta(milliseconds=250 * i)) for i in range(4)]
    said = Said()
    log = logging.getLogger("tourney.timekeeper.restart-test")
    log.addHandler(said)
    log.setLevel(logging.INFO)
    with keeping_time(log=log) as (keeper, seen):
        assert wait_for(lambda: len(seen) >= 8, 30)
        own_cluster.stop()
        down = now()
        time.sleep(3)
        own_cluster.up()
        up = now()
        assert wait_for(lambda: keeper.state == "active" and nothing_due(engine), 60)
    assert any("reconnecting" in line for line in said.lines)
    caught_up = [m for m in seen if down < m.due_at < up]
    assert len(caught_up) >= 4 * 2  # due while it was down: done after, each as of its own instant
    assert all(m.outcome == "done" and m.started > up for m in caught_up)
    for tid in tids:
        starts = level_starts(engine, tid)
        assert [level for _, level, _, _ in starts] == list(range(1, len(starts) + 1))
        assert all(recorded == at for _, _, at, recorded in starts)
