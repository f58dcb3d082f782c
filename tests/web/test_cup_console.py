"""The Pusoy Dos organizer's cups in a real browser (Debian's headless Chromium through Playwright)
against a real server and PostgreSQL, in Russian (issue 39): the organizer signs in and lands at their
cups, creates a cup of their own bracket (PD-1, PD-2, PD-5), watches players join it through the API
(the page lists them as they come, PD-4), makes its game server's token (shown once), and cancels
another of their cups (PD-11); axe-core finds no serious or critical violation on any of their pages."""

from __future__ import annotations

from datetime import UTC, datetime

from sqlalchemy import select
from sqlalchemy.orm import Session

from domain.access.services import accounts, signin
from domain.pusoy.tables import PusoyTournament
from domain.store.db import unit_of_work
from flows import bootstrap
from tests.support import world
from tests.support.axe import serious
from tests.support.browser import russian_page, sign_in
from tests.web.test_club_console import WAIT_MS, _said

HANDLES = ("vera", "gleb", "lida")


def _players(engine) -> dict[str, str]:
    """Three players with accounts, each with a token to join cups through the API."""
    now = datetime.now(UTC)
    tokens = {}
    with unit_of_work(engine) as session:
        for handle in HANDLES:
            p = world.player(session, f"Игрок {handle}", handle=handle)
            account = accounts.add(session, f"{handle}@example.org", now, player_id=p.id)
            _, tokens[handle] = signin.create_token(session, account, "phone", ["player"], now)
    return tokens


def test_the_organizer_creates_a_cup_sees_players_join_and_cancels_another(committed, web, browser, http):
    w = world.access_world(committed, bootstrap.password_hasher(), passwords=("organizer",))
    tokens = _players(committed)
    context, page, errors = russian_page(browser)
    page.on("dialog", lambda dialog: dialog.accept())
    try:
        sign_in(page, web.url, w.emails["organizer"], world.PASSWORD, f"{web.url}/cups")
        assert page.locator("h1").inner_text() == "Мои кубки"
        assert page.locator(f"#cups tr[data-cup='{w.organizer_cup}']").count() == 1
        assert serious(page) == []

        # a cup of 32 with a bracket of its own, 3 games a round, open to anyone, in Russian
        page.fill("#name", "Зимний кубок")
        page.select_option("#capacity", "32")
        page.select_option("#games_per_round", "3")
        page.fill("#advancing", "12, 4")
        page.check("#open")
        page.select_option("#locale", "ru")
        page.click("#new-cup button[type=submit]")
        _said(page, "Создано")
        assert page.locator("h1").inner_text() == "Зимний кубок"
        assert page.locator("#bracket").inner_text().startswith("32 → 12 → 4")
        code = page.locator("#code").inner_text()
        assert serious(page) == []

        # players join through the API; the page lists them as they come, without a reload
        for handle in HANDLES:
            joined = http.post(f"/api/v1/pusoy/{code}/entries", headers={"authorization": f"Bearer {tokens[handle]}"})
            assert joined.status_code == 200, joined.text
        page.wait_for_function("() => document.querySelectorAll('#entries li').length === 3", timeout=WAIT_MS)
        assert page.locator("#entries li").all_inner_texts() == list(HANDLES)
        assert page.locator("#entrants").inner_text() == "занято мест: 3 из 32"

        # its game server's token, shown once
        page.fill("#token-name", "стол 1")
        page.click("#new-token-form button[type=submit]")
        page.wait_for_selector("#new-token")
        secret = page.locator("#token-secret").input_value()
        assert secret.startswith("tny_")
        assert serious(page) == []
        page.goto(f"{web.url}/cups/{code}")
        assert page.locator("#token-secret").count() == 0 and "стол 1" in page.locator("#tokens").inner_text()

        # another of the organizer's cups, cancelled (asked first)
        page.click("nav.console-nav >> text=Мои кубки")
        page.click(f"#cups tr[data-cup='{w.organizer_cup}'] a")
        page.wait_for_selector("#cancel")
        assert serious(page) == []
        page.click("#cancel")
        _said(page, "Кубок отменён.")
        assert page.locator("#status").inner_text().startswith("отменён")
        assert page.locator("#cancel").count() == 0
        assert serious(page) == []

        with Session(committed) as session:
            made = session.scalars(select(PusoyTournament).where(PusoyTournament.code == code)).one()
            assert (made.capacity, made.games_per_round, list(made.bracket), made.private, made.entrants) == (
                32, 3, [32, 12, 4], False, 3,
            )  # fmt: skip
            other = session.scalars(select(PusoyTournament).where(PusoyTournament.code == w.organizer_cup)).one()
            assert other.status == "cancelled"
        assert errors == []
    finally:
        context.close()
