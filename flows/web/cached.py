"""The public pages rendered once per change (docs/web.md#caching): a page's bytes, and their gzip, are
kept by the page's version (domain/public/services/versions.py, one short statement) and served again
while the version stays, with an `ETag`, 304 to an `If-None-Match` that matches, gzip to a client that
accepts it, and `Cache-Control`.

- **One statement a request at most, none shared.** There is no freshness window: a request is answered
  from a version read after it arrived, so a write committed before it was sent, by any process, is on
  the page. Requests for one page that arrive while its version is being read wait for the next read
  together (`Pages.version`): under load a page costs one statement per statement's time, however many
  ask, and each request still gets a version at least as new as itself.
- **One render a change.** A version not kept yet is rendered once, however many requests ask for it at
  once (the render's lock), compressed once (gzip, level 6, no timestamp), and kept: the same bytes on
  every process for the same version, so the ETag, a hash of the bytes as the API's reads have
  (flows/web/api/edge.py), is the same on every process too. Weak (`W/`), being the same for the page
  compressed or not.
- **Pages that show the clock are kept for a second.** The club's screen and the widget show the time
  left and the server's instant: their version is the tournament's and the current second, so they are
  rendered at most once a second however many watch (their bytes carry the instant of their render, so
  two processes' differ, and so do their ETags).
- **A session's requests are not kept**: the page's header names the person's places, so a request with
  this site's session cookie is rendered for it as before, `private, no-store`.
"""

from __future__ import annotations

import asyncio
import gzip
import hashlib
from collections import Counter, OrderedDict
from collections.abc import Awaitable, Callable, Hashable
from dataclasses import dataclass
from datetime import UTC, datetime

from anyio import to_thread
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import Response

LIVE_MAX_AGE = 5  # seconds, as the API's public reads (flows/web/api/edge.py)
LIVE = f"public, max-age={LIVE_MAX_AGE}, must-revalidate"  # a page that changes as the tournament goes on
CLOCK = "public, max-age=1, must-revalidate"  # a page that shows the clock (the screen, the widget)
FINISHED_MAX_AGE = 600
FINISHED = f"public, max-age={FINISHED_MAX_AGE}"  # a finished or cancelled tournament's, a complete cup's
PRIVATE = "private, no-store"  # a page rendered for a session
VARY = "Accept-Encoding, Cookie"
KEPT = 500  # pages kept per process, the least recently asked for dropped first
_UNSENT = frozenset({"content-length", "content-type"})


@dataclass(frozen=True)
class Rendered:
    """A page's bytes for one version, compressed once, with the headers it is served with."""

    version: str
    body: bytes
    gzipped: bytes
    etag: str
    media_type: str
    headers: dict[str, str]  # cache-control, vary, and the page's own (the widget's security policy)

    @classmethod
    def of(cls, version: str, page: Response, cache_control: str, vary: str) -> Rendered:
        own = {k: v for k, v in page.headers.items() if k not in _UNSENT}
        return cls(
            version=version,
            body=page.body,
            gzipped=gzip.compress(page.body, compresslevel=6, mtime=0),
            etag='W/"' + hashlib.blake2b(page.body, digest_size=12).hexdigest() + '"',
            media_type=page.media_type or "text/html",
            headers={**own, "cache-control": cache_control, "vary": vary},
        )


def accepts_gzip(accept_encoding: str) -> bool:
    """The client's `Accept-Encoding` takes gzip (`gzip` or `*`, not at q=0)."""
    for part in accept_encoding.lower().split(","):
        coding, _, params = part.strip().partition(";")
        if coding.strip() not in ("gzip", "*"):
            continue
        q = params.strip()
        if not q.startswith("q="):
            return True
        try:
            return float(q[2:]) > 0
        except ValueError:
            return False
    return False


def matches(if_none_match: str | None, etag: str) -> bool:
    """`If-None-Match` names the tag (compared weakly, as RFC 9110 asks for it) or is `*`."""
    if not if_none_match:
        return False
    if if_none_match.strip() == "*":
        return True
    mine = etag.removeprefix("W/")
    return any(tag.strip().removeprefix("W/") == mine for tag in if_none_match.split(","))


def answer(request: Request, kept: Rendered) -> Response:
    """The kept page for this request: 304 when the client has it, else its bytes, gzipped when taken."""
    headers = {**kept.headers, "etag": kept.etag}
    if matches(request.headers.get("if-none-match"), kept.etag):
        return Response(status_code=304, headers={k: v for k, v in headers.items() if k != "content-type"})
    if accepts_gzip(request.headers.get("accept-encoding", "")):
        return Response(kept.gzipped, headers={**headers, "content-encoding": "gzip"}, media_type=kept.media_type)
    return Response(kept.body, headers=headers, media_type=kept.media_type)


Render = Callable[[datetime], Awaitable[tuple[Response, str]]]  # a page at an instant, and its Cache-Control


class Pages:
    """The rendered public pages of one process, by key (the page and what it is of: `("results", 7,
    False)`), each with its version; `renders` counts each key's renders."""

    def __init__(self, kept: int = KEPT):
        self.limit = kept
        self.kept: OrderedDict[Hashable, Rendered] = OrderedDict()
        self.renders: Counter[Hashable] = Counter()
        self._next: dict[Hashable, asyncio.Future] = {}  # the version read that starts next, by key
        self._reading: set[Hashable] = set()
        self._locks: dict[Hashable, asyncio.Lock] = {}
        self._tasks: set[asyncio.Task] = set()

    async def version(self, key: Hashable, read: Callable[[], str | None]) -> str | None:
        """The page's version, read after this call began: joins the read that starts next (the one
        running began before this call), so many callers at once share one statement."""
        waiting = self._next.get(key)
        if waiting is None:
            waiting = self._next[key] = asyncio.get_running_loop().create_future()
            if key not in self._reading:
                task = asyncio.create_task(self._read(key, read))
                self._tasks.add(task)
                task.add_done_callback(self._tasks.discard)
        return await asyncio.shield(waiting)

    async def _read(self, key: Hashable, read: Callable[[], str | None]) -> None:
        self._reading.add(key)
        try:
            while (waiting := self._next.pop(key, None)) is not None:
                try:
                    waiting.set_result(await to_thread.run_sync(read))
                except Exception as exc:  # the database away: every waiter of this read is told
                    waiting.set_exception(exc)
                    waiting.exception()  # retrieved: a waiter that left does not leave it unheard
        finally:
            self._reading.discard(key)

    async def serve(
        self,
        request: Request,
        key: Hashable,
        read: Callable[[], str | None],
        render: Render,
        *,
        signed_in: bool,
        clock: bool = False,
        vary: str = VARY,
    ) -> Response:
        """The page `key` at its version (`read`, None: not there, 404), rendered by `render` when that
        version is not kept yet; for a session (`signed_in`) rendered for it and not kept. `clock`: the
        page shows the clock, so its version is the current second's too."""
        if signed_in:
            page, _ = await render(datetime.now(UTC))
            page.headers["cache-control"] = PRIVATE
            page.headers["vary"] = vary
            return page
        version = await self.version(key, read)
        if version is None:
            raise HTTPException(404)
        now = datetime.now(UTC)
        if clock:
            version = f"{version}@{now.replace(microsecond=0).isoformat()}"
        kept = self.kept.get(key)
        if kept is None or kept.version != version:
            lock = self._locks.setdefault(key, asyncio.Lock())
            async with lock:  # one render of a version, however many ask for it at once
                kept = self.kept.get(key)
                if kept is None or kept.version != version:
                    page, cache_control = await render(now)
                    kept = Rendered.of(version, page, cache_control, vary)
                    self.renders[key] += 1
                    self._keep(key, kept)
        self.kept.move_to_end(key)
        return answer(request, kept)

    def _keep(self, key: Hashable, kept: Rendered) -> None:
        self.kept[key] = kept
        while len(self.kept) > self.limit:
            gone, _ = self.kept.popitem(last=False)
            lock = self._locks.get(gone)
            if lock is not None and not lock.locked():
                del self._locks[gone]
