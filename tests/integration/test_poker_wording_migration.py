"""Migration 0501 (SP-4): prize lines and draw descriptions stored before the seal are checked again by
today's domain check and sealed; a stored text it refuses stops the upgrade, named. Each test runs
on a scratch database of its own, since it steps the schema back."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from alembic import command
from sqlalchemy import Engine, text
from sqlalchemy.orm import Session

from domain.poker.rules.wording.check import CHECKER, seal_for
from domain.store.db import make_engine
from domain.store.migrate import _config, upgrade
from domain.store.scratch import scratch_database
from tests.support import world as w


def _step(engine: Engine, how: str, target: str) -> None:
    config = _config()
    with engine.begin() as conn:
        config.attributes["connection"] = conn
        getattr(command, how)(config, target)


@pytest.fixture
def before_0501(database_url: str) -> Iterator[Engine]:
    """A scratch database at every head; `_legacy_rows` steps it back to 0500 (no seals)."""
    with scratch_database(database_url, "wording") as url:
        engine = make_engine(url)
        try:
            upgrade(engine)
            yield engine
        finally:
            engine.dispose()


def _legacy_rows(engine: Engine, lines: list[str], description: str | None) -> int:
    """A tournament and its field written through today's models, then the schema stepped back to
    0500 and the lines written as 0500 let them in (no seal)."""
    with Session(engine) as s, s.begin():
        t = w.tournament(s, **w.BOUNTY, mystery=True)
        e = w.field(s, t, "AB")
        tid, busted, killer = t.id, e["A"].id, e["B"].id
    _step(engine, "downgrade", "0500")
    with Session(engine) as s, s.begin():
        for place, line in enumerate(lines, 1):
            s.execute(
                text("INSERT INTO poker_prizes (tournament_id, place, description) VALUES (:t, :p, :d)"),
                {"t": tid, "p": place, "d": line},
            )
        ko = s.execute(
            text(
                "INSERT INTO poker_knockouts (tournament_id, busted_entry_id, killer_entry_id, bust_number, "
                "credit_halves, recorded_at, recorded_by) VALUES (:t, :b, :k, 1, 2, now(), 'floor') RETURNING id"
            ),
            {"t": tid, "b": busted, "k": killer},
        ).scalar_one()
        s.execute(
            text(
                "INSERT INTO poker_mystery_draws (tournament_id, knockout_id, killer_entry_id, draw_number, "
                "description, drawn_at, drawn_by) VALUES (:t, :ko, :k, 1, :d, now(), 'floor')"
            ),
            {"t": tid, "ko": ko, "k": killer, "d": description},
        )
        return tid


def test_sp4_0501_seals_the_lines_stored_before_it(before_0501):
    """SP-4: old rows the check accepts get the domain's seal; the CHECK then holds for them."""
    lines = ["Cup and a free entry", "Поездка в Европу", "Кубок (при наличии)"]  # what 0500 let in
    t = _legacy_rows(before_0501, lines, "Dinner for 2")
    _step(before_0501, "upgrade", "heads")
    with before_0501.connect() as conn:
        prizes = conn.execute(
            text("SELECT description, wording_seal FROM poker_prizes WHERE tournament_id = :t ORDER BY place"), {"t": t}
        ).all()
        draw = conn.execute(
            text("SELECT description, wording_seal FROM poker_mystery_draws WHERE tournament_id = :t"), {"t": t}
        ).one()
    assert [d for d, _ in prizes] == lines
    assert all(seal == seal_for(CHECKER, d) for d, seal in [*prizes, draw])


def test_sp4_0501_stops_on_a_stored_line_that_names_money_and_names_it(before_0501):
    """SP-4: a line the old pattern let through ("саsh" in Cyrillic letters) is not sealed silently."""
    _legacy_rows(before_0501, ["Cup", "саsh"], None)
    with pytest.raises(RuntimeError, match="poker_prizes tournament .* place 2: 'саsh' names money"):
        _step(before_0501, "upgrade", "heads")


def test_sp4_0501_steps_back_to_the_pattern_check(before_0501):
    """SP-4: downgrading 0501 restores 0500's CHECK (the pattern of its day) and drops the seals."""
    _step(before_0501, "upgrade", "heads")
    _step(before_0501, "downgrade", "0500")
    with before_0501.connect() as conn:
        columns = (
            conn.execute(text("SELECT column_name FROM information_schema.columns WHERE table_name = 'poker_prizes'"))
            .scalars()
            .all()
        )
        definition = conn.execute(
            text("SELECT pg_get_constraintdef(oid) FROM pg_constraint WHERE conname = 'ck_poker_prizes_description'")
        ).scalar_one()
    assert "wording_seal" not in columns
    assert "!~" in definition
