"""One stamped certificate written as its own small PDF (infra.stamp's step 4): what the chunk's
certificates on one template share, serialised once from WeasyPrint's PDF (fonts, resources, the
template page's graphics), then each certificate's content stream, QR image, signed data and seal,
in the form `infra.pdf` reads and checks.

The PDF is tagged, as WeasyPrint tags the results sheets: the catalog's /Lang is the certificate's
language and /MarkInfo says it is marked; its structure tree is a Document of one paragraph (P, the
title an H1) per block of the page (the club, the player, the place... each block's printed lines
one marked-content sequence each) and a Figure for the QR code with its text alternative, in the
page's reading order; the template's graphics (frame, rule, logo) are an Artifact."""

from __future__ import annotations

import io
import json
import re
import zlib
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import segno
from pypdf import PdfReader
from pypdf.generic import (
    ArrayObject,
    DictionaryObject,
    IndirectObject,
    NameObject,
    StreamObject,
    TextStringObject,
)

from infra import pdf
from infra.stamp_layout import Line

PX = 0.75  # PDF points per CSS pixel: WeasyPrint's page content is drawn in CSS pixels, y downwards
_DRAWN = re.compile(rb"/([^\s/\[\]()<>{}%]+)\s+Do\b")
_TEXT = re.compile(rb"^BT$.*?^ET$\n?", re.S | re.M)  # WeasyPrint's text objects: hex strings only


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
    objects.append(_stream(b"/Artifact BMC\n" + _TEXT.sub(b"", content) + b"\nEMC"))
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


HEADINGS = {"title": "H1"}  # the blocks of a certificate that are headings; every other block is a paragraph


@dataclass
class Tag:
    """One structure element of a certificate's page: its type, its marked-content ids, in order,
    and its text alternative (a Figure's)."""

    kind: str
    mcids: list[int]
    alt: str | None = None


def page_content(
    lines: Sequence[Line], qr: tuple[float, float, float, float], qr_alt: str = "", qr_at: int | None = None
) -> tuple[bytes, list[Tag]]:
    """The stamped part of a page, drawn after the template's content, which leaves the page in
    WeasyPrint's flipped CSS-pixel coordinates without its px scale; and its structure elements in
    reading order: one per block (consecutive lines of one block), each line one marked-content
    sequence, the QR code a Figure `qr_at` lines into the reading order (default: last)."""
    out = [f"q {PX} 0 0 {PX} 0 0 cm"]
    tags: list[Tag] = []
    color, block = None, None
    for mcid, line in enumerate(lines):
        if line.color != color:
            color = line.color
            out.append(" ".join(_number(c) for c in color) + " rg")
        kind = HEADINGS.get(line.block, "P")
        if not tags or line.block != block:
            tags.append(Tag(kind, []))
        block = line.block
        tags[-1].mcids.append(mcid)
        out.append(f"/{kind} <</MCID {mcid}>> BDC BT 1 0 0 -1 {_number(line.x)} {_number(line.baseline)} Tm")
        for run in line.runs:
            out.append(f"/{run.font} {_number(run.size)} Tf [{run.glyphs}] TJ")
        out.append("ET EMC")
    x, y, w, h = (_number(v) for v in qr)
    figure = len(lines)
    out.append(
        f"/Figure <</MCID {figure}>> BDC q {x} {y} {w} {h} re W n {w} 0 0 -{h} {x} {_number(qr[1] + qr[3])} cm"
        " /QR Do Q EMC Q"
    )
    at = len(lines) if qr_at is None else qr_at
    index = next((i for i, tag in enumerate(tags) if tag.mcids[0] >= at), len(tags))
    tags.insert(index, Tag("Figure", [figure], qr_alt))
    return "\n".join(out).encode(), tags


_DARK = bytes([255, 0] + [0] * 254)  # a module 1 (dark) is a black pixel, 0 a white one


def qr_image(url: str) -> bytes:
    """The QR code opening `url`, one pixel a module, 8-bit grey (drawn unsmoothed)."""
    matrix = segno.make(url, error="m", mask=0).matrix
    size = len(matrix)
    pixels = b"".join(matrix).translate(_DARK)
    entries = (
        b"/Type/XObject/Subtype/Image/Width %d/Height %d/ColorSpace/DeviceGray/BitsPerComponent 8/Interpolate false"
        % (size, size)
    )
    return _stream(pixels, entries)


def _structure(first: int, tags: Sequence[Tag]) -> list[bytes]:
    """The structure tree of a one-page PDF whose page is object 3, as objects numbered from `first`:
    the StructTreeRoot, its Document element, the parent tree (each marked-content id's element),
    then one element per tag."""
    root, document, parents = first, first + 1, first + 2
    number = {i: first + 3 + i for i in range(len(tags))}
    owner = sorted((mcid, number[i]) for i, tag in enumerate(tags) for mcid in tag.mcids)
    elements = [
        b"<</Type/StructElem/S/%s/P %d 0 R/Pg 3 0 R/K[%s]%s>>"
        % (
            tag.kind.encode(),
            document,
            b" ".join(b"%d" % mcid for mcid in tag.mcids),
            b"" if tag.alt is None else b"/Alt " + _leaf(TextStringObject(tag.alt)),
        )
        for tag in tags
    ]
    return [
        b"<</Type/StructTreeRoot/K %d 0 R/ParentTree %d 0 R/ParentTreeNextKey 1>>" % (document, parents),
        b"<</Type/StructElem/S/Document/P %d 0 R/K[%s]>>"
        % (root, b" ".join(b"%d 0 R" % number[i] for i in range(len(tags)))),
        b"<</Nums[0[%s]]>>" % b" ".join(b"%d 0 R" % element for _, element in owner),
        *elements,
    ]


def certificate_pdf(
    key: bytes,
    base: Base,
    content: bytes,
    qr: bytes,
    embedded: dict[str, Any],
    title: str,
    lang: str,
    tags: Sequence[Tag],
) -> bytes:
    """One certificate's signed, sealed, tagged PDF in the language `lang`."""
    attachment = json.dumps(embedded, ensure_ascii=False, sort_keys=True).encode()
    tree = FIRST_SHARED + len(base.objects)  # the structure tree's objects follow the shared ones
    own = [
        b"<</Type/Catalog/Pages 2 0 R/Names<</EmbeddedFiles<</Names[(%s)6 0 R]>>>>/Lang %s"
        b"/MarkInfo<</Marked true>>/StructTreeRoot %d 0 R/ViewerPreferences<</DisplayDocTitle true>>>>"
        % (pdf.ATTACHMENT.encode(), _leaf(TextStringObject(lang)), tree),
        b"<</Type/Pages/Kids[3 0 R]/Count 1>>",
        b"<</Type/Page/Parent 2 0 R/MediaBox%s/Resources%s/QR 5 0 R>>>>/Contents[%d 0 R 4 0 R]"
        b"/StructParents 0/Tabs/S>>" % (base.media_box, base.resources, base.contents),
        _stream(content),
        qr,
        b"<</Type/Filespec/F(%s)/EF<</F 7 0 R>>>>" % pdf.ATTACHMENT.encode(),
        _stream(attachment, b"/Type/EmbeddedFile"),
        b"<</Title %s /Producer (Tourney) %s>>" % (_leaf(TextStringObject(title)), pdf.PLACEHOLDER),
    ]
    out = io.BytesIO()
    out.write(b"%PDF-1.7\n%\xe2\xe3\xcf\xd3\n")
    offsets = []
    for number, body in enumerate(own + base.objects + _structure(tree, tags), start=1):
        offsets.append(out.tell())
        out.write(b"%d 0 obj\n" % number + body + b"\nendobj\n")
    xref = out.tell()
    out.write(b"xref\n0 %d\n0000000000 65535 f \n" % (len(offsets) + 1))
    out.write(b"".join(b"%010d 00000 n \n" % offset for offset in offsets))
    out.write(b"trailer\n<</Size %d/Root 1 0 R/Info 8 0 R>>\nstartxref\n%d\n%%%%EOF\n" % (len(offsets) + 1, xref))
    return pdf.sealed(key, out.getvalue())
