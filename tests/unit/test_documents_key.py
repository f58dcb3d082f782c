"""DOC-2 key hygiene: the signing key is made once, atomically, mode 0600, never short; checking
never makes one. DOC-5 setting: the public URL the certificates' QR codes point at."""

from __future__ import annotations

import multiprocessing
import os

import pytest

from domain.errors import ConfigurationError
from infra.config import load_settings, masked, redact


def _key_in(home: str, start, out) -> None:
    os.environ["TOURNEY_HOME"] = home
    os.environ.pop("TOURNEY_SECRET_KEY", None)
    start.wait()
    try:
        out.put(load_settings().secret_key())
    except Exception as exc:  # reported to the test, which then fails with it
        out.put(repr(exc))


def test_doc_2_processes_creating_the_key_at_once_all_get_the_same_non_empty_key(tmp_path):
    """DOC-2"""
    ctx = multiprocessing.get_context("fork")
    for attempt in range(5):
        home = tmp_path / f"home-{attempt}"
        start, out = ctx.Event(), ctx.Queue()
        procs = [ctx.Process(target=_key_in, args=(str(home), start, out)) for _ in range(6)]
        for p in procs:
            p.start()
        start.set()
        keys = [out.get(timeout=30) for _ in procs]
        for p in procs:
            p.join(30)
        assert all(isinstance(k, bytes) for k in keys), keys
        assert len(set(keys)) == 1 and len(keys[0]) == 64
        assert (home / "secret.key").read_bytes().strip() == keys[0]
        assert (home / "secret.key").stat().st_mode & 0o777 == 0o600
        assert sorted(p.name for p in home.iterdir()) == ["secret.key"]  # no temporary file left


@pytest.mark.parametrize("value", ["short", "x" * 31])
def test_doc_2_a_given_key_shorter_than_32_bytes_is_refused(monkeypatch, tmp_path, value):
    """DOC-2"""
    monkeypatch.setenv("TOURNEY_HOME", str(tmp_path))
    monkeypatch.setenv("TOURNEY_SECRET_KEY", value)
    with pytest.raises(ConfigurationError) as caught:
        load_settings().secret_key()
    assert caught.value.code == "short-secret-key"
    assert caught.value.message == (
        f"TOURNEY_SECRET_KEY is {len(value)} bytes: a signing key must be at least 32 bytes"
    )


def test_doc_2_a_key_of_exactly_32_bytes_is_accepted(monkeypatch):
    """DOC-2"""
    monkeypatch.setenv("TOURNEY_SECRET_KEY", "Zq7v-R2mXk9pL4wT8sJd0bNf3yHc6gQe")
    assert load_settings().secret_key() == b"Zq7v-R2mXk9pL4wT8sJd0bNf3yHc6gQe"


@pytest.mark.parametrize("content", [b"", b"\n", b"abc\n"])
def test_doc_2_an_empty_or_short_key_file_is_refused_not_used(monkeypatch, tmp_path, content):
    """DOC-2"""
    monkeypatch.delenv("TOURNEY_SECRET_KEY", raising=False)
    monkeypatch.setenv("TOURNEY_HOME", str(tmp_path))
    (tmp_path / "secret.key").write_bytes(content)
    with pytest.raises(ConfigurationError) as caught:
        load_settings().secret_key()
    assert caught.value.code == "short-secret-key"
    assert caught.value.message == (
        f"the signing key {tmp_path / 'secret.key'} is {len(content.strip())} bytes: a signing key must be at "
        "least 32 bytes (restore it from your backup)"
    )
    assert (tmp_path / "secret.key").read_bytes() == content  # left as it was


def test_doc_2_checking_never_creates_a_key(monkeypatch, tmp_path):
    """DOC-2"""
    monkeypatch.delenv("TOURNEY_SECRET_KEY", raising=False)
    monkeypatch.setenv("TOURNEY_HOME", str(tmp_path / "home"))
    with pytest.raises(ConfigurationError) as caught:
        load_settings().secret_key(create=False)
    assert caught.value.code == "no-secret-key"
    assert not (tmp_path / "home").exists()


def test_doc_5_the_public_url_defaults_to_the_local_verification_server_and_can_be_set(monkeypatch):
    """DOC-5"""
    monkeypatch.delenv("TOURNEY_PUBLIC_URL", raising=False)
    assert load_settings().public_url() == "http://127.0.0.1:8080"
    monkeypatch.setenv("TOURNEY_PUBLIC_URL", "https://docs.example.org/tourney/")
    assert load_settings().public_url() == "https://docs.example.org/tourney"


@pytest.mark.parametrize("value", ["ftp://x", "docs.example.org", "https://h/?a=1", "https://u:hunter2@h/"])
def test_doc_5_a_public_url_that_is_not_http_is_refused_without_its_password(monkeypatch, value):
    """DOC-5"""
    monkeypatch.setenv("TOURNEY_PUBLIC_URL", value)
    with pytest.raises(ConfigurationError) as caught:
        load_settings().public_url()
    assert caught.value.code == "bad-setting"
    assert "hunter2" not in caught.value.message


def test_passwords_in_urls_are_masked_in_settings_and_messages(monkeypatch):
    monkeypatch.setenv("SMTP_URL", "smtp://mailer:s3cr%40t-pw@mail.example.org:587?starttls=1")
    monkeypatch.setenv("DATABASE_URL", "postgresql://app:db-pass-123@db.example.org/tourney")
    settings = load_settings()
    assert masked(settings.smtp_url) == "smtp://mailer:***@mail.example.org:587?starttls=1"
    assert masked(settings.database_url) == "postgresql://app:***@db.example.org/tourney"
    assert masked("smtp://mail.example.org:25") == "smtp://mail.example.org:25"
    shown = repr(settings)
    assert "s3cr" not in shown and "db-pass-123" not in shown and "mailer:***@" in shown
    echoed = redact(f"failed: {settings.smtp_url} said s3cr@t-pw; db {settings.database_url}")
    assert "s3cr" not in echoed and "db-pass-123" not in echoed


@pytest.mark.parametrize(
    ("value", "why"),
    [
        ("k" * 32, "only 1 distinct character"),
        (" " * 40, "only 1 distinct character"),
        ("password" * 4, "only 7 distinct characters"),
        ("Tournament-Key!" * 3, "30 of its 45 bytes repeat earlier ones"),
        ("12345678901234567890123456789012", "10 characters in a row in order"),
        ("abcdefghijklmnopqrstuvwxyz012345", "26 characters in a row in order"),
    ],
)
def test_doc_2_a_long_but_guessable_key_is_refused_like_a_short_one(monkeypatch, tmp_path, value, why):
    """DOC-2: 32 bytes or more are not enough when the key is guessable: one character repeated,
    spaces, a word repeated, characters in order; refused with the same one-line error as a short key,
    from the environment and from the key file."""
    monkeypatch.setenv("TOURNEY_HOME", str(tmp_path))
    monkeypatch.setenv("TOURNEY_SECRET_KEY", value)
    with pytest.raises(ConfigurationError) as caught:
        load_settings().secret_key()
    assert (caught.value.code, caught.value.message) == (
        "short-secret-key",
        f"TOURNEY_SECRET_KEY is guessable ({why}): a signing key must be at least 32 random bytes",
    )
    monkeypatch.delenv("TOURNEY_SECRET_KEY")
    (tmp_path / "secret.key").write_text(value + "\n")
    with pytest.raises(ConfigurationError) as caught:
        load_settings().secret_key()
    assert caught.value.code == "short-secret-key" and "\n" not in caught.value.message
    if value.strip():  # a file of spaces is empty once stripped: short
        assert caught.value.message.startswith(f"the signing key {tmp_path / 'secret.key'} is guessable ({why})")


def test_doc_2_random_keys_pass_the_guessability_check(monkeypatch):
    """DOC-2: keys made at random — 32 bytes as hex, URL-safe Base64 or Base64, as `secrets` makes
    them — are accepted (2,000 fixed draws), and so are the keys the project makes and the test key."""
    import base64
    import random

    from infra.config import key_weakness, new_key

    draw = random.Random(2026)
    for _ in range(500):
        raw = draw.randbytes(32)
        for key in (
            raw.hex(),
            base64.urlsafe_b64encode(raw).rstrip(b"=").decode(),
            base64.b64encode(raw).decode(),
            draw.randbytes(64).hex(),
        ):
            assert key_weakness(key.encode()) is None, key
    assert key_weakness(new_key()) is None and len(new_key()) == 64
    assert key_weakness(os.environ.get("TOURNEY_SECRET_KEY", "test-secret-key-of-at-least-32-bytes").encode()) is None
    monkeypatch.setenv("TOURNEY_SECRET_KEY", "correct horse battery staple tourney")
    assert load_settings().secret_key() == b"correct horse battery staple tourney"
