"""The event consumer (flows/jobs/events.py) for the tests: `consuming()` runs one in a thread on the test
database, as `tourney serve` runs it, until the block ends; `wait_for(condition)` polls an outcome with
a generous time-out (no test asserts how long it took)."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager

from flows.jobs.events import Consumer

WAIT_S = 30.0


@contextmanager
def consuming(**kw) -> Iterator[Consumer]:
    kw.setdefault("poll", 0.1)
    consumer = Consumer(**kw)
    thread = threading.Thread(target=consumer.run, name="test-event-consumer", daemon=True)
    thread.start()
    try:
        assert wait_for(lambda: consumer.state in ("active", "standby")), consumer.state
        yield consumer
    finally:
        consumer.stop()
        thread.join(WAIT_S)


def wait_for(condition: Callable[[], object], seconds: float = WAIT_S) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(0.02)
    return bool(condition())
