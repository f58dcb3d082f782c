"""`tourney web --background` serves the pages in a detached process recorded for `tourney stop`,
which ends it (as `make run` and `make stop` use them)."""

from __future__ import annotations

import time

import httpx

from tests.support.cli import run_process
from tests.support.net import free_port


def _up(url: str, timeout: float = 30) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            return httpx.get(url, timeout=1).status_code == 200
        except httpx.HTTPError:
            time.sleep(0.2)
    return False


def test_tourney_web_background_is_recorded_and_tourney_stop_ends_it(engine, tmp_path):
    port = free_port()
    env = {"TOURNEY_HOME": str(tmp_path), "TOURNEY_PUBLIC_URL": "https://club.example.org"}
    started = run_process("web", "--background", "--port", str(port), env=env, timeout=60)
    assert started.returncode == 0, started.stderr
    try:
        said = " ".join(started.stdout.split())
        assert (
            f"in the background (pid {(tmp_path / 'run' / 'web.pid').read_text().split()[0]}) on "
            f"http://127.0.0.1:{port} (public address https://club.example.org)" in said
        )
        assert _up(f"http://127.0.0.1:{port}/")
        again = run_process("web", "--background", "--port", str(port), env=env, timeout=60)
        assert "already served" in again.stdout
        stopped = run_process("stop", env=env, timeout=60)
        assert stopped.returncode == 0, stopped.stderr
        assert "web: stopped" in stopped.stdout
        try:
            httpx.get(f"http://127.0.0.1:{port}/", timeout=1)
            answered = True
        except httpx.HTTPError:
            answered = False
        assert not answered
    finally:
        pid_file = tmp_path / "run" / "web.pid"
        if pid_file.exists():
            run_process("stop", env=env, timeout=60)
