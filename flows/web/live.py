"""Live updates for server-sent events: one shared poller per watched thing (a poker tournament, a
Pusoy Dos tournament), never one per client.

A `Hub` keeps a `Topic` per key while at least one client listens. The topic's task polls a cheap
fingerprint every `interval` seconds (one short statement, in a worker thread); only when the
fingerprint changes — or a known instant passes, such as the end of the current level, which
changes what the screen shows without any write — does it build the full state once and hand the
same encoded message to every subscriber. While nothing changes the cost is one statement per
topic per interval, whatever the number of clients. The last subscriber leaving stops the task.

A write this process commits (a join, a report through `/api/v1`) wakes its topic's poller at once
(`Hub.changed`, callable from any thread), so a change made here reaches the followers without
waiting out the interval; changes made elsewhere (another process, a job) are found by the polling.
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
    subscribers: set[asyncio.Queue] = field(default_factory=set)
    message: bytes | None = None  # the server-sent event, encoded once for every subscriber
    version: str | None = None
    wake_at: datetime | None = None
    task: asyncio.Task | None = None
    woken: asyncio.Event = field(default_factory=asyncio.Event)  # a write here changed it: poll now
    builds: int = 0


def _wake_at(state: dict[str, Any]) -> datetime | None:
    """The next instant the state changes by itself (the level's end, the scheduled start), if it says so."""
    found = []
    for key in ("level_ends_at", "next_break_at", "counts_to"):
        value = (state.get("clock") or {}).get(key)
        if value:
            found.append(datetime.fromisoformat(value))
    return min(found, default=None)


class Hub:
    def __init__(self, interval: float = 0.5):
        self.interval = interval
        self.topics: dict[str, Topic] = {}
        self.loop: asyncio.AbstractEventLoop | None = None

    async def subscribe(self, key: str, fingerprint: Fingerprint, build: Build) -> tuple[asyncio.Queue, Topic]:
        self.loop = asyncio.get_running_loop()
        topic = self.topics.get(key)
        if topic is None:
            topic = Topic(key, fingerprint, build)
            self.topics[key] = topic
        queue: asyncio.Queue = asyncio.Queue(maxsize=1)
        topic.subscribers.add(queue)
        if topic.message is None:
            await self._refresh(topic, await to_thread.run_sync(topic.fingerprint))
        else:
            queue.put_nowait(topic.message)
        if topic.task is None or topic.task.done():
            topic.task = asyncio.create_task(self._poll(topic))
        return queue, topic

    def unsubscribe(self, topic: Topic, queue: asyncio.Queue) -> None:
        topic.subscribers.discard(queue)
        if not topic.subscribers:
            if topic.task is not None:
                topic.task.cancel()
            self.topics.pop(topic.key, None)

    def changed(self, key: str) -> None:
        """From any thread, after a commit: the topic `key` changed; its poller looks now."""
        if self.loop is not None and not self.loop.is_closed() and key in self.topics:
            self.loop.call_soon_threadsafe(self._wake, key)

    def _wake(self, key: str) -> None:
        topic = self.topics.get(key)
        if topic is not None:
            topic.woken.set()

    async def _refresh(self, topic: Topic, version: str | None) -> None:
        now = datetime.now(UTC)
        state = await to_thread.run_sync(topic.build, now)
        topic.builds += 1
        topic.version = version
        topic.wake_at = _wake_at(state)
        topic.message = f"data: {encode(state)}\n\n".encode()
        for queue in list(topic.subscribers):
            if queue.full():  # a slow client gets the newest state, not a backlog
                try:
                    queue.get_nowait()
                except asyncio.QueueEmpty:
                    pass
            queue.put_nowait(topic.message)

    async def _poll(self, topic: Topic) -> None:
        while topic.subscribers:
            try:
                await asyncio.wait_for(topic.woken.wait(), self.interval)
            except TimeoutError:
                pass
            topic.woken.clear()
            try:
                version = await to_thread.run_sync(topic.fingerprint)
                due = topic.wake_at is not None and datetime.now(UTC) >= topic.wake_at
                if version != topic.version or due:
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
