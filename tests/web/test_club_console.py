"""The owner's console in a real browser (Debian's headless Chromium through Playwright) against a real
server and PostgreSQL, in Russian (issue 39): the owner signs in and lands at the club's console, builds
a blind structure (a level added by the page's script), creates a tournament with a mystery bounty,
types its prize lines (a money line caught as it is typed, SP-4), declares the mystery table (SP-11) and
opens registration; axe-core finds no serious or critical violation on any page of the console."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from zoneinfo import ZoneInfo

from sqlalchemy.orm import Session

from domain.poker.services import mystery, results
from domain.poker.tables.tournaments import Structure, Tournament
from flows import bootstrap
from tests.support import world
from tests.support.axe import serious
from tests.support.browser import russian_page, sign_in

WAIT_MS = 15_000


def _said(page, text: str) -> None:
    page.wait_for_selector(f"#done:has-text('{text}')", timeout=WAIT_MS)


def test_the_owner_builds_a_structure_creates_a_tournament_with_prizes_and_a_mystery_table_and_opens_it(
    committed, web, browser
):
    w = world.access_world(committed, bootstrap.password_hasher(), passwords=("owner",))
    club = w.club_a
    start = (datetime.now(UTC) + timedelta(days=3)).astimezone(ZoneInfo("Europe/Moscow"))
    start = start.replace(hour=19, minute=0, second=0, microsecond=0)
    context, page, errors = russian_page(browser)
    page.on("dialog", lambda dialog: dialog.accept())
    try:
        # signing in lands the owner at the club's console
        sign_in(page, web.url, w.emails["owner"], world.PASSWORD, f"{web.url}/club/{club}")
        assert page.locator("h1").inner_text().startswith("Сегодня в клубе")
        assert page.locator("html").get_attribute("lang") == "ru"
        assert serious(page) == []

        # a blind structure: three rows typed, a fourth added by the script, a break among them
        page.click("nav.console-nav >> text=Структуры блайндов")
        page.wait_for_selector("#new-structure")
        assert serious(page) == []
        page.fill("#name", "Пятничный турбо")
        page.select_option("#ante_type", "bb_ante")
        for n, (small, big, ante, minutes) in enumerate(
            ((100, 200, 200, 15), (200, 400, 400, 15), (None, None, None, 10)), 1
        ):
            if small is not None:
                page.fill(f"input[name=sb_{n}]", str(small))
                page.fill(f"input[name=bb_{n}]", str(big))
                page.fill(f"input[name=ante_{n}]", str(ante))
            else:
                page.check(f"input[name=brk_{n}]")
            page.fill(f"input[name=min_{n}]", str(minutes))
        for _ in range(2):
            page.click("#add-level")  # rows 4 and 5 of the grid (three blank rows shown, two more)
        assert page.locator("#rows").input_value() == "5"
        page.fill("input[name=sb_5]", "300")
        page.fill("input[name=bb_5]", "600")
        page.fill("input[name=ante_5]", "600")
        page.fill("input[name=min_5]", "15")
        page.click("#new-structure button[type=submit]")
        _said(page, "Создано.")
        assert page.locator("h1").inner_text() == "Пятничный турбо"
        assert "4 уровня" in page.locator("main").inner_text()
        assert serious(page) == []
        with Session(committed) as session:
            sid = (
                session.query(Structure.id)
                .filter(Structure.club_id == club, Structure.name == "Пятничный турбо")
                .scalar()
            )

        # a tournament with a mystery bounty, from nothing
        page.click("nav.console-nav >> text=Турниры")
        page.wait_for_selector("#new-tournament")
        assert serious(page) == []
        page.fill("#name", "Мистери-пятница")
        page.fill("#scheduled_start", start.strftime("%Y-%m-%dT%H:%M"))
        page.select_option("#structure_id", str(sid))
        page.fill("#starting_stack", "20000")
        page.fill("#buy_in", "1 500")
        page.select_option("#bounty_type", "mystery")
        page.fill("#seat_cap", "8")
        page.fill("#late_reg_deadline", (start + timedelta(hours=1)).strftime("%Y-%m-%dT%H:%M"))
        page.click("#new-tournament button[type=submit]")
        _said(page, "Создано.")
        assert page.locator("h1").inner_text() == "Мистери-пятница"
        assert page.locator("#status").inner_text().startswith("черновик")
        assert serious(page) == []
        tid = int(page.url.split("/tournaments/")[1].split("?")[0])

        # the mystery draws and the phase, as settings
        page.check("#mystery_draw")
        page.fill("#mystery_phase", "itm")
        page.click("#save-settings")
        _said(page, "Сохранено.")

        # prize lines checked as they are typed: a money line is said at once, then the fixed lines saved
        page.fill("#prize-lines", "Кубок и бесплатный вход\n5 000 р")
        page.wait_for_selector("#prize-check li[data-line='2']", timeout=WAIT_MS)
        assert "называет деньги" in page.locator("#prize-check").inner_text()
        assert page.locator("#prize-lines").get_attribute("aria-invalid") == "true"
        assert serious(page) == []
        page.fill("#prize-lines", "Кубок и бесплатный вход\nМедаль\nУжин на двоих")
        page.wait_for_function(
            "() => document.getElementById('prize-lines').getAttribute('aria-invalid') === 'false'", timeout=WAIT_MS
        )
        page.click("#save-prizes")
        _said(page, "Сохранено.")

        # the mystery table (SP-11): its lines checked too
        page.fill("#mystery-lines", "Худи клуба\nКепка\nБутылка лимонада")
        page.wait_for_function(
            "() => document.getElementById('mystery-lines').getAttribute('aria-invalid') === 'false'", timeout=WAIT_MS
        )
        page.click("#save-mystery")
        _said(page, "Сохранено.")

        # open registration
        page.click("#open")
        _said(page, "Регистрация открыта.")
        assert page.locator("#status").inner_text().startswith("идёт регистрация")
        assert page.locator("#open").count() == 0
        assert serious(page) == []

        with Session(committed) as session:
            t = session.get(Tournament, tid)
            assert (t.status, t.bounty_type, t.mystery_draw, t.mystery_phase, t.buy_in, t.seat_cap) == (
                "registration_open", "mystery", True, "itm", 150000, 8,
            )  # fmt: skip
            assert t.scheduled_start == start and t.structure_id == sid
            assert results.prizes(session, tid) == ("Кубок и бесплатный вход", "Медаль", "Ужин на двоих")
            assert mystery.declared_prizes(session, tid) == ("Худи клуба", "Кепка", "Бутылка лимонада")

        # the day's list: the tournament starts in three days, but it is open, so the desk's day lists it
        page.click("nav.console-nav >> text=Сегодня")
        assert page.locator(f"#day tr[data-tournament='{tid}']").count() == 1
        assert serious(page) == []
        for place in ("Команда", "Профиль"):  # the other pages of the console
            page.click(f"nav.console-nav >> text={place}")
            page.wait_for_selector("form.console-form")
            assert serious(page) == [], place
        assert errors == []
    finally:
        context.close()
