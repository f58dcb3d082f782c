"""Stamped certificates (infra/stamp.py) against WeasyPrint's own page of the same certificate:
the same text read back (pypdf, and poppler's pdftotext), the same pixels within the picture tests'
tolerance, and every stamped page passes the check (DOC-1..DOC-5). Names with kerning pairs, long
names that wrap, a word too long for a line, no club, no prize, both languages."""

from __future__ import annotations

import dataclasses
import io
import shutil
import subprocess
from pathlib import Path

import pytest
from pypdf import PdfReader

from domain.documents.rules.model import poker_certificates, pusoy_certificates
from infra import pdf
from infra.render import Renderer
from tests.documents_samples import poker_sheet, pusoy_sheet
from tests.support.pictures import (
    BASE,
    CERTIFICATES,
    LONG_NAME,
    ONE_WORD,
    PUBLIC_URL,
    STAMP_KEY,
    TOLERANCE,
    differing,
    first_page,
    weasyprint_page,
)


@pytest.fixture(scope="module")
def stamped() -> dict[str, bytes]:
    with Renderer(STAMP_KEY, public_url=PUBLIC_URL) as renderer:
        return dict(zip(CERTIFICATES, renderer.certificates(list(CERTIFICATES.values()))))


def _pdftotext(data: bytes, folder: Path, name: str) -> str:
    (folder / f"{name}.pdf").write_bytes(data)
    return subprocess.run(
        ["pdftotext", str(folder / f"{name}.pdf"), "-"], check=True, capture_output=True, text=True, timeout=60
    ).stdout


def _height_of(data: bytes, text: str) -> float:
    """The height on the page (PDF points from the bottom) of the line showing `text`."""
    found = []

    def visit(shown, cm, tm, _font, _size):
        if shown.strip() == text:
            found.append(cm[1] * tm[4] + cm[3] * tm[5] + cm[5])

    PdfReader(io.BytesIO(data)).pages[0].extract_text(visitor_text=visit)
    (height,) = found
    return height


@pytest.mark.parametrize("case", list(CERTIFICATES))
def test_doc_1_a_stamped_certificate_is_weasyprint_s_page_of_it(stamped, tmp_path, case):
    """DOC-1, DOC-3, DOC-4: the same text in the same order, the same picture"""
    mine, theirs = stamped[case], weasyprint_page(CERTIFICATES[case])
    assert pdf.page_text(mine) == pdf.page_text(theirs)
    assert shutil.which("pdftoppm") and shutil.which("pdftotext"), (
        "pdftoppm (poppler-utils) is missing: `make setup` installs it (infra/setup-system.sh)"
    )
    assert _pdftotext(mine, tmp_path, "mine") == _pdftotext(theirs, tmp_path, "theirs")
    share = differing(first_page(mine, tmp_path, "mine"), first_page(theirs, tmp_path, "theirs"))
    assert share <= TOLERANCE, f"{case}: {share:.2%} of the pixels differ (pages in {tmp_path})"


def test_doc_3_a_long_name_wraps_and_what_follows_moves_down(stamped, tmp_path):
    """DOC-3: the player's line wraps as the template's CSS says; the place and prize follow it"""
    lines = pdf.page_text(stamped["long name"])[0].splitlines()
    start = lines.index("awarded to") + 1
    name_lines = lines[start : lines.index("2nd place")]
    assert len(name_lines) >= 2 and "".join(name_lines).replace(" ", "") == LONG_NAME.replace(" ", "")
    short = pdf.page_text(stamped["russian"])[0].splitlines()
    assert short[short.index("вручается") + 2] == "3-е место"  # one line when it fits
    # the place line is lower on the page (PDF y grows upwards) by the extra lines of the name
    assert _height_of(stamped["long name"], "2nd place") < _height_of(stamped["russian"], "3-е место") - 100
    broken = pdf.page_text(stamped["one long word"])[0].splitlines()
    word = broken[broken.index("вручается") + 1 : broken.index("1-е место")]
    assert len(word) >= 2 and "".join(word) == ONE_WORD


def test_doc_2_every_stamped_page_verifies(stamped):
    """DOC-2, DOC-5: seal, signature and every signed line found on the page"""
    for case, data in stamped.items():
        embedded, problems = pdf.verify(STAMP_KEY, data)
        assert problems == [], case
        assert embedded["data"]["player"] == CERTIFICATES[case].player


def test_doc_2_a_batch_over_several_chunks_and_shapes_verifies_in_order():
    """DOC-2: 120 certificates, chunks of 50, one and several printed lines for the player"""
    certs = [
        dataclasses.replace(
            BASE, serial=f"SP-000042-{i:02d}", place=i, player=LONG_NAME if i % 7 == 0 else f"Игрок {i}"
        )
        for i in range(1, 121)
    ]
    with Renderer(STAMP_KEY, public_url=PUBLIC_URL) as renderer:
        out = list(renderer.certificates(certs, chunk=50))
    checked = [pdf.verify(STAMP_KEY, data) for data in out]
    assert [embedded["data"]["serial"] for embedded, _ in checked] == [c.serial for c in certs]
    assert all(problems == [] for _, problems in checked)


def test_doc_1_the_sample_certificates_are_weasyprint_s_pages():
    """DOC-1: the sheets' own certificates (markup characters, Cyrillic) stamped and drawn alike"""
    certs = poker_certificates(poker_sheet(players=6, paid=3, locale="ru")) + pusoy_certificates(pusoy_sheet())
    with Renderer(STAMP_KEY, public_url=PUBLIC_URL) as renderer:
        out = list(renderer.certificates(certs))
    assert [pdf.page_text(d) for d in out] == [pdf.page_text(weasyprint_page(c)) for c in certs]
