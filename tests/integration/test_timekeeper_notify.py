"""The services that start, pause, resume or move a clock, or start a tournament or move its
deadline, wake the timekeeper: a NOTIFY on its channel, delivered when their transaction commits
(domain/poker/services/due.py) — and not when it rolls back."""

from __future__ import annotations

from datetime import timedelta

import psycopg
import pytest
from sqlalchemy.orm import Session

from domain.poker.services import clock as clock_service
from domain.poker.services import due
from domain.poker.services import tournaments as poker_tournaments
from domain.poker.tables.tournaments import Tournament
from domain.store.leader import conninfo
from tests.support.timekeeper import now, quick_structure, running


@pytest.fixture
def listening(database_url):
    with psycopg.connect(conninfo(database_url), autocommit=True) as conn:
        conn.execute(f'LISTEN "{due.CHANNEL}"')
        yield (
            lambda: (
                [n.payload for n in conn.notifies(timeout=1, stop_after=1)]
                + [n.payload for n in conn.notifies(timeout=0.2)]
            )
        )


def test_clock_transitions_wake_the_timekeeper_when_they_commit(committed, listening):
    with Session(committed) as s, s.begin():
        tid = running(s, quick_structure(s, seconds=60), now(), clock=False)
    assert listening() == []
    for action in ("start", "pause", "resume", "next"):
        with Session(committed) as s, s.begin():
            clock_service.act(s, tid, action, now())
        assert listening() == [f"clock:{tid}"]


def test_a_start_and_a_moved_deadline_wake_it_and_a_rolled_back_change_does_not(committed, listening):
    with Session(committed) as s, s.begin():
        tid = running(s, quick_structure(s, seconds=60), now() + timedelta(hours=1), clock=False)
        s.get(Tournament, tid).status = "registration_open"
    listening()
    with Session(committed) as s, s.begin():
        poker_tournaments.edit_tournament(s, tid, {"late_reg_deadline": now() + timedelta(hours=2)}, now())
    assert listening() == [f"tournament-edited:{tid}"]
    with Session(committed) as s:
        s.begin()
        poker_tournaments.change_status(s, tid, "start", now())
        s.rollback()
    assert listening() == []
    with Session(committed) as s, s.begin():
        poker_tournaments.change_status(s, tid, "start", now())
    assert listening() == [f"tournament-start:{tid}"]
