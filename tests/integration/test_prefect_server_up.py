"""`tourney server up` listens where the settings say (TOURNEY_PREFECT_LISTEN) and never adopts a
server it did not start: something else answering on its port is refused in one line, exit 2."""

from __future__ import annotations

import socket
import threading
from dataclasses import replace
from http.server import BaseHTTPRequestHandler, HTTPServer

import pytest

from infra import prefect_server
from infra.config import load_settings
from tests.support.cli import run


class _Healthy(BaseHTTPRequestHandler):
    def do_GET(self):  # noqa: N802 - http.server's name
        self.send_response(200)
        self.end_headers()
        self.wfile.write(b"true")

    def log_message(self, *args):
        pass


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_server_up_refuses_another_server_answering_on_its_port_in_one_line(tmp_path):
    other = HTTPServer(("127.0.0.1", 0), _Healthy)  # answers /api/health, as a Prefect server would
    threading.Thread(target=other.serve_forever, daemon=True).start()
    port = other.server_address[1]
    try:
        result = run("server", "up", env={"TOURNEY_HOME": str(tmp_path), "TOURNEY_PREFECT_LISTEN": f"127.0.0.1:{port}"})
    finally:
        other.shutdown()
    assert (result.returncode, result.stdout) == (2, "")
    assert result.stderr == (
        f"error: something else answers on 127.0.0.1:{port}, not a Prefect server this data folder started: "
        "stop it, or set TOURNEY_PREFECT_LISTEN to a free host:port\n"
    )
    assert not (tmp_path / "prefect-server.pid").exists()


@pytest.mark.soak  # a real Prefect server start, about 20 s; the refusal above is the normal suite's
def test_server_up_takes_its_address_from_the_settings_records_it_and_reuses_only_its_own(
    database_url, tmp_path, monkeypatch
):
    """With DATABASE_URL set (the test database) the server keeps its own SQLite under TOURNEY_HOME."""
    port = _free_port()
    monkeypatch.setenv("TOURNEY_HOME", str(tmp_path))
    monkeypatch.setenv("TOURNEY_PREFECT_LISTEN", f"127.0.0.1:{port}")
    monkeypatch.delenv("PREFECT_API_URL", raising=False)
    settings = replace(load_settings(), home=tmp_path)
    assert settings.prefect_api_url == f"http://127.0.0.1:{port}/api"  # clients follow the setting
    try:
        said = prefect_server.up(settings)
        assert said.startswith(f"started the Prefect server: UI at http://127.0.0.1:{port} ")
        pid, host, recorded_port = prefect_server.started_here(settings)
        assert (host, recorded_port) == ("127.0.0.1", port)
        assert prefect_server.up(settings) == (
            f"reused the Prefect server of this data folder (pid {pid}) at http://127.0.0.1:{port}"
        )
        monkeypatch.setenv("TOURNEY_PREFECT_LISTEN", f"127.0.0.1:{port + 1}")
        moved = run("server", "up", env={"TOURNEY_HOME": str(tmp_path)})
        assert (moved.returncode, moved.stderr) == (
            2,
            f"error: the Prefect server of this data folder (pid {pid}) listens on 127.0.0.1:{port}, not "
            f"127.0.0.1:{port + 1}: stop it first (`tourney server stop`)\n",
        )
    finally:
        assert prefect_server.stop(settings) == "stopped the Prefect server"
    assert not prefect_server.answers("127.0.0.1", port)
