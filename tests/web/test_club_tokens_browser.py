"""The club's tokens in the owner's console (issue 38; RULES AC-4, AC-3): the owner makes a token for
the floor's tablet in the browser, reads its secret this once on the page that answers (never again:
not in the list, not in the database), the tablet acts with it within its role, the owner revokes it
and it stops at its next request; axe-core finds nothing serious on the page."""

from __future__ import annotations

import httpx
from sqlalchemy import text
from sqlalchemy.orm import Session

from flows import bootstrap
from tests.support import world
from tests.support.axe import serious
from tests.support.browser import russian_page, sign_in
from tests.web.test_club_console import WAIT_MS


def test_ac_4_the_owner_makes_and_revokes_a_tablet_s_token_in_the_console(committed, web, browser):
    w = world.access_world(committed, bootstrap.password_hasher(), passwords=("owner",))
    context, page, errors = russian_page(browser)
    page.on("dialog", lambda dialog: dialog.accept())
    try:
        sign_in(page, web.url, w.emails["owner"], world.PASSWORD, f"{web.url}/club/{w.club_a}")
        page.click("nav.console-nav >> text=Токены")
        page.wait_for_selector("#new-token")
        assert serious(page) == []
        page.fill("#token-name", "Планшет у стола 3")
        page.select_option("#token-email", w.emails["floor"])
        page.click("text=Создать токен")
        page.wait_for_selector("#secret", timeout=WAIT_MS)
        secret = page.locator("#secret").inner_text()
        assert secret.startswith("tny_") and serious(page) == []
        with Session(committed) as session:
            stored = session.scalar(text("SELECT string_agg(row_to_json(t)::text, '|') FROM account_tokens t"))
            trail = session.scalar(text("SELECT string_agg(row_to_json(a)::text, '|') FROM audit_trail a"))
        assert secret not in stored and secret not in trail and "club.create-token" in trail
        tablet = {"authorization": f"Bearer {secret}"}
        entries = f"{web.url}/api/v1/tournaments/{w.tournament_a}/entries"
        assert httpx.get(entries, headers=tablet).status_code == 200
        assert httpx.get(f"{web.url}/api/v1/clubs/{w.club_a}/staff", headers=tablet).status_code == 404  # floor only
        page.goto(f"{web.url}/club/{w.club_a}/tokens")
        assert secret not in page.content()
        row = page.locator("#tokens tr", has_text="Планшет у стола 3")
        row.locator("button", has_text="Отозвать").click()
        page.wait_for_selector("#done", timeout=WAIT_MS)
        assert "отозван" in page.locator("#done").inner_text()
        assert httpx.get(entries, headers=tablet).status_code == 401
        assert errors == []
    finally:
        context.close()
