"""What every request of `/api/v1` meets before and after its operation (docs/api.md, "HTTP"):

- `EdgeRoute`: a string no operation can take is refused at the edge with 422, before any parameter
  is read: a NUL character (PostgreSQL's text refuses it), a lone surrogate or bytes that are not
  UTF-8, in the path, the query or a JSON body; a body over `MAX_BODY` bytes is 413. The refusal is a
  validation error, so an anonymous caller of a non-public operation still gets its 401 first.
- `Http`: HEAD on every GET (the same headers, no body); an `ETag` on every successful read, and 304
  to an `If-None-Match` that matches; `Cache-Control` (`private, no-cache` when the request carries a
  credential: revalidate with the ETag; `public, max-age=5` when it carries none) with `Vary`.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any
from urllib.parse import unquote_to_bytes

from fastapi.exceptions import RequestValidationError
from fastapi.routing import APIRoute
from starlette.requests import Request
from starlette.types import ASGIApp, Message, Receive, Scope, Send

MAX_BODY = 256 * 1024  # the largest body an operation takes (a report is < 1 KiB, a structure's CSV < 64 KiB)
MAX_BODY_KEY = "x-max-body"  # an operation that takes a larger body (a club's logo) says so in its document
PUBLIC_MAX_AGE = 5  # seconds a shared cache may keep a public read


def text_problem(value: str) -> str | None:
    """Why a string cannot be taken (a NUL, a lone surrogate), or None."""
    if "\x00" in value:
        return "a NUL character is not text"
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        return "a lone surrogate is not text"
    return None


def _bytes_problem(raw: bytes) -> str | None:
    try:
        return text_problem(unquote_to_bytes(raw).decode("utf-8"))
    except UnicodeDecodeError:
        return "not UTF-8"


def _walk(value: Any, where: tuple) -> list[dict]:
    if isinstance(value, str):
        problem = text_problem(value)
        return [] if problem is None else [{"type": "bad-text", "loc": where, "msg": problem}]
    if isinstance(value, dict):
        found = []
        for key, item in value.items():
            found += _walk(key, where) + _walk(item, (*where, key))
        return found
    if isinstance(value, list):
        return [p for n, item in enumerate(value) for p in _walk(item, (*where, n))]
    return []


class TooLarge(Exception):
    """A body over MAX_BODY, or over its operation's larger limit (413): the limit, in bytes."""


async def unclean(request: Request, max_body: int = MAX_BODY) -> list[dict]:
    """Every string of the request no operation can take, as FastAPI's validation errors; a body over
    `max_body` bytes: TooLarge."""
    found = []
    for part, raw in (("path", request.scope.get("raw_path") or b""), ("query", request.scope["query_string"])):
        problem = _bytes_problem(raw)
        if problem is not None:
            found.append({"type": "bad-text", "loc": (part, part), "msg": problem})
    length = request.headers.get("content-length", "")
    if length.isascii() and length.isdigit() and int(length) > max_body:
        raise TooLarge(max_body)
    body = await request.body() if request.method == "POST" else b""
    request.state.body = body  # the fingerprint of an Idempotency-Key (core._asked)
    if len(body) > max_body:
        raise TooLarge(max_body)
    if "json" in request.headers.get("content-type", ""):
        try:
            found += _walk(json.loads(body.decode("utf-8")), ("body",)) if body else []
        except UnicodeDecodeError:
            found.append({"type": "bad-text", "loc": ("body",), "msg": "not UTF-8"})
        except ValueError:
            pass  # not JSON: FastAPI says so (json_invalid)
    return found


class EdgeRoute(APIRoute):
    """An operation's route that refuses unclean strings before FastAPI reads its parameters."""

    def get_route_handler(self):
        handler = super().get_route_handler()
        max_body = (self.openapi_extra or {}).get(MAX_BODY_KEY, MAX_BODY)

        async def edge(request: Request):
            problems = await unclean(request, max_body)
            if problems:
                raise RequestValidationError(problems)
            return await handler(request)

        return edge


def _credential(scope: Scope) -> bool:
    return any(name in (b"authorization", b"cookie") for name, _ in scope["headers"])


class Http:
    """HEAD, ETag and 304, Cache-Control and Vary for the API's reads (pure ASGI: the body of a read
    is held until it is complete, to hash it; reads are small JSON or one PDF)."""

    def __init__(self, app: ASGIApp):
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["method"] not in ("GET", "HEAD"):
            await self.app(scope, receive, send)
            return
        head = scope["method"] == "HEAD"
        if head:
            scope = dict(scope, method="GET")
        asked = dict(scope["headers"]).get(b"if-none-match", b"").decode("latin-1")
        start: dict = {}
        chunks: list[bytes] = []

        async def hold(message: Message) -> None:
            if message["type"] == "http.response.start":
                start.update(message)
                return
            chunks.append(message.get("body", b""))
            if message.get("more_body"):
                return
            await _answer(send, start, b"".join(chunks), head=head, asked=asked, credential=_credential(scope))

        await self.app(scope, receive, hold)


async def _answer(send: Send, start: dict, body: bytes, *, head: bool, asked: str, credential: bool) -> None:
    status = start["status"]
    headers = [(k, v) for k, v in start.get("headers", []) if k.lower() != b"content-length"]
    if status == 200:
        tag = '"' + hashlib.blake2b(body, digest_size=12).hexdigest() + '"'
        cache = "private, no-cache" if credential else f"public, max-age={PUBLIC_MAX_AGE}"
        headers += [(b"etag", tag.encode()), (b"cache-control", cache.encode()), (b"vary", b"Authorization, Cookie")]
        if tag in (t.strip().removeprefix("W/") for t in asked.split(",")) or asked.strip() == "*":
            status, body = 304, b""
            headers = [(k, v) for k, v in headers if k.lower() != b"content-type"]
    if status != 304:
        headers.append((b"content-length", str(len(body)).encode()))
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": b"" if head else body})
