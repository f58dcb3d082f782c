"""The loop of a warm process that one machine at a time leads (the timekeeper, the event consumer):
standby until it holds its advisory lock (domain/store/leader.py), active until it stops or the
database goes away, then standby again; `stop()` wakes it by a notification on its channel."""

from __future__ import annotations

import logging
import threading

import psycopg
from sqlalchemy import Engine, text
from sqlalchemy.exc import DBAPIError, InterfaceError, OperationalError

from domain.errors import ConfigurationError
from domain.store.leader import Leader


def connection_trouble(exc: BaseException) -> bool:
    """The database is unreachable or the connection broke (retry after reconnecting), as opposed to
    a refusal or a bug in one moment (record it, go on with the others)."""
    if isinstance(exc, ConfigurationError | psycopg.OperationalError | psycopg.InterfaceError):
        return True
    if isinstance(exc, DBAPIError):
        return exc.connection_invalidated or isinstance(exc, OperationalError | InterfaceError)
    return False


def first_line(exc: BaseException) -> str:
    lines = str(exc).strip().splitlines()
    return lines[0] if lines else exc.__class__.__name__


class LeaderLoop:
    """What the loop's class gives: its ROLE (as logs name it), its LOCK and CHANNEL, `url`, `name`,
    `poll` (a standby asks for the lock this often), `log`, `engine`, `stopping`, `state`, and
    `_lead(leader)`: its work while it holds the lock, until `stopping` is set."""

    ROLE: str
    LOCK: tuple[int, int]
    CHANNEL: str
    url: str
    name: str
    poll: float
    log: logging.Logger | logging.LoggerAdapter
    engine: Engine
    stopping: threading.Event
    state: str

    def _lead(self, leader: Leader) -> None:
        raise NotImplementedError

    def run(self) -> None:
        """Until `stop()`: standby, active, and back to standby whenever the database goes away."""
        while not self.stopping.is_set():
            try:
                with Leader(self.url, self.LOCK, self.CHANNEL, self.name) as leader:
                    self._become("standby")
                    while not self.stopping.is_set() and not leader.try_acquire():
                        self.stopping.wait(self.poll)
                    if self.stopping.is_set():  # stopped while standby: it never held the lock
                        break
                    self._become("active")
                    self._lead(leader)
            except Exception as exc:  # the database went away (or worse): reconnect and catch up
                if not connection_trouble(exc):
                    self.log.exception("%s %s: unexpected error", self.ROLE, self.name)
                self._become("reconnecting", first_line(exc))
                self.stopping.wait(1.0)
        self._become("stopped")
        self.engine.dispose()

    def stop(self) -> None:
        """Ends `run` soon: at once when it sleeps (a notification wakes it), else after its step."""
        self.stopping.set()
        try:
            with self.engine.begin() as conn:
                conn.execute(text("SELECT pg_notify(:c, 'stop')"), {"c": self.CHANNEL})
        except DBAPIError:
            pass

    def _become(self, state: str, why: str = "") -> None:
        """Take the new state, then say so: a log that names the run by its role names it by this one."""
        was, self.state = self.state, state
        if state != was:
            self.log.info("%s %s: %s%s", self.ROLE, self.name, state, f" ({why})" if why else "")
