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


def russian_page(browser, **options):
    """A new context asking for Russian (the page's own policy bypassed, for axe's script; `options` more
    of Playwright's context options, `accept_downloads=True` say) and its page, with the list its console
    errors and uncaught exceptions are written to: (context, page, errors)."""
    context = browser.new_context(locale="ru-RU", bypass_csp=True, **options)
    page = context.new_page()
    errors: list[str] = []
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    page.on("pageerror", lambda e: errors.append(str(e)))
    return context, page, errors
