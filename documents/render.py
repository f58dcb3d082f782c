"""Rendering (the adapter): Jinja2 templates (autoescaped) + WeasyPrint → signed, sealed PDFs.

A `Renderer` loads the templates, the font configuration and the parsed stylesheet once and reuses
them for every document. Certificates are rendered as pages of ONE HTML document (one layout, one
font subset) and then cut into one signed PDF per certificate: the font subsetting that dominates
a small WeasyPrint document is paid once per batch, not once per certificate (see bench_documents).
"""

from __future__ import annotations

import io
from collections.abc import Iterator, Sequence
from pathlib import Path

import segno
from jinja2 import Environment, FileSystemLoader, StrictUndefined
from pypdf import PdfReader
from weasyprint import CSS, HTML
from weasyprint.text.fonts import FontConfiguration

from documents import pdf
from domain.documents.model import Certificate, PokerSheet, PusoySheet
from domain.documents.signing import certificate_lines, verification_code
from domain.errors import ConfigurationError

TEMPLATES = Path(__file__).resolve().parents[1] / "templates"
FONT_FILES = ("fonts/LiberationSans-Regular.ttf", "fonts/LiberationSans-Bold.ttf")
STYLESHEET = "documents.css"
CHUNK = 100  # certificate pages per WeasyPrint document (bench_documents: time vs memory)


def check_assets(templates: Path = TEMPLATES) -> None:
    """A missing font or stylesheet is a clear error before anything renders (never a fallback to
    whatever fonts the machine has)."""
    for name in (*FONT_FILES, STYLESHEET):
        if not (templates / name).is_file():
            raise ConfigurationError("document-asset-missing", f"the document asset {templates / name} is missing")


def environment(templates: Path = TEMPLATES) -> Environment:
    # Autoescape on for every template: user text such as "<b>Иван</b>" prints as written (DOC-3).
    return Environment(loader=FileSystemLoader(templates), autoescape=True, undefined=StrictUndefined)


def certificate_view(cert: Certificate, key: bytes) -> tuple[dict, dict]:
    """What the template shows for a certificate, and the signed data embedded with it."""
    embedded = pdf.signed(key, cert)
    code = verification_code(embedded["signature"])
    qr = segno.make(f"TOURNEY {cert.serial} {code}", error="m", mask=0).png_data_uri(scale=4, border=0)
    return {"lines": certificate_lines(cert, code), "qr": qr}, embedded


class Renderer:
    def __init__(self, key: bytes, templates: Path = TEMPLATES):
        check_assets(templates)
        self.key = key
        self.templates = templates
        self.env = environment(templates)
        self.font_config = FontConfiguration()
        self.css = CSS(filename=str(templates / STYLESHEET), font_config=self.font_config)

    def _render(self, template: str, **context) -> PdfReader:
        html = self.env.get_template(template).render(**context)
        data = HTML(string=html, base_url=str(self.templates)).write_pdf(
            stylesheets=[self.css], font_config=self.font_config
        )
        return PdfReader(io.BytesIO(data))

    def _sheet(self, template: str, sheet: PokerSheet | PusoySheet) -> bytes:
        reader = self._render(template, s=sheet)
        return pdf.seal_pages(
            self.key, reader, range(len(reader.pages)), pdf.signed(self.key, sheet), f"Results: {sheet.tournament}"
        )

    def poker_sheet(self, sheet: PokerSheet) -> bytes:
        return self._sheet("poker_sheet.html", sheet)

    def pusoy_sheet(self, sheet: PusoySheet) -> bytes:
        return self._sheet("pusoy_sheet.html", sheet)

    def certificates(self, certs: Sequence[Certificate], chunk: int = CHUNK) -> Iterator[bytes]:
        """One signed one-page PDF per certificate, in order. Certificates are rendered `chunk` pages
        per WeasyPrint document, so memory stays bounded however many there are."""
        for start in range(0, len(certs), chunk):
            part = certs[start : start + chunk]
            views, embedded = zip(*(certificate_view(c, self.key) for c in part))
            reader = self._render("certificates.html", certificates=views)
            if len(reader.pages) != len(part):
                raise RuntimeError(f"{len(part)} certificates rendered as {len(reader.pages)} pages")
            for i, cert in enumerate(part):
                yield pdf.seal_pages(self.key, reader, [i], embedded[i], f"Certificate {cert.serial}")


def certificate_alone(key: bytes, cert: Certificate, templates: Path = TEMPLATES) -> bytes:
    """The naive way, for the benchmark: one document per certificate, nothing reused (a new
    environment, font configuration and stylesheet each time); same template, same output."""
    env = environment(templates)
    font_config = FontConfiguration()
    css = CSS(filename=str(templates / STYLESHEET), font_config=font_config)
    view, embedded = certificate_view(cert, key)
    html = env.get_template("certificates.html").render(certificates=[view])
    data = HTML(string=html, base_url=str(templates)).write_pdf(stylesheets=[css], font_config=font_config)
    return pdf.seal_pages(key, PdfReader(io.BytesIO(data)), [0], embedded, f"Certificate {cert.serial}")
