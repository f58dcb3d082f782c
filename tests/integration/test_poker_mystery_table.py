"""The mystery prize table on the real database (RULES SP-11)."""

from __future__ import annotations

from datetime import timedelta

import pytest

from domain.draw import commitment
from domain.errors import DomainError
from domain.poker.rules.knockouts import Bust
from domain.poker.rules.mystery import prize_order
from domain.poker.services.knockouts import record_knockouts
from domain.poker.services.mystery import (
    mystery_draw,
    mystery_table,
    set_mystery_prizes,
)
from domain.poker.tables.knockouts_places import MysteryPhase
from tests.support import world as w
from tests.support.db import refused_call
from tests.support.world import EVENING

pytestmark = pytest.mark.integration
PRIZES = ["Кубок клуба", "Худи", "Кепка", "Ужин на двоих"]


def table_tournament(session, **settings):
    t = w.tournament(session, **w.BOUNTY | {"bounty_type": "mystery", "levels": w.LEVELS}, mystery=True)
    for k, v in settings.items():
        setattr(t, k, v)
    session.flush()
    set_mystery_prizes(session, t.id, PRIZES)
    return t


def ko(session, t, busted, killer, *, level=None, at=EVENING):
    [k] = record_knockouts(session, t.id, [Bust(busted, killer)], now=at, actor="floor", level=level)
    return k


def test_sp11_the_nth_draw_takes_the_nth_prize_of_the_committed_order(session):
    """SP-11: the seed is committed at the phase start, revealed at the finish; undrawn listed."""
    t = table_tournament(session)
    e = w.field(session, t, "ABCDE")
    k1 = ko(session, t, e["B"].id, e["A"].id)
    k2 = ko(session, t, e["C"].id, e["D"].id, at=EVENING + timedelta(seconds=1))
    d1 = mystery_draw(session, k1.id, now=EVENING, actor="floor")
    d2 = mystery_draw(session, k2.id, now=EVENING, actor="floor")
    phase = session.get(MysteryPhase, t.id)
    order = prize_order(phase.seed, len(PRIZES))
    assert (d1.prize_position, d2.prize_position) == (order[0], order[1])
    assert (d1.description, d2.description) == (PRIZES[order[0] - 1], PRIZES[order[1] - 1])
    shown = mystery_table(session, t.id)
    assert shown["commitment"] == commitment(phase.seed) and shown["seed"] is None
    assert sorted(shown["remaining"]) == sorted(p for n, p in enumerate(PRIZES, 1) if n not in order[:2])
    # per killer entry (the default): A has drawn; its next knockout draws nothing
    k3 = ko(session, t, e["D"].id, e["A"].id, at=EVENING + timedelta(seconds=2))
    refused_call(session, "mystery-already-drawn", mystery_draw, session, k3.id, now=EVENING, actor="floor")
    refused_call(session, "mystery-table-frozen", set_mystery_prizes, session, t.id, ["Другое"])
    t.status = "finished"
    session.flush()
    shown = mystery_table(session, t.id)
    assert shown["seed"] == phase.seed
    assert [p["state"] for p in shown["prizes"]].count("undrawn") == 2


def test_sp11_per_knockout_and_no_prizes_left(session):
    """SP-11"""
    t = table_tournament(session, mystery_draw_per="per_knockout")
    e = w.field(session, t, "ABCDEFG")
    kos = [ko(session, t, e[b].id, e["A"].id, at=EVENING + timedelta(seconds=i)) for i, b in enumerate("BCDEF")]
    drawn = [mystery_draw(session, k.id, now=EVENING, actor="floor") for k in kos[:4]]
    assert sorted(d.prize_position for d in drawn) == [1, 2, 3, 4]
    refused_call(session, "mystery-no-prizes-left", mystery_draw, session, kos[4].id, now=EVENING, actor="floor")


def test_sp11_phase_itm_and_level(session):
    """SP-11"""
    t = table_tournament(session, mystery_phase="itm", itm_percent=30)  # 5 entries: 2 paid places
    e = w.field(session, t, "ABCDE")
    k1 = ko(session, t, e["B"].id, e["A"].id)
    refused_call(session, "mystery-phase-not-started", mystery_draw, session, k1.id, now=EVENING, actor="floor")
    ko(session, t, e["C"].id, e["D"].id, at=EVENING + timedelta(seconds=1))
    k3 = ko(session, t, e["D"].id, e["E"].id, at=EVENING + timedelta(seconds=2))  # 2 remain
    assert mystery_draw(session, k3.id, now=EVENING, actor="floor").draw_number == 1

    t2 = table_tournament(session, mystery_phase="level:3")
    e2 = w.field(session, t2, "ABC")
    k = ko(session, t2, e2["B"].id, e2["A"].id, level=2)
    refused_call(session, "mystery-phase-not-started", mystery_draw, session, k.id, now=EVENING, actor="floor")


def test_sp11_money_in_the_table_is_refused_and_nothing_written(session):
    """SP-11, SP-4"""
    t = w.tournament(session, **w.BOUNTY | {"bounty_type": "mystery"}, mystery=True)
    with pytest.raises(DomainError) as caught:
        with session.begin_nested():
            set_mystery_prizes(session, t.id, ["Кубок", "100 $"])
    assert caught.value.code == "money-wording"
    assert mystery_table(session, t.id)["prizes"] == []


def test_sp11_without_a_table_draws_stay_as_today(session):
    """SP-11: default, free-text draws (3.3)."""
    t = w.tournament(session, **w.BOUNTY | {"bounty_type": "mystery"}, mystery=True)
    e = w.field(session, t, "AB")
    k = ko(session, t, e["B"].id, e["A"].id)
    d = mystery_draw(session, k.id, now=EVENING, actor="floor", description="Лимонад")
    assert (d.description, d.prize_position, d.per_killer) == ("Лимонад", None, True)


def test_sp11_sp4_the_database_takes_only_mystery_prizes_the_domain_sealed(session):
    """SP-11, SP-4: the same door as prize lines: a line without the domain's seal, or with the seal of
    another line, is refused by the database; a sealed line is stored."""
    from sqlalchemy import text

    from domain.poker.rules.wording.check import wording_seal
    from tests.support.db import refused

    t = w.tournament(session, **w.BOUNTY | {"bounty_type": "mystery"}, mystery=True)
    insert = (
        "INSERT INTO poker_mystery_prizes (tournament_id, position, description, wording_seal) VALUES (:t, 1, :d, :s)"
    )
    refused(session, "ck_poker_mystery_prizes_description", insert, t=t.id, d="100 $", s="")
    refused(session, "ck_poker_mystery_prizes_description", insert, t=t.id, d="100 $", s=wording_seal("Лимонад"))
    session.execute(text(insert), {"t": t.id, "d": "Лимонад", "s": wording_seal("Лимонад")})


def test_sp11_a_free_text_draw_before_the_table_takes_no_prize_of_it(session):
    """SP-11: no prizes left, no draw; while a prize is listed, it can be drawn. A free-text draw made
    before the table was declared (3.3) takes none of its prizes, so every declared prize can be drawn
    and none is left "undrawn" by it."""
    t = w.tournament(session, **w.BOUNTY | {"bounty_type": "mystery"}, mystery=True, mystery_draw_per="per_knockout")
    e = w.field(session, t, "ABCDEF")
    k0 = ko(session, t, e["B"].id, e["A"].id)
    assert mystery_draw(session, k0.id, now=EVENING, actor="floor", description="Лимонад").prize_position is None
    set_mystery_prizes(session, t.id, PRIZES[:3])
    kos = [ko(session, t, e[b].id, e["A"].id, at=EVENING + timedelta(seconds=i)) for i, b in enumerate("CDEF", 1)]
    drawn = [mystery_draw(session, k.id, now=EVENING, actor="floor") for k in kos[:3]]
    order = prize_order(session.get(MysteryPhase, t.id).seed, 3)
    assert [d.prize_position for d in drawn] == order
    assert [d.draw_number for d in drawn] == [2, 3, 4]
    assert mystery_table(session, t.id)["remaining"] == []
    refused_call(session, "mystery-no-prizes-left", mystery_draw, session, kos[3].id, now=EVENING, actor="floor")
    t.status = "finished"
    session.flush()
    assert [p["state"] for p in mystery_table(session, t.id)["prizes"]] == ["drawn"] * 3
