"""A real HTTP server on 127.0.0.1 answering like DaData's `findById/party`, for tests and the bench.

`registry.add(party(...))` puts a record in it; `registry.script(inn, *steps)` makes the next
requests for that INN misbehave, one step per request: an HTTP status (429, 500, 401...), `"slow"`
(answers after `slow_seconds`; every answer takes `latency`) or `"malformed"` (HTTP 200 with a body that is not JSON). Every request
is recorded with its arrival time (time.monotonic) so callers can check the rate the server saw.
"""

from __future__ import annotations

import json
import sys
import threading
import time
from collections import defaultdict, deque
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

PATH = "/suggestions/api/4_1/rs/findById/party"


@dataclass(frozen=True)
class Seen:
    at: float
    inn: str | None
    authorization: str | None
    client_port: int  # one port per connection: the same port again means the connection was reused


def most_in_one_second(times: list[float]) -> int:
    """The most of `times` (seconds) within any half-open window of one second."""
    ordered = sorted(times)
    most, start = 0, 0
    for end, at in enumerate(ordered):
        while at - ordered[start] >= 1.0:
            start += 1
        most = max(most, end - start + 1)
    return most


class _Server(ThreadingHTTPServer):
    daemon_threads = True

    def handle_error(self, request, client_address) -> None:
        """A client that timed out and hung up (the slow answers' tests) is expected: no traceback."""
        if not isinstance(sys.exc_info()[1], ConnectionError):
            super().handle_error(request, client_address)


class RegistryServer:
    def __init__(
        self,
        token: str = "test-token",
        slow_seconds: float = 1.0,
        retry_after: str | None = None,
        latency: float = 0.0,
    ):
        self.token = token
        self.latency = latency  # every answer takes this long, like a real remote API
        self.slow_seconds = slow_seconds
        self.retry_after = retry_after
        self.records: dict[str, list[dict]] = defaultdict(list)
        self.steps: dict[str, deque] = defaultdict(deque)
        self.seen: list[Seen] = []
        self._lock = threading.Lock()
        self._server = _Server(("127.0.0.1", 0), self._handler())
        self._thread = threading.Thread(target=self._server.serve_forever, args=(0.05,), daemon=True)

    @property
    def url(self) -> str:
        host, port = self._server.server_address[:2]
        return f"http://{host}:{port}{PATH}"

    def add(self, *suggestions: dict) -> None:
        for suggestion in suggestions:
            self.records[suggestion["data"]["inn"]].append(suggestion)

    def script(self, inn: str, *steps: int | str) -> None:
        self.steps[inn].extend(steps)

    def requests_for(self, inn: str) -> int:
        return sum(1 for s in self.seen if s.inn == inn)

    def max_in_any_second(self) -> int:
        """The most requests that arrived within any half-open window of one second."""
        return most_in_one_second([s.at for s in self.seen])

    def __enter__(self) -> RegistryServer:
        self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self._server.shutdown()
        self._server.server_close()

    def _handler(self):
        registry = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"  # keep-alive: the client reuses connections
            # the headers and the body are two writes: with Nagle's algorithm the body waits for the
            # client's delayed ACK (40 ms), a fifth of the tests' 0.2 s time-out on a busy machine
            disable_nagle_algorithm = True

            def log_message(self, *args) -> None:
                pass

            def _send(self, status: int, body: str, headers: dict[str, str] | None = None) -> None:
                data = body.encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                for key, value in (headers or {}).items():
                    self.send_header(key, value)
                self.end_headers()
                self.wfile.write(data)

            def do_POST(self) -> None:
                arrived = time.monotonic()
                length = int(self.headers.get("Content-Length") or 0)
                try:
                    inn = json.loads(self.rfile.read(length))["query"]
                except (ValueError, KeyError, TypeError):
                    inn = None
                authorization = self.headers.get("Authorization")
                with registry._lock:
                    registry.seen.append(Seen(arrived, inn, authorization, self.client_address[1]))
                    step = registry.steps[inn].popleft() if inn and registry.steps[inn] else None
                if self.path != PATH:
                    return self._send(404, '{"message": "not found"}')
                if authorization != f"Token {registry.token}":
                    return self._send(401, '{"message": "Unauthorized"}')
                if inn is None:
                    return self._send(400, '{"message": "query is required"}')
                if isinstance(step, int):
                    headers = {"Retry-After": registry.retry_after} if step == 429 and registry.retry_after else None
                    return self._send(step, json.dumps({"message": f"scripted {step}"}), headers)
                if step == "slow":
                    time.sleep(registry.slow_seconds)
                elif registry.latency:
                    time.sleep(registry.latency)
                if step == "malformed":
                    return self._send(200, '{"suggestions": [{"data": ')
                body = {"suggestions": registry.records.get(inn, [])}
                self._send(200, json.dumps(body, ensure_ascii=False))

        return Handler
