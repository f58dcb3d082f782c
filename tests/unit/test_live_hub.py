"""Issue 29, the live hub (flows/web/live.py): a change its NOTIFY told of wakes its topic (`Hub.wake`, as
the listener calls it), and a topic whose states carry their version (`VERSION`, read first in the build) is built at once without asking
its fingerprint first: one build per change for every subscriber, each getting the new state once; a
wake that changed nothing sends nothing; a topic whose states carry no version still asks its
fingerprint first on a wake, and builds only when it changed."""

from __future__ import annotations

import asyncio
import json
from datetime import datetime

from flows.web.live import Hub


class Cup:
    """A watched thing: its version, and how often the hub asked its fingerprint and built it."""

    def __init__(self, versioned: bool) -> None:
        self.version, self.versioned = "v1", versioned
        self.asked = self.built = 0

    def fingerprint(self) -> str:
        self.asked += 1
        return self.version

    def build(self, now: datetime) -> dict:
        self.built += 1
        return {"version": self.version} if self.versioned else {"shown": self.version}


def _data(message: bytes) -> dict:
    return json.loads(message.decode().removeprefix("data: "))


async def _built(cup: Cup, times: int) -> None:
    """Wait until the hub has built `cup` `times` times (the build's own sends are done by then)."""
    while cup.built < times:
        await asyncio.sleep(0.01)


def test_issue_29_a_woken_versioned_topic_is_built_once_for_every_subscriber_without_its_fingerprint():
    async def run() -> tuple[int, int, list[dict], list[dict]]:
        hub, cup = Hub(interval=60.0), Cup(versioned=True)
        first, topic = await hub.subscribe("pusoy:ABC234:play:en", cup.fingerprint, cup.build, "anna")
        second, _ = await hub.subscribe("pusoy:ABC234:play:en", cup.fingerprint, cup.build, "boris")
        before = [_data(first.get_nowait()), _data(second.get_nowait())]
        cup.version = "v2"
        hub.wake("pusoy:ABC234")
        after = [_data(await asyncio.wait_for(q.get(), 10)) for q in (first, second)]
        await hub.close()
        return cup.asked, topic.builds, before, after

    asked, builds, before, after = asyncio.run(run())
    assert asked == 1  # the first subscriber's first build only: the wake asked no fingerprint
    assert builds == 2  # the first state, then one build for both subscribers of the change
    assert before == [{"version": "v1"}] * 2 and after == [{"version": "v2"}] * 2


def test_issue_29_a_wake_that_changed_nothing_sends_nothing():
    async def run() -> tuple[int, bool]:
        hub, cup = Hub(interval=60.0), Cup(versioned=True)
        queue, topic = await hub.subscribe("pusoy:ABC234:play:en", cup.fingerprint, cup.build)
        queue.get_nowait()
        hub.wake("pusoy:ABC234")  # a write that left the version as it was (a repeated report)
        await asyncio.wait_for(_built(cup, 2), 10)
        await hub.close()
        return topic.builds, queue.empty()

    assert asyncio.run(run()) == (2, True)


def test_issue_29_a_topic_whose_states_carry_no_version_asks_its_fingerprint_on_a_wake():
    async def run() -> tuple[int, int, dict]:
        hub, cup = Hub(interval=60.0), Cup(versioned=False)
        queue, _ = await hub.subscribe("pusoy:ABC234", cup.fingerprint, cup.build)
        queue.get_nowait()
        hub.wake("pusoy:ABC234")  # nothing changed: the fingerprint says so, no build
        while cup.asked < 2:
            await asyncio.sleep(0.01)
        cup.version = "v2"
        hub.wake("pusoy:ABC234")
        event = _data(await asyncio.wait_for(queue.get(), 10))
        await hub.close()
        return cup.asked, cup.built, event

    assert asyncio.run(run()) == (3, 2, {"shown": "v2"})
