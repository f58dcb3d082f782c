"""The club's desk in a real browser (Debian's headless Chromium through Playwright) against a real
server and PostgreSQL: two tablets (two browser contexts, the floor and the cashier of club A, signed
in by the API's session) and the club's screen. A walk-in registered and checked in, a bust with its
killer seen on the other tablet and the screen without a reload, the cashier settling in roubles, a
stale second void refused in place writing nothing; axe-core finds no serious or critical violation
(3.2, 3.4, 3.10, SP-1, SP-5, AC-2)."""

from __future__ import annotations

import re
from datetime import timedelta
from pathlib import Path
from zoneinfo import ZoneInfo

import httpx
from sqlalchemy import select, update
from sqlalchemy.orm import Session

from domain.poker.services import clock as clock_service
from domain.poker.services.results import set_prizes
from domain.poker.tables.knockouts_places import KnockoutAudit
from domain.poker.tables.tournaments import Tournament
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
        floor.wait_for_selector("#confirm[open]", timeout=WAIT_MS)
        assert floor.text_content("#confirm-text") == (
            "Отменить вылет № 2? Игрок 2 вернётся в игру. Вылет останется в записи с пометкой «отменён»."
        )
        floor.click("#confirm-yes")
        _said(floor, "Вылет № 2 отменён: Игрок 2 снова в игре.")

        # another tablet voids bust 1 while this one asks: its void is one plain message, writing nothing
        floor.get_by_role("button", name="Отменить #1").click()
        floor.wait_for_selector("#confirm[open]", timeout=WAIT_MS)
        knockout = int(_row(floor, "knockouts", "Игрок 1").get_attribute("data-knockout"))
        voided = httpx.post(
            f"{web.url}/api/v1/tournaments/{t['id']}/knockouts/{knockout}/void", headers=w.headers("floor")
        )
        assert voided.status_code == 200, voided.text
        with Session(committed) as session:
            before = contents(session)
            session.rollback()
        floor.click("#confirm-yes")
        _said(floor, "Вылет № 1 (Игрок 1) уже отменён.")
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


def _seated(committed, club_id: int, players: int, seat_cap: int) -> dict:
    """A running tournament of club A with its seats drawn (Игрок 1..N), re-entry offered, the clock started."""
    from domain.poker.services.seating import draw_initial

    with unit_of_work(committed) as session:
        t = poker_world.tournament(
            session, club_id=club_id, name="Суббота", start=world.now() - timedelta(minutes=5), seat_cap=seat_cap,
            late_reg=timedelta(hours=1), reentry_amount=150000,
        )  # fmt: skip
        ids = {}
        for n in range(1, players + 1):
            ids[n] = poker_world.enter(session, t, player_id=poker_world.player(session, f"Игрок {n}").id).player_id
        set_prizes(session, t.id, ["Кубок"])
        clock_service.act(session, t.id, "start", world.now())
        draw_initial(session, t.id, world.now(), seed="browser")
        return {"id": t.id, "players": ids}


def _desk_state(web, w, tid: int) -> dict:
    return httpx.get(f"{web.url}/api/v1/desk/tournaments/{tid}", headers=w.headers("floor")).json()


def _where(state: dict, name: str) -> tuple[int, int] | None:
    for table in state["seating"]["tables"]:
        for seat in table["seats"]:
            if seat.get("name") == name:
                return table["table"], seat["seat"]
    return None


def _at_table(state: dict, table: int) -> list[str]:
    return [s["name"] for t in state["seating"]["tables"] if t["table"] == table for s in t["seats"] if "name" in s]


def _confirm(page, expected: str | None = None) -> None:
    page.wait_for_selector("#confirm[open]", timeout=WAIT_MS)
    if expected is not None:
        assert page.text_content("#confirm-text") == expected
    page.click("#confirm-yes")


def test_the_floor_runs_the_tables_from_two_tablets(committed, web, browser):
    """3.2, 3.3, 3.6, 3.7, SP-5, AC-3: two floor tablets and the club's screen. The seat map names every
    seat; a shared bust with two killers and the re-entry offered; the other tablet's bust of a player
    this one is busting is one plain message, writing nothing; the last bust voided, said first, the
    player back at the seat they had; a balancing move confirmed; the final table refused in place with
    the late-registration deadline in the club's time, then assembled; finish; axe-core."""
    w = access_world.build(committed, bootstrap.password_hasher(), passwords=("floor",))
    t = _seated(committed, w.club_a, players=10, seat_cap=5)
    tid = t["id"]
    a_ctx, a = _tablet(browser, web, w, "floor", bypass_csp=True)
    b_ctx, b = _tablet(browser, web, w, "floor")
    screen_ctx = browser.new_context(locale="ru-RU")
    try:
        screen = screen_ctx.new_page()
        screen.goto(f"{web.url}/t/{tid}/screen")
        screen.wait_for_selector('#live[data-state="live"]', timeout=WAIT_MS)
        _open(a, web, tid)
        _open(b, web, tid)
        state = _desk_state(web, w, tid)
        # the seat map: each table with its players' names in their seats
        for table in (1, 2):
            card = a.locator(f'.table-card[data-table="{table}"]')
            assert card.locator("h3").text_content() == f"Стол {table} · игроков: 5"
            assert sorted(card.locator("li.taken").all_inner_texts()) == sorted(
                f"{s['seat']} {s['name']}" for x in state["seating"]["tables"] if x["table"] == table
                for s in x["seats"] if "name" in s
            )  # fmt: skip
        first, second = _at_table(state, 1), _at_table(state, 2)

        # a shared bust: the busted player, "two killers", then both killers
        busted, k1, k2 = second[0], first[0], second[1]
        a.get_by_role("button", name=f"Вылет: {busted}", exact=True).click()
        a.click("#bust-two")
        a.get_by_role("button", name=f"Выбил: {k1}", exact=True).click()
        assert a.text_content("#bust-text") == f"Кто ещё выбил {busted}? Первый выбивший: {k1}. Нажмите на второго:"
        a.get_by_role("button", name=f"Выбил: {k2}", exact=True).click()
        _said(a, f"Вылет № 1: {busted}, выбили {k1}, {k2}.")
        assert a.text_content("#after-bust") == f"Повторный вход для {busted}? Повторный входНе сейчас"
        a.get_by_role("button", name="Не сейчас").click()
        _row(b, "knockouts", busted).wait_for(timeout=WAIT_MS)  # the other tablet, no reload
        with Session(committed) as session:
            audit = session.scalars(select(KnockoutAudit).where(KnockoutAudit.tournament_id == tid)).one()
            entries = {e["name"]: e["entry_id"] for e in state["entries"]}
            assert audit.second_killer_entry_id == entries[k2]  # AC-3
            session.rollback()

        # two tablets on one player: B starts a bust, A records it first; B's is one plain message
        target = second[2]
        had = _where(state, target)
        b.get_by_role("button", name=f"Вылет: {target}", exact=True).click()
        a.get_by_role("button", name=f"Вылет: {target}", exact=True).click()
        a.click("#bust-none")
        _said(a, f"Вылет № 2: {target}.")
        with Session(committed) as session:
            before = contents(session)
            session.rollback()
        b.click("#bust-none")
        _said(
            b,
            f"{target}: изменено на другом планшете, пока страница была открыта (сейчас: вылетел). "
            "Ничего не сделано; страница показывает, как есть сейчас.",
        )
        with Session(committed) as session:
            assert contents(session) == before
            session.rollback()

        # void the last bust: what it will do first, then the player back at the seat they had
        a.click("#void-last")
        _confirm(
            a,
            f"Отменить вылет № 2? {target} вернётся в игру за стол {had[0]}, место {had[1]} — на своё место. "
            "Вылет останется в записи с пометкой «отменён».",
        )
        _said(a, f"Вылет № 2 отменён: {target} снова в игре.")
        b.locator(f'.table-card[data-table="{had[0]}"] li[data-seat="{had[1]}"]', has_text=target).wait_for(
            timeout=WAIT_MS
        )

        # table 2 down to 3 players (5 and 3): the floor confirms the move the desk suggests
        for name in second[3:4]:
            a.get_by_role("button", name=f"Вылет: {name}", exact=True).click()
            a.click("#bust-none")
            a.locator("#desk-message", has_text=re.compile(f": {name}\\.$")).wait_for(timeout=WAIT_MS)
        state = _desk_state(web, w, tid)
        [move] = state["balancing"]
        line = (
            f"{move['name']}: стол {move['from_table']}, место {move['from_seat']} → "
            f"стол {move['to_table']}, место {move['to_seat']}"
        )
        a.locator("#balancing li", has_text=line).wait_for(timeout=WAIT_MS)
        a.get_by_role("button", name=f"Пересадить: {move['name']}", exact=True).click()
        _confirm(a)
        _said(a, line + ".")
        b.locator(
            f'.table-card[data-table="{move["to_table"]}"] li[data-seat="{move["to_seat"]}"]', has_text=move["name"]
        ).wait_for(timeout=WAIT_MS)

        # three more busts: 5 left at two tables, the final table proposed; refused while late registration is open
        for name in _at_table(_desk_state(web, w, tid), 1)[:3]:
            a.get_by_role("button", name=f"Вылет: {name}", exact=True).click()
            a.click("#bust-none")
            a.locator("#desk-message", has_text=re.compile(f": {name}\\.$")).wait_for(timeout=WAIT_MS)
        a.locator("#attention li", has_text="Финальный стол готов").wait_for(timeout=WAIT_MS)
        day = b_ctx.new_page()  # the day at /desk says it too
        day.goto(f"{web.url}/desk")
        day.locator(f"#day-{w.club_a} .attention li", has_text="Финальный стол готов").wait_for(timeout=WAIT_MS)
        ours = day.locator(f"#day-{w.club_a} > li", has=day.locator(f'a[href="/desk/t/{tid}"]'))
        assert ours.locator(".attention li").all_inner_texts() == [
            "Стол 1 можно разбить",  # 1 left there, 4 at table 2
            "Финальный стол готов",
        ]
        day.close()
        with Session(committed) as session:
            deadline = session.get(Tournament, tid).late_reg_deadline
            session.rollback()
        local = deadline.astimezone(ZoneInfo("Europe/Moscow")).strftime("%H:%M")
        with Session(committed) as session:
            before = contents(session)
            session.rollback()
        a.click("#final-table")
        _said(a, f"Поздняя регистрация: открыто до {local}; финальный стол ждёт закрытия (может прийти новый вход).")
        with Session(committed) as session:
            assert contents(session) == before
            session.rollback()
        with unit_of_work(committed) as session:
            session.execute(
                update(Tournament)
                .where(Tournament.id == tid)
                .values(late_reg_deadline=world.now() - timedelta(seconds=1))
            )
        a.reload()
        _open(a, web, tid)
        a.click("#final-table")
        _confirm(a, "Собрать финальный стол? Все оставшиеся игроки пересаживаются по жребию. Это нельзя отменить.")
        a.locator("#desk-message", has_text="Пересадки: ").wait_for(timeout=WAIT_MS)
        b.wait_for_function("() => document.querySelectorAll('.table-card').length === 1", timeout=WAIT_MS)

        # finish: refused in place while players are in, then done once one is left
        a.click("#finish")
        _said(a, "Игроков в игре: 5. Записывайте вылеты, пока не останется один.")
        assert _axe(a) == []
        left = _at_table(_desk_state(web, w, tid), 1)
        for name in left[:-1]:
            a.get_by_role("button", name=f"Вылет: {name}", exact=True).click()
            a.click("#bust-none")
            a.locator("#desk-message", has_text=re.compile(f": {name}\\.$")).wait_for(timeout=WAIT_MS)
        a.wait_for_function("() => document.getElementById('t-players').textContent === 'в игре: 1'", timeout=WAIT_MS)
        a.click("#finish")
        _confirm(a, "Завершить турнир? Места и призы станут окончательными. Это нельзя отменить.")
        _said(a, "Турнир завершён.")
        b.wait_for_function("() => document.getElementById('t-status').textContent === 'завершён'", timeout=WAIT_MS)
        assert a.errors == [] and b.errors == []
    finally:
        for context in (a_ctx, b_ctx, screen_ctx):
            context.close()


def test_a_mystery_draw_at_the_desk_and_the_bust_then_stays(committed, web, browser):
    """3.3: the killer of a bust draws at the desk, the prize typed (no prize table declared), asked
    first; the bust's void is then refused in place, plainly, and nothing is sent."""
    w = access_world.build(committed, bootstrap.password_hasher(), passwords=("floor",))
    with unit_of_work(committed) as session:
        t = poker_world.tournament(
            session, club_id=w.club_a, name="Мистери", start=world.now() - timedelta(minutes=5),
            bounty_type="mystery", mystery=True,
        )  # fmt: skip
        for n in range(1, 5):
            poker_world.enter(session, t, player_id=poker_world.player(session, f"Игрок {n}").id)
        clock_service.act(session, t.id, "start", world.now())
        tid = t.id
    context, page = _tablet(browser, web, w, "floor", bypass_csp=True)
    try:
        _open(page, web, tid)
        page.get_by_role("button", name="Вылет: Игрок 1", exact=True).click()
        page.get_by_role("button", name="Выбил: Игрок 2", exact=True).click()
        _said(page, "Вылет № 1: Игрок 1.")
        page.get_by_role("button", name="Мистери-розыгрыш #1").click()
        page.wait_for_selector("#confirm[open]", timeout=WAIT_MS)
        assert page.text_content("#confirm-text") == (
            "Игрок 2 разыгрывает мистери-баунти за вылет № 1? Вылет с розыгрышем нельзя отменить."
        )
        page.get_by_label("Приз", exact=True).fill("Ужин на двоих")
        assert _axe(page) == []
        page.click("#confirm-yes")
        _said(page, "Розыгрыш № 1: Игрок 2 получает «Ужин на двоих».")
        page.wait_for_function("() => !document.querySelector('[aria-label=\"Мистери-розыгрыш #1\"]')", timeout=WAIT_MS)
        with Session(committed) as session:
            before = contents(session)
            session.rollback()
        page.get_by_role("button", name="Отменить #1").click()
        _said(page, "На вылете № 1 уже разыгран мистери-баунти: вылет остаётся.")
        assert page.is_hidden("#confirm")
        with Session(committed) as session:
            assert contents(session) == before
        assert page.errors == []
    finally:
        context.close()
