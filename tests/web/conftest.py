"""The web pages' fixtures: a real uvicorn server on a free loopback port (tests/support/web_server.py)
over the session's real PostgreSQL test database, and Debian's headless Chromium driven by
Playwright (never a downloaded browser)."""

from __future__ import annotations

import shutil
from collections.abc import Iterator

import httpx
import pytest

from tests.support.net import free_port
from tests.support.web_server import Server

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


@pytest.fixture
def web(committed, tmp_path):
    """A server of the public pages on the test database (tables emptied after the test), its
    documents' outbox in `server.outbox`."""
    from flows.web.app import create_app

    outbox = tmp_path / "outbox"
    outbox.mkdir()
    with Server(create_app(committed, join_limit=10, join_window=60.0, outbox=outbox), free_port()) as server:
        server.outbox = outbox
        yield server


@pytest.fixture
def http(web) -> Iterator[httpx.Client]:
    with httpx.Client(base_url=web.url, timeout=10, follow_redirects=False) as client:
        yield client


@pytest.fixture(scope="package")
def browser():
    """One Chromium for a stretch of this folder's tests. Package-scoped, not session-scoped: while
    Playwright's sync API is started, the thread's asyncio loop counts as running, and Prefect's sync
    calls made after it (`to_deployment`, `asyncio.run`) would return coroutines or refuse. A worker
    that steals flow tests after browser ones (`--dist worksteal`) closes it on leaving the folder."""
    if not shutil.which("chromium") and not shutil.os.path.exists(CHROMIUM):
        pytest.fail("Debian's chromium is missing: run infra/setup-system.sh (apt-get install chromium)")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True)
        try:
            yield b
        finally:
            b.close()


@pytest.fixture
def page(browser):
    context = browser.new_context()
    pg = context.new_page()
    errors: list[str] = []
    pg.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    pg.on("pageerror", lambda e: errors.append(str(e)))
    pg.errors = errors
    try:
        yield pg
    finally:
        context.close()
