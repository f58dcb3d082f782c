"""Settings are read in one place; the platform secret is generated once and then kept."""

from __future__ import annotations

import pytest

from domain.errors import ConfigurationError
from infra.config import DEFAULT_PREFECT_API_URL, load_settings


def test_defaults_use_the_embedded_cluster_and_the_local_prefect_api(monkeypatch, tmp_path):
    for name in ("DATABASE_URL", "PREFECT_API_URL", "SMTP_URL", "REGISTRY_URL", "REGISTRY_TOKEN"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("TOURNEY_HOME", str(tmp_path))
    settings = load_settings()
    assert settings.embedded is True
    assert settings.home == tmp_path
    assert settings.prefect_api_url == DEFAULT_PREFECT_API_URL
    assert settings.smtp_url is None and settings.registry_url is None


def test_the_secret_key_is_generated_once_into_tourney_home_and_reused(monkeypatch, tmp_path):
    monkeypatch.delenv("TOURNEY_SECRET_KEY", raising=False)
    monkeypatch.setenv("TOURNEY_HOME", str(tmp_path))
    first = load_settings().secret_key()
    assert len(first) == 64
    assert load_settings().secret_key() == first
    assert (tmp_path / "secret.key").stat().st_mode & 0o777 == 0o600


def test_a_given_secret_key_wins(monkeypatch, tmp_path):
    monkeypatch.setenv("TOURNEY_HOME", str(tmp_path))
    monkeypatch.setenv("TOURNEY_SECRET_KEY", "given-Vb3rT9kQ2xL7mW4pZ8sN1cF6hJ0d")
    assert load_settings().secret_key() == b"given-Vb3rT9kQ2xL7mW4pZ8sN1cF6hJ0d"
    assert not (tmp_path / "secret.key").exists()


def test_render_workers_default_to_the_cpu_count_and_can_be_set(monkeypatch):
    import os

    monkeypatch.delenv("TOURNEY_RENDER_WORKERS", raising=False)
    assert load_settings().render_workers == (os.cpu_count() or 1)
    monkeypatch.setenv("TOURNEY_RENDER_WORKERS", "3")
    assert load_settings().render_workers == 3


@pytest.mark.parametrize("value", ["0", "-1", "two", "1.5", "³"])
def test_a_render_worker_count_that_is_not_a_whole_number_of_at_least_one_is_refused(monkeypatch, value):
    monkeypatch.setenv("TOURNEY_RENDER_WORKERS", value)
    with pytest.raises(ConfigurationError) as caught:
        load_settings()
    assert caught.value.code == "bad-setting"
    assert caught.value.message == f"TOURNEY_RENDER_WORKERS must be a whole number of at least 1, not '{value}'"


@pytest.mark.parametrize(
    ("given", "expected"),
    [("", None), ("10.0.0.5", "10.0.0.5"), (" 10.0.0.0/8 , ::1 ", "10.0.0.0/8,::1")],
)
def test_the_trusted_proxies_are_addresses_or_networks(monkeypatch, tmp_path, given, expected):
    """Issue 41 (several hosts behind one address): TOURNEY_WEB_TRUSTED_PROXIES lists the load balancers."""
    monkeypatch.setenv("TOURNEY_HOME", str(tmp_path))
    monkeypatch.setenv("TOURNEY_WEB_TRUSTED_PROXIES", given)
    assert load_settings().web_trusted_proxies() == expected


def test_a_trusted_proxy_that_is_no_address_is_refused_with_its_name(monkeypatch, tmp_path):
    monkeypatch.setenv("TOURNEY_HOME", str(tmp_path))
    monkeypatch.setenv("TOURNEY_WEB_TRUSTED_PROXIES", "10.0.0.5,lb.example")
    with pytest.raises(ConfigurationError) as caught:
        load_settings().web_trusted_proxies()
    assert caught.value.code == "bad-setting"
    assert str(caught.value) == "TOURNEY_WEB_TRUSTED_PROXIES must list IP addresses or networks, not 'lb.example'"
