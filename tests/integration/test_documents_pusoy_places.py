"""The Pusoy Dos results sheet's final standings are the cup's: players still level after the
cascade share one place, on the sheet's model, in its PDF's text and on the public page alike
(PD-8, PD-13)."""

from __future__ import annotations

import re
import subprocess

from domain.documents.services import sources
from domain.pusoy.services import rounds as pusoy_rounds
from domain.pusoy.services import views as pusoy_views
from infra.render import Renderer
from tests.support.world import PUSOY_NOW, filled, play

# 16 players, 2 games a round. Round 1 (table: its players, in name order, are seats 1-4): below the
# 8 who advance, j 9th, q 10th, b and f level after all eight steps (11th), g, k and o level (13th),
# d 16th.
ROUND_1 = {
    1: [("a b c d", None), ("a c d b", None)],
    2: [("e f g h", None), ("h e g f", None)],
    3: [("i j k l", None), ("i l k j", None)],
    4: [("m n o q", None), ("n q o m", None)],
}
ROUND_2 = {1: [("A B C D", None), ("A B C D", None)], 2: [("E F G H", None), ("F E H G", None)]}
FINAL = {1: [("W X Y Z", None), ("W X Y Z", None)]}
PLACES = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 11, 13, 13, 13, 16]


def _played(session):
    t = filled(session, 16, games=2, name="Кубок 16")
    roles = {}
    for number, case in enumerate((ROUND_1, ROUND_2, FINAL), start=1):
        roles[number] = play(session, t, number, case)
        assert pusoy_rounds.complete_round(session, t.id, number, PUSOY_NOW).outcome in ("advanced", "champion")
    session.refresh(t)
    return t, roles


def test_pd_8_pd_13_the_sheet_s_final_standings_share_the_places_the_cup_s_page_shows(session, tmp_path):
    """PD-8, PD-13: players level after all eight steps keep one shared rank, and a final position is
    the rank in the round the player left: the sheet lists 11, 11, 13, 13, 13, 16 as the public page
    does, not 11..16."""
    t, roles = _played(session)
    sheet = sources.bundle(session, "pusoy", t.id).sheet
    final = [(f.position, f.player) for f in sheet.final_standings]
    assert [position for position, _ in final] == PLACES
    first = roles[1]
    assert final[8:] == [
        (9, first["j"]),
        (10, first["q"]),
        *sorted((11, first[p]) for p in "bf"),
        *sorted((13, first[p]) for p in "gko"),
        (16, first["d"]),
    ]
    assert final[0] == (1, t.champion) == (1, roles[3]["W"])
    # the public page's positions (the entries' final positions), in the same order
    public = [(row["position"], row["player"]) for row in pusoy_views.final_standings_view(session, t.code)]
    assert final == public
    # the sheet's own round tables: each player's position is their rank in the round they left
    left = {f.player: f.round_left for f in sheet.final_standings}
    ranks = {(r.number, s.player): s.rank for r in sheet.rounds for s in r.standings}
    assert all(position == ranks[left[player], player] for position, player in final)

    with Renderer(b"places-test-key-of-32-bytes-or-more") as renderer:
        (tmp_path / "results.pdf").write_bytes(renderer.pusoy_sheet(sheet))
    text = subprocess.run(
        ["pdftotext", "-layout", str(tmp_path / "results.pdf"), "-"],
        check=True,
        capture_output=True,
        text=True,
        timeout=60,
    ).stdout
    section = text.split("Final standings", 1)[1].split("Round 1", 1)[0]
    printed = [(int(m[1]), m[2]) for m in re.finditer(r"^\s*(\d+)\s+(u\d\d)\s", section, re.M)]
    assert printed == final
