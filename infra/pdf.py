"""Signed PDFs: embed a document's signed data and seal the file (pypdf); read both back; verify.

A signed PDF carries an embedded file `tourney.json` = {"type", "data", "signature"} and, in its
document information, `/TourneySeal`: the HMAC of the file's bytes with that value blanked
(domain.documents.rules.signing). Results sheets are written in that form by `infra.render`
(WeasyPrint's tagged PDF, the attachment and the blank seal added as it is written), certificates
by `infra.stamp`; `seal_document` rewrites a PDF's pages in that form with pypdf.
"""

from __future__ import annotations

import io
import json
import re
from typing import Any

from pypdf import PdfReader, PdfWriter

from domain.documents.rules import signing
from domain.errors import Problem

ATTACHMENT = "tourney.json"
SEAL_NAME = "/TourneySeal"
_BLANK = b"0" * signing.SEAL_LENGTH
BLANK_SEAL = _BLANK.decode()  # the seal's value while the seal is computed
PLACEHOLDER = SEAL_NAME.encode() + b" (" + _BLANK + b")"
_SEAL = re.compile(re.escape(SEAL_NAME.encode()) + rb" \(([0-9a-f]{%d})\)" % signing.SEAL_LENGTH)


def signed(key: bytes, document: Any) -> dict[str, Any]:
    """The embedded file's content for a document: its data and signature."""
    data = signing.payload(document)
    return {**data, "signature": signing.sign(key, data)}


def seal_document(key: bytes, rendered: bytes, embedded: dict[str, Any], title: str) -> bytes:
    """The rendered PDF's pages rewritten with `embedded` attached and the file sealed (the catalog's
    structure tree and /Lang are not kept: the documents are written by `infra.render.write_sealed`;
    this reseals a file as a forger would, for the checks' tests)."""
    writer = PdfWriter()
    for page in PdfReader(io.BytesIO(rendered)).pages:
        writer.add_page(page)
    writer.add_attachment(ATTACHMENT, json.dumps(embedded, ensure_ascii=False, sort_keys=True).encode())
    writer.add_metadata({"/Title": title, "/Producer": "Tourney", SEAL_NAME: BLANK_SEAL})
    out = io.BytesIO()
    writer.write(out)
    return sealed(key, out.getvalue())


def sealed(key: bytes, data: bytes) -> bytes:
    """A written PDF whose document information holds the blank seal (`PLACEHOLDER`), sealed."""
    if data.count(PLACEHOLDER) != 1:
        raise RuntimeError("the seal placeholder is not in the written PDF exactly once")
    return data.replace(PLACEHOLDER, SEAL_NAME.encode() + b" (" + signing.seal(key, data).encode() + b")")


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
        return (
            None,
            text,
            seal_found,
            unsealed,
            [Problem("bad-data", f"the attachment {ATTACHMENT} is not a JSON object of signed Tourney data")],
        )
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
