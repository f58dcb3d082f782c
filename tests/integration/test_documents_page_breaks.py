"""Results sheets across pages: a heading never ends a page, a table's first or last row is never
alone on a page, and every page a table continues on starts with its header row again. The sizes
below are ones that broke each rule before the stylesheet's page-break rules (found by a sweep)."""

from __future__ import annotations

import re
from datetime import date

import pytest

from domain.documents.rules.model import PusoyRound, PusoySheet, PusoyStanding
from infra import pdf
from infra.render import Renderer
from tests.documents_samples import poker_sheet

HEADING = re.compile(r"^(Final standings|Final places|Round \d+( \(the final\))?|Playoffs)$")
HEADER = re.compile(r"^(Position|Rank|Place) Player ")


def big_pusoy(sizes: tuple[int, ...]) -> PusoySheet:
    rounds, alive = [], [f"P{i:02d}" for i in range(sizes[0])]
    for number, _size in enumerate(sizes, start=1):
        advance = sizes[number] if number < len(sizes) else 1
        rows = tuple(
            PusoyStanding(r + 1, p, 100 - r, None if r == 0 else "fewer points", r < advance)
            for r, p in enumerate(alive)
        )
        rounds.append(PusoyRound(number, 2, rows))
        alive = alive[:advance]
    return PusoySheet(1, "Big cup", None, date(2026, 1, 1), sizes[0], sizes, 2, tuple(rounds), (), alive[0])


def layout_problems(pages: list[str]) -> list[str]:
    found = []
    bodies = [page.strip().splitlines()[:-1] for page in pages]  # the last line is the page footer
    for i, lines in enumerate(bodies, start=1):
        if HEADING.match(lines[-1]) or HEADER.match(lines[-1]):
            found.append(f"page {i} ends with {lines[-1]!r}")
        if len(lines) >= 3 and HEADING.match(lines[-3]) and HEADER.match(lines[-2]):
            found.append(f"page {i} ends with a table's first row alone: {lines[-1]!r}")
        if i > 1 and HEADER.match(lines[0]) and (len(lines) == 2 or not lines[2][:1].isdigit()):
            found.append(f"page {i} starts with a table's last row alone: {lines[1]!r}")
        if i > 1 and lines[0][:1].isdigit():
            found.append(f"page {i} continues a table without its header row: {lines[0]!r}")
    return found


@pytest.fixture(scope="module")
def renderer() -> Renderer:
    return Renderer(b"page-break-test-key-of-32-bytes-or-more")


@pytest.mark.parametrize("sizes", [(30, 12, 4), (42, 20, 4), (62, 28, 4), (40, 20, 8, 4)])
def test_a_long_pusoy_sheet_keeps_headings_and_rows_with_their_tables(renderer, sizes):
    pages = pdf.page_text(renderer.pusoy_sheet(big_pusoy(sizes)))
    assert len(pages) > 1
    assert layout_problems(pages) == []


@pytest.mark.parametrize("players", [75, 120])
def test_a_long_poker_sheet_keeps_its_rows_together(renderer, players):
    pages = pdf.page_text(renderer.poker_sheet(poker_sheet(players=players, paid=5)))
    assert len(pages) > 1
    assert layout_problems(pages) == []


@pytest.mark.parametrize("players", [70, 140])
def test_lg3_a_long_season_standings_repeats_its_header_and_keeps_rows_together(renderer, players):
    """LG-3: a season of many players over several pages: every page after the first starts with
    the header row (its labels wrap over two lines), no page holds a single row, every row once in
    order, and the season's rules under the table are never split."""
    from dataclasses import replace
    from decimal import Decimal

    from domain.documents.rules.model import SeasonRow
    from tests.documents_samples import season_sheet

    rows = tuple(
        SeasonRow(i, f"Player {i}", Decimal(1000 - i), 2, 3, 0, Decimal(500 - i)) for i in range(1, players + 1)
    )
    pages = pdf.page_text(renderer.season_sheet(replace(season_sheet(locale="en"), rows=rows)))
    assert len(pages) > 1
    printed = [[line for line in page.splitlines() if re.match(r"^\d+ Player \d+ ", line)] for page in pages]
    assert [line.split(" ")[2] for lines in printed for line in lines] == [str(i) for i in range(1, players + 1)]
    assert all(len(lines) >= 2 for lines in printed)
    assert all(
        page.lstrip().startswith("Rank Player Points")
        for page, lines in zip(pages[1:], printed[1:], strict=True)
        if lines
    )
    # the season's rules stay together
    assert [("Points for a place" in page, "Ranked by total points" in page) for page in pages].count((True, True)) == 1
