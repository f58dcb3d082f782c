"""Tagged PDFs in the documents' language (DOC-4): every results sheet, season's standings and
certificate has a structure tree, says it is marked (/MarkInfo), carries the club's language as the
catalog's /Lang and a title in that language; read back with pypdf, the certificates' structure
with poppler's `pdfinfo -struct-text`."""

from __future__ import annotations

import dataclasses
import io
import re
import subprocess
from pathlib import Path

import pytest
from pypdf import PdfReader

from domain.documents.rules.model import poker_certificates, pusoy_certificates
from domain.documents.services import locales, sources
from infra import i18n, pdf, render
from infra.render import Renderer, certificate_order
from tests.documents_samples import poker_sheet, pusoy_sheet, season_sheet
from tests.support.world import SP7_FINISHED_AT, finished_poker

KEY = b"tagged-test-key-of-32-bytes-at-least"


@pytest.fixture(scope="module")
def renderer():
    with Renderer(KEY) as renderer:
        yield renderer


def _catalog(data: bytes) -> tuple[dict, str]:
    """The PDF's catalog and its document information's title."""
    reader = PdfReader(io.BytesIO(data))
    return reader.trailer["/Root"], reader.metadata["/Title"]


def _assert_tagged(data: bytes, lang: str) -> dict:
    """A tagged PDF in `lang`: marked, a structure tree whose root holds a Document, the language."""
    catalog, _ = _catalog(data)
    assert catalog["/MarkInfo"]["/Marked"].value is True
    tree = catalog["/StructTreeRoot"].get_object()
    assert tree["/Type"] == "/StructTreeRoot"
    kids = tree["/K"] if isinstance(tree["/K"], list) else [tree["/K"]]
    assert [k.get_object()["/S"] for k in kids] == ["/Document"]
    assert catalog["/Lang"] == lang
    assert catalog["/ViewerPreferences"]["/DisplayDocTitle"].value is True  # viewers show the title, not the file name
    assert pdf.verify(KEY, data) == (pdf.read(data)[0], [])  # still signed and sealed: valid
    return kids[0].get_object()


def _structure(data: bytes, folder: Path) -> list[tuple[str, list[str]]]:
    """The Document's elements as poppler reads them (`pdfinfo -struct-text`): each one's type and
    its text, a string per printed line."""
    (folder / "doc.pdf").write_bytes(data)
    out = subprocess.run(
        ["pdfinfo", "-struct-text", str(folder / "doc.pdf")], check=True, capture_output=True, text=True, timeout=60
    ).stdout
    elements: list[tuple[str, list[str]]] = []
    for line in out.splitlines()[1:]:  # below "Document"
        if line.startswith("    "):
            elements[-1][1].append(line.strip()[1:-1])
        else:
            elements.append((line.split()[0], []))
    return elements


@pytest.mark.parametrize(
    ("locale", "results", "season"),
    [("ru", "Итоги", "Таблица сезона"), ("en", "Results", "Season standings")],
)
def test_doc_4_results_sheets_are_tagged_in_their_language_with_a_title_in_it(renderer, locale, results, season):
    """DOC-4: the poker and Pusoy Dos results sheets and a season's standings: tagged, /Lang the
    sheet's language, the title in it."""
    for data, title in (
        (renderer.poker_sheet(poker_sheet(players=12, paid=4, locale=locale)), f"{results}: Пятничный турнир"),
        (renderer.pusoy_sheet(pusoy_sheet(locale)), f"{results}: Кубок <Пусой>"),
        (renderer.season_sheet(season_sheet(locale)), f"{season}: Зима 2026/27"),
    ):
        document = _assert_tagged(data, locale)
        assert _catalog(data)[1].startswith(title)
        # WeasyPrint's structure: the heading, the tables with their header cells
        found = set()

        def walk(element, found=found):
            found.add(element["/S"])
            for kid in element.get("/K", []) if isinstance(element.get("/K"), list) else [element.get("/K")]:
                if kid is not None and not isinstance(kid, int) and "/S" in kid.get_object():
                    walk(kid.get_object())

        walk(document)
        assert {"/H1", "/Table", "/TH", "/TD"} <= found


@pytest.mark.parametrize(("locale", "title"), [("ru", "Сертификат"), ("en", "Certificate")])
def test_doc_4_a_stamped_certificate_is_tagged_in_its_language_in_reading_order(renderer, tmp_path, locale, title):
    """DOC-4: a certificate (stamped): tagged, /Lang its language, its title "Сертификат <serial>";
    the structure is its page in reading order, one paragraph per line (the title a heading, a long
    line wrapped on the page still one paragraph), the QR code a Figure with a text alternative in
    the certificate's language, the frame an artifact."""
    certificates = poker_certificates(poker_sheet(players=12, paid=4, locale=locale))
    for cert, data in zip(certificates, renderer.certificates(certificates)):
        document = _assert_tagged(data, locale)
        assert _catalog(data)[1] == f"{title} {cert.serial}"
        numbers = [k.idnum for k in document["/K"]]
        elements = [k.get_object() for k in document["/K"]]
        kinds = [e["/S"] for e in elements]
        assert kinds.count("/H1") == 1 and kinds.count("/Figure") == 1 and set(kinds) == {"/H1", "/P", "/Figure"}
        (figure,) = [e for e in elements if e["/S"] == "/Figure"]
        alt = {"ru": "QR-код, открывающий страницу проверки этого сертификата"}.get(
            locale, "QR code opening this certificate's verification page"
        )
        assert figure["/Alt"] == alt
        # every marked-content id of the page belongs to the element the parent tree names
        reader = PdfReader(io.BytesIO(data))
        parents = reader.trailer["/Root"]["/StructTreeRoot"]["/ParentTree"]["/Nums"][1]
        assert {mcid: number for number, element in zip(numbers, elements) for mcid in element["/K"]} == {
            mcid: ref.idnum for mcid, ref in enumerate(parents)
        }
        content = b"".join(c.get_object().get_data() for c in reader.pages[0]["/Contents"])
        assert sorted(int(m) for m in re.findall(rb"<</MCID (\d+)>> BDC", content)) == list(range(len(parents)))
        assert content.startswith(b"/Artifact BMC")

    # the structure's text, in order, is the certificate's page read top to bottom, a wrapped name one paragraph
    long = dataclasses.replace(certificates[0], player="Александра Константиновна Преображенская-Оболенская " * 2)
    (data,) = renderer.certificates([long])
    lines = certificate_order(long, KEY).lines
    awarded = i18n.gettext("awarded to", locale)
    said = _structure(data, tmp_path)
    assert [kind for kind, _ in said] == ["P", "H1", "P", "P", "P", "P", "P", "P", "Figure", "P", "P", "P"]
    assert [text for _, text in said[:8]] == [
        [lines["club"]],
        [lines["title"]],
        [awarded],
        said[3][1],
        [lines["place"]],
        [lines["prize"]],
        [lines["tournament"]],
        [lines["date"]],
    ]
    assert len(said[3][1]) > 1 and "".join("".join(said[3][1]).split()) == "".join(long.player.split())
    assert said[8][1] in ([], [""]) and [text for _, text in said[9:11]] == [[lines["serial"]], [lines["code"]]]
    assert "/verify" in "".join(said[11][1])  # the note, last (wrapped after the slash in Russian)


def test_doc_2_a_tagged_sheet_s_seal_is_in_its_bytes_outside_the_object_streams(renderer):
    """DOC-2: WeasyPrint packs the tagged sheet's small objects into compressed object streams; the
    document information, which holds the seal, is written as an object of its own, so the seal is
    in the file's bytes, where `documents verify` reads it, and a changed byte of the tree fails."""
    assert not render._Information().compressible
    data = renderer.poker_sheet(poker_sheet(players=12, paid=4, locale="ru"))
    assert b"/Type /ObjStm" in data or b"/Type/ObjStm" in data  # the tree packed, as WeasyPrint writes it
    (info,) = re.findall(rb"\n(\d+) 0 obj\n<<[^\n]*/TourneySeal \([0-9a-f]{64}\)", data)
    assert PdfReader(io.BytesIO(data)).trailer.raw_get("/Info").idnum == int(info)
    packed = data.index(b"stream\n", data.index(b"/ObjStm")) + 20  # a byte of the packed objects
    altered = data[:packed] + bytes([data[packed] ^ 1]) + data[packed + 1 :]
    assert "seal-mismatch" in [p.code for p in pdf.verify(KEY, altered)[1]]


def test_doc_4_a_certificate_of_a_pusoy_cup_in_english_is_tagged_en(renderer):
    """DOC-4: a Pusoy Dos champion's certificate in the organizer's English."""
    (data,) = renderer.certificates(pusoy_certificates(pusoy_sheet("en")))
    _assert_tagged(data, "en")
    assert _catalog(data)[1] == "Certificate PD-000007-01"


def test_doc_4_a_russian_club_s_documents_say_ru_and_an_english_club_s_en(session, renderer):
    """DOC-4: from a finished tournament of a club (Russian by default), its sheet and certificates
    say /Lang ru and "Итоги: …"; once the club chooses English, en and "Results: …"."""
    t = finished_poker(session)
    for locale, results, certificate in (("ru", "Итоги", "Сертификат"), ("en", "Results", "Certificate")):
        if locale == "en":
            locales.set_locale(session, "club", t.club_id, "en", SP7_FINISHED_AT)
        bundle = sources.bundle(session, "poker", t.id)
        sheet = renderer.poker_sheet(bundle.sheet, bundle.logo)
        _assert_tagged(sheet, locale)
        assert _catalog(sheet)[1] == f"{results}: <b>Пятница</b>"
        for cert, data in zip(bundle.certificates, renderer.certificates(bundle.certificates, logo=bundle.logo)):
            _assert_tagged(data, locale)
            assert _catalog(data)[1] == f"{certificate} {cert.serial}"


def test_doc_4_certificates_stamped_by_worker_processes_are_tagged_too():
    """DOC-4: the pool's workers write the same tagged certificates."""
    certificates = poker_certificates(poker_sheet(players=12, paid=4, locale="ru"))
    with Renderer(KEY, workers=2) as pooled, Renderer(KEY) as alone:
        assert list(pooled.certificates(certificates, chunk=2)) == list(alone.certificates(certificates, chunk=2))
    _assert_tagged(next(iter(Renderer(KEY).certificates(certificates[:1]))), "ru")
