"""The HTTP registry provider against a real local server speaking `findById/party` (CL-2, CL-3)."""

from __future__ import annotations

import json
import threading

import pytest

from infra.registry_http import HttpPartyProvider, RateLimiter, RegistryUnavailable
from domain.clubs.rules.registry import Outcome, decide
from tests.clubs_registry_data import party
from tests.clubs_registry_server import RegistryServer

SBER = ("7707083893", "1027700132195")


@pytest.fixture
def registry():
    with RegistryServer(slow_seconds=0.5) as server:
        server.add(party(*SBER))
        yield server


def _provider(registry, **kwargs) -> tuple[HttpPartyProvider, list[float]]:
    slept: list[float] = []
    options = dict(rate=1000.0, timeout=2.0, retries=3, sleep=slept.append)
    options.update(kwargs)
    return HttpPartyProvider(registry.url, registry.token, **options), slept


def test_cl_2_a_lookup_posts_the_inn_with_the_token_and_returns_the_raw_answer(registry):
    provider, slept = _provider(registry)
    with provider:
        raw = provider.lookup("7707083893")
    assert json.loads(raw)["suggestions"][0]["data"]["ogrn"] == "1027700132195"
    assert decide("legal_entity", *SBER, raw).outcome is Outcome.VERIFY
    assert [(s.inn, s.authorization) for s in registry.seen] == [("7707083893", "Token test-token")]
    assert slept == []


def test_one_provider_reuses_its_connection_for_every_lookup(registry):
    provider, _ = _provider(registry)
    with provider:
        for _ in range(3):
            provider.lookup("7707083893")
    assert len({s.client_port for s in registry.seen}) == 1


def test_a_429_and_a_500_are_retried_with_exponential_backoff(registry):
    registry.script("7707083893", 429, 500)
    provider, slept = _provider(registry, backoff=0.5)
    with provider:
        raw = provider.lookup("7707083893")
    assert decide("legal_entity", *SBER, raw).outcome is Outcome.VERIFY
    assert registry.requests_for("7707083893") == 3
    assert slept == [0.5, 1.0]


def test_a_429_with_retry_after_waits_at_least_that_long_but_never_over_the_cap():
    with RegistryServer(retry_after="7") as server:
        server.add(party(*SBER))
        server.script("7707083893", 429, 429)
        provider, slept = _provider(server, backoff=0.5, max_backoff=10.0)
        with provider:
            provider.lookup("7707083893")
    assert slept == [7.0, 7.0]


def test_cl_3_a_registry_that_keeps_failing_makes_the_lookup_unavailable_after_the_last_retry(registry):
    registry.script("7707083893", 500, 500, 503)
    provider, slept = _provider(registry, retries=2)
    with provider, pytest.raises(RegistryUnavailable) as caught:
        provider.lookup("7707083893")
    assert str(caught.value) == 'the registry answered HTTP 503: {"message": "scripted 503"} (after 3 tries)'
    assert registry.requests_for("7707083893") == 3


def test_a_slow_answer_times_out_and_is_retried(registry):
    registry.script("7707083893", "slow")
    provider, slept = _provider(registry, timeout=0.2, retries=1)
    with provider:
        raw = provider.lookup("7707083893")
    assert decide("legal_entity", *SBER, raw).outcome is Outcome.VERIFY
    assert slept == [0.5]


def test_a_slow_answer_every_time_is_unavailable(registry):
    registry.script("7707083893", "slow", "slow")
    provider, _ = _provider(registry, timeout=0.2, retries=1)
    with provider, pytest.raises(RegistryUnavailable, match="did not answer in time"):
        provider.lookup("7707083893")


def test_a_refused_token_is_not_retried(registry):
    provider = HttpPartyProvider(registry.url, "wrong", sleep=lambda s: None)
    with provider, pytest.raises(RegistryUnavailable, match="HTTP 401"):
        provider.lookup("7707083893")
    assert registry.requests_for("7707083893") == 1


def test_cl_2_a_malformed_body_comes_back_raw_and_goes_to_moderation(registry):
    registry.script("7707083893", "malformed")
    provider, _ = _provider(registry)
    with provider:
        raw = provider.lookup("7707083893")
    assert raw == '{"suggestions": [{"data": '
    assert decide("legal_entity", *SBER, raw).outcome is Outcome.MODERATE


def test_an_unreachable_registry_is_unavailable():
    provider = HttpPartyProvider("http://127.0.0.1:1/party", "t", retries=1, sleep=lambda s: None)
    with provider, pytest.raises(RegistryUnavailable, match="cannot reach the registry"):
        provider.lookup("7707083893")


def test_the_rate_limiter_releases_threads_at_least_one_interval_apart():
    now = [0.0]
    lock = threading.Lock()

    def clock() -> float:
        with lock:
            return now[0]

    def sleep(seconds: float) -> None:  # time passes only when someone waits, and a little more
        with lock:
            now[0] += seconds + 0.01

    limiter = RateLimiter(4.0, clock=clock, sleep=sleep)
    released: list[float] = []
    threads = [threading.Thread(target=lambda: released.append(limiter.acquire())) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    released.sort()
    assert len(released) == 8 and released[0] == 0.0
    assert min(b - a for a, b in zip(released, released[1:], strict=False)) >= 0.25


def test_many_threads_through_one_provider_are_released_no_faster_than_the_limit(registry):
    provider = HttpPartyProvider(registry.url, registry.token, rate=20.0)
    released: list[float] = []
    acquire = provider.limiter.acquire
    provider.limiter.acquire = lambda: released.append(acquire())
    with provider:
        threads = [threading.Thread(target=provider.lookup, args=("7707083893",)) for _ in range(24)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
    assert registry.requests_for("7707083893") == 24
    released.sort()
    assert min(b - a for a, b in zip(released, released[1:], strict=False)) >= 1 / 20
