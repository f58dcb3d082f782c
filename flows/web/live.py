"""Live updates for server-sent events: one shared poller per watched thing (a poker tournament, a
Pusoy Dos tournament), never one per client.

A `Hub` keeps a `Topic` per key while at least one client listens. The topic's task polls a cheap
fingerprint every `interval` seconds (one short statement, in a worker thread); only when the
fingerprint changes — or a known instant passes, such as the end of the current level, which
changes what the screen shows without any write — does it build the full state once and hand the
same encoded message to every subscriber. While nothing changes the cost is one statement per
topic per interval, whatever the number of clients. The last subscriber leaving stops the task.

A state may hold parts of its own for some subscribers (`PARTS`: {part: fields}): a subscriber of
part `p` gets the state's other fields and those of `parts[p]` (of `parts[None]` when there is no `p`),
each part encoded once per change, the shared fields once for all (a cup's followers: the cup's
standings for everyone, each player's own table and rounds for that player's streams alone).

A write this process commits (a join, a report through `/api/v1`) wakes its topic's poller at once
(`Hub.changed`, callable from any thread), so a change made here reaches the followers without
waiting out the interval; it wakes the topics under that key too (`pusoy:CODE` wakes `pusoy:CODE:…`).
Changes made elsewhere (another process, a job) are found by the polling.

A state may carry its own version (`VERSION`: the fingerprint, read first in the build's transaction,
so what the state shows is never older than it). The topic then keeps that version, and a woken poller
builds at once without asking the fingerprint first (the write is known to have changed it): a wake
costs the build's transaction alone. A wake that changed nothing (its state's version is the one
already sent) sends nothing.
"""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from anyio import to_thread

log = logging.getLogger("tourney.web")

Fingerprint = Callable[[], str | None]
Build = Callable[[datetime], dict[str, Any]]
PARTS = "parts"  # a state's fields for some subscribers only, by part (never sent as such)
VERSION = "version"  # a state's own version, when its build reads the fingerprint (first)


def _default(value: Any) -> Any:
    if isinstance(value, datetime):
        return value.isoformat()
    return str(value)


def encode(state: dict[str, Any]) -> str:
    return json.dumps(state, default=_default, separators=(",", ":"), ensure_ascii=False)


@dataclass
class Topic:
    key: str
    fingerprint: Fingerprint
    build: Build
    subscribers: dict[asyncio.Queue, str | None] = field(default_factory=dict)  # each with its part
    shared: str | None = None  # the state's JSON but its parts, encoded once for every subscriber
    parts: dict[str | None, dict[str, Any]] = field(default_factory=dict)
    messages: dict[str | None, bytes] = field(default_factory=dict)  # the server-sent event of each part, once
    version: str | None = None
    versioned: bool = False  # its states carry their version: a wake needs no fingerprint first
    wake_at: datetime | None = None
    task: asyncio.Task | None = None
    woken: asyncio.Event = field(default_factory=asyncio.Event)  # a write here changed it: poll now
    first: asyncio.Lock = field(default_factory=asyncio.Lock)  # held while the first state is built
    builds: int = 0

    def message(self, part: str | None) -> bytes:
        """The server-sent event of a subscriber of `part`: the shared fields, then the part's own (fields
        the shared ones do not have), the shared JSON spliced in, never encoded again."""
        part = part if part in self.parts else None
        found = self.messages.get(part)
        if found is None:
            body, own = self.shared, encode(self.parts.get(part) or {})
            if own != "{}":
                body = own if body == "{}" else f"{body[:-1]},{own[1:]}"
            found = self.messages[part] = f"data: {body}\n\n".encode()
        return found


def _wake_at(state: dict[str, Any]) -> datetime | None:
    """The next instant the state changes by itself (the level's end, the scheduled start), if it says so."""
    found = []
    for key in ("level_ends_at", "next_break_at", "counts_to"):
        value = (state.get("clock") or {}).get(key)
        if value:
            found.append(datetime.fromisoformat(value))
    return min(found, default=None)


def _due(topic: Topic, now: datetime) -> bool:
    """The instant the topic's state changes by itself has come."""
    return topic.wake_at is not None and now >= topic.wake_at


class Hub:
    def __init__(self, interval: float = 0.5):
        self.interval = interval
        self.topics: dict[str, Topic] = {}
        self.loop: asyncio.AbstractEventLoop | None = None

    async def subscribe(
        self, key: str, fingerprint: Fingerprint, build: Build, part: str | None = None
    ) -> tuple[asyncio.Queue, Topic]:
        self.loop = asyncio.get_running_loop()
        topic = self.topics.get(key)
        if topic is None:
            topic = Topic(key, fingerprint, build)
            self.topics[key] = topic
        async with topic.first:  # one first build, however many subscribe at once
            if topic.shared is None:
                await self._refresh(topic, await to_thread.run_sync(topic.fingerprint))
        queue: asyncio.Queue = asyncio.Queue(maxsize=1)
        topic.subscribers[queue] = part
        queue.put_nowait(topic.message(part))
        if topic.task is None or topic.task.done():
            topic.task = asyncio.create_task(self._poll(topic))
        return queue, topic

    def unsubscribe(self, topic: Topic, queue: asyncio.Queue) -> None:
        topic.subscribers.pop(queue, None)
        if not topic.subscribers:
            if topic.task is not None:
                topic.task.cancel()
            self.topics.pop(topic.key, None)

    def changed(self, key: str) -> None:
        """From any thread, after a commit: the topic `key` changed, and those under it (`key:…`);
        their pollers look now."""
        if self.loop is not None and not self.loop.is_closed():
            self.loop.call_soon_threadsafe(self._wake, key)

    def _wake(self, key: str) -> None:
        for name, topic in self.topics.items():
            if name == key or name.startswith(f"{key}:"):
                topic.woken.set()

    async def _refresh(self, topic: Topic, version: str | None, woken: bool = False) -> None:
        """Build the topic's state and hand it to every subscriber; `version`, the fingerprint read before
        the build (None when `woken` without one). A woken build whose version is the one already sent
        (and no instant due) changed nothing: nothing is sent."""
        now = datetime.now(UTC)
        state = await to_thread.run_sync(topic.build, now)
        topic.builds += 1
        topic.versioned = VERSION in state
        version = state.get(VERSION, version)
        if woken and version == topic.version and not _due(topic, now):
            return
        topic.version = version
        topic.wake_at = _wake_at(state)
        topic.parts = state.get(PARTS) or {}
        topic.shared = encode({k: v for k, v in state.items() if k != PARTS})
        topic.messages = {}
        for queue, part in list(topic.subscribers.items()):
            if queue.full():  # a slow client gets the newest state, not a backlog
                try:
                    queue.get_nowait()
                except asyncio.QueueEmpty:
                    pass
            queue.put_nowait(topic.message(part))

    async def _poll(self, topic: Topic) -> None:
        while topic.subscribers:
            try:
                await asyncio.wait_for(topic.woken.wait(), self.interval)
            except TimeoutError:
                pass
            woken = topic.woken.is_set()
            topic.woken.clear()
            try:
                if woken and topic.versioned:  # a write here changed it: the build reads the version
                    await self._refresh(topic, None, woken=True)
                    continue
                version = await to_thread.run_sync(topic.fingerprint)
                if version != topic.version or _due(topic, datetime.now(UTC)):
                    await self._refresh(topic, version)
            except asyncio.CancelledError:
                raise
            except Exception:  # the database away for a moment: keep the last state, try again
                log.exception("live poll of %s failed", topic.key)
                await asyncio.sleep(self.interval * 4)

    async def close(self) -> None:
        for topic in list(self.topics.values()):
            if topic.task is not None:
                topic.task.cancel()
        self.topics.clear()
