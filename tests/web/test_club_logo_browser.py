"""The club's logo in the owner's console in a real browser (Debian's headless Chromium through
Playwright) against a real server and PostgreSQL, in Russian (issue 39): on the profile page the owner
chooses an SVG (refused, said, nothing stored), then a PNG: it is stored and shown; then removes it;
axe-core finds no serious or critical violation on the page in each state."""

from __future__ import annotations

from sqlalchemy.orm import Session

from domain.clubs.tables import ClubLogo
from flows import bootstrap
from tests.support import world
from tests.support.axe import serious
from tests.support.browser import russian_page, sign_in
from tests.web.test_club_console import WAIT_MS, _said
from tests.web.test_club_logo import SVG, image


def test_issue_39_the_owner_uploads_and_removes_the_club_s_logo_in_the_browser(committed, web, browser, tmp_path):
    w = world.access_world(committed, bootstrap.password_hasher(), passwords=("owner",))
    svg, png = tmp_path / "logo.svg", tmp_path / "logo.png"
    svg.write_bytes(SVG)
    png.write_bytes(image("PNG", (400, 200)))
    context, page, errors = russian_page(browser)
    page.on("dialog", lambda dialog: dialog.accept())
    try:
        sign_in(page, web.url, w.emails["owner"], world.PASSWORD, f"{web.url}/club/{w.club_a}")
        page.click("nav.console-nav >> text=Профиль")
        page.wait_for_selector("#logo-form")
        assert page.locator("#no-logo").inner_text() == "Логотипа пока нет."
        assert serious(page) == []

        page.set_input_files("#logo-file", str(svg))
        page.click("text=Загрузить логотип")
        page.wait_for_selector("#problems", timeout=WAIT_MS)
        assert "SVG и другие файлы не принимаются" in page.locator("#problems").inner_text()
        assert serious(page) == []
        with Session(committed) as session:
            assert session.get(ClubLogo, w.club_a) is None

        page.set_input_files("#logo-file", str(png))
        page.click("text=Загрузить логотип")
        _said(page, "Логотип сохранён")
        logo = page.locator("#logo img")
        assert logo.get_attribute("alt").startswith("Логотип клуба")
        assert page.evaluate("document.querySelector('#logo img').naturalWidth") == 400  # the image loads
        assert serious(page) == []
        with Session(committed) as session:
            assert session.get(ClubLogo, w.club_a).width == 400

        page.click("text=Удалить логотип")
        _said(page, "Логотип удалён.")
        assert page.locator("#no-logo").is_visible() and serious(page) == []
        assert errors == [
            "Failed to load resource: the server responded with a status of 409 (Conflict)"
        ]  # the SVG's refusal
    finally:
        context.close()
