"""One holder at a time across machines: a PostgreSQL session advisory lock held on a connection of
its own, which, once the lock is held, also LISTENs on a channel and waits for its notifications.

The lock lives exactly as long as that connection's session. When the holding process dies, even by
kill -9, its kernel closes the socket and the server ends the session at once, releasing the lock.
When its machine or the network dies instead, TCP keepalives (both ends, probing after 3 s idle
every 2 s, 2 probes) and a TCP user timeout of 7 s end the session within about 7 s, so that a
standby holds the lock within 10 s of the partition (data the server still has to send, a NOTIFY to
the holder, waits out the user timeout, not the keepalives: 10 s was measured as 10.0-11.1). A holder that
loses the connection (the database restarted) has lost the lock: every use of the connection then
raises `psycopg.OperationalError`, and the holder must stop, reconnect and take the lock again.

A standby does not LISTEN: a listener that never reads would hold back the server's notification
queue for everyone."""

from __future__ import annotations

import time

import psycopg
from sqlalchemy.engine import make_url

KEEPALIVE = {"keepalives": 1, "keepalives_idle": 3, "keepalives_interval": 2, "keepalives_count": 2}
USER_TIMEOUT_MS = 7000  # unacknowledged data this long ends the connection (both ends)
SERVER_KEEPALIVE = f"-c tcp_keepalives_idle=3 -c tcp_keepalives_interval=2 -c tcp_keepalives_count=2 -c tcp_user_timeout={USER_TIMEOUT_MS}"


def conninfo(url: str) -> str:
    """A libpq connection string from a SQLAlchemy URL (any driver)."""
    return make_url(url).set(drivername="postgresql").render_as_string(hide_password=False)


class Leader:
    """`with Leader(url, key, channel, name) as leader:` a connection; `try_acquire()` takes the lock
    (False when another session holds it); `wait(seconds)` returns early on a notification."""

    def __init__(self, url: str, key: tuple[int, int], channel: str, name: str, connect_timeout: int = 5):
        self.url, self.key, self.channel, self.name = url, key, channel, name
        self.connect_timeout = connect_timeout
        self.conn: psycopg.Connection | None = None
        self.held = False
        self._checked = 0.0

    def __enter__(self) -> Leader:
        self.conn = psycopg.connect(
            conninfo(self.url),
            autocommit=True,
            application_name=self.name[:63],
            connect_timeout=self.connect_timeout,
            tcp_user_timeout=USER_TIMEOUT_MS,
            options=SERVER_KEEPALIVE,
            **KEEPALIVE,
        )
        return self

    def __exit__(self, *exc) -> None:
        conn, self.conn, self.held = self.conn, None, False
        if conn is not None:
            conn.close()  # ends the session: the lock goes with it

    def _c(self) -> psycopg.Connection:
        if self.conn is None:
            raise psycopg.OperationalError("the leader connection is closed")
        return self.conn

    def try_acquire(self) -> bool:
        got = self._c().execute("SELECT pg_try_advisory_lock(%s, %s)", self.key).fetchone()
        self.held = bool(got and got[0])
        if self.held:
            self._c().execute(f'LISTEN "{self.channel}"')
            self._checked = time.monotonic()
        return self.held

    def check(self, every: float = 1.0) -> None:
        """Raise psycopg.OperationalError when the connection (and so the lock) is gone; asks the
        server at most every `every` seconds."""
        if time.monotonic() - self._checked >= every:
            self._c().execute("SELECT 1")
            self._checked = time.monotonic()

    def wait(self, seconds: float) -> list[str]:
        """Sleep up to `seconds`; return at once with the payloads of the notifications that came."""
        conn = self._c()
        got = [n.payload for n in conn.notifies(timeout=max(0.0, seconds), stop_after=1)]
        if got:
            got += [n.payload for n in conn.notifies(timeout=0)]  # the others already there
        self._checked = time.monotonic()  # reading the socket proved it alive (or raised)
        return got
