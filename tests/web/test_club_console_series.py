"""The owner's console, part two, in a real browser (Debian's headless Chromium through Playwright) against a
real server and PostgreSQL, in Russian (issue 39, "The club runs itself"): the owner creates a weekly series
from one of the club's tournaments and sees its next starts in the club's time (Moscow), creates a season,
names its tournaments and reads the standings, downloads a finished tournament's results sheet and sends
its documents again to the club's e-mail (a new delivery the job sends with its own Message-ID); axe-core
finds no serious or critical violation on any of these pages."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path
from zoneinfo import ZoneInfo

from sqlalchemy import select
from sqlalchemy.orm import Session

from domain.documents.tables import DocumentPublication
from domain.series.tables import Series
from flows import bootstrap
from tests.support import world
from tests.support.axe import serious
from tests.support.browser import russian_page, sign_in
from tests.web.test_api_owner_series import DAY_NAMES, Mailer, _played_two, _published, _send
from tests.web.test_club_console import WAIT_MS, _said

MOSCOW = ZoneInfo("Europe/Moscow")


def test_the_owner_runs_series_seasons_and_documents_from_the_console(committed, web, browser):
    w = world.access_world(committed, bootstrap.password_hasher(), passwords=("owner",))
    club = w.club_a
    first, second = _played_two(committed, club)
    published, _ = _published(committed, web.outbox, club)
    mailer = Mailer()
    assert _send(committed, web.outbox, mailer)["state"] == "sent"  # the job delivered it once already
    today = datetime.now(UTC).astimezone(MOSCOW).date()
    day = today + timedelta(days=3)
    context, page, errors = russian_page(browser, accept_downloads=True)
    page.on("dialog", lambda dialog: dialog.accept())
    try:
        sign_in(page, web.url, w.emails["owner"], world.PASSWORD, f"{web.url}/club/{club}")

        # a weekly series, its tournaments made like one of the club's
        page.click("nav.console-nav >> text=Серии")
        page.wait_for_selector("#new-series")
        assert page.locator("#series-empty").inner_text() == "Серий пока нет."
        assert serious(page) == []
        page.fill("#name", "Турбо по средам")
        page.select_option("#from_tournament", str(w.tournament_a))
        page.check(f"#day_{DAY_NAMES[day.weekday()]}")
        page.fill("#time", "19:30")
        page.click("#new-series button[type=submit]")
        _said(page, "Создано.")
        assert page.locator("h1").inner_text() == "Турбо по средам"
        assert page.locator("#state").inner_text() == "Состояние: действует"
        assert page.locator("#calendar").inner_text().startswith("еженедельно: ")
        assert page.locator("#calendar").inner_text().endswith(", 19:30")
        assert "По времени клуба: Europe/Moscow." in page.locator("main").inner_text()
        starts = page.locator("#next time")
        assert starts.count() == 2
        assert [starts.nth(n).get_attribute("datetime") for n in range(2)] == [
            f"{d.isoformat()}T19:30:00+03:00" for d in (day, day + timedelta(days=7))
        ]
        assert all(starts.nth(n).inner_text().endswith(", 19:30") for n in range(2))
        assert serious(page) == []
        with Session(committed) as session:
            series = session.scalars(select(Series).where(Series.club_id == club)).one()
            assert (series.cron, series.timezone) == (f"30 19 * * {DAY_NAMES[day.weekday()]}", "Europe/Moscow")
        page.click("#pause")
        _said(page, "Серия приостановлена: её ещё не открытые турниры сняты.")
        assert page.locator("#next-empty").count() == 1
        page.click("#resume")
        _said(page, "Серия возобновлена: её турниры снова запланированы.")
        assert page.locator("#next time").count() == 2
        page.click("nav.console-nav >> text=Серии")
        page.wait_for_selector(f"#series tr[data-series='{series.id}']")
        assert serious(page) == []

        # a season, its tournaments named, its standings
        page.click("nav.console-nav >> text=Сезоны")
        page.wait_for_selector("#new-season")
        assert serious(page) == []
        page.fill("#name", "Зима")
        page.fill("#from", (today - timedelta(days=30)).isoformat())
        page.fill("#to", (today + timedelta(days=30)).isoformat())
        page.select_option("#formula", "table")
        page.fill("#table", "10 6 3")
        page.click("#new-season button[type=submit]")
        _said(page, "Создано.")
        assert page.locator("h1").inner_text() == "Зима"
        assert page.locator("#standings-empty").count() == 1
        page.check(f"#tournament-{first}")
        page.check(f"#tournament-{second}")
        page.click("#add")
        _said(page, "Добавлено в сезон.")
        rows = page.locator("#standings tbody tr")
        assert [rows.nth(n).locator("td").nth(1).inner_text() for n in range(rows.count())] == [
            "Борис Гельфанд",
            "Анна Белова",
            "Вера Менчик",
        ]
        assert [rows.nth(n).locator("td").nth(2).inner_text() for n in range(rows.count())] == [
            "16,00",
            "13,00",
            "9,00",
        ]
        assert serious(page) == []

        # the documents: downloaded as stored, sent again to the club's e-mail
        page.click("nav.console-nav >> text=Документы")
        with Session(committed) as session:
            pub = session.scalars(
                select(DocumentPublication).where(DocumentPublication.tournament_id == published)
            ).one()
            pid, folder = pub.id, pub.folder
        section = page.locator(f"#documents-{pid}")
        section.wait_for(timeout=WAIT_MS)
        assert section.locator(".delivery").inner_text().startswith("покер · отправлены на floor@example.org, ")
        assert serious(page) == []
        with page.expect_download(timeout=WAIT_MS) as download:
            section.locator("a", has_text="итоги").click()
        assert Path(download.value.path()).read_bytes() == (web.outbox / folder / "results.pdf").read_bytes()
        assert download.value.suggested_filename == "results.pdf"
        section.locator("button").click()
        _said(page, "Документы будут отправлены ещё раз на почту клуба.")
        assert (
            page.locator(f"#documents-{pid} .delivery").inner_text() == "покер · ожидают отправки на floor@example.org"
        )
        assert serious(page) == []
        assert _send(committed, web.outbox, mailer)["state"] == "sent"  # the delivery job sends the new one
        assert [m[0] for m in mailer.sent] == ["floor@example.org", "floor@example.org"]
        assert mailer.sent[0][3] != mailer.sent[1][3]  # a new message, not the first one's duplicate
        assert errors == []
    finally:
        context.close()
