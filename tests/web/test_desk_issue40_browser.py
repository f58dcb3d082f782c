"""The desk's items of issue 40 in a real browser (Debian's Chromium through Playwright) on a 768 × 1024
tablet (a coarse pointer): two players out in one hand with three killers from the page (3.2, SP-7,
SP-10), the names declined in Russian (DOC-4), the sticky bars at most 64 px high, the page reading
its state again when a deadline passes without any change written (3.10), the finish (the places, no
button the rules refuse, the clock stopped), the cashier's counter first with a payment method, the
floor's /desk never asking for totals it may not read; axe-core on each state, the pressed
"Несколько выбивших" and the stopped clocks included."""

from __future__ import annotations

from datetime import timedelta

import httpx
from sqlalchemy import select
from sqlalchemy.orm import Session

from domain.poker.services import clock as clock_service
from domain.poker.services.results import set_prizes
from domain.poker.services.seating import draw_initial
from domain.poker.tables.tournaments import Settlement, Tournament
from domain.store.db import unit_of_work
from flows import bootstrap
from tests.support import world
from tests.support.axe import serious
from tests.web.test_desk_browser import WAIT_MS, _confirm, _open, _row, _said, _says, _tablet

TABLET = {"viewport": {"width": 768, "height": 1024}, "has_touch": True, "is_mobile": True}
STICKY = """() => [...document.querySelectorAll("body *")]
  .filter(n => getComputedStyle(n).position === "sticky" && n.offsetParent !== null)
  .reduce((sum, n) => sum + n.getBoundingClientRect().height, 0)"""
NAMES = ["Анна Петрова", "Борис Иванов", "Вера Орлова", "Глеб Смирнов", "Дина Попова", "Егор Волков", "Зоя Лебедева"]


def _tournament(committed, club_id: int, names=NAMES, *, status: str = "running", late_reg=timedelta(hours=1), **cols):
    """A tournament of club A (Moscow, Russian) of `names`, checked in; running: its clock started and
    the seats drawn at tables of `seat_cap` (default 9)."""
    with unit_of_work(committed) as session:
        t = world.tournament(
            session, club_id=club_id, name="Пятница", start=world.now() - timedelta(minutes=5), late_reg=late_reg,
            status=status, reentry_amount=150000, **cols,
        )  # fmt: skip
        ids = {n: world.enter(session, t, player_id=world.player(session, n).id).player_id for n in names}
        set_prizes(session, t.id, ["Кубок", "Медаль"])
        if status == "running":
            clock_service.act(session, t.id, "start", world.now())
            draw_initial(session, t.id, world.now(), seed="desk")
        return {"id": t.id, "players": ids}


def _tap(page, name: str) -> None:
    page.get_by_role("button", name=name, exact=True).click()


def _sticky(page) -> float:
    return page.evaluate(STICKY)


def test_sp_7_sp_10_two_players_out_in_one_hand_with_three_killers_from_the_tablet(committed, web, browser):
    """3.2, SP-7, SP-10, DOC-4 (issue 40): "Вылет" on Анна Петрова asks «Кто выбил Анну Петрову?»; with
    shared knockouts "Несколько выбивших" takes three killers and "Готово"; "Выбыли в одной раздаче"
    takes Дина Попова out in the same hand; one bust number for both, each with their killers, the
    re-entry offered to both. The sticky bars never cover more than 64 px of the tablet; axe-core finds
    nothing serious, the pressed button included."""
    w = world.access_world(committed, bootstrap.password_hasher(), passwords=("floor",))
    t = _tournament(committed, w.club_a, shared_knockouts=True)
    context, floor = _tablet(browser, web, w, "floor", bypass_csp=True, **TABLET)
    try:
        _open(floor, web, t["id"])
        assert floor.evaluate("matchMedia('(pointer: coarse)').matches")
        _tap(floor, "Вылет: Анна Петрова")
        assert floor.text_content("#bust-text") == "Кто выбил Анну Петрову? Нажмите на выбившего, или:"
        assert floor.text_content("#bust-two") == "Несколько выбивших"
        _tap(floor, "Несколько выбивших")
        assert floor.get_attribute("#bust-two", "aria-pressed") == "true"
        assert _sticky(floor) <= 64
        assert serious(floor) == []  # the pressed button: white on #a84300
        for killer in ("Борис Иванов", "Вера Орлова"):
            _tap(floor, f"Выбил: {killer}")
        assert floor.text_content("#bust-text") == (
            "Кто ещё выбил Анну Петрову? Уже названы: Борис Иванов, Вера Орлова. Нажмите на следующего или «Готово»:"
        )
        _tap(floor, "Выбил: Глеб Смирнов")
        _tap(floor, "Выбыли в одной раздаче")
        assert floor.get_attribute("#bust-hand", "aria-pressed") == "true"
        _tap(floor, "Готово")
        assert floor.text_content("#bust-text") == (
            "В этой раздаче выбыли: Анна Петрова — выбил(и) Борис Иванов, Вера Орлова, Глеб Смирнов. "
            "Нажмите «Вылет» у следующего выбывшего или «Записать раздачу»."
        )
        # the killers of the hand are not offered as its next player out, nor the player out already
        assert floor.get_by_role("button", name="Вылет: Борис Иванов", exact=True).count() == 0
        assert floor.get_by_role("button", name="Вылет: Анна Петрова", exact=True).count() == 0
        _tap(floor, "Вылет: Дина Попова")
        assert floor.text_content("#bust-text").endswith("Кто выбил Дину Попову? Нажмите на выбившего, или:")
        _tap(floor, "Выбил: Борис Иванов")
        assert _sticky(floor) <= 64
        _tap(floor, "Записать раздачу")
        _says(
            floor,
            "Вылет № 1, одна раздача: Анна Петрова — выбил(и) Борис Иванов, Вера Орлова, Глеб Смирнов; "
            "Дина Попова — выбил(и) Борис Иванов.",
        )
        assert floor.text_content("#after-bust") == (
            "Повторный вход: Повторный вход: Анна ПетроваПовторный вход: Дина ПоповаНе сейчас"
        )
        assert _sticky(floor) <= 64  # the offer alone stays on screen, the message scrolls with the page
        for name, killers in (
            ("Анна Петрова", "Борис Иванов, Вера Орлова, Глеб Смирнов"),
            ("Дина Попова", "Борис Иванов"),
        ):
            _row(floor, "knockouts", name).get_by_role("cell", name=killers, exact=True).wait_for(timeout=WAIT_MS)
            assert _row(floor, "knockouts", name).locator("td").first.text_content() == "1"
        floor.locator("#after-bust").get_by_role("button", name="Повторный вход: Дина Попова").click()
        floor.locator("#desk-message", has_text="Дина Попова: Повторный вход записан. Место ").wait_for(timeout=WAIT_MS)
        _tap(floor, "Не сейчас")
        floor.evaluate("() => window.scrollTo(0, document.body.scrollHeight)")
        assert _sticky(floor) <= 64  # the message alone, at most 4rem
        assert serious(floor) == []
        assert floor.errors == []
    finally:
        context.close()


def test_3_10_the_page_reads_its_state_again_when_late_registration_ends_without_any_change(committed, web, browser):
    """3.6, 3.10 (issue 40): the final table waits for late registration's end; the page is left open
    and nothing is written: at the deadline it reads its state again by itself (`changes_at`), so
    "Собрать финальный стол" no longer says it waits, and asks to assemble."""
    w = world.access_world(committed, bootstrap.password_hasher(), passwords=("floor",))
    t = _tournament(committed, w.club_a, NAMES[:5], seat_cap=3)  # tables of 3 and 2
    tid = t["id"]
    state = httpx.get(f"{web.url}/api/v1/desk/tournaments/{tid}", headers=w.headers("floor")).json()
    for table in state["seating"]["tables"]:  # one out at each table: three left at two tables of a cap of 3
        seated = next(s for s in table["seats"] if "player_id" in s)
        response = httpx.post(
            f"{web.url}/api/v1/desk/tournaments/{tid}/busts",
            json={"busted": seated["player_id"]},
            headers=w.headers("floor"),
        )
        assert response.status_code == 200, response.text
    with unit_of_work(committed) as session:
        session.get(Tournament, tid).late_reg_deadline = world.now() + timedelta(seconds=4)
    context, floor = _tablet(browser, web, w, "floor", bypass_csp=True, **TABLET)
    try:
        _open(floor, web, tid)
        floor.wait_for_selector("#final-table:not([hidden])", timeout=WAIT_MS)
        _tap(floor, "Собрать финальный стол")
        floor.locator("#desk-message", has_text="финальный стол ждёт закрытия").wait_for(timeout=WAIT_MS)
        assert not floor.is_visible("#confirm")
        version = floor.get_attribute("#desk", "data-version")
        floor.wait_for_function(
            "v => document.getElementById('desk').dataset.version !== v", arg=version, timeout=WAIT_MS
        )  # read again at the deadline: nothing was written, no event came
        _tap(floor, "Собрать финальный стол")
        floor.wait_for_selector("#confirm[open]", timeout=WAIT_MS)
        floor.click("#confirm-no")
        assert floor.is_hidden("#find-form") and floor.is_visible("#arrivals-closed")  # registration closed too
        assert floor.errors == []
    finally:
        context.close()


def test_3_7_after_the_finish_the_desk_shows_the_places_and_no_button_the_rules_refuse(committed, web, browser):
    """3.7, 3.9, SP-8 (issue 40): once finished the desk shows the final places and prizes, no bust,
    re-entry or registration, no clock control, the clock stopped; the club's screen too; axe-core
    finds nothing serious on either (the stopped clocks' grey is readable)."""
    w = world.access_world(committed, bootstrap.password_hasher(), passwords=("floor",))
    t = _tournament(committed, w.club_a, NAMES[:3])
    tid, p = t["id"], t["players"]
    for busted in ("Борис Иванов", "Вера Орлова"):
        body = {"busted": p[busted], "killers": [p["Анна Петрова"]]}
        response = httpx.post(f"{web.url}/api/v1/desk/tournaments/{tid}/busts", json=body, headers=w.headers("floor"))
        assert response.status_code == 200, response.text
    context, floor = _tablet(browser, web, w, "floor", bypass_csp=True, **TABLET)
    try:
        _open(floor, web, tid)
        _tap(floor, "Завершить турнир")
        _confirm(floor)
        _said(floor, "Турнир завершён.")
        floor.wait_for_selector("#places:not([hidden])", timeout=WAIT_MS)
        floor.wait_for_selector("#places-table tbody tr:nth-child(3)", state="visible", timeout=WAIT_MS)
        rows = floor.locator("#places-table tbody tr")  # each cell's own text: no tab between cells to rely on
        cells = rows.evaluate_all("rows => rows.map(r => [...r.cells].map(c => c.innerText.trim()))")
        assert cells == [
            ["1", "Анна Петрова", "Кубок"],
            ["2", "Вера Орлова", "Медаль"],
            ["3", "Борис Иванов", ""],
        ]
        assert floor.locator("#entries button").count() == 0  # no bust, no re-entry (26 of them were 409s)
        assert floor.locator("#knockouts button").count() == 0  # no void, no draw
        assert floor.is_hidden("#arrivals") and floor.is_hidden("#void-last")
        assert floor.locator("[data-clock]:visible").count() == 0
        assert floor.get_attribute("#desk", "data-clock-status") == "finished"
        assert floor.text_content("#d-clock-status") == "часы остановлены на уровне 1"
        assert serious(floor) == []
        screen = context.new_page()
        screen.goto(f"{web.url}/t/{tid}/screen")
        screen.wait_for_selector('#screen[data-status="finished"]', timeout=WAIT_MS)
        assert serious(screen) == []  # the stopped clock on black
        assert floor.errors == []
    finally:
        context.close()


def test_the_counter_comes_first_for_a_cashier_with_a_payment_method_and_before_the_start(committed, web, browser):
    """3.4, 3.10, AC-1, DOC-4 (issue 40): before the start a checked-in player reads as checked in and
    waiting, not "идёт игра"; the floor's /desk never asks for the day's totals (it may not read them),
    the cashier's does; the cashier's tablet shows the counter first, above the clock; a settlement
    by card: asked naming the declined name and the method, recorded by card."""
    w = world.access_world(committed, bootstrap.password_hasher(), passwords=("floor", "cashier"))
    t = _tournament(committed, w.club_a, NAMES[:2], status="registration_open")
    tid = t["id"]
    walk_in = {"name": "Анна Смирнова", "handle": "anna_s", "birth_date": "1991-04-12"}
    made = httpx.post(f"{web.url}/api/v1/desk/tournaments/{tid}/arrivals", json=walk_in, headers=w.headers("floor"))
    assert made.status_code == 200, made.text
    floor_ctx, floor = _tablet(browser, web, w, "floor", bypass_csp=True, **TABLET)
    cashier_ctx, cashier = _tablet(browser, web, w, "cashier", bypass_csp=True, **TABLET)
    try:
        for page, asks in ((floor, False), (cashier, True)):
            asked: list[str] = []
            page.on("request", lambda r, asked=asked: asked.append(r.url) if "/totals" in r.url else None)
            page.goto(f"{web.url}/desk")
            page.locator(".day li").first.wait_for(timeout=WAIT_MS)
            page.wait_for_load_state("networkidle")
            assert bool(asked) is asks, asked
        _open(floor, web, tid)
        row = _row(floor, "entries", "Анна Смирнова")
        assert row.locator("td").nth(1).text_content() == "отмечен(а), ждёт начала"
        _open(cashier, web, tid)
        counter = cashier.locator("#counter").bounding_box()
        clock = cashier.locator(".clock-panel").bounding_box()
        assert counter["y"] < clock["y"] and counter["y"] < 300  # first on the page, not 2 000 px down
        debt = _row(cashier, "debts", "Анна Смирнова")
        debt.get_by_label("Способ оплаты: Анна Смирнова").select_option("card")
        _tap(cashier, "Рассчитать: Анна Смирнова")
        _confirm(cashier, "Принять 1\xa0500,00\xa0₽ от Анны Смирновой? Способ оплаты: карта.")
        _said(cashier, "Анна Смирнова: принято 1\xa0500,00\xa0₽.")
        _row(cashier, "settlements", "Анна Смирнова").get_by_role("cell", name="карта", exact=True).wait_for(
            timeout=WAIT_MS
        )
        with Session(committed) as session:
            assert session.scalars(select(Settlement.method).where(Settlement.tournament_id == tid)).all() == ["card"]
        assert serious(cashier) == [] and serious(floor) == []
        assert floor.errors == [] and cashier.errors == []
    finally:
        floor_ctx.close()
        cashier_ctx.close()
