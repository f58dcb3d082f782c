"""The audit trail is append-only in the database (RULES AC-3), and forgetting a player still leaves
nothing of them readable in it (AC-5, Sport Poker 1.6.1), over real connections and commits."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta

import pytest
from sqlalchemy import Engine, select, text
from sqlalchemy.exc import DBAPIError

from domain.access.rules.policy import Actor
from domain.access.services import audit
from domain.access.tables import AuditRecord
from domain.poker.services import players
from domain.store.db import unit_of_work
from tests.support import world
from tests.support.cli import run

NOW = datetime(2026, 12, 4, 18, 0, tzinfo=UTC)


def _raw(engine: Engine) -> str:
    """Every audit row as the database holds it, as one text."""
    with engine.connect() as conn:
        return "\n".join(conn.scalars(text("SELECT row_to_json(a)::text FROM audit_trail a ORDER BY id")))


def _j(*args: str):
    result = run("--json", *args)
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout)


@pytest.mark.parametrize(
    ("statement", "operation"),
    [
        ("UPDATE audit_trail SET target = 'edited'", "UPDATE"),
        ("DELETE FROM audit_trail", "DELETE"),
        ("TRUNCATE audit_trail", "TRUNCATE"),
        ("TRUNCATE accounts CASCADE", "TRUNCATE"),  # a cascade reaches the trail, and is refused there
    ],
)
def test_ac_3_the_audit_trail_refuses_update_delete_and_truncate(committed, statement, operation):
    with unit_of_work(committed) as session:
        audit.record(session, Actor("operator", "olga"), "user add", NOW, target="x@example.org", data={"a": 1})
    with committed.connect() as conn, pytest.raises(DBAPIError) as caught:
        conn.execute(text(statement))
    diag = caught.value.orig.diag
    assert (diag.message_primary, diag.sqlstate) == (f"audit_trail is append-only: {operation} refused", "23001")
    with unit_of_work(committed) as session:
        (row,) = session.scalars(select(AuditRecord))
        assert (row.actor_label, row.action, row.target, row.data) == ("olga", "user add", "x@example.org", {"a": 1})


def test_ac_5_forgetting_a_player_leaves_nothing_of_them_readable_in_the_trail(committed):
    """The rows hold marks of the player's id, never the handle, name or date of birth: before the
    forgetting the trail reads as it was written, after it with the pseudonym, and no row changed."""
    start = datetime.now(UTC).replace(microsecond=0) + timedelta(hours=1)
    with unit_of_work(committed) as session:
        club = world.club(session, fresh=True, at=datetime.now(UTC))
        t = world.tournament(session, club_id=club.id, status="registration_open", start=start, late_reg=None)
    made = _j("--as", "desk", "player", "add", "Rita Sokolova", "rita", "--born", "1992-03-04")
    _j("--as", "desk", "poker", "register", str(t.id), "@Rita")
    with unit_of_work(committed) as session:  # as the API records a walk-in at the desk: name and birth date typed
        p = players.find_player(session, "rita")
        audit.record(
            session,
            Actor("token", "token 1 (desk) of floor@example.org"),
            "desk.arrive",
            NOW,
            target=f"tournament {t.id} arrival of rita Sokolova",
            club_id=club.id,
            data={"name": "Rita  Sokolova", "handle": "RITA", "birth_date": "1992-03-04", "player": None},
        )
    pid, pseudonym = made["id"], made["pseudonym"]
    before = _raw(committed)

    assert not any(word in before.lower() for word in ("rita", "sokolova", "1992-03-04"))
    assert f"⟦handle {pid}⟧" in before and f"⟦name {pid}⟧" in before and f"⟦born {pid}⟧" in before

    shown = [(r["action"], r["target"], r["data"]) for r in _j("audit")]
    assert shown[:3] == [
        (
            "desk.arrive",
            f"tournament {t.id} arrival of Rita Sokolova",
            {"name": "Rita Sokolova", "handle": "rita", "birth_date": "1992-03-04", "player": None},
        ),
        ("poker register", f"{t.id} rita", {"tournament": t.id, "player": "rita"}),
        ("player add", "rita", {"handle": "rita"}),
    ]

    _j("--as", "desk", "player", "forget", "rita")
    after = _raw(committed)
    assert after.startswith(before)  # no row was changed: one was added
    assert not any(word in after.lower() for word in ("rita", "sokolova", "1992-03-04"))
    shown = [(r["action"], r["target"], r["data"]) for r in _j("audit")]
    assert shown == [
        ("player forget", pseudonym, {"player": pseudonym}),
        (
            "desk.arrive",
            f"tournament {t.id} arrival of {pseudonym}",
            {"name": pseudonym, "handle": pseudonym, "birth_date": pseudonym, "player": None},
        ),
        ("poker register", f"{t.id} {pseudonym}", {"tournament": t.id, "player": pseudonym}),
        ("player add", pseudonym, {"handle": pseudonym}),
    ]
    assert p.id == pid


def test_ac_3_a_command_line_s_operator_and_json_end_with_it(committed):
    """AC-3: `--as` and `--json` belong to one invocation (its Typer context's object, nothing global):
    the next command run in the same process acts as the OS user and prints a table."""
    from flows.cli.output import operator_label

    first = _j("--as", "desk", "player", "add", "Ivan Petrov", "ivanp", "--born", "1990-01-02")
    plain = run("player", "add", "Oleg Sidorov", "olegs", "--born", "1991-02-03")
    assert plain.returncode == 0, plain.stderr
    with pytest.raises(json.JSONDecodeError):
        json.loads(plain.stdout)
    assert first["handle"] == "ivanp" and "olegs" in plain.stdout
    with unit_of_work(committed) as session:
        trail = [(r.actor_label, r.action) for r in session.scalars(select(AuditRecord).order_by(AuditRecord.id))]
    assert trail == [("desk", "player add"), (operator_label(), "player add")]
