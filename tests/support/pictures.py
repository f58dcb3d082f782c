"""Pages as pixels, for the picture tests: a PDF's first page drawn by pdftoppm (poppler-utils), the
share of pixels two pages differ by, and WeasyPrint's own page of a certificate (the reference a
stamped certificate is held to), with the certificates those tests stamp."""

from __future__ import annotations

import dataclasses
import shutil
import subprocess
from datetime import date
from pathlib import Path

import segno
from PIL import Image, ImageChops
from weasyprint import CSS, HTML
from weasyprint.text.fonts import FontConfiguration

from domain.clubs.rules.logo import Logo
from domain.documents.rules.model import Certificate
from infra import pdf
from infra.render import STYLESHEET, TEMPLATES, certificate_order, environment, logo_uri

DPI = 40
# a pixel differs when its grey level moves by more than LEVEL; a page differs when more than
# TOLERANCE of its pixels do (anti-aliasing may vary by a level or two between poppler builds)
LEVEL = 48
TOLERANCE = 0.002


def first_page(data: bytes, folder: Path, name: str) -> Image.Image:
    """The first page of the PDF `data` drawn in grey at DPI (files kept in `folder` as `name`)."""
    assert shutil.which("pdftoppm"), (
        "pdftoppm (poppler-utils) is missing: `make setup` installs it (infra/setup-system.sh)"
    )
    source = folder / f"{name}.pdf"
    source.write_bytes(data)
    subprocess.run(
        [
            "pdftoppm",
            "-f",
            "1",
            "-l",
            "1",
            "-r",
            str(DPI),
            "-gray",
            "-png",
            "-singlefile",
            str(source),
            str(folder / name),
        ],
        check=True,
        capture_output=True,
        timeout=60,
    )
    with Image.open(folder / f"{name}.png") as picture:
        return picture.convert("L")


def differing(a: Image.Image, b: Image.Image) -> float:
    """The share of pixels whose grey level differs by more than LEVEL (1.0 when the sizes differ)."""
    if a.size != b.size:
        return 1.0
    diff = ImageChops.difference(a, b).point(lambda v: 255 if v > LEVEL else 0)
    return diff.histogram()[255] / (a.size[0] * a.size[1])


# the certificates the stamp tests stamp, and the key and address they are stamped with
STAMP_KEY = b"stamp-test-key-of-at-least-32-bytes!"
PUBLIC_URL = "https://tourney.example.org"
BASE = Certificate(
    serial="SP-000042-01",
    source="poker",
    tournament_id=42,
    tournament="Пятничный турнир",
    club="Клуб «Туз»",
    held_on=date(2026, 11, 27),
    player="Иван",
    place=1,
    prize="Кубок",
    title="Champion",
    locale="en",
)
LONG_NAME = "Александра Константиновна Преображенская-Воскресенская фон Гогенцоллерн-Зигмаринген"
ONE_WORD = "Ы" * 40  # wider than the line: broken anywhere (overflow-wrap)
CERTIFICATES = {
    "kerning": dataclasses.replace(BASE, player="AVA Tøyen, Wolf LTAV «Yo» Pyotr", prize="Tea & Toffee"),
    "long name": dataclasses.replace(BASE, player=LONG_NAME, place=2, title="Prize winner"),
    "one long word": dataclasses.replace(BASE, player=ONE_WORD, locale="ru"),
    "long club and tournament": dataclasses.replace(
        BASE,
        club="Спортивный клуб любителей интеллектуальных игр «Туз пик» города Нижний Новгород",
        tournament="Открытый осенний кубок клуба по спортивному покеру, второй этап <i>Deepstack</i>",
    ),
    "no club, no prize": dataclasses.replace(BASE, club=None, prize=None, source="pusoy", serial="PD-000007-01"),
    "russian": dataclasses.replace(BASE, place=3, title="Prize winner", locale="ru", prize="Dinner for 2"),
}


def weasyprint_page(cert: Certificate, logo: Logo | None = None) -> bytes:
    """The certificate as WeasyPrint draws it: its own document, the same template and view."""
    order = certificate_order(cert, STAMP_KEY, PUBLIC_URL)
    qr = segno.make(order.url, error="m", mask=0).png_data_uri(scale=1, border=0)
    html = (
        environment(TEMPLATES, cert.locale)
        .get_template("certificates.html")
        .render(certificates=[{"lines": order.lines, "qr": qr}], logo=logo_uri(logo), public_url=PUBLIC_URL)
    )
    fonts = FontConfiguration()
    css = CSS(filename=str(TEMPLATES / STYLESHEET), font_config=fonts)
    data = HTML(string=html, base_url=str(TEMPLATES)).write_pdf(stylesheets=[css], font_config=fonts)
    return pdf.seal_document(STAMP_KEY, data, order.embedded, order.title)
