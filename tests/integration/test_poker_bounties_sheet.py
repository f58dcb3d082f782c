"""SP-9..SP-12 on the results sheet: the non-default settings, PKO points, exact shared credit, the
mystery prizes drawn and undrawn and the revealed seed."""

from __future__ import annotations

from datetime import timedelta

from domain.documents.rules.model import Bundle
from domain.documents.services import sources
from domain.documents.services.publish import publish
from domain.poker.rules.knockouts import Bust
from domain.poker.services.knockouts import record_knockouts
from domain.poker.services.mystery import mystery_draw, set_mystery_prizes
from domain.poker.services.results import finalize_tournaments
from infra.render import Renderer
from tests.support import poker_world as w


def test_sp9_sp10_sp11_sp12_settings_points_and_mystery_prizes_on_the_sheet(session, tmp_path):
    """SP-9, SP-10, SP-11, SP-12"""
    t = w.tournament(session, **w.BOUNTY | {"bounty_type": "pko"})
    t.pko_head, t.shared_knockouts, t.rebuy_limit = 100, True, 2
    session.flush()
    e = w.field(session, t, "ABCD")
    record_knockouts(session, t.id, [Bust(e["A"].id, e["B"].id, e["C"].id, (e["D"].id,))], now=w.EVENING, actor="f")
    record_knockouts(session, t.id, [Bust(e["B"].id, e["D"].id)], now=w.EVENING, actor="f")
    record_knockouts(session, t.id, [Bust(e["C"].id, e["D"].id)], now=w.EVENING, actor="f")
    finalize_tournaments(session, w.EVENING + timedelta(hours=1))
    (found,) = [b for b in sources.due(session) if isinstance(b, Bundle) and b.sheet.tournament_id == t.id]
    sheet = found.sheet
    assert "Progressive knockout: heads of 100 rating points (SP-9)" in sheet.options
    assert "At most 2 rebuy(s) per player (SP-12)" in sheet.options
    by = {p.player: p for p in sheet.places}
    assert by["B"].credit_text == "1/3" and sum(p.pko_points for p in sheet.places) == 400
    publish(session, Renderer(b"k"), tmp_path, found, w.EVENING + timedelta(hours=1))

    m = w.tournament(session, **w.BOUNTY | {"bounty_type": "mystery"}, mystery=True)
    set_mystery_prizes(session, m.id, ["Кубок", "Худи", "Кепка"])
    e = w.field(session, m, "XYZ")
    [k] = record_knockouts(session, m.id, [Bust(e["X"].id, e["Z"].id)], now=w.EVENING, actor="f")
    drawn = mystery_draw(session, k.id, now=w.EVENING, actor="f")
    record_knockouts(session, m.id, [Bust(e["Y"].id, e["Z"].id)], now=w.EVENING, actor="f")
    finalize_tournaments(session, w.EVENING + timedelta(hours=1))
    (found,) = [b for b in sources.due(session) if isinstance(b, Bundle) and b.sheet.tournament_id == m.id]
    states = dict(found.sheet.mystery_prizes)
    assert states[drawn.description] == "drawn #1"
    assert sorted(states.values()) == ["drawn #1", "undrawn", "undrawn"]
    assert found.sheet.mystery_seed is not None
