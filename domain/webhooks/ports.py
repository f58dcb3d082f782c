"""What delivering needs from the outside world, named here and implemented in infra
(infra/webhooks_http.py, httpx); the composition root (flows/bootstrap.py) builds it."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Protocol


class SendError(Exception):
    """The endpoint could not be reached (refused, timed out, TLS): recorded, retried later."""


class Sender(Protocol):
    def post(self, url: str, body: bytes, headers: Mapping[str, str]) -> int:
        """POST `body` to `url`; the answer's status code (any), or SendError when there was none."""
        ...
