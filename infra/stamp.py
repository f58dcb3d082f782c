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
   (`tourney.json`) and its seal, in the same form `infra.pdf` reads and checks.
"""

from __future__ import annotations

import hashlib
import io
import json
import re
import zlib
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import segno
from markupsafe import Markup, escape
from pypdf import PdfReader
from pypdf.generic import ArrayObject, DictionaryObject, IndirectObject, NameObject, StreamObject, TextStringObject
from weasyprint import CSS, HTML
from weasyprint.formatting_structure import boxes
from weasyprint.text.ffi import FROM_UNITS, ffi, pango
from weasyprint.text.fonts import get_pango_font_key
from weasyprint.text.line_break import create_layout, line_size, split_first_line

from infra import pdf

PX = 0.75  # PDF points per CSS pixel: WeasyPrint's page content is drawn in CSS pixels, y downwards
# Only for the template documents: the placeholders and the QR image keep their boxes, drawn nowhere.
TEMPLATE_CSS = ".slot, img.qr { visibility: hidden; }"
_SPACES = re.compile(r"[ \t\n\r\f]+")
_DRAWN = re.compile(rb"/([^\s/\[\]()<>{}%]+)\s+Do\b")
_TEXT = re.compile(rb"^BT$.*?^ET$\n?", re.S | re.M)  # WeasyPrint's text objects: hex strings only


@dataclass(frozen=True)
class Slot:
    """Where one printed line of a certificate's line goes in a template, and how it is set."""

    x: float  # left of the block's content box (CSS px)
    width: float  # the block's content width: the line's available width
    baseline: float  # the baseline of this printed line
    align: str  # text-align of the block: start, end, center, left, right
    style: Any  # the placeholder text's computed style: font, size, letter-spacing, colour


@dataclass
class Run:
    font: str  # the PDF font's resource name (WeasyPrint's font hash)
    size: float
    glyphs: str  # the TJ array's content, as WeasyPrint writes it


@dataclass
class Line:
    x: float
    baseline: float
    color: tuple[float, float, float]
    runs: list[Run]


@dataclass
class Template:
    document: Any  # the laid-out WeasyPrint document (one page)
    items: list[Line | tuple[str, int, Slot]]  # in drawing order: text, or (line name, row, slot)
    qr: tuple[float, float, float, float]  # the QR image's content box: x, y, width, height

    def slot(self, name: str) -> Slot:
        """The first printed line's slot of a line (its block's width and style are the same for all)."""
        return next(item[2] for item in self.items if isinstance(item, tuple) and item[:2] == (name, 0))


@dataclass
class _Fonts:
    """Pango fonts met while shaping, with what the palette must draw so the subset has their glyphs."""

    names: dict[int, str]  # pango font key (any size) -> resource name: kept by the Stamper
    widths: dict[tuple[int, int], int]  # (key, glyph) -> logical width in 1/1000 em: kept too
    needed: dict[str, set[int]] = field(default_factory=dict)  # resource -> glyph ids stamped
    clusters: dict[str, set[str]] = field(default_factory=dict)  # line name -> text clusters to draw


class _Context:
    """What `split_first_line` reads from a layout context: hyphenation dictionaries (unused here,
    the certificates do not hyphenate)."""

    dictionaries: dict = {}


def _font(fonts: _Fonts, pango_font: Any) -> tuple[int, str, float]:
    key, description, size = get_pango_font_key(pango_font)
    if key not in fonts.names:
        # the resource name WeasyPrint gives this font (weasyprint.pdf.fonts.Font.hash)
        text = ffi.string(pango.pango_font_description_to_string(description))
        name = "".join(chr(65 + b % 26) for b in hashlib.md5(text, usedforsecurity=False).digest()[:6])
        fonts.names[key] = name
    return key, fonts.names[key], size


def _glyph_runs(fonts: _Fonts, layout: Any, style: Any, text: str, line_name: str) -> list[Run]:
    """The glyph runs of a line laid out earlier (a WeasyPrint layout, deactivated since)."""
    layout.reactivate(style)
    runs = _runs(fonts, layout, text, line_name)
    layout.deactivate()
    return runs


def _runs(fonts: _Fonts, layout: Any, text: str, line_name: str) -> list[Run]:
    """The glyph runs of a layout's first line, as weasyprint.draw.text.draw_first_line writes them
    (no rise, no bitmap or SVG fonts: the bundled fonts are outline fonts). The clusters of
    `line_name` are kept for the palette ("": drawn by the template itself)."""
    first_line, _ = layout.get_first_line()
    utf8 = layout.text.encode()
    runs: list[Run] = []
    run = first_line.runs[0] if first_line.runs != ffi.NULL else ffi.NULL
    ink, logical = ffi.new("PangoRectangle *"), ffi.new("PangoRectangle *")
    while run != ffi.NULL:
        glyph_item = run.data
        run = run.next
        glyph_string = glyph_item.glyphs
        clusters = glyph_string.log_clusters
        count = glyph_string.num_glyphs
        pango_font = glyph_item.item.analysis.font
        key, name, size = _font(fonts, pango_font)
        needed = fonts.needed.setdefault(name, set())
        string = "<"
        for i, info in enumerate(glyph_string.glyphs[0:count]):
            glyph, width = info.glyph, info.geometry.width
            if glyph == pango.PANGO_GLYPH_EMPTY:
                string += f">{-width / size}<"
                continue
            if glyph & pango.PANGO_GLYPH_UNKNOWN_FLAG:
                raise ValueError(f"no font has a glyph for {chr(glyph - pango.PANGO_GLYPH_UNKNOWN_FLAG)!r} in {text!r}")
            if info.geometry.y_offset:
                raise ValueError(f"a raised or lowered glyph in {text!r} cannot be stamped")
            offset = glyph_item.item.offset
            start = clusters[i]
            end = glyph_item.item.length if i == count - 1 else clusters[i + 1]
            if glyph_item.item.analysis.level % 2:  # right to left
                end = glyph_item.item.length if i == 0 else clusters[i - 1]
            if line_name:
                fonts.clusters.setdefault(line_name, set()).add(utf8[offset + start : offset + end].decode())
            needed.add(glyph)
            x_offset = info.geometry.x_offset / size
            if x_offset:
                string += f">{-x_offset}<"
            string += f"{glyph:04x}"
            if (key, glyph) not in fonts.widths:
                pango.pango_font_get_glyph_extents(pango_font, glyph, ink, logical)
                fonts.widths[key, glyph] = round(logical.width * 1000 * FROM_UNITS / size)
            kerning = fonts.widths[key, glyph] + x_offset - width * 1000 * FROM_UNITS / size
            if kerning:
                string += f">{int(kerning)}<"
        runs.append(Run(name, size, string[:-1] if string.endswith("<") else string + ">"))
    return runs


def set_lines(fonts: _Fonts, text: str, slot: Slot, line_name: str) -> list[tuple[float, list[Run]]]:
    """`text` broken into printed lines as WeasyPrint's inline layout breaks it in `slot`'s block:
    (offset from the block's left, glyph runs) per printed line."""
    text = _SPACES.sub(" ", text).strip(" ")  # white-space: normal
    if text:  # most lines fit: laid out once, as split_first_line lays out a line that fits
        layout = create_layout(text, slot.style, _Context, slot.width, 0)
        first_line, resume = layout.get_first_line()
        width, _height = line_size(first_line, slot.style)
        if resume is None and width <= slot.width:
            return [(_align(slot, width), _runs(fonts, layout, text, line_name))]
    printed: list[tuple[float, list[Run]]] = []
    while text:  # an empty line prints nothing and takes no room, as in WeasyPrint's layout
        layout, _length, resume, width, _height, _baseline = split_first_line(
            text, slot.style, _Context, slot.width, 0
        )
        runs = _glyph_runs(fonts, layout, slot.style, text, line_name)
        printed.append((_align(slot, width), runs))
        text = "" if resume is None else text.encode()[resume:].decode()
    return printed


def _align(slot: Slot, width: float) -> float:
    """weasyprint.layout.inline.text_align for a left-to-right line."""
    if width >= slot.width or slot.align in ("start", "left", "justify"):
        return 0.0
    return (slot.width - width) / 2 if slot.align == "center" else slot.width - width


def _color(style: Any) -> tuple[float, float, float]:
    color = style["color"]
    *channels, alpha = color
    if color.space != "srgb" or alpha != 1:
        raise ValueError(f"certificate text colours are opaque sRGB, not {color}")
    return tuple(channels)


def template_of(document: Any, fonts: _Fonts) -> Template:
    """The text of a rendered template (one page), read from its box tree in drawing order: the
    template's own text as lines, each placeholder as the slot of one printed line."""
    items: list[Line | tuple[str, int, Slot]] = []
    qr = None

    def visit(box: Any, block: Any) -> None:
        nonlocal qr
        box = getattr(box, "_box", box)  # an absolutely positioned box is behind a placeholder
        element = box.element
        classes = (element.get("class") or "").split() if element is not None and box.element_tag else []
        if "qr" in classes and isinstance(box, boxes.ReplacedBox):
            qr = (box.content_box_x(), box.content_box_y(), box.width, box.height)
        if "slot" in classes and isinstance(box, boxes.InlineBox):
            (text,) = [c for c in box.children if isinstance(c, boxes.TextBox)]
            slot = Slot(block.content_box_x(), block.width, text.position_y + text.baseline,
                        block.style["text_align_all"], text.style)
            items.append((element.get("data-line"), int(element.get("data-row")), slot))
            return
        if isinstance(box, boxes.TextBox) and box.style["visibility"] == "visible" and box.text.strip():
            runs = _glyph_runs(fonts, box.pango_layout, box.style, box.text, "")
            items.append(Line(box.position_x, box.position_y + box.baseline, _color(box.style), runs))
        for child in getattr(box, "children", ()):
            visit(child, box if isinstance(box, boxes.BlockContainerBox) else block)

    (page,) = document.pages
    visit(page._page_box, page._page_box)  # noqa: SLF001 (WeasyPrint's laid-out box tree)
    if qr is None:
        raise RuntimeError("the certificate template has no QR image (img.qr)")
    return Template(document, items, qr)


def placeholders(shape: Sequence[tuple[str, int]]) -> dict[str, Markup]:
    """A certificate's lines for a template: each a hidden placeholder of as many printed lines as
    the shape says."""
    return {
        name: Markup("<br>").join(
            Markup('<span class="slot" data-line="%s" data-row="%d">X</span>') % (name, row) for row in range(rows)
        )
        for name, rows in shape
    }


# ---- writing one certificate's PDF ------------------------------------------------------------

def _serialise(obj: Any, number: dict[int, int]) -> bytes:
    if isinstance(obj, IndirectObject):
        return b"%d 0 R" % number[obj.idnum]
    if isinstance(obj, StreamObject):
        head = DictionaryObject({k: v for k, v in obj.items() if k != "/Length"})
        data = obj._data  # noqa: SLF001 (the stream's bytes as stored: still encoded)
        return _serialise(head, number)[:-2] + b"/Length %d>>\nstream\n" % len(data) + data + b"\nendstream"
    if isinstance(obj, DictionaryObject):
        return b"<<" + b"".join(_leaf(k) + b" " + _serialise(v, number) for k, v in obj.items()) + b">>"
    if isinstance(obj, ArrayObject):
        return b"[" + b" ".join(_serialise(v, number) for v in obj) + b"]"
    return _leaf(obj)


def _leaf(obj: Any) -> bytes:
    out = io.BytesIO()
    obj.write_to_stream(out)
    return out.getvalue()


def _stream(data: bytes, entries: bytes = b"") -> bytes:
    packed = zlib.compress(data)
    return b"<<%s/Filter/FlateDecode/Length %d>>\nstream\n" % (entries, len(packed)) + packed + b"\nendstream"


@dataclass
class Base:
    """What every certificate of a chunk drawn on one template shares, serialised once: the fonts
    and resources, the template page's content; object numbers from FIRST_SHARED on."""

    objects: list[bytes]  # objects FIRST_SHARED, FIRST_SHARED + 1, ...
    resources: bytes  # the page's /Resources, its /XObject dictionary last and open (the QR code follows)
    contents: int  # the object number of the template page's content stream
    media_box: bytes
    fonts: dict[str, set[int]]  # resource name -> glyph ids in its subset


FIRST_SHARED = 9  # 1 catalog, 2 pages, 3 page, 4 stamped content, 5 QR, 6 file spec, 7 file, 8 info


def base_of(reader: PdfReader, page_index: int) -> Base:
    page = reader.pages[page_index]
    resources = page["/Resources"].get_object()
    content = page.get_contents().get_data()
    # WeasyPrint shares one /XObject dictionary among a document's pages: keep what this page draws
    drawn = {b"/" + name for name in _DRAWN.findall(content)}
    shared = DictionaryObject({k: v for k, v in resources.items() if k != "/XObject"})
    shared[NameObject("/XObject")] = DictionaryObject(
        {k: v for k, v in resources.get("/XObject", DictionaryObject()).items() if k.encode() in drawn}
    )
    order: list[int] = []
    found: dict[int, Any] = {}

    def collect(obj: Any) -> None:
        if isinstance(obj, IndirectObject):
            if obj.idnum in found:
                return
            found[obj.idnum] = obj.get_object()
            order.append(obj.idnum)
            collect(found[obj.idnum])
        elif isinstance(obj, (DictionaryObject, ArrayObject)):
            for value in obj.values() if isinstance(obj, DictionaryObject) else obj:
                collect(value)

    collect(shared)
    number = {idnum: FIRST_SHARED + i for i, idnum in enumerate(order)}
    objects = [_serialise(found[idnum], number) for idnum in order]
    contents = FIRST_SHARED + len(objects)
    # the template's own text is drawn with the stamped lines, in drawing order: keep its graphics
    objects.append(_stream(_TEXT.sub(b"", content)))
    fonts = {}
    for name, ref in shared.get("/Font", {}).items():
        widths = ref.get_object()["/DescendantFonts"][0].get_object()["/W"]
        glyphs, i = set(), 0
        while i < len(widths):
            first, value = int(widths[i]), widths[i + 1]
            if isinstance(value, ArrayObject):
                glyphs.update(range(first, first + len(value)))
                i += 2
            else:
                glyphs.update(range(first, int(value) + 1))
                i += 3
        fonts[name[1:]] = glyphs
    box = b"[" + b" ".join(_leaf(v) for v in page.mediabox) + b"]"
    return Base(objects, _serialise(shared, number)[:-4], contents, box, fonts)


def _number(value: float) -> str:
    return f"{value:.6f}".rstrip("0").rstrip(".")


def page_content(lines: Sequence[Line], qr: tuple[float, float, float, float]) -> bytes:
    """The stamped part of a page: drawn after the template's content, which leaves the page in
    WeasyPrint's flipped CSS-pixel coordinates without its px scale."""
    out = [f"q {PX} 0 0 {PX} 0 0 cm"]
    color = None
    for line in lines:
        if line.color != color:
            color = line.color
            out.append("%s %s %s rg" % tuple(_number(c) for c in color))
        out.append(f"BT 1 0 0 -1 {_number(line.x)} {_number(line.baseline)} Tm")
        for run in line.runs:
            out.append(f"/{run.font} {_number(run.size)} Tf [{run.glyphs}] TJ")
        out.append("ET")
    x, y, w, h = (_number(v) for v in qr)
    out.append(f"q {x} {y} {w} {h} re W n {w} 0 0 -{h} {x} {_number(qr[1] + qr[3])} cm /QR Do Q Q")
    return "\n".join(out).encode()


def qr_image(url: str) -> bytes:
    """The QR code opening `url`, one pixel a module, 8-bit grey (drawn unsmoothed)."""
    matrix = segno.make(url, error="m", mask=0).matrix
    size = len(matrix)
    pixels = b"".join(matrix).translate(_DARK)
    entries = b"/Type/XObject/Subtype/Image/Width %d/Height %d/ColorSpace/DeviceGray/BitsPerComponent 8/Interpolate false" % (size, size)
    return _stream(pixels, entries)


def certificate_pdf(key: bytes, base: Base, content: bytes, qr: bytes, embedded: dict[str, Any], title: str) -> bytes:
    """One certificate's signed, sealed PDF."""
    attachment = json.dumps(embedded, ensure_ascii=False, sort_keys=True).encode()
    own = [
        b"<</Type/Catalog/Pages 2 0 R/Names<</EmbeddedFiles<</Names[(%s)6 0 R]>>>>>>" % pdf.ATTACHMENT.encode(),
        b"<</Type/Pages/Kids[3 0 R]/Count 1>>",
        b"<</Type/Page/Parent 2 0 R/MediaBox%s/Resources%s/QR 5 0 R>>>>/Contents[%d 0 R 4 0 R]>>"
        % (base.media_box, base.resources, base.contents),
        _stream(content),
        qr,
        b"<</Type/Filespec/F(%s)/EF<</F 7 0 R>>>>" % pdf.ATTACHMENT.encode(),
        _stream(attachment, b"/Type/EmbeddedFile"),
        b"<</Title %s /Producer (Tourney) %s>>" % (_leaf(TextStringObject(title)), pdf.PLACEHOLDER),
    ]
    out = io.BytesIO()
    out.write(b"%PDF-1.7\n%\xe2\xe3\xcf\xd3\n")
    offsets = []
    for number, body in enumerate(own + base.objects, start=1):
        offsets.append(out.tell())
        out.write(b"%d 0 obj\n" % number + body + b"\nendobj\n")
    xref = out.tell()
    out.write(b"xref\n0 %d\n0000000000 65535 f \n" % (len(offsets) + 1))
    out.write(b"".join(b"%010d 00000 n \n" % offset for offset in offsets))
    out.write(b"trailer\n<</Size %d/Root 1 0 R/Info 8 0 R>>\nstartxref\n%d\n%%%%EOF\n" % (len(offsets) + 1, xref))
    return pdf.sealed(key, out.getvalue())


# ---- a chunk of certificates ------------------------------------------------------------------

_DARK = bytes([255, 0] + [0] * 254)  # a module 1 (dark) is a black pixel, 0 a white one
TEMPLATES = 32  # laid-out templates a Stamper keeps (shapes × club logos)
PLACEHOLDER_QR = segno.make("X", error="m", mask=0).png_data_uri(scale=1, border=0)  # hidden: only its box


@dataclass(frozen=True)
class Order:
    """One certificate to stamp: its printed lines (infra.i18n.certificate_lines), the URL its QR
    code opens, its signed data and its PDF title."""

    lines: dict[str, str]
    url: str
    embedded: dict[str, Any]
    title: str


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
            self.templates[shape, logo] = template_of(document, _Fonts(self.names, self.widths))
        return self.templates[shape, logo]

    def certificates(self, key: bytes, orders: Sequence[Order], logo: str | None = None) -> list[bytes]:
        """One signed PDF per order, in order; `logo` (an image URI) is part of the template."""
        fonts = _Fonts(self.names, self.widths)
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
                lines.append(Line(slot.x + dx, slot.baseline, _color(slot.style), runs))
            content = page_content(lines, template.qr)
            out.append(certificate_pdf(key, bases[id(template)], content, qr_image(order.url), order.embedded, order.title))
        return out
