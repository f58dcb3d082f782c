"""The club's webhooks in the owner's console in a real browser (Debian's headless Chromium through
Playwright) against a real server and PostgreSQL, in Russian (issue 39): the owner opens the page from
the console's navigation, adds an endpoint (a refused address said first, nothing written), reads its
signing secret this once (not in the list after, nor in any table), sees its recent deliveries and
disables it; axe-core finds no serious or critical violation on the page in each state."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from sqlalchemy import update
from sqlalchemy.orm import Session

from domain.store.db import unit_of_work
from domain.webhooks.services import outbox
from domain.webhooks.tables import Delivery
from flows import bootstrap
from tests.support import world
from tests.support.axe import serious
from tests.support.browser import russian_page, sign_in
from tests.support.db import contents
from tests.web.test_club_console import WAIT_MS, _said


def test_issue_39_the_owner_adds_reads_and_disables_a_webhook_in_the_browser(committed, web, browser):
    w = world.access_world(committed, bootstrap.password_hasher(), passwords=("owner",))
    context, page, errors = russian_page(browser)
    page.on("dialog", lambda dialog: dialog.accept())
    try:
        sign_in(page, web.url, w.emails["owner"], world.PASSWORD, f"{web.url}/club/{w.club_a}")
        page.click("nav.console-nav >> text=Вебхуки")
        page.wait_for_selector("#new-webhook")
        assert page.locator("h1").inner_text() == "Вебхуки"
        assert "Вебхуков пока нет." in page.locator("#webhooks").inner_text()
        assert serious(page) == []

        with Session(committed) as session:
            before = contents(session)
        page.fill("#webhook-url", "https://10.0.0.7/hook")  # a private address: refused, said, nothing written
        page.click("#new-webhook + form button[type=submit]")
        page.wait_for_selector("#problems", timeout=WAIT_MS)
        assert "частный или локальный хост" in page.locator("#problems").inner_text()
        assert page.locator("#webhook-url").input_value() == "https://10.0.0.7/hook"
        assert serious(page) == []
        with Session(committed) as session:
            assert {k: v for k, v in contents(session).items() if k != "account_sessions"} == {
                k: v for k, v in before.items() if k != "account_sessions"
            }

        page.fill("#webhook-url", "https://bot.club.example/tourney")
        page.uncheck("input[name=event][value='documents.ready']")
        page.check("input[name=event][value='round.completed']")
        page.click("text=Добавить вебхук")
        page.wait_for_selector("#secret", timeout=WAIT_MS)
        secret = page.locator("#secret").inner_text()
        assert (
            secret.startswith("whsec_") and "Скопируйте его секрет подписи сейчас" in page.locator("#made").inner_text()
        )
        assert serious(page) == []
        with Session(committed) as session:
            assert secret.removeprefix("whsec_") not in repr(contents(session))
        row = page.locator("#webhooks tr", has_text="https://bot.club.example/tourney")
        assert "раунд Pusoy Dos завершён" in row.inner_text() and "турнир завершён" in row.inner_text()
        endpoint = int(row.get_attribute("data-webhook"))

        now = datetime.now(UTC)
        with unit_of_work(committed) as session:
            event = outbox.emit(session, "tournament.finished", now - timedelta(minutes=30), club_id=w.club_a,
                                organizer=None, payload={"source": "poker"})  # fmt: skip
            session.execute(update(Delivery).where(Delivery.event_id == event)
                            .values(delivered_at=now, attempts=1, last_status=200))  # fmt: skip
        page.goto(f"{web.url}/club/{w.club_a}/webhooks")
        assert secret not in page.content()
        deliveries = page.locator(f"table[data-deliveries='{endpoint}']")
        assert "tournament.finished" in deliveries.inner_text() and "доставлено" in deliveries.inner_text()
        assert "HTTP 200" in page.locator(f"tr[data-webhook='{endpoint}']").inner_text()
        assert serious(page) == []

        page.locator(f"tr[data-webhook='{endpoint}'] button", has_text="Отключить").click()
        _said(page, "Вебхук отключён")
        assert "отключён" in page.locator(f"tr[data-webhook='{endpoint}']").inner_text()
        assert serious(page) == []
        assert errors == [
            "Failed to load resource: the server responded with a status of 409 (Conflict)"
        ]  # the private address's refusal
    finally:
        context.close()
