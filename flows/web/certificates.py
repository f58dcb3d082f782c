"""The certificate check (DOC-5): `/verify/<serial>?code=…` from the QR code, or an uploaded PDF
whose embedded signature is verified with the platform's key."""

from __future__ import annotations

import hashlib
import io
import json
import re
from pathlib import Path

from anyio import to_thread
from pypdf import PdfReader
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import Response

from domain.public.services import views
from flows.web.site import Site
from infra import pdf

SERIAL = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$")
CODE = re.compile(r"^[A-Za-z2-9]{4}-?[A-Za-z2-9]{4}$")
MAX_UPLOAD = 10 * 1024 * 1024


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
        reasons.append("no certificate with this serial was issued by Tourney")
    elif not code:
        reasons.append("the link carries no verification code")
    elif _normal_code(code) != _normal_code(found["code"]):
        reasons.append("the verification code does not match this certificate's signature")
    signed = await to_thread.run_sync(_signed_data, site.outbox, found) if not reasons else None
    return site.page("verify.html", serial=serial, cert=found if not reasons else None, reasons=reasons,
                     upload=None, signed=signed)


async def _upload(request: Request) -> bytes:
    """The uploaded file's bytes: one file, its size declared and at most MAX_UPLOAD."""
    length = request.headers.get("content-length", "")
    if not length.isdigit():  # no chunked uploads: the size is known before anything is read
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
    reasons = [p.message for p in problems]
    signed = (embedded or {}).get("data") or {}
    if not reasons and str(signed.get("serial")) != serial:
        reasons.append(f"the file is the certificate {signed.get('serial')}, not {serial}")
    return site.page("verify.html", serial=serial, cert=None, reasons=reasons,
                     upload={"valid": not reasons, "data": signed if not reasons else None})


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
