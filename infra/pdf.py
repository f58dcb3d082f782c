"""Signed PDFs: embed a document's signed data and seal the file (pypdf); read both back; verify.

A signed PDF carries an embedded file `tourney.json` = {"type", "data", "signature"} and, in its
document information, `/TourneySeal`: the HMAC of the file's bytes with that value blanked
(domain.documents.rules.signing). Pages are copied from a rendered PDF, so one render can give many
one-page certificates.
"""

from __future__ import annotations

import io
import json
import re
from collections.abc import Sequence
from typing import Any

from pypdf import PageObject, PdfReader, PdfWriter
from pypdf.generic import DictionaryObject, NameObject

from domain.documents.rules import signing
from domain.errors import Problem

ATTACHMENT = "tourney.json"
SEAL_NAME = "/TourneySeal"
_BLANK = b"0" * signing.SEAL_LENGTH
_PLACEHOLDER = SEAL_NAME.encode() + b" (" + _BLANK + b")"
_DRAWN = re.compile(rb"/([^\s/\[\]()<>{}%]+)\s+Do\b")
_SEAL = re.compile(re.escape(SEAL_NAME.encode()) + rb" \(([0-9a-f]{%d})\)" % signing.SEAL_LENGTH)


def signed(key: bytes, document: Any) -> dict[str, Any]:
    """The embedded file's content for a document: its data and signature."""
    data = signing.payload(document)
    return {**data, "signature": signing.sign(key, data)}


def seal_pages(key: bytes, reader: PdfReader, pages: Sequence[int], embedded: dict[str, Any], title: str) -> bytes:
    """A new PDF of the given pages of `reader`, with `embedded` attached and the file sealed."""
    writer = PdfWriter()
    for index in pages:
        writer.add_page(_own_resources(reader.pages[index]))
    writer.add_attachment(ATTACHMENT, json.dumps(embedded, ensure_ascii=False, sort_keys=True).encode())
    writer.add_metadata({"/Title": title, "/Producer": "Tourney", SEAL_NAME: _BLANK.decode()})
    out = io.BytesIO()
    writer.write(out)
    data = out.getvalue()
    if data.count(_PLACEHOLDER) != 1:
        raise RuntimeError("the seal placeholder is not in the written PDF exactly once")
    return data.replace(_PLACEHOLDER, SEAL_NAME.encode() + b" (" + signing.seal(key, data).encode() + b")")


def _own_resources(page: PageObject) -> PageObject:
    """WeasyPrint gives every page of a document one shared /XObject resource dictionary (every
    certificate's QR code); a page cut out alone keeps only the XObjects its content draws, so a
    one-page certificate does not carry the images of the whole batch."""
    resources = page["/Resources"].get_object()
    xobjects = resources.get("/XObject")
    if xobjects is None:
        return page
    used = {b"/" + name for name in _DRAWN.findall(page.get_contents().get_data())}
    own = DictionaryObject(resources)
    own[NameObject("/XObject")] = DictionaryObject(
        {k: v for k, v in xobjects.get_object().items() if k.encode() in used}
    )
    page[NameObject("/Resources")] = own
    return page


def read(data: bytes) -> tuple[dict[str, Any] | None, str, str | None, bytes, list[Problem]]:
    """What `signing.check` needs from a file: embedded data, page text, seal, the unsealed bytes;
    plus a problem when the file cannot be parsed at all."""
    seals = _SEAL.findall(data)
    seal_found = seals[0].decode() if len(seals) == 1 else None
    unsealed = _SEAL.sub(SEAL_NAME.encode() + b" (" + _BLANK + b")", data)
    try:
        reader = PdfReader(io.BytesIO(data))
        found = reader.attachments.get(ATTACHMENT)
        text = "\n".join(page.extract_text() or "" for page in reader.pages)
    except Exception as exc:  # a damaged file can fail anywhere inside the parser
        return None, "", seal_found, unsealed, [Problem("unreadable", f"the PDF cannot be read: {_one_line(exc)}")]
    if not found:
        return None, text, seal_found, unsealed, []
    try:
        embedded = json.loads(found[0])
    except (ValueError, TypeError):
        embedded = None
    if not isinstance(embedded, dict):
        return None, text, seal_found, unsealed, [
            Problem("bad-data", f"the attachment {ATTACHMENT} is not a JSON object of signed Tourney data")
        ]
    return embedded, text, seal_found, unsealed, []


def _one_line(exc: Exception) -> str:
    return (str(exc).strip().splitlines() or [type(exc).__name__])[0][:200]


def verify(key: bytes, data: bytes) -> tuple[dict[str, Any] | None, list[Problem]]:
    """Check a file: (its embedded data if any, every problem found; none means valid)."""
    if not data.lstrip()[:5].startswith(b"%PDF-"):
        return None, [Problem("not-pdf", "the file is not a PDF")]
    embedded, text, seal_found, unsealed, problems = read(data)
    from infra.i18n import certificate_lines

    checked = signing.check(key, embedded, text, seal_found, unsealed, certificate_lines)
    if any(p.code == "bad-data" for p in problems):  # the attachment is there but unusable: say so, once
        checked = [p for p in checked if p.code != "not-signed"]
    return embedded, problems + checked


def page_text(data: bytes) -> list[str]:
    """The text of each page (for tests and `documents render` output checks)."""
    return [page.extract_text() or "" for page in PdfReader(io.BytesIO(data)).pages]
