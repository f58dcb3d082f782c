"""A club's webhook receiver on a loopback port (Players online: webhooks), in a thread of the test
process: it records every request (headers, body) and answers 500 to the first `fail_first` attempts
of each event (by `Tourney-Event-Id`), then 200; `delay` seconds before answering, to hold a delivery
in flight."""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


@dataclass
class Received:
    event_id: str
    headers: dict[str, str]
    body: bytes
    status: int


@dataclass
class Receiver:
    fail_first: int = 0
    delay: float = 0.0
    received: list[Received] = field(default_factory=list)

    def __post_init__(self):
        self.lock = threading.Lock()
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self):
                body = self.rfile.read(int(self.headers.get("content-length", 0)))
                event_id = self.headers.get("tourney-event-id", "")
                with receiver.lock:
                    tried = sum(1 for r in receiver.received if r.event_id == event_id)
                    status = 500 if tried < receiver.fail_first else 200
                    receiver.received.append(Received(event_id, dict(self.headers.items()), body, status))
                if receiver.delay:
                    time.sleep(receiver.delay)
                self.send_response(status)
                self.send_header("content-length", "0")
                self.end_headers()

            def log_message(self, *args):
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/hooks/tourney"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    def accepted(self) -> list[Received]:
        with self.lock:
            return [r for r in self.received if r.status == 200]

    def __enter__(self) -> Receiver:
        self.thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self.server.shutdown()
        self.server.server_close()
