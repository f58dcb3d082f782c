"""Signing and checking documents with the platform secret (RULES DOC-2), offline.

Two HMAC-SHA256 marks, each over its own domain-separated message:

- the *signature* covers the document's data in a canonical serialisation (`canonical`): sorted
  keys, no spaces, UTF-8, dates as ISO strings, decimals as plain strings, the dataclass's name as
  `type`. The data and the signature travel inside the PDF (an embedded file). A certificate also
  prints a short verification code taken from its signature.
- the *seal* covers the PDF's bytes with the seal's own value blanked, so a changed byte anywhere
  in the file fails, not only a changed field.

`check` compares what was read back from a file against both and against the page text, and
returns every mismatch as a Problem (empty: valid).
"""

from __future__ import annotations

import base64
import dataclasses
import hashlib
import hmac
import json
import re
from collections.abc import Callable
from datetime import date
from decimal import Decimal
from typing import Any

from domain.documents.rules.model import LOCALES, Certificate
from domain.errors import Problem

SIGNATURE_CONTEXT = b"tourney-document-v1\n"
SEAL_CONTEXT = b"tourney-pdf-seal-v1\n"
SEAL_LENGTH = 64  # hex digits of an HMAC-SHA256


def _plain(value: Any) -> Any:
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: _plain(getattr(value, f.name)) for f in dataclasses.fields(value)}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    if isinstance(value, date):
        return value.isoformat()
    if isinstance(value, Decimal):
        return format(value.normalize(), "f")
    if isinstance(value, float):
        raise TypeError("floats are not signed: use int or Decimal")
    return value


def payload(document: Any) -> dict[str, Any]:
    """The document as plain JSON-able data, with its type's name."""
    return {"type": type(document).__name__, "data": _plain(document)}


def canonical(data: dict[str, Any]) -> bytes:
    return json.dumps(data, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode()


def sign(key: bytes, data: dict[str, Any]) -> str:
    return hmac.new(key, SIGNATURE_CONTEXT + canonical(data), hashlib.sha256).hexdigest()


def verification_code(signature: str) -> str:
    """Eight characters a person can read out and compare: base32 of the signature's first bytes."""
    text = base64.b32encode(bytes.fromhex(signature)[:5]).decode()
    return f"{text[:4]}-{text[4:8]}"


def seal(key: bytes, unsealed: bytes) -> str:
    """The seal of a file whose seal value is blanked (`SEAL_LENGTH` zeros)."""
    return hmac.new(key, SEAL_CONTEXT + unsealed, hashlib.sha256).hexdigest()


_CERTIFICATE_TYPES: dict[str, tuple[type, ...]] = {
    "serial": (str,),
    "source": (str,),
    "tournament_id": (int,),
    "tournament": (str,),
    "club": (str, type(None)),
    "held_on": (str,),
    "player": (str,),
    "place": (int,),
    "prize": (str, type(None)),
    "title": (str,),
    "locale": (str,),
}
OPTIONAL = {"locale": "en"}  # certificates signed before DOC-4 are English


def certificate_from(data: Any) -> Certificate:
    """A certificate back from its signed data; ValueError when it is not exactly a certificate's."""
    if not isinstance(data, dict):
        raise ValueError("not a certificate's fields")
    data = {**OPTIONAL, **data}
    if set(data) != set(_CERTIFICATE_TYPES) or data["locale"] not in LOCALES:
        raise ValueError("not a certificate's fields")
    for name, types in _CERTIFICATE_TYPES.items():
        if not isinstance(data[name], types) or isinstance(data[name], bool):
            raise ValueError(f"bad {name}")
    values = dict(data)
    values["held_on"] = date.fromisoformat(values["held_on"])
    return Certificate(**values)


def _squeezed(text: str) -> str:
    return re.sub(r"\s+", "", text)


def check(
    key: bytes,
    embedded: dict[str, Any] | None,
    page_text: str,
    seal_found: str | None,
    unsealed: bytes,
    printed: Callable[[Certificate, str], dict[str, str]] | None = None,
) -> list[Problem]:
    """Every way a file read back differs from what was signed; an empty list means valid.

    `embedded` is the embedded file's JSON ({"type", "data", "signature"}), `page_text` the text
    extracted from the pages, `seal_found` the seal value in the file and `unsealed` the file's
    bytes with that value blanked. `printed(certificate, code)` words a certificate's lines exactly as
    its page prints them (infra.i18n.certificate_lines); without it the page is not compared."""
    problems = []
    if seal_found is None:
        problems.append(Problem("seal-missing", "the file's seal is missing or damaged"))
    elif not hmac.compare_digest(seal(key, unsealed), seal_found):
        problems.append(Problem("seal-mismatch", "the file was changed after it was signed"))
    if embedded is None:
        return problems + [Problem("not-signed", "the file carries no signed Tourney data")]
    if not isinstance(embedded, dict):
        return problems + [Problem("bad-data", "the embedded Tourney data is not an object")]
    data = {"type": embedded.get("type"), "data": embedded.get("data")}
    signature = str(embedded.get("signature", ""))
    if not hmac.compare_digest(sign(key, data), signature):
        problems.append(
            Problem("signature-mismatch", "the signed data does not match its signature (altered or forged)")
        )
    if data["type"] == "Certificate":
        try:
            cert, code = certificate_from(data["data"]), verification_code(signature)
            lines = printed(cert, code) if printed is not None else {}
        except (TypeError, ValueError, KeyError):
            return problems + [Problem("bad-data", "the embedded certificate data is malformed")]
        page = _squeezed(page_text)
        for name, line in lines.items():
            if _squeezed(line) not in page:
                problems.append(Problem("field-mismatch", f"the page does not show the signed {name}: {line!r}"))
    return problems
