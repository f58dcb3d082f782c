"""The certificate check (DOC-5): `/verify/<serial>?code=…` from the QR code, the `/verify` form for
a serial and code typed from the paper, or an uploaded PDF whose embedded signature is verified with
the platform's key. A certificate's page speaks the certificate's language."""

from __future__ import annotations

import hashlib
import io
import json
import re
from datetime import date
from pathlib import Path
from urllib.parse import quote

from anyio import to_thread
from pypdf import PdfReader
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import RedirectResponse, Response

from domain.documents.rules.model import N_
from domain.public.services import views
from flows.web.site import Site, preferred_locale
from infra import i18n, pdf

SERIAL = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$")
CODE = re.compile(r"^[A-Za-z2-9]{4}-?[A-Za-z2-9]{4}$")
MAX_UPLOAD = 10 * 1024 * 1024


UNKNOWN = N_("no certificate with this serial was issued by Tourney")
NO_CODE = N_("the link carries no verification code")
WRONG_CODE = N_("the verification code does not match this certificate's signature")
OTHER_SERIAL = N_("the file is the certificate %(found)s, not %(serial)s")
BAD_SERIAL = N_("That is not a certificate's serial: it looks like SP-000042-01.")
BAD_CODE = N_("That is not a verification code: it is eight letters and digits, like ULXE-JTDP.")
# an uploaded file's problems (infra.pdf.verify), by code, as the page words them
FILE_PROBLEMS = {
    "unreadable": N_("the PDF cannot be read"),
    "not-pdf": N_("the file is not a PDF"),
    "bad-data": N_("the file's signed data is malformed"),
    "seal-missing": N_("the file's seal is missing or damaged"),
    "seal-mismatch": N_("the file was changed after it was signed"),
    "not-signed": N_("the file carries no signed Tourney data"),
    "signature-mismatch": N_("the signed data does not match its signature (altered or forged)"),
    "field-mismatch": N_("the page does not show what was signed"),
}


async def verify_form(site: Site, request: Request) -> Response:
    """`/verify`: the form a certificate's note points to (serial and code, typed); filled in, it leads to
    the check of that serial (`/verify/<serial>?code=…`)."""
    locale = preferred_locale(request)
    serial = request.query_params.get("serial", "").strip()
    code = request.query_params.get("code", "").strip()
    if not serial and not code:
        return site.page(
            "verify_form.html",
            request=request,
            locale=locale,
            serial="",
            code="",
            problem=None,
            bad_serial=BAD_SERIAL,
            bad_code=BAD_CODE,
        )
    problem = BAD_SERIAL if not SERIAL.match(serial) else BAD_CODE if not CODE.match(code) else None
    if problem:
        return site.page(
            "verify_form.html",
            request=request,
            status=400,
            locale=locale,
            serial=serial[:64],
            code=code[:16],
            problem=problem,
            bad_serial=BAD_SERIAL,
            bad_code=BAD_CODE,
        )
    return RedirectResponse(f"/verify/{quote(serial)}?code={quote(code.upper())}", status_code=303)


async def verify(site: Site, request: Request) -> Response:
    serial = request.path_params["serial"]
    if not SERIAL.match(serial):
        raise HTTPException(404)
    if request.method == "POST":
        return await _verify_upload(site, request, serial)
    code = request.query_params.get("code", "")
    if code and not CODE.match(code):
        raise HTTPException(400)
    found = await site.read(views.certificate, serial)
    reasons = []
    if found is None:
        reasons.append(UNKNOWN)
    elif not code:
        reasons.append(NO_CODE)
    elif _normal_code(code) != _normal_code(found["code"]):
        reasons.append(WRONG_CODE)
    signed = await to_thread.run_sync(_signed_data, site.outbox, found) if not reasons else None
    # the certificate's own language when its signed data is there, else its tournament's, else the browser's
    locale = (signed or {}).get("locale") or (found or {}).get("locale") or preferred_locale(request)
    locale = locale if locale in i18n.LOCALES else preferred_locale(request)
    t = i18n.translations(locale)
    return site.page(
        "verify.html",
        request=request,
        locale=locale,
        serial=serial,
        cert=found if not reasons else None,
        reasons=[t.gettext(r) for r in reasons],
        upload=None,
        signed=_dated(signed),
    )


async def _upload(request: Request) -> bytes:
    """The uploaded file's bytes: one file, its size declared and at most MAX_UPLOAD."""
    length = request.headers.get("content-length", "")
    if not (length.isascii() and length.isdigit()):  # no chunked uploads: the size is known before anything is read
        raise HTTPException(400)
    if int(length) > MAX_UPLOAD:
        raise HTTPException(413)
    try:
        async with request.form(max_files=1, max_fields=2) as form:
            upload = form.get("file")
            if upload is None or isinstance(upload, str):
                raise HTTPException(400)
            data = await upload.read(MAX_UPLOAD + 1)
    except HTTPException:
        raise
    except Exception:
        raise HTTPException(400) from None
    if len(data) > MAX_UPLOAD:
        raise HTTPException(413)
    return data


async def _verify_upload(site: Site, request: Request, serial: str) -> Response:
    data = await _upload(request)
    embedded, problems = await to_thread.run_sync(pdf.verify, site.settings.secret_key(), data)
    signed = (embedded or {}).get("data") or {}
    locale = (
        signed.get("locale") if not problems and signed.get("locale") in i18n.LOCALES else preferred_locale(request)
    )
    t = i18n.translations(locale)
    reasons = [t.gettext(FILE_PROBLEMS[p.code]) if p.code in FILE_PROBLEMS else p.message for p in problems]
    if not reasons and str(signed.get("serial")) != serial:
        reasons.append(t.gettext(OTHER_SERIAL) % {"found": signed.get("serial"), "serial": serial})
    return site.page(
        "verify.html",
        request=request,
        locale=locale,
        serial=serial,
        cert=None,
        reasons=reasons,
        upload={"valid": not reasons, "data": _dated(signed) if not reasons else None},
    )


def _dated(data: dict | None) -> dict | None:
    """Signed certificate data with its day as a date (the JSON has it as ISO text)."""
    if not data or not isinstance(data.get("held_on"), str):
        return data
    try:
        return {**data, "held_on": date.fromisoformat(data["held_on"])}
    except ValueError:
        return {key: value for key, value in data.items() if key != "held_on"}


def _signed_data(outbox: Path, found: dict) -> dict | None:
    """The certificate's signed data (place, prize, date) from its stored PDF, when the file is there
    unchanged and carries the very signature on record; else None (the page shows the record)."""
    folder, filename = found["path"]
    path = (outbox / folder / filename).resolve()
    if not path.is_relative_to(outbox.resolve()) or not path.is_file():
        return None
    data = path.read_bytes()
    if hashlib.sha256(data).hexdigest() != found["sha256"]:
        return None
    try:
        attached = PdfReader(io.BytesIO(data)).attachments.get(pdf.ATTACHMENT)
        embedded = json.loads(attached[0]) if attached else None
    except Exception:
        return None
    if not embedded or embedded.get("signature") != found["signature"]:
        return None
    return embedded.get("data")


def _normal_code(code: str) -> str:
    return code.replace("-", "").upper()


def stored_file(outbox: Path, folder: str, filename: str, sha256: str) -> bytes | None:
    """A stored document's bytes from the outbox, when the file is there and unchanged (its sha256 on
    record); else None: an altered file is never handed out."""
    path = (outbox / folder / filename).resolve()
    if not path.is_relative_to(outbox.resolve()) or not path.is_file():
        return None
    data = path.read_bytes()
    return data if hashlib.sha256(data).hexdigest() == sha256 else None


def pdf_download(data: bytes, serial: str) -> Response:
    return Response(
        data,
        media_type="application/pdf",
        headers={
            "content-disposition": f'attachment; filename="certificate-{serial}.pdf"',
            "cache-control": "private, no-store",
        },
    )
