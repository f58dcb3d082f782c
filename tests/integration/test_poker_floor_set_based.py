"""`advance-clocks` is set-based (principle 6, SP-6, SP-8): the same few SQL statements for 2 due
tournaments as for 6, dead stacks charged within their own tournament only, each once."""

from __future__ import annotations

from datetime import timedelta

from sqlalchemy import select

from domain.poker.services import clock as clock_service
from domain.poker.services.noshow import process_no_shows
from domain.poker.tables.clock_seating import DeadStack, DeadStackCharge
from domain.store.db import StatementCounter
from tests.support.world import T0, with_no_shows

CLOSE = T0 + timedelta(hours=1)  # late registration closes 19:00
LEVEL_4 = T0 + timedelta(minutes=75)  # 19:15: level 4 starts after the dead stacks sat at 19:00


def _advance_counted(session, engine) -> tuple[int, list[dict]]:
    with StatementCounter(engine) as counter:
        done = clock_service.advance_clocks(session, LEVEL_4)
    return counter.count, done


def test_advance_clocks_takes_the_same_statements_for_2_and_6_tournaments_and_charges_each_once(session, engine):
    """SP-6: 10 x 100 + 10/5 x (400 + 800) = 3400 paid by each of a tournament's two dead stacks."""
    few = [with_no_shows(session, "absent_mode")[0].id for _ in range(2)]
    process_no_shows(session, CLOSE)
    statements_few, done_few = _advance_counted(session, engine)
    many = [with_no_shows(session, "absent_mode")[0].id for _ in range(6)]  # the first two are no longer due
    process_no_shows(session, CLOSE)
    statements_many, done_many = _advance_counted(session, engine)

    assert [d["tournament_id"] for d in done_few] == few
    assert [d["tournament_id"] for d in done_many] == many
    assert (
        statements_few == statements_many == 8
    )  # the last the streams' NOTIFY of every tournament changed, one statement
    session.expire_all()
    stacks = session.execute(select(DeadStack).order_by(DeadStack.id)).scalars().all()
    assert [(d.tournament_id, d.chips) for d in stacks] == [(tid, 6600) for tid in few + many for _ in range(2)]
    charges = session.execute(select(DeadStackCharge)).scalars().all()
    assert sorted(c.paid for c in charges) == [3400] * 16
    assert clock_service.advance_clocks(session, LEVEL_4) == []
