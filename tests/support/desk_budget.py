"""The desk's statement budget (docs/desk.md#speed): the SQL statements one request of the desk's busiest
actions may send, counted in the process that serves it (`domain.store.db.StatementCounter` on the
server's engine), whatever the size of the field. Pinned by tests/web/test_desk_budget.py, reported by
bench/bench_desk.py."""

from __future__ import annotations

import time
from collections.abc import Callable
from datetime import UTC, datetime, timedelta

from domain.poker.services import clock, seating
from domain.poker.tables.tournaments import Tournament
from domain.store.db import StatementCounter, unit_of_work
from tests.support import world

# What one request sends at most, in a running tournament of 32 seated players with no bust yet (the
# identify step's last-use write, at most once a minute, aside): identify 1, locate 1 (the tournament
# and its club, read once and held), then the use case, and the audit row and the NOTIFY of a write
# (its followers' streams, docs/web.md#live-updates).
BUDGET = {
    # the first desk to ask after a change builds it: the change key, the tournament again, locale, clock (3),
    # counts, prizes, rows, knockouts, settlements, seats, the counter's totals (3)…
    "desk.state": 22,
    "desk.state (another desk, no change)": 3,  # identify, locate, the change key: the build is reused
    "desk.arrive": 29,  # a walk-in: made a player, registered (SP-2), checked in, seated by a draw (SP-13)
    "desk.settle": 10,
}


def seated_field(engine, tournament_id: int, players: int, handles: str = "seated") -> None:
    """`players` more checked-in players in the running tournament (handles `handles` + a number), its
    clock started four minutes ago and the seats drawn (SP-13): a tournament in play at the desk."""
    now = datetime.now(UTC)
    with unit_of_work(engine) as session:
        t = session.get_one(Tournament, tournament_id)
        for n in range(players):
            p = world.player(session, f"Seated Player {n}", handle=f"{handles}{n}", at=t.scheduled_start)
            world.enter(session, t, player_id=p.id)
        clock.act(session, t.id, "start", now - timedelta(minutes=4))
        seating.draw_initial(session, t.id, now)


def counted(engine, send: Callable[[], object]) -> tuple[object, int, float]:
    """`send()`'s answer, the statements the engine sent meanwhile, and the process's CPU ms."""
    with StatementCounter(engine) as counter:
        cpu = time.process_time()
        answer = send()
        cpu = time.process_time() - cpu
    return answer, counter.count, 1000 * cpu
