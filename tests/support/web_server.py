"""An ASGI app served by uvicorn on a loopback port, in a thread of the test process: the public
pages' tests, their screenshots, and the Prefect API's auth test talk to it over real HTTP."""

from __future__ import annotations

import threading
import time
from typing import Any, Literal


class Server:
    def __init__(self, app: Any, port: int, lifespan: Literal["on", "off"] = "off", start_within: float = 15):
        import uvicorn

        self.app = app
        self.url = f"http://127.0.0.1:{port}"
        self.start_within = start_within
        self.server = uvicorn.Server(
            uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning", lifespan=lifespan)
        )
        self.thread = threading.Thread(target=self.server.run, daemon=True)

    def __enter__(self) -> Server:
        self.thread.start()
        deadline = time.monotonic() + self.start_within
        while not self.server.started:
            if time.monotonic() > deadline or not self.thread.is_alive():
                raise RuntimeError("the web server did not start")
            time.sleep(0.02)
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.should_exit = True
        self.server.force_exit = True  # open event streams do not hold the test up
        self.thread.join(10)
