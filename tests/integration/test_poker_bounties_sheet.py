"""SP-9..SP-12 on the results sheet: the non-default settings, PKO points, exact shared credit, the
mystery prizes drawn and undrawn and the revealed seed."""

from __future__ import annotations

import re
from datetime import datetime, timedelta
from pathlib import Path
from zoneinfo import ZoneInfo

from domain.documents.rules.model import Bundle, SheetOption
from domain.documents.services import sources
from domain.documents.services.publish import publish
from domain.poker.rules.knockouts import Bust
from domain.poker.services.knockouts import record_knockouts
from domain.poker.services.mystery import mystery_draw, set_mystery_prizes
from domain.poker.services.results import finalize_tournaments
from infra import pdf
from infra.render import Renderer
from tests.support import world as w

RULE_ID = re.compile(r"\b(?:SP|PD|DOC|LG|AC|CL)-\d{1,2}\b")  # a rule id; serials (SP-000042-01) are not


def _sheet_text(folder: Path) -> str:
    return " ".join(" ".join(pdf.page_text((folder / "results.pdf").read_bytes())).split())


def test_sp9_sp10_sp11_sp12_settings_points_and_mystery_prizes_on_the_sheet(session, tmp_path):
    """SP-9, SP-10, SP-11, SP-12, DOC-4: the settings as data, worded in the club's language (Russian,
    the club chose none), the rebuy deadline in the club's time (Moscow), counted words inflected;
    no rule id anywhere on the sheet."""
    t = w.tournament(session, **w.BOUNTY | {"bounty_type": "pko"})
    t.pko_head, t.shared_knockouts, t.rebuy_limit, t.reentry_limit = 100, True, 2, 1
    t.rebuy_until, t.rebuy_until_level = w.EVENING + timedelta(minutes=30), None
    session.flush()
    e = w.field(session, t, "ABCD")
    record_knockouts(session, t.id, [Bust(e["A"].id, e["B"].id, e["C"].id, (e["D"].id,))], now=w.EVENING, actor="f")
    record_knockouts(session, t.id, [Bust(e["B"].id, e["D"].id)], now=w.EVENING, actor="f")
    record_knockouts(session, t.id, [Bust(e["C"].id, e["D"].id)], now=w.EVENING, actor="f")
    finalize_tournaments(session, w.EVENING + timedelta(hours=1))
    (found,) = [b for b in sources.due(session) if isinstance(b, Bundle) and b.sheet.tournament_id == t.id]
    sheet = found.sheet
    moscow = ZoneInfo("Europe/Moscow")
    assert sheet.options == (
        SheetOption("pko-head", number=100),
        SheetOption("shared-knockouts"),
        SheetOption("rebuy-until", at=datetime(2026, 11, 29, 23, 30, tzinfo=moscow)),
        SheetOption("rebuy-limit", number=2),
        SheetOption("reentry-limit", number=1),
    )
    by = {p.player: p for p in sheet.places}
    assert by["B"].credit_text == "1/3" and sum(p.pko_points for p in sheet.places) == 400
    done = publish(session, Renderer(b"k" * 32), tmp_path, found, w.EVENING + timedelta(hours=1))
    text = _sheet_text(Path(done["folder"]))
    assert (
        "Прогрессивный нокаут: голова — 100 рейтинговых очков "
        "Общие выбивания: выбившие одного игрока делят выбивание поровну "
        "Ребаи до 23:30 Не больше 2 ребаев на игрока Не больше 1 повторного входа на игрока"
    ) in text
    assert RULE_ID.findall(text) == []

    m = w.tournament(session, **w.BOUNTY | {"bounty_type": "mystery", "levels": w.LEVELS}, mystery=True)
    m.mystery_phase, m.mystery_draw_per = "level:2", "per_knockout"
    session.flush()
    set_mystery_prizes(session, m.id, ["Кубок", "Худи", "Кепка"])
    e = w.field(session, m, "XYZ")
    [k] = record_knockouts(session, m.id, [Bust(e["X"].id, e["Z"].id)], now=w.EVENING, actor="f", level=2)
    drawn = mystery_draw(session, k.id, now=w.EVENING, actor="f")
    record_knockouts(session, m.id, [Bust(e["Y"].id, e["Z"].id)], now=w.EVENING, actor="f")
    finalize_tournaments(session, w.EVENING + timedelta(hours=1))
    (found,) = [b for b in sources.due(session) if isinstance(b, Bundle) and b.sheet.tournament_id == m.id]
    assert found.sheet.options == (SheetOption("mystery", number=2, phase="level", per="per_knockout"),)
    states = dict(found.sheet.mystery_prizes)
    assert states[drawn.description] == 1
    assert sorted(states.values(), key=str) == [1, None, None]
    assert found.sheet.mystery_seed is not None
    done = publish(session, Renderer(b"k" * 32), tmp_path, found, w.EVENING + timedelta(hours=1))
    text = _sheet_text(Path(done["folder"]))
    assert "Призы мистери с уровня 2, один розыгрыш на выбивание" in text
    assert f"{drawn.description} розыгрыш 1" in text and text.count("не разыгран") == 2
    assert f"Зерно жеребьёвки: {found.sheet.mystery_seed}" in text
    assert RULE_ID.findall(text) == []
