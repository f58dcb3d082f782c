"""The HTTP registry provider against a real local server speaking `findById/party` (CL-2, CL-3)."""

from __future__ import annotations

import json
import threading

import pytest
from sqlalchemy import create_engine

from domain.clubs.ports import RegistryUnavailable
from domain.clubs.rules.registry import Outcome, decide
from infra.registry_http import HttpPartyProvider
from infra.registry_rate import SharedRateLimiter
from tests.clubs_registry_data import party
from tests.clubs_registry_server import RegistryServer

SBER = ("7707083893", "1027700132195")


@pytest.fixture
def registry():
    with RegistryServer(slow_seconds=0.5) as server:
        server.add(party(*SBER))
        yield server


@pytest.fixture
def limiter(committed):
    return SharedRateLimiter(committed, "registry", 1000.0)


def _provider(registry, limiter, **kwargs) -> tuple[HttpPartyProvider, list[float]]:
    slept: list[float] = []
    options = dict(limiter=limiter, timeout=2.0, retries=3, sleep=slept.append)
    options.update(kwargs)
    return HttpPartyProvider(registry.url, registry.token, **options), slept


def test_cl_2_a_lookup_posts_the_inn_with_the_token_and_returns_the_raw_answer(registry, limiter):
    provider, slept = _provider(registry, limiter)
    with provider:
        raw = provider.lookup("7707083893")
    assert json.loads(raw)["suggestions"][0]["data"]["ogrn"] == "1027700132195"
    assert decide("legal_entity", *SBER, raw).outcome is Outcome.VERIFY
    assert [(s.inn, s.authorization) for s in registry.seen] == [("7707083893", "Token test-token")]
    assert slept == []


def test_one_provider_reuses_its_connection_for_every_lookup(registry, limiter):
    provider, _ = _provider(registry, limiter)
    with provider:
        for _ in range(3):
            provider.lookup("7707083893")
    assert len({s.client_port for s in registry.seen}) == 1


def test_a_429_and_a_500_are_retried_with_exponential_backoff(registry, limiter):
    registry.script("7707083893", 429, 500)
    provider, slept = _provider(registry, limiter, backoff=0.5)
    with provider:
        raw = provider.lookup("7707083893")
    assert decide("legal_entity", *SBER, raw).outcome is Outcome.VERIFY
    assert registry.requests_for("7707083893") == 3
    assert slept == [0.5, 1.0]


def test_a_429_with_retry_after_waits_at_least_that_long_but_never_over_the_cap(limiter):
    with RegistryServer(retry_after="7") as server:
        server.add(party(*SBER))
        server.script("7707083893", 429, 429)
        provider, slept = _provider(server, limiter, backoff=0.5, max_backoff=10.0)
        with provider:
            provider.lookup("7707083893")
    assert slept == [7.0, 7.0]


def test_cl_3_a_registry_that_keeps_failing_makes_the_lookup_unavailable_after_the_last_retry(registry, limiter):
    registry.script("7707083893", 500, 500, 503)
    provider, slept = _provider(registry, limiter, retries=2)
    with provider, pytest.raises(RegistryUnavailable) as caught:
        provider.lookup("7707083893")
    assert str(caught.value) == 'the registry answered HTTP 503: {"message": "scripted 503"} (after 3 tries)'
    assert registry.requests_for("7707083893") == 3


def test_a_slow_answer_times_out_and_is_retried(registry, limiter):
    registry.script("7707083893", "slow")
    provider, slept = _provider(registry, limiter, timeout=0.2, retries=1)
    with provider:
        raw = provider.lookup("7707083893")
    assert decide("legal_entity", *SBER, raw).outcome is Outcome.VERIFY
    assert slept == [0.5]


def test_a_slow_answer_every_time_is_unavailable(registry, limiter):
    registry.script("7707083893", "slow", "slow")
    provider, _ = _provider(registry, limiter, timeout=0.2, retries=1)
    with provider, pytest.raises(RegistryUnavailable, match="did not answer in time"):
        provider.lookup("7707083893")


def test_a_refused_token_is_not_retried(registry, limiter):
    provider = HttpPartyProvider(registry.url, "wrong", limiter=limiter, sleep=lambda s: None)
    with provider, pytest.raises(RegistryUnavailable, match="HTTP 401"):
        provider.lookup("7707083893")
    assert registry.requests_for("7707083893") == 1


def test_cl_2_a_malformed_body_comes_back_raw_and_goes_to_moderation(registry, limiter):
    registry.script("7707083893", "malformed")
    provider, _ = _provider(registry, limiter)
    with provider:
        raw = provider.lookup("7707083893")
    assert raw == '{"suggestions": [{"data": '
    assert decide("legal_entity", *SBER, raw).outcome is Outcome.MODERATE


def test_an_unreachable_registry_is_unavailable(limiter):
    provider = HttpPartyProvider("http://127.0.0.1:1/party", "t", limiter=limiter, retries=1, sleep=lambda s: None)
    with provider, pytest.raises(RegistryUnavailable, match="cannot reach the registry"):
        provider.lookup("7707083893")


def test_two_processes_share_one_budget_their_requests_at_least_one_interval_apart(registry, committed):
    """REGISTRY_RATE holds across processes and machines: two `verify-clubs` workers, each with its
    own limiter and connection, 12 requests each at 20 a second: 24 slots 50 ms apart, sent at them."""
    limiters = [SharedRateLimiter(create_engine(committed.url), registry.url, 20.0) for _ in range(2)]
    released: list[list] = [[], []]

    def worker(n: int) -> None:
        with HttpPartyProvider(registry.url, registry.token, limiter=limiters[n]) as provider:
            for _ in range(12):
                released[n].append(limiters[n].acquire())
                provider.client.post(provider.url, json={"query": "7707083893"})

    threads = [threading.Thread(target=worker, args=(n,)) for n in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    slots = sorted(released[0] + released[1])
    assert registry.requests_for("7707083893") == 24 and len(set(slots)) == 24
    assert min((b - a).total_seconds() for a, b in zip(slots, slots[1:], strict=False)) >= 0.05 - 1e-6
    assert (slots[-1] - slots[0]).total_seconds() >= 23 * 0.05 - 1e-6
    for limiter in limiters:
        limiter.engine.dispose()


def test_a_rate_that_is_not_positive_is_refused(committed):
    with pytest.raises(ValueError, match="the rate limit must be positive"):
        SharedRateLimiter(committed, "registry", 0)
