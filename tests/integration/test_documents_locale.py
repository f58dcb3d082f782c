"""DOC-4 and DOC-5 rendered for real: the club's language on every label, CLDR dates and numbers, and
the certificate's QR code read back from the PDF's pixels as the public verification URL."""

from __future__ import annotations

import pytest
import segno

from domain.documents.rules.model import poker_certificates, pusoy_certificates
from domain.documents.rules.signing import verification_code
from domain.documents.services import locales, sources
from domain.errors import DomainError, NotFound
from infra import pdf
from infra.render import Renderer, verification_url
from tests.documents_samples import poker_sheet, pusoy_sheet
from tests.support.cli import run
from tests.support.world import SP7_FINISHED_AT, complete_pusoy, finished_poker

KEY = b"locale-test-key-of-at-least-32-bytes"


@pytest.fixture(scope="module")
def renderer() -> Renderer:
    return Renderer(KEY, public_url="https://clubs.example.org/t")


def _squeeze(text: str) -> str:
    return " ".join(text.split())


def test_doc_4_a_russian_poker_sheet(renderer):
    """DOC-4"""
    (text,) = pdf.page_text(renderer.poker_sheet(poker_sheet(players=12, paid=4, locale="ru")))
    text = _squeeze(text)
    assert text.startswith("Клуб «Туз» Пятничный турнир <i>Deepstack</i> 27 ноября 2026 г. ")
    assert "Входы Повторные входы Ребаи Аддоны Призовые места 14 2 3 5 4" in text
    assert "Итоговые места Место Игрок Выбивания Приз 1 <b>Иван</b> 2,5 Кубок чемпиона" in text
    assert text.endswith("стр. 1 из 1")


def test_doc_4_a_russian_pusoy_sheet_puts_the_final_standings_first_and_words_each_tiebreak(renderer):
    """DOC-4, PD-13, PD-7"""
    text = _squeeze(" ".join(pdf.page_text(renderer.pusoy_sheet(pusoy_sheet(locale="ru")))))
    assert (
        text.index("Итоговая таблица") < text.index("Раунд 1") < text.index("Раунд 2 (финал)") < text.index("Плей-офф")
    )
    assert "Итоговая таблица Место Игрок Выбыл 1 Борис чемпион 2 E в финале" in text
    assert "8 C в раунде 1" in text
    assert "3 A 5 меньшему числу первых мест, выигранных двойкой бубен прошёл дальше" in text
    assert "2 E 3 плей-офф" in text


def test_doc_4_a_russian_certificate_verifies_in_its_own_language(renderer):
    """DOC-4, DOC-2"""
    data = list(renderer.certificates(poker_certificates(poker_sheet(players=4, paid=2, locale="ru"))))[1]
    lines = pdf.page_text(data)[0].splitlines()
    assert lines[:8] == [
        "Клуб «Туз»",
        "Призёр",
        "вручается",
        "Zoë O'Hara & Co",
        "2-е место",
        "Худи клуба",
        "Пятничный турнир <i>Deepstack</i>",
        "27 ноября 2026\u202fг.",
    ]
    embedded, problems = pdf.verify(KEY, data)
    assert problems == [] and embedded["data"]["locale"] == "ru"


def _qr_modules(data: bytes) -> list[list[bool]]:
    import io

    from pypdf import PdfReader

    (image,) = PdfReader(io.BytesIO(data)).pages[0].images
    picture = image.image.convert("L")
    width, height = picture.size
    return [[picture.getpixel((x, y)) < 128 for x in range(width)] for y in range(height)]


def test_doc_5_the_qr_code_opens_the_public_verification_page_of_that_certificate(renderer):
    """DOC-5: the pixels of the QR image in the PDF are exactly the code of
    TOURNEY_PUBLIC_URL/verify/<serial>?code=<code>; the code is printed for typing too."""
    cert = pusoy_certificates(pusoy_sheet())[0]
    (data,) = renderer.certificates([cert])
    embedded, problems = pdf.verify(KEY, data)
    code = verification_code(embedded["signature"])
    url = f"https://clubs.example.org/t/verify/PD-000007-01?code={code}"
    assert verification_url("https://clubs.example.org/t/", cert.serial, code) == url
    expected = [[bool(v) for v in row] for row in segno.make(url, error="m", mask=0).matrix]
    assert _qr_modules(data) == expected
    text = pdf.page_text(data)[0]
    assert f"Verification code {code}" in text and "Serial PD-000007-01" in text
    assert "https://clubs.example.org/t/verify" in _squeeze(text)
    assert "tourney documents" not in text and problems == []


def test_doc_4_languages_by_default_and_by_choice(session):
    """DOC-4: a Sport Poker club's documents are Russian unless the club chooses English; a Pusoy Dos
    tournament follows its organizer's choice, else its club's, else English."""
    t = finished_poker(session)
    assert sources.bundle(session, "poker", t.id).sheet.locale == "ru"
    assert all(c.locale == "ru" for c in sources.bundle(session, "poker", t.id).certificates)
    assert locales.set_locale(session, "club", t.club_id, "en", SP7_FINISHED_AT) == {
        "scope": "club",
        "id": t.club_id,
        "locale": "en",
    }
    assert sources.bundle(session, "poker", t.id).sheet.locale == "en"
    p, _, _ = complete_pusoy(session)
    assert sources.bundle(session, "pusoy", p.id).sheet.locale == "en"
    locales.set_locale(session, "pusoy", p.id, "ru", SP7_FINISHED_AT)
    bundle = sources.bundle(session, "pusoy", p.id)
    assert bundle.sheet.locale == "ru" and bundle.certificates[0].locale == "ru"


def test_doc_4_a_pusoy_cup_of_a_club_speaks_the_club_s_language_chosen_or_not(session):
    """DOC-4: a Pusoy Dos cup of a club that chose no language gets the club's language (Russian, as
    its poker); the club's choice, then the organizer's, override it; a cup without a club is English."""
    from tests.support import world

    club = world.club(session)
    p, _, _ = complete_pusoy(session, club_id=club.id)
    assert sources.bundle(session, "pusoy", p.id).sheet.locale == "ru"
    assert locales.pusoy_tournament_locale(session, p.id) == "ru"
    locales.set_locale(session, "club", club.id, "en", SP7_FINISHED_AT)
    assert sources.bundle(session, "pusoy", p.id).sheet.locale == "en"
    locales.set_locale(session, "pusoy", p.id, "ru", SP7_FINISHED_AT)
    bundle = sources.bundle(session, "pusoy", p.id)
    assert (bundle.sheet.locale, bundle.certificates[0].locale) == ("ru", "ru")
    assert [locales.pusoy_locale(None, None, None), locales.pusoy_locale(None, 7, None)] == ["en", "ru"]


def test_doc_4_a_bad_language_or_unknown_club_is_refused(session):
    """DOC-4"""
    t = finished_poker(session)
    with pytest.raises(DomainError) as caught:
        locales.set_locale(session, "club", t.club_id, "fr", SP7_FINISHED_AT)
    assert caught.value.message == "the documents' language must be one of ru, en, not 'fr'"
    with pytest.raises(NotFound) as unknown:
        locales.set_locale(session, "club", 987654, "en", SP7_FINISHED_AT)
    assert unknown.value.message == "no club 987654"
    assert sources.bundle(session, "poker", t.id).sheet.locale == "ru"  # nothing written


def test_doc_4_the_language_command(engine, tmp_path):
    """DOC-4: one line and exit 2 for bad input; JSON for a change."""
    bad = run("documents", "language", "club", "1", "de", env={"TOURNEY_HOME": str(tmp_path)})
    assert bad.returncode == 2
    assert bad.stderr.strip() == "error: the documents' language must be one of ru, en, not 'de'"
    unknown = run("documents", "language", "pusoy", "987654", "en", env={"TOURNEY_HOME": str(tmp_path)})
    assert (unknown.returncode, unknown.stderr.strip()) == (2, "error: no Pusoy Dos tournament 987654")
    scope = run("documents", "language", "series", "1", "en", env={"TOURNEY_HOME": str(tmp_path)})
    assert scope.returncode == 2 and scope.stderr.startswith("error: the documents' language is set for")
