"""The club's desk in a real browser (Debian's headless Chromium through Playwright) against a real
server and PostgreSQL: two tablets (two browser contexts, the floor and the cashier of club A, signed
in by the API's session) and the club's screen. A walk-in registered and checked in, a bust with its
killer seen on the other tablet and the screen without a reload, the cashier settling in roubles, a
stale second void refused in place writing nothing; axe-core finds no serious or critical violation
(3.2, 3.4, 3.10, SP-1, SP-5, AC-2)."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path

import httpx
from sqlalchemy.orm import Session

from domain.poker.services import clock as clock_service
from domain.poker.services.results import set_prizes
from domain.store.db import unit_of_work
from flows import bootstrap
from tests.support import access_world, poker_world
from tests.support.db import contents
from tests.web import world

WAIT_MS = 15_000  # the longest a change may take to show on a loaded machine before the test fails
AXE = Path(__file__).with_name("vendor") / "axe.min.js"
SERIOUS = """() => axe.run(document, {resultTypes: ["violations"]}).then(r => r.violations
  .filter(v => v.impact === "serious" || v.impact === "critical")
  .map(v => v.id + ": " + v.nodes.map(n => n.target.join(" ")).join(", ")))"""


def _tournament(committed, club_id: int) -> dict:
    """A running tournament of club A: six players checked in (Игрок 1..6), the clock started."""
    with unit_of_work(committed) as session:
        t = poker_world.tournament(
            session, club_id=club_id, name="Пятница", start=world.now() - timedelta(minutes=5),
            late_reg=timedelta(hours=1),
        )  # fmt: skip
        for n in range(1, 7):
            poker_world.enter(session, t, player_id=poker_world.player(session, f"Игрок {n}", handle=f"desk{n}").id)
        set_prizes(session, t.id, ["Кубок"])
        clock_service.act(session, t.id, "start", world.now())
        return {"id": t.id}


def _tablet(browser, web, w, who: str, **options):
    context = browser.new_context(locale="ru-RU", **options)
    page = context.new_page()
    page.errors = []
    # a refusal's 404 or 409 is logged by the browser as a failed load: expected here, not a script error
    page.on(
        "console",
        lambda m: (
            page.errors.append(m.text)
            if m.type == "error" and not m.text.startswith("Failed to load resource")
            else None
        ),
    )
    page.on("pageerror", lambda e: page.errors.append(str(e)))
    signed = page.request.post(
        f"{web.url}/api/v1/session", data={"email": w.emails[who], "password": access_world.PASSWORD}
    )
    assert signed.status == 200, signed.text()
    return context, page


def _open(page, web, tid: int) -> None:
    page.goto(f"{web.url}/desk/t/{tid}")
    page.wait_for_selector('#desk[data-live="live"]', timeout=WAIT_MS)
    page.wait_for_selector("#entries tbody tr[data-player]", timeout=WAIT_MS)


def _row(page, table: str, text: str):
    return page.locator(f"#{table} tbody tr", has_text=text)


def _said(page, text: str) -> None:
    page.wait_for_function("t => document.getElementById('desk-message').textContent === t", arg=text, timeout=WAIT_MS)


def _axe(page) -> list[str]:
    page.add_script_tag(path=str(AXE))
    return page.evaluate(SERIOUS)


def test_the_floor_and_the_counter_run_a_tournament_from_two_tablets(committed, web, browser):
    w = access_world.build(committed, bootstrap.password_hasher(), passwords=("floor", "cashier"))
    t = _tournament(committed, w.club_a)

    # not signed in: to the sign-in page, coming back here after
    anonymous = browser.new_context()
    try:
        response = anonymous.new_page().request.get(f"{web.url}/desk/t/{t['id']}", max_redirects=0)
        assert response.status == 303
        assert response.headers["location"] == f"/signin?next=%2Fdesk%2Ft%2F{t['id']}"
    finally:
        anonymous.close()

    floor_ctx, floor = _tablet(browser, web, w, "floor")
    cashier_ctx, cashier = _tablet(browser, web, w, "cashier", bypass_csp=True)  # axe is injected there
    screen_ctx = browser.new_context(locale="ru-RU")
    try:
        # another club's tournament is the missing one's 404 (AC-2)
        assert floor.goto(f"{web.url}/desk/t/{w.tournament_b}").status == 404
        assert floor.goto(f"{web.url}/desk/t/900000001").status == 404
        screen = screen_ctx.new_page()
        screen.goto(f"{web.url}/t/{t['id']}/screen")
        screen.wait_for_selector('#live[data-state="live"]', timeout=WAIT_MS)
        _open(floor, web, t["id"])
        _open(cashier, web, t["id"])
        assert floor.text_content("#t-name") == "Пятница" and floor.text_content("#d-level") == "Уровень 1"
        assert cashier.is_hidden("#walk-in") and floor.is_hidden("#debts")  # each sees their own work

        # a walk-in: a new player, registered late and checked in, owing the buy-in
        floor.get_by_label("Полное имя", exact=True).fill("Вера Менчик")
        floor.get_by_label("Ник", exact=True).fill("vera")
        floor.get_by_label("Дата рождения", exact=True).fill("1990-02-16")
        floor.locator("#walk-in button").click()
        _said(floor, "Вера Менчик отмечен(а); долг 1\xa0500,00\xa0₽.")
        _row(cashier, "debts", "Вера Менчик").wait_for(timeout=WAIT_MS)  # the other tablet, no reload

        # a bust: the busted player, then the killer
        floor.get_by_role("button", name="Вылет: Игрок 1").click()
        assert floor.text_content("#bust-text") == "Кто выбил Игрок 1? Нажмите на выбившего, или:"
        floor.get_by_role("button", name="Выбил: Вера Менчик").click()
        _said(floor, "Вылет № 1: Игрок 1.")
        _row(cashier, "knockouts", "Игрок 1").wait_for(timeout=WAIT_MS)
        assert [c.strip() for c in _row(cashier, "knockouts", "Игрок 1").inner_text().split("\t")][:4] == [
            "1",
            "Игрок 1",
            "Вера Менчик",
            "1",
        ]
        screen.wait_for_function(
            "() => document.getElementById('players').textContent === 'Осталось 6 игроков из 7 входов'",
            timeout=WAIT_MS,
        )

        # the counter: a wrong amount is said in place and writes nothing; then 1 500 in roubles
        amount = cashier.get_by_label("Сумма от Вера Менчик")
        assert amount.input_value() == "1500"
        amount.fill("абв")
        with Session(committed) as session:
            before = contents(session)
            session.rollback()
        cashier.get_by_role("button", name="Рассчитать: Вера Менчик").click()
        assert cashier.text_content("#confirm-text") == "Принять абв от Вера Менчик?"
        cashier.click("#confirm-yes")
        _said(cashier, "абв is not an amount: type it like 1 500 or 1500,50.")
        with Session(committed) as session:
            assert contents(session) == before
            session.rollback()
        amount.fill("1 500")
        cashier.get_by_role("button", name="Рассчитать: Вера Менчик").click()
        cashier.click("#confirm-yes")
        _said(cashier, "Вера Менчик: принято 1\xa0500,00\xa0₽.")
        _row(cashier, "settlements", "Вера Менчик").wait_for(timeout=WAIT_MS)
        assert _row(cashier, "debts", "Вера Менчик").count() == 0
        assert _axe(cashier) == []

        # a void, shown first, from the page
        floor.get_by_role("button", name="Вылет: Игрок 2").click()
        floor.get_by_role("button", name="Без выбившего").click()
        _said(floor, "Вылет № 2: Игрок 2.")
        floor.get_by_role("button", name="Отменить #2").click()
        assert floor.text_content("#confirm-text") == (
            "Отменить вылет № 2? Игрок 2 вернётся в игру и снова получит место; "
            "вылет останется в записи с пометкой «отменён»."
        )
        floor.click("#confirm-yes")
        _said(floor, "Вылет № 2 отменён: Игрок 2 снова в игре.")

        # another tablet voids bust 1 while this one asks: its void is one plain message, writing nothing
        floor.get_by_role("button", name="Отменить #1").click()
        knockout = int(_row(floor, "knockouts", "Игрок 1").get_attribute("data-knockout"))
        voided = httpx.post(
            f"{web.url}/api/v1/tournaments/{t['id']}/knockouts/{knockout}/void", headers=w.headers("floor")
        )
        assert voided.status_code == 200, voided.text
        with Session(committed) as session:
            before = contents(session)
            session.rollback()
        floor.click("#confirm-yes")
        _said(floor, f"knockout {knockout} is already voided")
        with Session(committed) as session:
            assert contents(session) == before
        screen.wait_for_function(
            "() => document.getElementById('players').textContent === 'Осталось 7 игроков из 7 входов'",
            timeout=WAIT_MS,
        )
        assert floor.errors == [] and cashier.errors == []
    finally:
        for context in (floor_ctx, cashier_ctx, screen_ctx):
            context.close()

    # axe on the floor's pages: the day and the tournament
    axe_ctx, page = _tablet(browser, web, w, "floor", bypass_csp=True)
    try:
        page.goto(f"{web.url}/desk")
        page.locator(f'a[href="/desk/t/{t["id"]}"]').wait_for(timeout=WAIT_MS)
        assert "в игре: 7" in page.inner_text(f"#day-{w.club_a}")
        assert _axe(page) == []
        _open(page, web, t["id"])
        assert _axe(page) == []
    finally:
        axe_ctx.close()
