"""Certificates by stamping: WeasyPrint lays out a certificate page once, each certificate's own
lines and QR code are then written into that layout.

How a chunk of certificates (one language) becomes one signed PDF each:

1. The *template* of a shape (which lines a certificate has, how many printed lines each needs, the
   club's logo) is `certificates.html` rendered by WeasyPrint with a hidden one-letter placeholder
   for each printed line (`<span class="slot">`) and a hidden QR image: frame, labels, note, logo
   and every box in its place. It is laid out once per renderer and kept (`Stamper.template`).
2. Each certificate's lines are shaped and broken into printed lines with WeasyPrint's own text
   layer (`split_first_line`: Pango and HarfBuzz, the placeholder's computed style, the width of its
   block), so kerning, letter-spacing, wrapping and alignment are WeasyPrint's; the glyph runs are
   written as WeasyPrint's drawing writes them (`draw_first_line`).
3. One WeasyPrint document per chunk holds the templates it needs and a *palette* page drawing every
   glyph cluster the chunk's lines use, each in its line's own style: WeasyPrint then embeds one font
   subset (HarfBuzz) with widths and ToUnicode maps for all of them. Every stamped glyph is checked
   to be in that subset.
4. Each certificate is written as its own small PDF: the chunk's fonts and template page content
   (serialised once per chunk), a content stream with its lines and QR image, its signed data
   (`tourney.json`) and its seal, in the same form `infra.pdf` reads and checks; tagged, in its
   language (a structure element per block of the page, the QR code a Figure: `infra.stamp_pdf`).

The text side (steps 1 and 2) is `infra.stamp_layout`, the PDF side (step 4) `infra.stamp_pdf`; here
the Stamper keeps the templates and makes a chunk's certificates (step 3).
"""

from __future__ import annotations

import io
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import segno
from markupsafe import Markup, escape
from pypdf import PdfReader
from weasyprint import CSS, HTML

from infra.stamp_layout import (
    Fonts,
    Line,
    Template,
    placeholders,
    set_lines,
    template_of,
    text_color,
)
from infra.stamp_pdf import base_of, certificate_pdf, page_content, qr_image

# Only for the template documents: the placeholders and the QR image keep their boxes, drawn nowhere.
TEMPLATE_CSS = ".slot, img.qr { visibility: hidden; }"
TEMPLATES = 32  # laid-out templates a Stamper keeps (shapes × club logos)
PLACEHOLDER_QR = segno.make("X", error="m", mask=0).png_data_uri(scale=1, border=0)  # hidden: only its box


@dataclass(frozen=True)
class Order:
    """One certificate to stamp: its printed lines (infra.i18n.certificate_lines), the URL its QR
    code opens, its signed data, its PDF title and its language (the PDF's /Lang, DOC-4)."""

    lines: dict[str, str]
    url: str
    embedded: dict[str, Any]
    title: str
    lang: str


class Stamper:
    """Stamps certificates of one language into templates laid out once (kept per shape)."""

    def __init__(self, env: Any, css: Any, font_config: Any, base_url: str, public_url: str):
        self.env, self.css, self.font_config = env, css, font_config
        self.base_url, self.public_url = base_url, public_url
        self.template_css = CSS(string=TEMPLATE_CSS, font_config=font_config)
        self.names: dict[int, str] = {}
        self.widths: dict[tuple[int, int], int] = {}
        self.templates: dict[tuple[tuple[tuple[str, int], ...], str | None], Template] = {}

    def _document(self, lines: dict[str, Markup], logo: str | None) -> Any:
        html = self.env.get_template("certificates.html").render(
            public_url=self.public_url, certificates=[{"lines": lines, "qr": PLACEHOLDER_QR}], logo=logo
        )
        return HTML(string=html, base_url=self.base_url).render(
            stylesheets=[self.css, self.template_css], font_config=self.font_config
        )

    def template(self, shape: tuple[tuple[str, int], ...], logo: str | None) -> Template:
        """The laid-out template of a shape with a logo (or none); the last `TEMPLATES` are kept."""
        if (shape, logo) not in self.templates:
            document = self._document(placeholders(shape), logo)
            if len(document.pages) != 1:
                raise RuntimeError(f"the certificate template of {shape} is {len(document.pages)} pages, not one")
            if len(self.templates) >= TEMPLATES:
                del self.templates[next(iter(self.templates))]
            self.templates[shape, logo] = template_of(document, Fonts(self.names, self.widths))
        return self.templates[shape, logo]

    def certificates(self, key: bytes, orders: Sequence[Order], logo: str | None = None) -> list[bytes]:
        """One signed PDF per order, in order; `logo` (an image URI) is part of the template."""
        fonts = Fonts(self.names, self.widths)
        planned, shaped = [], {}  # shaped: (line name, text) -> printed lines, the same for every certificate
        for order in orders:
            single = self.template(tuple((name, 1) for name in order.lines), logo)
            printed = {}
            for name, text in order.lines.items():
                if (name, text) not in shaped:
                    shaped[name, text] = set_lines(fonts, text, single.slot(name), name)
                printed[name] = shaped[name, text]
            planned.append((self.template(tuple((name, len(rows)) for name, rows in printed.items()), logo), printed))
        used = list({id(t): t for t, _ in planned}.values())
        names = list({name: None for order in orders for name in order.lines})
        palette = self._document(
            {name: Markup(" ").join(map(escape, sorted(fonts.clusters.get(name, ())))) for name in names}, None
        )
        document = used[0].document.copy([t.document.pages[0] for t in used] + palette.pages)
        reader = PdfReader(io.BytesIO(document.write_pdf()))
        bases = {id(t): base_of(reader, i) for i, t in enumerate(used)}
        subset = bases[id(used[0])].fonts
        for name, glyphs in fonts.needed.items():
            if not glyphs <= subset.get(name, set()):
                raise RuntimeError(f"the font subset {name} lacks glyphs {sorted(glyphs - subset.get(name, set()))}")
        out = []
        for (template, printed), order in zip(planned, orders):
            lines = []
            for item in template.items:
                if isinstance(item, Line):
                    lines.append(item)
                    continue
                name, row, slot = item
                dx, runs = printed[name][row]
                lines.append(Line(slot.x + dx, slot.baseline, text_color(slot.style), runs, slot.block))
            content, tags = page_content(lines, template.qr, template.qr_alt, template.qr_at)
            out.append(
                certificate_pdf(
                    key,
                    bases[id(template)],
                    content,
                    qr_image(order.url),
                    order.embedded,
                    order.title,
                    order.lang,
                    tags,
                )
            )
        return out
