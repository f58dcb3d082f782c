"""A certificate's text as WeasyPrint sets it (infra.stamp's steps 1 and 2): the template's text and
placeholders read from its laid-out box tree, and a certificate's lines shaped and broken into
printed lines with WeasyPrint's own text layer (Pango and HarfBuzz), as glyph runs written the way
WeasyPrint's drawing writes them. The fonts met are kept for the palette and the subset check."""

from __future__ import annotations

import hashlib
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from markupsafe import Markup
from weasyprint.formatting_structure import boxes
from weasyprint.text.ffi import FROM_UNITS, ffi, pango
from weasyprint.text.fonts import get_pango_font_key
from weasyprint.text.line_break import create_layout, line_size, split_first_line

_SPACES = re.compile(r"[ \t\n\r\f]+")


@dataclass(frozen=True)
class Slot:
    """Where one printed line of a certificate's line goes in a template, and how it is set."""

    x: float  # left of the block's content box (CSS px)
    width: float  # the block's content width: the line's available width
    baseline: float  # the baseline of this printed line
    align: str  # text-align of the block: start, end, center, left, right
    style: Any  # the placeholder text's computed style: font, size, letter-spacing, colour
    block: str = ""  # the block's class (`player`, `title`...): its structure element when tagged


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
    block: str = ""  # the class of the block it is printed in: the printed lines of one block are one paragraph


@dataclass
class Template:
    document: Any  # the laid-out WeasyPrint document (one page)
    items: list[Line | tuple[str, int, Slot]]  # in drawing order: text, or (line name, row, slot)
    qr: tuple[float, float, float, float]  # the QR image's content box: x, y, width, height
    qr_alt: str = ""  # the QR image's text alternative (its `alt`), in the template's language
    qr_at: int = 0  # how many items precede the QR image in reading order (the document's order)

    def slot(self, name: str) -> Slot:
        """The first printed line's slot of a line (its block's width and style are the same for all)."""
        return next(item[2] for item in self.items if isinstance(item, tuple) and item[:2] == (name, 0))


@dataclass
class Fonts:
    """Pango fonts met while shaping, with what the palette must draw so the subset has their glyphs."""

    names: dict[int, str]  # pango font key (any size) -> resource name: kept by the Stamper
    widths: dict[tuple[int, int], int]  # (key, glyph) -> logical width in 1/1000 em: kept too
    needed: dict[str, set[int]] = field(default_factory=dict)  # resource -> glyph ids stamped
    clusters: dict[str, set[str]] = field(default_factory=dict)  # line name -> text clusters to draw


class _Context:
    """What `split_first_line` reads from a layout context: hyphenation dictionaries (unused here,
    the certificates do not hyphenate)."""

    dictionaries: dict = {}


def _font(fonts: Fonts, pango_font: Any) -> tuple[int, str, float]:
    key, description, size = get_pango_font_key(pango_font)
    if key not in fonts.names:
        # the resource name WeasyPrint gives this font (weasyprint.pdf.fonts.Font.hash)
        text = ffi.string(pango.pango_font_description_to_string(description))
        name = "".join(chr(65 + b % 26) for b in hashlib.md5(text, usedforsecurity=False).digest()[:6])
        fonts.names[key] = name
    return key, fonts.names[key], size


def _glyph_runs(fonts: Fonts, layout: Any, style: Any, text: str, line_name: str) -> list[Run]:
    """The glyph runs of a line laid out earlier (a WeasyPrint layout, deactivated since)."""
    layout.reactivate(style)
    runs = _runs(fonts, layout, text, line_name)
    layout.deactivate()
    return runs


def _runs(fonts: Fonts, layout: Any, text: str, line_name: str) -> list[Run]:
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


def set_lines(fonts: Fonts, text: str, slot: Slot, line_name: str) -> list[tuple[float, list[Run]]]:
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
        layout, _length, resume, width, _height, _baseline = split_first_line(text, slot.style, _Context, slot.width, 0)
        runs = _glyph_runs(fonts, layout, slot.style, text, line_name)
        printed.append((_align(slot, width), runs))
        text = "" if resume is None else text.encode()[resume:].decode()
    return printed


def _align(slot: Slot, width: float) -> float:
    """weasyprint.layout.inline.text_align for a left-to-right line."""
    if width >= slot.width or slot.align in ("start", "left", "justify"):
        return 0.0
    return (slot.width - width) / 2 if slot.align == "center" else slot.width - width


def text_color(style: Any) -> tuple[float, float, float]:
    color = style["color"]
    *channels, alpha = color
    if color.space != "srgb" or alpha != 1:
        raise ValueError(f"certificate text colours are opaque sRGB, not {color}")
    return tuple(channels)


def template_of(document: Any, fonts: Fonts) -> Template:
    """The text of a rendered template (one page), read from its box tree in drawing order: the
    template's own text as lines, each placeholder as the slot of one printed line."""
    items: list[Line | tuple[str, int, Slot]] = []
    qr = None
    qr_alt, qr_at = "", 0

    def visit(box: Any, block: Any) -> None:
        nonlocal qr, qr_alt, qr_at
        box = getattr(box, "_box", box)  # an absolutely positioned box is behind a placeholder
        element = box.element
        classes = (element.get("class") or "").split() if element is not None and box.element_tag else []
        if "qr" in classes and isinstance(box, boxes.ReplacedBox):
            qr = (box.content_box_x(), box.content_box_y(), box.width, box.height)
            qr_alt, qr_at = element.get("alt") or "", len(items)
        if "slot" in classes and isinstance(box, boxes.InlineBox):
            (text,) = [c for c in box.children if isinstance(c, boxes.TextBox)]
            slot = Slot(
                block.content_box_x(),
                block.width,
                text.position_y + text.baseline,
                block.style["text_align_all"],
                text.style,
                _block_name(block),
            )
            items.append((element.get("data-line"), int(element.get("data-row")), slot))
            return
        if isinstance(box, boxes.TextBox) and box.style["visibility"] == "visible" and box.text.strip():
            runs = _glyph_runs(fonts, box.pango_layout, box.style, box.text, "")
            items.append(
                Line(box.position_x, box.position_y + box.baseline, text_color(box.style), runs, _block_name(block))
            )
        for child in getattr(box, "children", ()):
            visit(child, box if isinstance(box, boxes.BlockContainerBox) else block)

    (page,) = document.pages
    visit(page._page_box, page._page_box)  # noqa: SLF001 (WeasyPrint's laid-out box tree)
    if qr is None:
        raise RuntimeError("the certificate template has no QR image (img.qr)")
    return Template(document, items, qr, qr_alt, qr_at)


def _block_name(block: Any) -> str:
    """The first class of a block's element (`player`, `note`): one paragraph of the tagged page."""
    element = block.element if block.element_tag else None
    return ((element.get("class") or "").split() or [""])[0] if element is not None else ""


def placeholders(shape: Sequence[tuple[str, int]]) -> dict[str, Markup]:
    """A certificate's lines for a template: each a hidden placeholder of as many printed lines as
    the shape says."""
    return {
        name: Markup("<br>").join(
            Markup('<span class="slot" data-line="%s" data-row="%d">X</span>') % (name, row) for row in range(rows)
        )
        for name, rows in shape
    }
