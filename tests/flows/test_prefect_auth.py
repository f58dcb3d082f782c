"""The Prefect API is protected (Prefect's own basic auth): every process the project starts gets
the same `admin:<secret>` as the server's required string and the client's string; the secret is
created once, 0600, in TOURNEY_HOME, or given by PREFECT_API_AUTH_STRING; the real Prefect API app
refuses a request without it and accepts the project's client."""

from __future__ import annotations

import os
import stat

import httpx
import pytest

from infra.config import load_settings
from infra.prefect_server import prefect_env
from tests.support.net import free_port
from tests.support.web_server import Server


@pytest.fixture
def home(tmp_path, monkeypatch):
    monkeypatch.setenv("TOURNEY_HOME", str(tmp_path))
    monkeypatch.delenv("PREFECT_API_AUTH_STRING", raising=False)
    return tmp_path


def test_the_auth_string_is_made_once_private_when_the_server_starts_and_every_client_sends_it(home):
    assert "PREFECT_API_AUTH_STRING" not in prefect_env(load_settings())  # no server yet: nothing made
    assert not (home / "prefect.auth").exists()
    server = prefect_env(load_settings(), server=True)
    client = prefect_env(load_settings())
    auth = server["PREFECT_SERVER_API_AUTH_STRING"]
    assert auth == server["PREFECT_API_AUTH_STRING"] == client["PREFECT_API_AUTH_STRING"]
    assert prefect_env(load_settings(), server=True)["PREFECT_SERVER_API_AUTH_STRING"] == auth  # made once
    user, secret = auth.split(":")
    assert user == "admin" and len(secret) == 64 and int(secret, 16) >= 0
    assert stat.S_IMODE(os.stat(home / "prefect.auth").st_mode) == 0o600


def test_an_operators_auth_string_is_used_on_every_machine_instead(home, monkeypatch):
    monkeypatch.setenv("PREFECT_API_AUTH_STRING", "ops:shared-between-machines")
    env = prefect_env(load_settings(), server=True)
    assert env["PREFECT_SERVER_API_AUTH_STRING"] == env["PREFECT_API_AUTH_STRING"] == "ops:shared-between-machines"
    assert not (home / "prefect.auth").exists()


def test_the_prefect_api_refuses_a_request_without_the_string_and_accepts_the_projects_client(home):
    from prefect.client.orchestration import get_client
    from prefect.settings import (
        PREFECT_API_AUTH_STRING,
        PREFECT_API_URL,
        PREFECT_SERVER_API_AUTH_STRING,
        temporary_settings,
    )

    env = prefect_env(load_settings(), server=True)
    with temporary_settings({PREFECT_SERVER_API_AUTH_STRING: env["PREFECT_SERVER_API_AUTH_STRING"]}):
        from prefect.server.api.server import create_app

        app = create_app(ephemeral=True, final=True)
    with Server(app, free_port(), lifespan="on", start_within=120) as server:
        api = f"{server.url}/api"
        assert httpx.get(f"{api}/health").status_code == 200  # health probes stay open
        assert httpx.post(f"{api}/flows/filter", json={}).status_code == 401
        assert httpx.post(f"{api}/flows/filter", json={}, auth=("admin", "wrong")).status_code == 401
        with temporary_settings({PREFECT_API_URL: api, PREFECT_API_AUTH_STRING: env["PREFECT_API_AUTH_STRING"]}):
            with get_client(sync_client=True) as client:
                names = [f.name for f in client.read_flows()]
        user, secret = env["PREFECT_API_AUTH_STRING"].split(":")
        assert names == [f["name"] for f in httpx.post(f"{api}/flows/filter", json={}, auth=(user, secret)).json()]
