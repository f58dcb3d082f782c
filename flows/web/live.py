"""Live updates for server-sent events: one shared topic per watched thing (a poker tournament, a
Pusoy Dos tournament), never one per client, and one LISTEN connection per process.

A `Hub` keeps a `Topic` per key while at least one client listens. A committed change anywhere (this
process, another web process, another host, the timekeeper) says so with `NOTIFY tourney_live, 'KEY'`
in its transaction (`domain.store.live.changed`); the hub's one listening connection
(`LISTEN tourney_live`, psycopg) wakes the topic of that key and the topics under it (`pusoy:CODE` wakes
`pusoy:CODE:…`). A woken topic reads its cheap fingerprint (one short statement, in a worker thread)
and, when it changed, builds the full state once and hands the same encoded message to every
subscriber. Besides the wakes, a topic looks by itself at the instant its state changes with no write
(`_wake_at`: the end of the current level, the scheduled start) and, as a safety net for a change
that said nothing (a row written by hand), every `interval` seconds. The last subscriber leaving
stops the topic's task.

The listener reconnects when its connection is lost (the database restarted, its backend ended):
every topic then looks once, for what changed while nobody listened. A notification is only a
wake-up: the state is read from the database again, so a lost or doubled one changes nothing but how
soon a follower sees it.

A state may hold parts of its own for some subscribers (`PARTS`: {part: fields}): a subscriber of
part `p` gets the state's other fields and those of `parts[p]` (of `parts[None]` when there is no `p`),
each part encoded once per change, the shared fields once for all (a cup's followers: the cup's
standings for everyone, each player's own table and rounds for that player's streams alone).

A state may carry its own version (`VERSION`: the fingerprint, read first in the build's transaction,
so what the state shows is never older than it). The topic then keeps that version, and a woken topic
builds at once without asking the fingerprint first (the notification says it changed): a wake costs
the build's transaction alone. A wake that changed nothing (its state's version is the one already
sent) sends nothing.
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

from domain.store.live import CHANNEL

log = logging.getLogger("tourney.web")

Fingerprint = Callable[[], str | None]
Build = Callable[[datetime], dict[str, Any]]
PARTS = "parts"  # a state's fields for some subscribers only, by part (never sent as such)
VERSION = "version"  # a state's own version, when its build reads the fingerprint (first)
LISTEN_WAIT_S = 2.0  # how long a first subscriber waits for the listener before its first state
# the listener's connection: named in pg_stat_activity, and a host that vanished found by TCP keepalives
LISTENER = {
    "application_name": "tourney web live",
    "keepalives": 1,
    "keepalives_idle": 10,
    "keepalives_interval": 3,
    "keepalives_count": 3,
}


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


def _wake_at(state: dict[str, Any], now: datetime) -> datetime | None:
    """The next instant after `now` the state changes by itself (the level's end, the scheduled start),
    if it says so."""
    found = []
    for key in ("level_ends_at", "next_break_at", "counts_to"):
        value = (state.get("clock") or {}).get(key)
        if value and (at := datetime.fromisoformat(value)) > now:
            found.append(at)
    return min(found, default=None)


def _due(topic: Topic, now: datetime) -> bool:
    """The instant the topic's state changes by itself has come."""
    return topic.wake_at is not None and now >= topic.wake_at


class Hub:
    """The process's topics; `listen`, the database's address (a libpq URI) to LISTEN on, else none
    (the unit tests' hub, woken by `wake` alone); `interval`, the safety net's seconds."""

    def __init__(self, interval: float = 5.0, listen: Callable[[], str] | None = None):
        self.interval = interval
        self.listen = listen
        self.topics: dict[str, Topic] = {}
        self.listener: asyncio.Task | None = None
        self.listening = asyncio.Event()  # the listener's connection is up and LISTENs

    async def subscribe(
        self, key: str, fingerprint: Fingerprint, build: Build, part: str | None = None
    ) -> tuple[asyncio.Queue, Topic]:
        await self._listening()
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

    async def _listening(self) -> None:
        """The listener started (once a process, by its first subscriber) and, for a while, listening:
        a first state built after that misses no change. The database away: the safety net's polls."""
        if self.listen is None:
            return
        if self.listener is None or self.listener.done():
            self.listener = asyncio.create_task(self._listen())
        try:
            await asyncio.wait_for(self.listening.wait(), LISTEN_WAIT_S)
        except TimeoutError:
            pass

    async def _listen(self) -> None:
        """The one LISTEN connection: each notification wakes its key's topics. A lost connection is made
        again (after 0.1 s, doubling to 5 s while the database stays away), and every topic that has a
        state looks once: a change committed while nobody listened said so to no one."""
        import psycopg

        pause = 0.1
        while True:
            try:
                connecting = psycopg.AsyncConnection.connect(self.listen(), autocommit=True, **LISTENER)
                async with await connecting as conn:
                    await conn.execute(f"LISTEN {CHANNEL}")
                    self.listening.set()
                    pause = 0.1
                    for topic in self.topics.values():
                        if topic.shared is not None:
                            topic.woken.set()
                    async for note in conn.notifies():
                        self.wake(note.payload)
            except (psycopg.Error, OSError) as exc:
                log.warning("live: the LISTEN connection is lost (%s); connecting again in %.1f s", exc, pause)
            self.listening.clear()
            await asyncio.sleep(pause)
            pause = min(pause * 2, 5.0)

    def unsubscribe(self, topic: Topic, queue: asyncio.Queue) -> None:
        topic.subscribers.pop(queue, None)
        if not topic.subscribers:
            if topic.task is not None:
                topic.task.cancel()
            self.topics.pop(topic.key, None)

    def wake(self, key: str) -> None:
        """In the hub's loop: the topic `key` changed, and those under it (`key:…`); they look now."""
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
        topic.wake_at = _wake_at(state, now)
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

    def _timeout(self, topic: Topic) -> float:
        """Seconds until the topic looks by itself: the safety net's interval, or sooner the instant its
        state changes with no write (the level's end)."""
        if topic.wake_at is None:
            return self.interval
        return max(0.0, min(self.interval, (topic.wake_at - datetime.now(UTC)).total_seconds() + 0.005))

    async def _poll(self, topic: Topic) -> None:
        while topic.subscribers:
            try:
                await asyncio.wait_for(topic.woken.wait(), self._timeout(topic))
            except TimeoutError:
                pass
            woken = topic.woken.is_set()
            topic.woken.clear()
            try:
                if woken and topic.versioned:  # a change said so: the build reads the version first
                    await self._refresh(topic, None, woken=True)
                    continue
                version = await to_thread.run_sync(topic.fingerprint)
                if version != topic.version or _due(topic, datetime.now(UTC)):
                    await self._refresh(topic, version)
            except asyncio.CancelledError:
                raise
            except Exception:  # the database away for a moment: keep the last state, try again
                log.exception("live poll of %s failed", topic.key)
                await asyncio.sleep(1.0)

    async def close(self) -> None:
        for topic in list(self.topics.values()):
            if topic.task is not None:
                topic.task.cancel()
        self.topics.clear()
        if self.listener is not None:
            self.listener.cancel()
