"""The operator's queue in a real browser (Debian's headless Chromium through Playwright) against a real
server and PostgreSQL, in Russian (issue 39): the operator signs in and lands at the queue, approves a
club's application with what was checked (CL-3), opens another club from the catalog and suspends it
with a reason (CL-4), whose staff then change nothing (AC-4); finds an account and blocks it; axe-core
finds no serious or critical violation on any page of the queue; the Pusoy Dos organizer role
granted and taken back from the accounts page."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from sqlalchemy.orm import Session

from domain.access.services import accounts
from domain.access.tables import Account
from domain.clubs.services import clubs as club_service
from domain.clubs.tables import Club
from domain.store.db import unit_of_work
from flows import bootstrap
from tests.support import world
from tests.support.axe import serious
from tests.support.browser import russian_page, sign_in
from tests.web.test_club_console import _said


def test_the_operator_approves_a_club_and_suspends_another_in_the_browser(committed, web, browser, http):
    w = world.access_world(committed, bootstrap.password_hasher(), passwords=("operator",))
    now = datetime.now(UTC)
    with unit_of_work(committed) as session:  # club A waits for a moderator: no registry provider
        club_service.apply(session, w.club_a, now - timedelta(hours=1), provider_configured=False)
    context, page, errors = russian_page(browser)
    page.on("dialog", lambda dialog: dialog.accept())
    try:
        sign_in(page, web.url, w.emails["operator"], world.PASSWORD, f"{web.url}/platform")
        assert page.locator("h1").inner_text() == "Заявки на проверку"
        assert page.locator("html").get_attribute("lang") == "ru"
        application = page.locator(f"li.application[data-club='{w.club_a}']")
        assert "в очереди модератора" in application.inner_text()
        assert serious(page) == []

        # approved with what was checked
        application.locator("input[name=reason]").first.fill("Выписка ЕГРЮЛ сверена")
        application.locator("button", has_text="Одобрить").click()
        _said(page, "Одобрено: клуб проверен.")
        assert page.locator("#queue-empty").count() == 1
        assert serious(page) == []

        # another club, from the catalog: suspended with a reason
        page.click("nav.console-nav >> text=Клубы")
        page.wait_for_selector("#clubs")
        assert serious(page) == []
        page.select_option("#listing", "listed")
        page.click("#filters button[type=submit]")
        page.wait_for_selector(f"#clubs tr[data-club='{w.club_b}']")
        page.click(f"#clubs tr[data-club='{w.club_b}'] a")
        page.wait_for_selector("#history")
        assert serious(page) == []
        page.fill(f"#reason-suspend-{w.club_b}", "1.7.4: жалобы игроков")
        page.click(f"#suspend-{w.club_b} button[type=submit]")
        _said(page, "Приостановлено")
        assert "приостановлен" in page.locator("#listing").inner_text()
        assert "жалобы игроков" in page.locator("#history").inner_text()
        assert serious(page) == []

        with Session(committed) as session:
            a, b = session.get_one(Club, w.club_a), session.get_one(Club, w.club_b)
            assert (a.verification_status, a.verification_reason) == ("verified", "Выписка ЕГРЮЛ сверена")
            assert (b.listing_status, b.listing_reason) == ("suspended", "1.7.4: жалобы игроков")
        # AC-4: the suspended club's owner changes nothing from their next request
        refused = http.post(
            f"/api/v1/clubs/{w.club_b}/profile", json={"timezone": "Europe/Samara"}, headers=w.headers("owner_b")
        )
        assert (refused.status_code, refused.json()["code"]) == (403, "club-suspended")

        # an account found and blocked
        page.click("nav.console-nav >> text=Учётные записи")
        page.wait_for_selector("#find")
        page.fill("#q", "spare")
        page.click("#find button[type=submit]")
        row = page.locator(f"#accounts tr[data-account='{w.account_ids['spare']}']")
        row.locator("input[name=reason]").fill("1.5.3: спам")
        row.locator("button", has_text="Заблокировать").click()
        _said(page, "Заблокировано")
        assert serious(page) == []
        with Session(committed) as session:
            assert session.get_one(Account, w.account_ids["spare"]).blocked_reason == "1.5.3: спам"
        assert errors == []
    finally:
        context.close()


def test_the_operator_grants_and_takes_back_the_organizer_role_in_the_browser(committed, web, browser):
    """Issue 39: the accounts page says whether an account is a Pusoy Dos organizer; the operator presses
    "Сделать организатором", the row says so and offers to take it back, pressed too; axe-core finds no
    serious or critical violation in either state."""
    w = world.access_world(committed, bootstrap.password_hasher(), passwords=("operator",))
    spare = w.account_ids["spare"]
    context, page, errors = russian_page(browser)
    try:
        sign_in(page, web.url, w.emails["operator"], world.PASSWORD, f"{web.url}/platform")
        page.goto(f"{web.url}/platform/accounts?q=spare")
        cell = page.locator(f"#accounts tr[data-account='{spare}'] td.organizer")
        assert cell.get_attribute("data-organizer") == "no" and "нет" in cell.inner_text()
        assert serious(page) == []
        cell.locator("button", has_text="Сделать организатором").click()
        _said(page, "Теперь учётная запись — организатор Pusoy Dos")
        assert cell.get_attribute("data-organizer") == "yes" and "да" in cell.inner_text()
        assert serious(page) == []
        with Session(committed) as session:
            assert [(r.value, c) for r, c in accounts.roles_of(session, spare)] == [("organizer", None)]
        cell.locator("button", has_text="Снять роль").click()
        _said(page, "Роль организатора снята")
        assert cell.get_attribute("data-organizer") == "no"
        assert serious(page) == []
        with Session(committed) as session:
            assert accounts.roles_of(session, spare) == ()
        assert errors == []
    finally:
        context.close()
