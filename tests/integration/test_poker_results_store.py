"""The poker-results schema: the database itself refuses what a race or a bad write could break, each
by its own constraint or trigger (3.2, 3.3, SP-4: no door takes a prize line the domain refuses).
tests/integration/test_schema.py compares these tables, with every other, to the models."""

from __future__ import annotations

import pytest
from sqlalchemy import text

from domain.errors import DomainError
from domain.poker.rules.wording.check import CHECKER, seal_for, verdict, wording_seal
from domain.poker.services.results import set_prizes
from tests.support import world as w
from tests.support.db import refused
from tests.unit.poker_wording_cases import ACCEPTED, REFUSED

NO_SEAL = 'null value in column "wording_seal" of relation "poker_prizes" violates not-null constraint'
NOT_DELETED = "poker_knockouts are never deleted: void the knockout instead"
IMMUTABLE = "poker_knockouts are immutable: only voiding a live knockout is allowed"
PRIZE = "INSERT INTO poker_prizes (tournament_id, place, description, wording_seal) VALUES (:t, :p, :d, :s)"
REFUSED_LINES = [line for line, _ in REFUSED]


@pytest.mark.parametrize("line", REFUSED_LINES[::4], ids=repr)
def test_sp4_no_door_accepts_a_line_the_domain_refuses(session, line):
    """SP-4: the domain service refuses it, and a raw INSERT of it is refused too: without a seal, with
    an empty or made-up one, with the seal of another (accepted) text."""
    t = w.tournament(session, **w.BOUNTY)
    with pytest.raises(DomainError) as caught, session.begin_nested():
        set_prizes(session, t.id, ["Cup", line])
    assert caught.value.code == "money-wording"
    refused(session, NO_SEAL, PRIZE, t=t.id, p=1, d=line, s=None)
    for seal in ("", wording_seal("Cup"), f"{CHECKER}:{'0' * 64}", seal_for(CHECKER, "Cup")):
        refused(session, "ck_poker_prizes_description", PRIZE, t=t.id, p=1, d=line, s=seal)
    assert (
        session.execute(text("SELECT count(*) FROM poker_prizes WHERE tournament_id = :t"), {"t": t.id}).scalar() == 0
    )


@pytest.mark.parametrize("line", ACCEPTED[::4], ids=repr)
def test_sp4_the_database_takes_a_line_with_the_domains_seal(session, line):
    """SP-4: what the domain accepts it stores, with its seal; the CHECK agrees with the seal's recipe."""
    t = w.tournament(session, **w.BOUNTY)
    assert set_prizes(session, t.id, [line]) == (line.strip(),)
    stored = session.execute(
        text("SELECT description, wording_seal FROM poker_prizes WHERE tournament_id = :t"), {"t": t.id}
    ).one()
    assert stored.wording_seal == seal_for(CHECKER, stored.description) == verdict(stored.description).seal


def test_sp4_a_raw_update_of_a_sealed_line_is_refused(session):
    """SP-4: changing the text under its seal (or the seal away) is refused: only the domain reseals."""
    t = w.tournament(session, **w.BOUNTY)
    set_prizes(session, t.id, ["Dinner for 2"])
    update = "UPDATE poker_prizes SET description = :d WHERE tournament_id = :t"
    refused(session, "ck_poker_prizes_description", update, d="саsh", t=t.id)
    refused(session, "ck_poker_prizes_description", update, d="Dinner for 3", t=t.id)
    refused(session, NO_SEAL, "UPDATE poker_prizes SET wording_seal = NULL WHERE tournament_id = :t", t=t.id)
    set_prizes(session, t.id, ["Dinner for 3"])
    assert (
        session.execute(text("SELECT description FROM poker_prizes WHERE tournament_id = :t"), {"t": t.id}).scalar_one()
        == "Dinner for 3"
    )


def test_sp4_the_database_refuses_a_prize_line_over_500_characters_or_blank_or_past_place_200(session):
    t = w.tournament(session, **w.BOUNTY)
    for bad in ("x" * 501, "  "):
        refused(session, "ck_poker_prizes_description", PRIZE, t=t.id, p=1, d=bad, s=seal_for(CHECKER, bad))
    refused(session, "ck_poker_prizes_place", PRIZE, t=t.id, p=201, d="Medal", s=wording_seal("Medal"))
    session.execute(text(PRIZE), {"t": t.id, "p": 1, "d": "Dinner for 2", "s": wording_seal("Dinner for 2")})


def test_3_2_the_database_keeps_one_live_knockout_per_busted_entry_and_refuses_deletes(session):
    """3.2: duplicate protection and immutable records, by the database itself."""
    t = w.tournament(session, **w.BOUNTY)
    e = w.field(session, t, "AB")
    insert = (
        "INSERT INTO poker_knockouts (tournament_id, busted_entry_id, killer_entry_id, bust_number, "
        "credit_halves, recorded_at, recorded_by) VALUES (:t, :b, :k, 1, 2, now(), 'floor') RETURNING id"
    )
    ko = session.execute(text(insert), {"t": t.id, "b": e["A"].id, "k": e["B"].id}).scalar_one()
    refused(session, "uq_poker_knockouts_live_busted", insert, t=t.id, b=e["A"].id, k=e["B"].id)
    refused(session, NOT_DELETED, "DELETE FROM poker_knockouts WHERE id = :id", id=ko)
    refused(session, IMMUTABLE, "UPDATE poker_knockouts SET bust_number = 2 WHERE id = :id", id=ko)
    refused(session, "ck_poker_knockouts_not_self", insert.replace(":k", ":b"), t=t.id, b=e["A"].id)  # self-knockout
    session.execute(
        text("UPDATE poker_knockouts SET voided_at = now(), voided_by = 'floor' WHERE id = :id"), {"id": ko}
    )
    refused(session, IMMUTABLE, "UPDATE poker_knockouts SET voided_at = now() + interval '1 s' WHERE id = :id", id=ko)
    session.execute(text(insert), {"t": t.id, "b": e["A"].id, "k": e["B"].id})  # a new bust after a void


def test_3_3_the_database_keeps_one_draw_per_killer_entry_and_the_killer_of_the_knockout(session):
    t = w.tournament(session, **w.BOUNTY, mystery=True)
    e = w.field(session, t, "ABC")
    insert = (
        "INSERT INTO poker_knockouts (tournament_id, busted_entry_id, killer_entry_id, bust_number, "
        "credit_halves, recorded_at, recorded_by) VALUES (:t, :b, :k, :n, 2, now(), 'floor') RETURNING id"
    )
    ko1 = session.execute(text(insert), {"t": t.id, "b": e["A"].id, "k": e["C"].id, "n": 1}).scalar_one()
    ko2 = session.execute(text(insert), {"t": t.id, "b": e["B"].id, "k": e["C"].id, "n": 2}).scalar_one()
    draw = (
        "INSERT INTO poker_mystery_draws (tournament_id, knockout_id, killer_entry_id, draw_number, description, "
        "wording_seal, drawn_at, drawn_by) VALUES (:t, :ko, :k, :n, :d, :s, now(), 'floor')"
    )
    refused(
        session, "fk_poker_mystery_draws_knockout_killer", draw, t=t.id, ko=ko1, k=e["B"].id, n=1, d=None, s=None
    )  # not the killer of that knockout
    refused(
        session, "ck_poker_mystery_draws_description", draw, t=t.id, ko=ko1, k=e["C"].id, n=1, d="cash", s=None
    )  # SP-4: no seal
    refused(
        session,
        "ck_poker_mystery_draws_description",
        draw,
        t=t.id,
        ko=ko1,
        k=e["C"].id,
        n=1,
        d="саsh",
        s=wording_seal("Cup"),
    )  # another's seal
    refused(
        session,
        "ck_poker_mystery_draws_description",
        draw,
        t=t.id,
        ko=ko1,
        k=e["C"].id,
        n=1,
        d=None,
        s=wording_seal("Cup"),
    )  # a seal, no text
    session.execute(
        text(draw),
        {"t": t.id, "ko": ko1, "k": e["C"].id, "n": 1, "d": "Dinner for 2", "s": wording_seal("Dinner for 2")},
    )
    refused(
        session, "uq_poker_mystery_draws_killer", draw, t=t.id, ko=ko2, k=e["C"].id, n=2, d=None, s=None
    )  # second draw of the killer entry
    refused(
        session,
        "poker_mystery_draws is append-only: UPDATE refused",
        "UPDATE poker_mystery_draws SET description = 'Cup' WHERE knockout_id = :ko",
        ko=ko1,
    )


def test_sp4_the_database_door_is_no_security_boundary_and_the_public_pages_check_again(session):
    """SP-4: the seal's recipe is public, so a raw INSERT with a computed seal is stored (the database
    door guards against writes that skipped the domain by mistake; docs/decisions.md says why it is no
    security boundary); the public pages run the check again and withhold the line."""
    from domain.poker.rules.knockouts import Bust
    from domain.poker.services.knockouts import record_knockouts
    from domain.public.services import views

    t = w.tournament(session, **w.BOUNTY)
    set_prizes(session, t.id, ["Cup", "Medal"])
    session.execute(text("DELETE FROM poker_prizes WHERE tournament_id = :t AND place = 2"), {"t": t.id})
    session.execute(text(PRIZE), {"t": t.id, "p": 2, "d": "100 $", "s": seal_for(CHECKER, "100 $")})
    assert session.execute(
        text("SELECT description FROM poker_prizes WHERE tournament_id = :t ORDER BY place"), {"t": t.id}
    ).scalars().all() == ["Cup", "100 $"]
    assert views.screen(session, t.id, w.EVENING)["prizes"] == ["Cup", views.WITHHELD]
    e = w.field(session, t, "AB")
    record_knockouts(session, t.id, [Bust(e["B"].id, e["A"].id)], now=w.EVENING, actor="floor")
    assert [(p["place"], p["prize"]) for p in views.live_places(session, t.id)] == [(2, views.WITHHELD)]
