"""Registry providers (CL-2, CL-3): the area's one network edge.

`RegistryProvider.lookup(inn)` returns the registry's raw answer for that INN, or raises
`RegistryUnavailable` when it cannot get one. `HttpPartyProvider` speaks the DaData-style
`findById/party` call: POST `{"query": INN}` with `Authorization: Token <token>`; one pooled httpx
client (connections reused, thread-safe), a time-out per request, retries with exponential backoff on
5xx, 429 (honouring Retry-After) and transport errors, and a `Limiter` every request passes
through: the one the jobs use is shared by every process and machine
(infra/registry_rate.py). No provider configured: `provider_from_settings`
returns None and applications go to the moderator queue.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Protocol

import httpx

from domain.clubs.ports import RegistryUnavailable
from infra.config import RegistrySettings


class Limiter(Protocol):
    def acquire(self) -> object:
        """Wait until this caller may send."""


class HttpPartyProvider:
    def __init__(
        self,
        url: str,
        token: str | None,
        *,
        limiter: Limiter,
        timeout: float = 5.0,
        retries: int = 3,
        backoff: float = 0.5,
        max_backoff: float = 30.0,
        sleep: Callable[[float], None] = time.sleep,
    ):
        self.url = url
        self.name = f"findById/party at {httpx.URL(url).netloc.decode()}"
        self.retries = retries
        self.backoff = backoff
        self.max_backoff = max_backoff
        self._sleep = sleep
        self.limiter = limiter
        headers = {"Accept": "application/json"}
        if token:
            headers["Authorization"] = f"Token {token}"
        self.client = httpx.Client(
            headers=headers,
            timeout=httpx.Timeout(timeout),
            limits=httpx.Limits(max_connections=32, max_keepalive_connections=32),
        )

    def close(self) -> None:
        self.client.close()

    def __enter__(self) -> HttpPartyProvider:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def lookup(self, inn: str) -> str:
        """The raw `findById/party` answer for `inn`; RegistryUnavailable after the last retry."""
        failure, retry_after = "", None
        for attempt in range(self.retries + 1):
            if attempt:
                self._sleep(self._delay(attempt, retry_after))
            retry_after = None
            self.limiter.acquire()
            try:
                response = self.client.post(self.url, json={"query": inn})
            except httpx.TimeoutException:
                failure = "the registry did not answer in time"
                continue
            except httpx.TransportError as exc:
                failure = f"cannot reach the registry: {exc.__class__.__name__}: {exc}"
                continue
            if response.status_code == 200:
                return response.text
            failure = f"the registry answered HTTP {response.status_code}: {response.text[:200]}"
            if response.status_code == 429 or response.status_code >= 500:
                retry_after = response.headers.get("Retry-After")
                continue
            raise RegistryUnavailable(failure)  # 401, 403, ...: retrying will not help
        raise RegistryUnavailable(f"{failure} (after {self.retries + 1} tries)")

    def _delay(self, attempt: int, retry_after: str | None) -> float:
        """Exponential backoff, at least the server's Retry-After (seconds), never over max_backoff."""
        delay = self.backoff * 2 ** (attempt - 1)
        if retry_after and retry_after.isdigit():
            delay = max(delay, float(retry_after))
        return min(delay, self.max_backoff)


def provider_from_settings(
    settings: RegistrySettings, limiter: Callable[[str, float], Limiter]
) -> HttpPartyProvider | None:
    """The configured provider, its requests through `limiter(provider address, REGISTRY_RATE)`; or
    None: then every application goes to the moderator queue (CL-3)."""
    if not settings.url:
        return None
    return HttpPartyProvider(
        settings.url,
        settings.token,
        limiter=limiter(httpx.URL(settings.url).netloc.decode(), settings.rate),
        timeout=settings.timeout,
        retries=settings.retries,
    )
