"""Players online: webhooks. The pure rules: signing and verifying a delivery (the timestamp's
tolerance to the second, the wrong secret, a tampered body), the derived secret, the back-off
schedule and what an endpoint's URL may be."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from domain.webhooks.rules import events, retry, signing
from domain.webhooks.rules.endpoints import KINDS, event_problems, url_problems

SECRET = "whsec_" + "ab" * 32
BODY = b'{"id":"e1","kind":"round.completed"}'
T = 1_800_000_000
AT = datetime.fromtimestamp(T, UTC)


def test_webhook_signature_is_stripe_like_t_and_v1_hmac_of_timestamp_dot_body():
    """Players online: webhooks. `t=<unix>,v1=<hex HMAC-SHA256 of f"{t}.{body}">`."""
    import hashlib
    import hmac

    header = signing.sign(SECRET, T, BODY)
    expected = hmac.new(SECRET.encode(), f"{T}.".encode() + BODY, hashlib.sha256).hexdigest()
    assert header == f"t={T},v1={expected}"
    assert signing.verify(SECRET, header, BODY, AT) is None


def test_webhook_verify_accepts_exactly_the_tolerance_and_refuses_one_second_past():
    """Players online: webhooks. 300 s either side is valid; 301 s is a replay."""
    header = signing.sign(SECRET, T, BODY)
    for seconds in (300, -300):
        assert signing.verify(SECRET, header, BODY, AT + timedelta(seconds=seconds)) is None
    for seconds in (301, -301):
        assert signing.verify(SECRET, header, BODY, AT + timedelta(seconds=seconds)).code == "signature-too-old"
    assert signing.verify(SECRET, header, BODY, AT + timedelta(seconds=31), tolerance=30).code == "signature-too-old"


def test_webhook_verify_refuses_a_wrong_secret_a_tampered_body_and_a_malformed_header():
    """Players online: webhooks."""
    header = signing.sign(SECRET, T, BODY)
    assert signing.verify("whsec_other", header, BODY, AT).code == "signature-mismatch"
    assert signing.verify(SECRET, header, BODY.replace(b"e1", b"e2"), AT).code == "signature-mismatch"
    assert signing.verify(SECRET, header.replace(f"t={T}", f"t={T + 1}"), BODY, AT).code == "signature-mismatch"
    for bad in (None, "", "v1=abc", f"t={T}", "t=soon,v1=abc", "t=³,v1=abc", f"t={T},v0=abc"):
        assert signing.verify(SECRET, bad, BODY, AT).code == "signature-malformed", bad


def test_webhook_verify_accepts_any_of_several_v1_signatures():
    """Players online: webhooks. A header may carry several v1 signatures (one per secret)."""
    good = signing.sign(SECRET, T, BODY).split(",")[1]
    assert signing.verify(SECRET, f"t={T},v1={'0' * 64},{good}", BODY, AT) is None


def test_webhook_secret_is_derived_from_the_platform_key_the_endpoint_and_its_instant():
    """Players online: webhooks. The same endpoint, the same secret; any input changed, another."""
    key = b"k" * 32
    at = datetime(2026, 5, 1, 12, 0, 0, 123456, tzinfo=UTC)
    secret = signing.derive_secret(key, 7, at)
    assert secret.startswith("whsec_") and len(secret) == 6 + 64
    assert signing.derive_secret(key, 7, at.astimezone(datetime.now().astimezone().tzinfo)) == secret
    assert len({secret, signing.derive_secret(b"x" * 32, 7, at), signing.derive_secret(key, 8, at)}) == 3
    assert signing.derive_secret(key, 7, at + timedelta(microseconds=1)) != secret


def test_webhook_back_off_schedule_10s_30s_2min_10min_1h_then_capped_and_given_up():
    """Players online: webhooks. The waits after each failed attempt; 10 attempts or 24 h at most."""
    event_at = AT
    waits, now, attempts = [], event_at, 0
    while True:
        attempts += 1
        nxt = retry.next_attempt(attempts, event_at, now)
        if nxt is None:
            break
        waits.append(nxt - now)
        now = nxt
    assert [w.total_seconds() for w in waits[:5]] == [10, 30, 120, 600, 3600]
    assert max(waits) == timedelta(hours=6) == retry.delay(50)
    assert attempts == retry.MAX_ATTEMPTS
    assert now - event_at <= retry.GIVE_UP_AFTER
    # the 24 h horizon: no attempt is scheduled after it, whatever the count
    assert retry.next_attempt(1, event_at, event_at + timedelta(hours=23, minutes=59, seconds=51)) is None
    assert retry.next_attempt(1, event_at, event_at + timedelta(hours=23, minutes=59, seconds=50)) is not None


def test_webhook_body_is_the_same_bytes_every_time():
    """Players online: webhooks. Keys sorted, no spaces, UTC: what is signed is what is sent."""
    made = events.body("e1", "round.completed", AT, 3, None, {"b": 1, "a": "Ёж"})
    assert made == events.body("e1", "round.completed", AT.astimezone(), 3, None, {"a": "Ёж", "b": 1})
    assert made.startswith(b'{"club_id":3,"created_at":"2027-01-15T08:00:00Z","data":{"a":"\xd0\x81\xd0\xb6"')


@pytest.mark.parametrize(
    "url",
    [
        "https://club.example/hooks",
        "https://club.example:8443/a?b=c",
        "http://127.0.0.1:8080/hook",
        "http://localhost/hook",
        "http://[::1]:9000/",
    ],
)
def test_webhook_urls_allowed(url):
    """Players online: webhooks. HTTPS, or plain HTTP to a loopback host (the operator's, the tests')."""
    assert url_problems(url, private_hosts=True) == []


@pytest.mark.parametrize(
    "url, code",
    [
        ("http://club.example/hooks", "webhook-https"),
        ("http://10.0.0.1/hook", "webhook-https"),
        ("ftp://club.example/", "webhook-url"),
        ("https://", "webhook-url"),
        ("https://user:pw@club.example/", "webhook-url"),
        ("https://club.example:99999/", "webhook-url"),
        ("https://club .example/", "webhook-url"),
        ("https://" + "a" * 2000 + ".example", "webhook-url"),
    ],
)
def test_webhook_urls_refused(url, code):
    """Players online: webhooks."""
    assert [p.code for p in url_problems(url, private_hosts=True)] == [code]


@pytest.mark.parametrize(
    "url",
    ["https://127.0.0.1/", "https://10.1.2.3/", "https://[fd00::1]/", "https://app.localhost/", "http://localhost/"],
)
def test_webhook_private_hosts_are_refused_unless_allowed(url):
    """Players online: webhooks. Through the API the platform never POSTs into its own network."""
    assert [p.code for p in url_problems(url)] == ["webhook-private-host"]
    assert url_problems(url, private_hosts=True) == []


def test_webhook_events_named_and_known():
    """Players online: webhooks."""
    assert event_problems(list(KINDS)) == []
    assert [p.code for p in event_problems([])] == ["webhook-events"]
    assert "No event round.done" in event_problems(["round.done"])[0].message


def test_webhook_url_rule_and_the_database_check_agree():
    """Players online: webhooks. The migration's CHECKs are the models' (the same text)."""
    from pathlib import Path

    from domain.webhooks.rules.endpoints import URL_CHECK
    from domain.webhooks.tables import KINDS_SQL

    migration = (Path(__file__).parents[2] / "infra" / "migrations" / "versions" / "1020_webhooks.py").read_text()
    assert URL_CHECK in migration and KINDS_SQL in migration
