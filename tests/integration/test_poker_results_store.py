"""The poker-results schema: it matches the models, and the database itself refuses what a race or
a bad write could break (3.2, 3.3, SP-4)."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from alembic.autogenerate import compare_metadata
from alembic.runtime.migration import MigrationContext
from sqlalchemy import text
from sqlalchemy.exc import DBAPIError, IntegrityError

from domain.poker.rules.wording import MONEY_PATTERN, names_money
from domain.tables import metadata
from tests.integration import poker_results_helpers as h
from tests.unit.test_poker_wording import CLEAN_SAMPLES, MONEY_SAMPLES

TABLES = {
    "poker_knockout_settings", "poker_knockouts", "poker_knockout_audit", "poker_mystery_draws", "poker_prizes",
    "poker_places",
}


def test_the_migrated_results_tables_match_the_models(engine):
    with engine.connect() as conn:
        diff = compare_metadata(MigrationContext.configure(conn, opts={"compare_type": True}), metadata)
    assert [d for d in diff if any(name in repr(d) for name in TABLES)] == []


def _fails(session, statement: str, **params) -> None:
    with pytest.raises((IntegrityError, DBAPIError)):
        with session.begin_nested():
            session.execute(text(statement), params)


@pytest.mark.parametrize("sample", MONEY_SAMPLES + CLEAN_SAMPLES)
def test_sp_4_the_database_pattern_agrees_with_the_python_check_on_every_sample(session, sample):
    """SP-4: PostgreSQL's `!~` with the same pattern gives Python's answer on the same text."""
    in_db = session.execute(text("SELECT :s ~ :p"), {"s": sample, "p": MONEY_PATTERN}).scalar_one()
    assert in_db == (names_money(sample) is not None)


def test_sp_4_the_prize_check_constraint_carries_the_current_pattern(session):
    """SP-4: the CHECK of poker_prizes and poker_mystery_draws is the domain's pattern, not a copy
    that drifted."""
    defs = session.execute(
        text(
            "SELECT conname, pg_get_constraintdef(oid) FROM pg_constraint "
            "WHERE conname IN ('ck_poker_prizes_description', 'ck_poker_mystery_draws_description')"
        )
    ).all()
    assert len(defs) == 2
    for _, definition in defs:
        assert MONEY_PATTERN in definition


def test_sp_4_the_database_refuses_a_prize_line_with_money_or_over_500_characters(session):
    t = h.tournament(session)
    insert = "INSERT INTO poker_prizes (tournament_id, place, description) VALUES (:t, :p, :d)"
    for bad in ("1000 руб.", "$50", "5 000 р", "денежный приз", "cash", "x" * 501, "  "):
        _fails(session, insert, t=t.id, p=1, d=bad)
    _fails(session, insert, t=t.id, p=201, d="Medal")
    session.execute(text(insert), {"t": t.id, "p": 1, "d": "Dinner for 2"})


def test_3_2_the_database_keeps_one_live_knockout_per_busted_entry_and_refuses_deletes(session):
    """3.2: duplicate protection and immutable records, by the database itself."""
    t = h.tournament(session)
    e = h.field(session, t, "AB")
    insert = (
        "INSERT INTO poker_knockouts (tournament_id, busted_entry_id, killer_entry_id, bust_number, "
        "credit_halves, recorded_at, recorded_by) VALUES (:t, :b, :k, 1, 2, now(), 'floor') RETURNING id"
    )
    ko = session.execute(text(insert), {"t": t.id, "b": e["A"].id, "k": e["B"].id}).scalar_one()
    _fails(session, insert, t=t.id, b=e["A"].id, k=e["B"].id)
    _fails(session, "DELETE FROM poker_knockouts WHERE id = :id", id=ko)
    _fails(session, "UPDATE poker_knockouts SET bust_number = 2 WHERE id = :id", id=ko)
    _fails(session, insert.replace(":k", ":b"), t=t.id, b=e["A"].id)  # self-knockout
    session.execute(text("UPDATE poker_knockouts SET voided_at = now(), voided_by = 'floor' WHERE id = :id"),
                    {"id": ko})
    _fails(session, "UPDATE poker_knockouts SET voided_at = now() + interval '1 s' WHERE id = :id", id=ko)
    session.execute(text(insert), {"t": t.id, "b": e["A"].id, "k": e["B"].id})  # a new bust after a void


def test_3_3_the_database_keeps_one_draw_per_killer_entry_and_the_killer_of_the_knockout(session):
    t = h.tournament(session, mystery=True)
    e = h.field(session, t, "ABC")
    insert = (
        "INSERT INTO poker_knockouts (tournament_id, busted_entry_id, killer_entry_id, bust_number, "
        "credit_halves, recorded_at, recorded_by) VALUES (:t, :b, :k, :n, 2, now(), 'floor') RETURNING id"
    )
    ko1 = session.execute(text(insert), {"t": t.id, "b": e["A"].id, "k": e["C"].id, "n": 1}).scalar_one()
    ko2 = session.execute(text(insert), {"t": t.id, "b": e["B"].id, "k": e["C"].id, "n": 2}).scalar_one()
    draw = (
        "INSERT INTO poker_mystery_draws (tournament_id, knockout_id, killer_entry_id, draw_number, description, "
        "drawn_at, drawn_by) VALUES (:t, :ko, :k, :n, :d, now(), 'floor')"
    )
    _fails(session, draw, t=t.id, ko=ko1, k=e["B"].id, n=1, d=None)  # not the killer of that knockout
    _fails(session, draw, t=t.id, ko=ko1, k=e["C"].id, n=1, d="cash")
    session.execute(text(draw), {"t": t.id, "ko": ko1, "k": e["C"].id, "n": 1, "d": "Dinner for 2"})
    _fails(session, draw, t=t.id, ko=ko2, k=e["C"].id, n=2, d=None)  # second draw of the killer entry
    _fails(session, "UPDATE poker_mystery_draws SET description = 'Cup' WHERE knockout_id = :ko", ko=ko1)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.text(alphabet="abcdeursoyshmnt $€р₽уббльдензгйеёкпЕРУБCASHUSD0123456789 .,\u00a0", max_size=24))
def test_sp_4_the_database_and_python_agree_on_random_text(session, sample):
    """SP-4: the same answer from PostgreSQL and Python on generated text, not only on the samples."""
    in_db = session.execute(text("SELECT :s ~ :p"), {"s": sample, "p": MONEY_PATTERN}).scalar_one()
    assert in_db == (names_money(sample) is not None)
