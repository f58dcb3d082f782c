"""The webhooks' one network edge (Players online: webhooks): POST a signed event with httpx, one
pooled client, a 10 s time-out, no redirects followed (a redirect is an answer that is not 2xx: the
delivery is tried again later), the answer's body never read. Implements domain/webhooks/ports.Sender."""

from __future__ import annotations

from collections.abc import Mapping

import httpx

from domain.webhooks.ports import SendError

TIMEOUT_S = 10.0
USER_AGENT = "Tourney-Webhooks/1"


class HttpSender:
    def __init__(self, timeout: float = TIMEOUT_S):
        self.client = httpx.Client(
            timeout=httpx.Timeout(timeout),
            follow_redirects=False,
            trust_env=False,  # no proxy from the environment: the endpoint is reached as registered
            headers={"User-Agent": USER_AGENT},
        )

    def post(self, url: str, body: bytes, headers: Mapping[str, str]) -> int:
        try:
            with self.client.stream("POST", url, content=body, headers=dict(headers)) as response:
                return response.status_code
        except httpx.HTTPError as exc:
            raise SendError(f"{type(exc).__name__}: {exc}") from exc

    def close(self) -> None:
        self.client.close()

    def __enter__(self) -> HttpSender:
        return self

    def __exit__(self, *exc) -> None:
        self.close()
