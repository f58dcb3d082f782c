"""Picture tests: each kind of document is rendered and its first page drawn as pixels (pdftoppm,
poppler-utils) and compared with a committed reference PNG, so a layout regression fails a test even
when every word is still on the page. Deterministic input: the sample documents (fixed dates) and a
fixed key (the QR code and verification code depend on it).

A deliberate layout change: `TOURNEY_UPDATE_PICTURES=1 pytest tests/integration/test_documents_pictures.py`
rewrites the references; look at them before committing. On a mismatch the rendered page is kept
beside the test's temporary folder and named in the failure.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest
from PIL import Image

from domain.documents.rules.model import poker_certificates, pusoy_certificates
from infra.render import TEMPLATES, Renderer
from tests.documents_samples import OPTIONS, poker_sheet, pusoy_sheet, season_sheet
from tests.support.pictures import PUBLIC_URL, TOLERANCE, differing, first_page

KEY = b"picture-test-key-of-at-least-32-bytes"
REFERENCES = Path(__file__).parent / "pictures"


def documents(renderer: Renderer) -> dict[str, bytes]:
    return {
        "poker-sheet-ru": renderer.poker_sheet(poker_sheet(players=12, paid=4, locale="ru", options=OPTIONS)),
        "poker-sheet-en": renderer.poker_sheet(poker_sheet(players=12, paid=4, locale="en", options=OPTIONS)),
        "pusoy-sheet-en": renderer.pusoy_sheet(pusoy_sheet(locale="en")),
        "certificate-poker-ru": next(
            iter(renderer.certificates(poker_certificates(poker_sheet(players=4, paid=2, locale="ru"))[1:2]))
        ),
        "certificate-pusoy-en": next(iter(renderer.certificates(pusoy_certificates(pusoy_sheet(locale="en"))))),
        "season-sheet-ru": renderer.season_sheet(season_sheet(locale="ru")),
    }


@pytest.fixture(scope="module")
def rendered() -> dict[str, bytes]:
    with Renderer(KEY, public_url=PUBLIC_URL) as renderer:
        return documents(renderer)


@pytest.mark.parametrize(
    "name",
    [
        "poker-sheet-ru",
        "poker-sheet-en",
        "pusoy-sheet-en",
        "certificate-poker-ru",
        "certificate-pusoy-en",
        "season-sheet-ru",
    ],
)
def test_each_document_s_first_page_looks_like_its_reference(rendered, tmp_path, name):
    """DOC-1, DOC-4, DOC-5, LG-3"""
    page = first_page(rendered[name], tmp_path, name)
    reference = REFERENCES / f"{name}.png"
    if os.environ.get("TOURNEY_UPDATE_PICTURES") == "1":
        page.save(reference, optimize=True)
    assert reference.exists(), f"no reference picture {reference}: run with TOURNEY_UPDATE_PICTURES=1"
    with Image.open(reference) as expected:
        share = differing(page, expected.convert("L"))
    assert share <= TOLERANCE, f"{name}: {share:.2%} of the pixels differ; rendered page: {tmp_path / (name + '.png')}"


def test_a_layout_regression_is_caught(tmp_path):
    """The comparison is sensitive: the certificate's title a little larger fails it."""
    templates = tmp_path / "templates"
    shutil.copytree(TEMPLATES, templates)
    css = templates / "documents.css"
    css.write_text(
        css.read_text().replace(".certificate .title { font-size: 36pt;", ".certificate .title { font-size: 40pt;")
    )
    with Renderer(KEY, templates, public_url=PUBLIC_URL) as renderer:
        (data,) = renderer.certificates(pusoy_certificates(pusoy_sheet(locale="en")))
    page = first_page(data, tmp_path, "changed")
    with Image.open(REFERENCES / "certificate-pusoy-en.png") as expected:
        assert differing(page, expected.convert("L")) > TOLERANCE
