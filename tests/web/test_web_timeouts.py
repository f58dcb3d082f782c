"""The web pages' server times out slow headers and idle connections (infra/web_server.py): a client
sending its headers a byte at a time is disconnected after TOURNEY_WEB_HEADER_TIMEOUT, an idle
kept-alive one after TOURNEY_WEB_IDLE_TIMEOUT; a client that sends its request in time is served."""

from __future__ import annotations

import socket
import threading
import time
from dataclasses import replace

import uvicorn

from infra.config import load_settings
from infra.web_server import config


async def _hello(scope, receive, send):
    await send({"type": "http.response.start", "status": 200, "headers": [(b"content-length", b"2")]})
    await send({"type": "http.response.body", "body": b"ok"})


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _closed(conn: socket.socket, dribble: bytes, within: float) -> bool:
    """Send `dribble` a byte every 0.2 s; True when the server closes the connection before `within` s."""
    deadline = time.monotonic() + within
    conn.settimeout(0.2)
    for byte in dribble * 100:
        if time.monotonic() > deadline:
            return False
        try:
            conn.send(bytes([byte]))
            if conn.recv(1024) == b"":
                return True
        except TimeoutError:
            continue
        except (BrokenPipeError, ConnectionResetError):
            return True
    return False


def _response(conn: socket.socket) -> bytes:
    """One whole response of `_hello` (its head and its 2-byte body may come in separate segments)."""
    got = b""
    while not (b"\r\n\r\n" in got and got.endswith(b"ok")):
        chunk = conn.recv(1024)
        assert chunk, f"closed before the whole response: {got!r}"
        got += chunk
    return got


def test_slow_headers_and_idle_connections_are_closed_within_the_configured_time(monkeypatch):
    monkeypatch.setenv("TOURNEY_WEB_HEADER_TIMEOUT", "1")
    monkeypatch.setenv("TOURNEY_WEB_IDLE_TIMEOUT", "1")
    port = _free_port()
    server = uvicorn.Server(config(_hello, "127.0.0.1", port, replace(load_settings())))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    try:
        while not server.started:
            time.sleep(0.02)
        with socket.create_connection(("127.0.0.1", port)) as slow:
            slow.sendall(b"GET / HTTP/1.1\r\n")
            assert _closed(slow, b"X-Slow: 1234567890", within=10)  # 1 s configured; never done in 10
        with socket.create_connection(("127.0.0.1", port)) as kept:
            kept.sendall(b"GET / HTTP/1.1\r\nHost: x\r\n\r\n")
            kept.settimeout(10)
            assert _response(kept).startswith(b"HTTP/1.1 200")
            assert kept.recv(1024) == b""  # idle after its response: closed by the keep-alive timeout
            # a second slow request on a kept-alive connection is timed out too
        with socket.create_connection(("127.0.0.1", port)) as again:
            again.sendall(b"GET / HTTP/1.1\r\nHost: x\r\n\r\n")
            again.settimeout(10)
            assert _response(again).startswith(b"HTTP/1.1 200")
            again.sendall(b"GET / HTTP/1.1\r\n")
            assert _closed(again, b"X-Slow: 1234567890", within=10)
    finally:
        server.should_exit = True
        thread.join(10)


def test_issue_41_the_web_process_collects_young_objects_at_50000_and_freezes_what_it_made_before_serving():
    """infra/web_server.collect_less (called by `server`, what `tourney web` runs): the young generation
    collected at 50,000 objects, not Python's 700, and the imports' and app's objects frozen; in a
    process of its own, so this worker's collector is left as it is."""
    import subprocess
    import sys

    probe = (
        "import gc; from infra.web_server import collect_less; frozen = gc.get_freeze_count(); "
        "collect_less(); print(gc.get_threshold(), frozen, gc.get_freeze_count() > 10_000)"
    )
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=60, check=True)
    assert out.stdout.strip() == "(50000, 20, 10) 0 True"
