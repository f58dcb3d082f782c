"""A person signing in as a browser does: the form of `/signin`, then the page they land at."""

from __future__ import annotations

WAIT_MS = 15_000  # a loaded machine's page and its scripts


def sign_in(page, url: str, email: str, password: str, lands: str) -> None:
    """Fill and send `/signin` at `url` as `email`; wait until the browser is at `lands` (a full URL)."""
    page.goto(f"{url}/signin")
    page.fill("#email", email)
    page.fill("#password", password)
    page.click("button[type=submit]")
    page.wait_for_url(lands, timeout=WAIT_MS)
