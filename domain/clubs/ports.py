"""What club verification needs from the outside world, implemented in infra/registry_http.py: the
state registry's client (CL-2, CL-3). The composition root (flows/bootstrap.py) builds it."""

from __future__ import annotations

from typing import Protocol


class RegistryUnavailable(Exception):
    """No answer from the registry this time (time-outs, rate limits, server errors, refused token)."""


class RegistryProvider(Protocol):
    name: str

    def lookup(self, inn: str) -> str:
        """The registry's raw answer for `inn`; RegistryUnavailable when there is none this time."""
