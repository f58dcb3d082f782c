"""Documents rendered for real (Jinja2 + WeasyPrint) and read back with pypdf (DOC-1..DOC-3).
No database: these render once per module and check the PDFs' text, fonts and signatures."""

from __future__ import annotations

import io
import json
import shutil

import pytest
from pypdf import PdfReader

from domain.documents.rules.model import poker_certificates, pusoy_certificates
from domain.errors import ConfigurationError
from infra import pdf
from infra.render import TEMPLATES, Renderer
from tests.documents_samples import poker_sheet, pusoy_sheet

KEY = b"render-test-key"


@pytest.fixture(scope="module")
def renderer() -> Renderer:
    return Renderer(KEY)


@pytest.fixture(scope="module")
def poker_pdf(renderer) -> bytes:
    return renderer.poker_sheet(poker_sheet(players=12, paid=4))


@pytest.fixture(scope="module")
def certificate_pdfs(renderer) -> list[bytes]:
    return list(renderer.certificates(poker_certificates(poker_sheet(players=12, paid=4))))


def _squeeze(text: str) -> str:
    return " ".join(text.split())


def test_doc_3_the_poker_sheet_prints_cyrillic_and_markup_as_written(poker_pdf):
    """DOC-1, DOC-3"""
    (text,) = pdf.page_text(poker_pdf)
    text = _squeeze(text)
    assert "Пятничный турнир <i>Deepstack</i>" in text
    assert text.startswith("Клуб «Туз» Пятничный турнир <i>Deepstack</i> November 27, 2026 ")
    assert "Entries Re-entries Rebuys Add-ons Prize places 14 2 3 5 4" in text
    assert "paid" not in text.lower()  # DOC-4: prize places, never "paid"
    assert "1 <b>Иван</b> 2.5 Кубок чемпиона" in text
    assert "2 Zoë O'Hara & Co 0 Club hoodie" in text
    assert "4 Player 4 0 Freeroll ×4" in text
    assert "12 Player 12 0" in text


def test_doc_1_the_pusoy_sheet_shows_rounds_tiebreak_steps_playoffs_and_champion(renderer):
    """DOC-1, PD-7"""
    text = _squeeze(" ".join(pdf.page_text(renderer.pusoy_sheet(pusoy_sheet()))))
    assert text.startswith("Кубок <Пусой> November 28, 2026 ")
    assert "Players Bracket Games per round Champion 8 8 → 4 2 Борис" in text
    assert "3 A 5 fewer first places won on the 2 of diamonds advanced" in text
    assert "6 F 2 a worse finish in the round's last game out" in text
    assert "2 E 3 the playoff" in text
    assert "1 Борис 3 champion" in text
    assert "Playoffs" in text and "2 1 Борис, E" in text


def test_doc_3_only_the_bundled_fonts_are_embedded(renderer, poker_pdf, certificate_pdfs):
    """DOC-3: no text depends on the machine's fonts (the Pusoy sheet has an arrow, too)."""
    for data in (poker_pdf, certificate_pdfs[0], renderer.pusoy_sheet(pusoy_sheet())):
        fonts = {
            str(font.get_object()["/BaseFont"]).split("+", 1)[1]
            for page in PdfReader(io.BytesIO(data)).pages
            for font in page["/Resources"]["/Font"].values()
        }
        assert fonts == {"Liberation-Sans", "Liberation-Sans-Bold"}


def test_doc_1_each_certificate_is_one_signed_page_with_its_own_fields(certificate_pdfs):
    """DOC-1, DOC-2, DOC-3"""
    assert len(certificate_pdfs) == 4
    texts = [pdf.page_text(data) for data in certificate_pdfs]
    assert all(len(t) == 1 for t in texts)
    first = texts[0][0].splitlines()
    assert first[:7] == [
        "Клуб «Туз»",
        "Champion",
        "awarded to",
        "<b>Иван</b>",
        "1st place",
        "Кубок чемпиона",
        "Пятничный турнир <i>Deepstack</i>",
    ]
    assert "tourney documents verify" not in texts[0][0]  # DOC-5: no command line on a certificate
    assert "Serial SP-000042-01" in first
    assert "Serial SP-000042-04" in texts[3][0] and "Freeroll ×4" in texts[3][0]
    for data in certificate_pdfs:
        embedded, problems = pdf.verify(KEY, data)
        assert problems == []
        assert embedded["type"] == "Certificate"


def test_doc_2_the_printed_verification_code_is_the_signature_s(certificate_pdfs):
    """DOC-2"""
    from domain.documents.rules.signing import verification_code

    embedded, _ = pdf.verify(KEY, certificate_pdfs[1])
    assert f"Verification code {verification_code(embedded['signature'])}" in pdf.page_text(certificate_pdfs[1])[0]


def test_doc_2_sheets_are_signed_too(poker_pdf):
    """DOC-2"""
    embedded, problems = pdf.verify(KEY, poker_pdf)
    assert problems == [] and embedded["type"] == "PokerSheet" and embedded["data"]["tournament_id"] == 42


@pytest.mark.parametrize("where", [0.25, 0.5, 0.75, 0.99])
def test_doc_2_a_changed_byte_anywhere_fails(certificate_pdfs, where):
    """DOC-2"""
    data = bytearray(certificate_pdfs[0])
    index = int(len(data) * where)
    data[index] = (data[index] + 1) % 256
    _, problems = pdf.verify(KEY, bytes(data))
    assert problems and problems[0].code in ("seal-mismatch", "seal-missing")


def test_doc_2_an_altered_field_fails_even_when_the_file_is_resealed(renderer, certificate_pdfs):
    """DOC-2: someone who edits the embedded place and reseals with our own code still fails."""
    embedded, _ = pdf.verify(KEY, certificate_pdfs[1])
    embedded["data"]["place"] = 1
    altered = pdf.seal_document(KEY, certificate_pdfs[1], embedded, "x")
    _, problems = pdf.verify(KEY, altered)
    assert [p.code for p in problems] == ["signature-mismatch", "field-mismatch"]
    assert problems[1].message == "the page does not show the signed place: '1st place'"


def test_doc_2_a_certificate_page_swapped_under_valid_data_names_what_differs(certificate_pdfs):
    """DOC-2: valid data and seal, but the page is another certificate's."""
    embedded, _ = pdf.verify(KEY, certificate_pdfs[0])
    swapped = pdf.seal_document(KEY, certificate_pdfs[2], embedded, "x")
    _, problems = pdf.verify(KEY, swapped)
    assert {p.code for p in problems} == {"field-mismatch"}
    assert "the page does not show the signed player: '<b>Иван</b>'" in [p.message for p in problems]


def test_doc_2_a_forged_certificate_made_with_another_key_fails(certificate_pdfs):
    """DOC-2"""
    _, problems = pdf.verify(b"another key", certificate_pdfs[0])
    assert [p.code for p in problems][:2] == ["seal-mismatch", "signature-mismatch"]


def test_a_pdf_that_is_not_ours_is_not_signed(poker_pdf):
    from weasyprint import HTML

    _, problems = pdf.verify(KEY, HTML(string="<p>hello</p>").write_pdf())
    assert [p.code for p in problems] == ["seal-missing", "not-signed"]


def test_a_pusoy_champion_certificate_without_a_club_verifies(renderer):
    (data,) = renderer.certificates(pusoy_certificates(pusoy_sheet()))
    assert pdf.page_text(data)[0].startswith("Champion\nawarded to\nБорис\n1st place\n")
    embedded, problems = pdf.verify(KEY, data)
    assert problems == [] and embedded["data"]["club"] is None
    assert json.loads(json.dumps(embedded))["data"]["player"] == "Борис"


def test_certificates_rendered_in_chunks_are_the_same_pages(renderer):
    certs = poker_certificates(poker_sheet(players=12, paid=4))
    assert [pdf.page_text(d) for d in renderer.certificates(certs, chunk=3)] == [
        pdf.page_text(d) for d in renderer.certificates(certs)
    ]


def test_a_missing_font_file_is_a_clear_error(tmp_path):
    shutil.copytree(TEMPLATES, tmp_path / "templates")
    (tmp_path / "templates" / "fonts" / "LiberationSans-Bold.ttf").unlink()
    with pytest.raises(ConfigurationError) as caught:
        Renderer(KEY, tmp_path / "templates")
    assert caught.value.code == "document-asset-missing"
    assert "LiberationSans-Bold.ttf is missing" in caught.value.message


def test_certificates_rendered_by_worker_processes_are_the_same_signed_pages(renderer):
    """DOC-2: a batch larger than a chunk is shared among worker processes, in order, each signed"""
    certs = poker_certificates(poker_sheet(players=12, paid=7))
    with Renderer(KEY, workers=2) as pooled:
        spread = list(pooled.certificates(certs, chunk=3))
    assert [pdf.page_text(d) for d in spread] == [pdf.page_text(d) for d in renderer.certificates(certs)]
    assert [pdf.verify(KEY, d)[0]["data"]["serial"] for d in spread] == [c.serial for c in certs]
    assert all(pdf.verify(KEY, d)[1] == [] for d in spread)
