"""The club's desk in a real browser (Debian's headless Chromium through Playwright) against a real
server and PostgreSQL: two tablets (two browser contexts, the floor and the cashier of club A, signed
in by the API's session) and the club's screen. A walk-in registered and checked in, a bust with its
killer seen on the other tablet and the screen without a reload, the cashier settling in roubles, a
stale second void refused in place writing nothing; axe-core finds no serious or critical violation
(3.2, 3.4, 3.10, SP-1, SP-5, AC-2)."""

from __future__ import annotations

import re
from datetime import timedelta
from urllib.parse import urlsplit
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
from tests.support import world
from tests.support.axe import serious
from tests.support.db import contents

WAIT_MS = 15_000  # the longest a change may take to show on a loaded machine before the test fails


def _tournament(committed, club_id: int) -> dict:
    """A running tournament of club A: six players checked in (Игрок 1..6), the clock started."""
    with unit_of_work(committed) as session:
        t = world.tournament(
            session, club_id=club_id, name="Пятница", start=world.now() - timedelta(minutes=5),
            late_reg=timedelta(hours=1),
        )  # fmt: skip
        for n in range(1, 7):
            world.enter(session, t, player_id=world.player(session, f"Игрок {n}", handle=f"desk{n}").id)
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
    signed = page.request.post(f"{web.url}/api/v1/session", data={"email": w.emails[who], "password": world.PASSWORD})
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


def test_the_floor_and_the_counter_run_a_tournament_from_two_tablets(committed, web, browser):
    w = world.access_world(committed, bootstrap.password_hasher(), passwords=("floor", "cashier"))
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
        cells = _row(cashier, "knockouts", "Игрок 1").evaluate("r => [...r.cells].map(c => c.innerText.trim())")
        assert cells[:4] == [  # each cell's own text, no tabs relied on
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
        # «от Вера Менчик»: a name pymorphy3 does not decline whole stays as written (flows/web/wording.inflect)
        assert cashier.text_content("#confirm-text") == "Принять абв от Вера Менчик? Способ оплаты: наличные."
        cashier.click("#confirm-yes")
        _said(cashier, "«абв» — не сумма: введите её так: 1 500 или 1500,50.")
        with Session(committed) as session:
            assert contents(session) == before
            session.rollback()
        amount.fill("1 500")
        cashier.get_by_role("button", name="Рассчитать: Вера Менчик").click()
        cashier.click("#confirm-yes")
        _said(cashier, "Вера Менчик: принято 1\xa0500,00\xa0₽.")
        _row(cashier, "settlements", "Вера Менчик").wait_for(timeout=WAIT_MS)
        assert _row(cashier, "debts", "Вера Менчик").count() == 0
        assert serious(cashier) == []

        # a void, shown first, from the page
        floor.get_by_role("button", name="Вылет: Игрок 2").click()
        floor.get_by_role("button", name="Без выбившего").click()
        _said(floor, "Вылет № 2: Игрок 2.")
        _ask(floor, floor.get_by_role("button", name="Отменить #2"))
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
        assert serious(page) == []
        _open(page, web, t["id"])
        assert serious(page) == []
    finally:
        axe_ctx.close()


TOTALS = "() => [...document.querySelectorAll('#totals-table tbody tr')].map(r => [...r.cells].map(c => c.textContent))"


def _totals_become(page, expected: list[list[str]]) -> None:
    """The figures shown become `expected` (the day's come in a second call after the desk state)."""
    try:
        page.wait_for_function(
            f"e => JSON.stringify(({TOTALS})()) === JSON.stringify(e)", arg=expected, timeout=WAIT_MS
        )
    except Exception:
        assert page.evaluate(TOTALS) == expected
        raise


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


def _ask(page, button) -> None:
    """Tap a button of a row that asks first. The rows are drawn again when the state they show changed
    (the step's own answer may still be on its way), so a tap landing as its row is replaced is lost:
    then it is tapped again."""
    button.click()
    try:
        page.wait_for_selector("#confirm[open]", timeout=2_000)
    except Exception:
        button.click()


def _says(page, text: str) -> None:
    """The page's message becomes `text` (on a timeout, the message it shows instead)."""
    try:
        _said(page, text)
    except Exception:
        assert page.text_content("#desk-message") == text
        raise


def _unchanged(committed):
    """Nothing is written while the block runs (the database's contents before and after)."""

    class Same:
        def __enter__(self):
            with Session(committed) as session:
                self.before = contents(session)
                session.rollback()

        def __exit__(self, *exc):
            if exc[0] is None:
                with Session(committed) as session:
                    assert contents(session) == self.before
                    session.rollback()

    return Same()


def _shows(screen, element: str, text: str) -> None:
    try:
        screen.wait_for_function(
            "([id, t]) => document.getElementById(id).textContent === t", arg=[element, text], timeout=WAIT_MS
        )
    except Exception:
        assert screen.text_content(f"#{element}") == text
        raise


def _bust(page, name: str, *killers: str) -> None:
    """A bust from the page: the busted player's "Вылет", then the killer(s) or "Без выбившего"."""
    page.get_by_role("button", name=f"Вылет: {name}", exact=True).click()
    if len(killers) == 2:
        page.click("#bust-two")
    for killer in killers:
        page.get_by_role("button", name=f"Выбил: {killer}", exact=True).click()
    if not killers:
        page.click("#bust-none")
    page.locator("#desk-message", has_text=re.compile(f": {re.escape(name)}[.,]")).wait_for(timeout=WAIT_MS)


# the walkthrough's twelve (docs/poker.md#the-floors-walkthrough-a-12-player-tournament-from-the-cli):
# nine the club knows, found at the desk by a part of the name, and three walk-ins made players there
KNOWN = [
    "Анна Петрова",
    "Борис Иванов",
    "Вера Орлова",
    "Глеб Смирнов",
    "Дина Попова",
    "Егор Волков",
    "Зоя Лебедева",
    "Илья Козлов",
    "Кира Новикова",
]
WALK_INS = ["Лев Морозов", "Мила Соколова", "Олег Павлов"]
WINNER = "Анна Петрова"


def test_the_12_player_walkthrough_at_the_desk(committed, web, browser):
    """3.1, 3.2, 3.4, 3.5, 3.6, 3.7, 3.10, SP-1, SP-5, SP-12, AC-3: the floor's walkthrough at the desk
    alone, a floor tablet, a cashier tablet and the club's screen open: twelve registered and checked
    in from the desk (three walk-ins), the start (the seats drawn), rebuys (one past its limit refused
    in place writing nothing), a shared bust with two killers and the re-entry offered and taken, a
    second floor tablet's bust of the same player refused, a void by bust number (back at the seat
    they had), add-ons at the break, a table break confirmed by names, the final table refused with
    the deadline in the club's time then assembled, busts down to one, finish; the cashier settles one
    and all and reads the day's totals; the screen's level, blinds, players left and the winner; axe-core
    on every state of the desk visited."""
    w = world.access_world(committed, bootstrap.password_hasher(), passwords=("floor", "cashier"))
    with unit_of_work(committed) as session:
        t = world.tournament(
            session, club_id=w.club_a, name="Пятница 12", status="registration_open",
            start=world.now() - timedelta(minutes=1), late_reg=timedelta(hours=1), seat_cap=5, format="rebuy",
            rebuy_amount=100000, rebuy_limit=1, rebuy_until_level=2, reentry_amount=150000, reentry_limit=1,
            addon_amount=50000, addon_break=1,
        )  # fmt: skip
        for n, name in enumerate(KNOWN, start=1):
            world.player(session, name, handle=f"walk{n}")
        set_prizes(session, t.id, ["Кубок", "Вход на турнир клуба"])
        tid = t.id
    floor_ctx, floor = _tablet(browser, web, w, "floor", bypass_csp=True)  # axe is injected on both tablets
    cashier_ctx, cashier = _tablet(browser, web, w, "cashier", bypass_csp=True)
    screen_ctx = browser.new_context(locale="ru-RU")
    for context in (floor_ctx, cashier_ctx, screen_ctx):
        context.set_default_timeout(WAIT_MS)
    try:
        screen = screen_ctx.new_page()
        screen.goto(f"{web.url}/t/{tid}/screen")
        screen.wait_for_selector('#live[data-state="live"]', timeout=WAIT_MS)
        for page in (floor, cashier):
            page.goto(f"{web.url}/desk/t/{tid}")
            page.wait_for_selector('#desk[data-live="live"]', timeout=WAIT_MS)
        floor.wait_for_function("() => document.getElementById('t-status').textContent === 'идёт регистрация'")

        # registration and check-in at the desk: the club's players found by a part of the name, the walk-ins made
        for name in KNOWN:
            floor.fill("#find", name.split()[1][:-1])
            floor.press("#find", "Enter")
            floor.get_by_role("button", name=f"Зарегистрировать и отметить: {name}", exact=True).click()
            _says(floor, f"{name} отмечен(а); долг 1\xa0500,00\xa0₽.")
        for n, name in enumerate(WALK_INS, start=1):
            floor.get_by_label("Полное имя", exact=True).fill(name)
            floor.get_by_label("Ник", exact=True).fill(f"walkin{n}")
            floor.get_by_label("Дата рождения", exact=True).fill("1991-04-12")
            floor.locator("#walk-in button").click()
            _says(floor, f"{name} отмечен(а); долг 1\xa0500,00\xa0₽.")
        cashier.wait_for_function("() => document.getElementById('owed-total').textContent === '18\xa0000,00\xa0₽'")
        assert cashier.locator("#debts tbody tr").count() == 12
        assert serious(floor) == []

        # the counter takes one buy-in at once, in roubles
        _ask(cashier, cashier.get_by_role("button", name="Рассчитать: Олег Павлов"))
        _confirm(cashier, "Принять 1\xa0500,00\xa0₽ от Олега Павлова? Способ оплаты: наличные.")  # DOC-4: declined
        _says(cashier, "Олег Павлов: принято 1\xa0500,00\xa0₽.")

        # the start: asked first; the seats drawn by lot (three tables of four), the clock on
        floor.click("#start-tournament")
        _confirm(
            floor,
            "Начать турнир? Регистрация открыта до своего срока; места разыгрываются по жребию, часы запускаются. "
            "Это нельзя отменить.",
        )
        _says(floor, "Турнир начат: места разыграны.")
        cashier.wait_for_function("() => document.querySelectorAll('.table-card').length === 3", timeout=WAIT_MS)
        state = _desk_state(web, w, tid)
        for table in (1, 2, 3):
            card = floor.locator(f'.table-card[data-table="{table}"]')
            assert card.locator("h3").text_content() == f"Стол {table} · игроков: 4"
            assert card.locator("li.taken").all_inner_texts() == [
                f"{s['seat']} {s['name']}" for x in state["seating"]["tables"] if x["table"] == table
                for s in x["seats"] if "name" in s
            ]  # fmt: skip
        assert floor.text_content("#d-level") == "Уровень 1" and floor.text_content("#d-blinds") == "100 / 200"
        _shows(screen, "level", "Уровень 1")
        _shows(screen, "blinds", "100 / 200")
        _shows(screen, "players", "Осталось 12 игроков из 12 входов")
        assert serious(floor) == []
        seated = {n: _where(state, n) for n in KNOWN + WALK_INS}
        by_table = {x["table"]: _at_table(state, x["table"]) for x in state["seating"]["tables"]}

        # rebuys: one each for two players; a second one past the limit is said in place and writes nothing
        r1, r2 = "Борис Иванов", "Вера Орлова"
        floor.get_by_role("button", name=f"Ребай: {r1}", exact=True).click()
        _says(floor, f"{r1}: Ребай записан.")
        with _unchanged(committed):
            floor.get_by_role("button", name=f"Ребай: {r1}", exact=True).click()
            _says(floor, "Ребаев у игрока: 1, а лимит — 1 на игрока (SP-12).")
        floor.get_by_role("button", name=f"Ребай: {r2}", exact=True).click()
        _says(floor, f"{r2}: Ребай записан.")
        _row(cashier, "debts", r1).get_by_text("2\xa0500,00\xa0₽").wait_for(timeout=WAIT_MS)

        # a shared bust: two killers; the re-entry offered at once, taken, and seated
        table_b = seated["Глеб Смирнов"][0]
        busted = "Глеб Смирнов"
        k1 = next(n for n in by_table[seated[WINNER][0]] if n != busted) if seated[WINNER][0] != table_b else WINNER
        k2 = next(n for n in by_table[table_b] if n not in (busted, k1))
        _bust(floor, busted, k1, k2)
        _says(floor, f"Вылет № 1: {busted}, выбили {k1}, {k2}.")
        assert floor.text_content("#after-bust") == "Повторный вход для Глеба Смирнова? Повторный входНе сейчас"
        # the busts list names both killers (3.2: the second from the audit row)
        _row(floor, "knockouts", busted).get_by_role("cell", name=f"{k1}, {k2}", exact=True).wait_for(timeout=WAIT_MS)
        with Session(committed) as session:
            audit = session.scalars(select(KnockoutAudit).where(KnockoutAudit.tournament_id == tid)).one()
            entries = {e["name"]: e["entry_id"] for e in state["entries"]}
            assert audit.second_killer_entry_id == entries[k2]  # AC-3
            session.rollback()
        floor.locator("#after-bust").get_by_role("button", name=f"Повторный вход: {busted}", exact=True).click()
        floor.locator("#desk-message", has_text=f"{busted}: Повторный вход записан. Место ").wait_for(timeout=WAIT_MS)
        again = _where(_desk_state(web, w, tid), busted)
        _says(floor, f"{busted}: Повторный вход записан. Место {again[0]}/{again[1]}.")
        _shows(screen, "players", "Осталось 12 игроков из 13 входов")

        # a second floor tablet starts a bust of a player this one records first: its bust is one plain message
        target = next(n for n in by_table[seated["Дина Попова"][0]] if n not in (WINNER, k1, k2, busted))
        other = floor_ctx.new_page()
        _open(other, web, tid)
        other.get_by_role("button", name=f"Вылет: {target}", exact=True).click()
        _bust(floor, target)
        _says(floor, f"Вылет № 2: {target}.")
        with _unchanged(committed):
            other.click("#bust-none")
            _says(
                other,
                f"{target}: изменено на другом планшете, пока страница была открыта (сейчас: вылетел). "
                "Ничего не сделано; страница показывает, как есть сейчас.",
            )
        other.close()

        # another bust, then bust 2 voided by its number: said first, the player back at the seat they had
        third = next(n for n in KNOWN + WALK_INS if n not in (WINNER, k1, k2, busted, target, r1, r2))
        _bust(floor, third)
        _says(floor, f"Вылет № 3: {third}.")
        _ask(floor, floor.get_by_role("button", name="Отменить #2"))
        had = seated[target]
        _confirm(
            floor,
            f"Отменить вылет № 2? {target} вернётся в игру за стол {had[0]}, место {had[1]} — на своё место. "
            "Вылет останется в записи с пометкой «отменён».",
        )
        _says(floor, f"Вылет № 2 отменён: {target} снова в игре.")
        cashier.locator(f'.table-card[data-table="{had[0]}"] li[data-seat="{had[1]}"]', has_text=target).wait_for(
            timeout=WAIT_MS
        )
        _shows(screen, "players", "Осталось 11 игроков из 13 входов")

        # before the break the add-on window is closed (3.1): no add-on button, the reason said once
        assert floor.get_by_role("button", name=f"Аддон: {WINNER}", exact=True).count() == 0
        assert (
            floor.text_content("#topups-closed")
            == "Аддон открывается с перерыва 1 (перерывов пройдено: 0) (правило 3.1)."
        )
        # the break (the clock moved on at the desk): add-ons for two players; the rebuy window closed with level 2
        for _ in range(2):
            floor.locator('[data-clock="next"]').click()
            _says(floor, "Часы: готово.")
            floor.evaluate("() => { document.getElementById('desk-message').textContent = ''; }")
        _shows(screen, "level", "Перерыв")
        _shows(floor, "d-level", "Перерыв")
        assert floor.get_by_role("button", name=f"Ребай: {WINNER}", exact=True).count() == 0  # SP-12
        assert (
            floor.text_content("#topups-closed") == "Ребаи закрылись с концом уровня 2; часы дошли до уровня 3 (SP-12)."
        )
        for name in (WINNER, r2):
            floor.get_by_role("button", name=f"Аддон: {name}", exact=True).click()
            _says(floor, f"{name}: Аддон записан.")
        floor.locator('[data-clock="next"]').click()
        _shows(screen, "level", "Уровень 4")
        _shows(screen, "blinds", "300 / 600")

        # busts at the emptiest table until another can take its players: the break, confirmed by names
        state = _desk_state(web, w, tid)
        while not any(m["kind"] == "break-table" for m in state["balancing"]):
            counts = {x["table"]: x["players"] for x in state["seating"]["tables"]}
            emptiest = min(counts, key=lambda n: (counts[n], n))
            _bust(floor, next(n for n in reversed(_at_table(state, emptiest)) if n != WINNER))
            state = _desk_state(web, w, tid)
        [suggested] = state["balancing"]
        broken, leaving = suggested["table"], suggested["names"]
        floor.locator("#balancing li", has_text=f"Стол {broken} можно разбить: {', '.join(leaving)}").wait_for(
            timeout=WAIT_MS
        )
        _ask(floor, floor.get_by_role("button", name=f"Разбить стол {broken}", exact=True))
        floor.wait_for_selector("#confirm[open]", timeout=WAIT_MS)
        assert serious(floor) == []  # the question open
        _confirm(
            floor,
            f"Разбить стол {broken}? Его игроки по жребию пересаживаются на свободные места других столов. "
            "Это нельзя отменить.",
        )
        floor.locator("#desk-message", has_text="Пересадки: ").wait_for(timeout=WAIT_MS)
        after = _desk_state(web, w, tid)
        moves = [
            f"{n}: стол {broken}, место {_where(state, n)[1]} → стол {_where(after, n)[0]}, место {_where(after, n)[1]}."
            for n in leaving
        ]  # in the order of the draw, by lot
        said = floor.text_content("#desk-message")
        assert said.startswith("Пересадки: ")
        assert sorted(s.strip() for s in re.findall(r"[^.]+\.", said.removeprefix("Пересадки: "))) == sorted(moves)
        state = after
        cashier.wait_for_function("() => document.querySelectorAll('.table-card').length === 2", timeout=WAIT_MS)
        assert state["players_in"] == 10

        # busts from the fullest table down to five at two tables: the final table proposed, refused while
        # late registration (and so re-entry) is open, with its deadline in the club's time
        while state["players_in"] > 5:
            counts = {x["table"]: x["players"] for x in state["seating"]["tables"]}
            fullest = max(counts, key=lambda n: (counts[n], n))
            _bust(floor, next(n for n in reversed(_at_table(state, fullest)) if n != WINNER))
            state = _desk_state(web, w, tid)
        floor.locator("#attention li", has_text="Финальный стол готов").wait_for(timeout=WAIT_MS)
        with Session(committed) as session:
            deadline = session.get(Tournament, tid).late_reg_deadline
            session.rollback()
        local = deadline.astimezone(ZoneInfo("Europe/Moscow")).strftime("%H:%M")
        with _unchanged(committed):
            floor.click("#final-table")
            _says(
                floor,
                f"Поздняя регистрация: открыто до {local}; финальный стол ждёт закрытия (может прийти новый вход).",
            )
        with unit_of_work(committed) as session:  # the deadline passes
            session.execute(
                update(Tournament)
                .where(Tournament.id == tid)
                .values(late_reg_deadline=world.now() - timedelta(seconds=1))
            )
        floor.reload()
        _open(floor, web, tid)
        floor.click("#final-table")
        _confirm(floor, "Собрать финальный стол? Все оставшиеся игроки пересаживаются по жребию. Это нельзя отменить.")
        floor.locator("#desk-message", has_text="Пересадки: ").wait_for(timeout=WAIT_MS)
        cashier.wait_for_function("() => document.querySelectorAll('.table-card').length === 1", timeout=WAIT_MS)
        _shows(screen, "players", "Осталось 5 игроков из 13 входов")

        # finish: refused in place while players are in; busts down to one; then finished
        with _unchanged(committed):
            floor.click("#finish")
            _says(floor, "Игроков в игре: 5. Записывайте вылеты, пока не останется один.")
        for name in [n for n in _at_table(_desk_state(web, w, tid), 1) if n != WINNER]:
            _bust(floor, name, WINNER)
        floor.wait_for_function("() => document.getElementById('t-players').textContent === 'в игре: 1'")
        # the page drew the desk state after the last bust (the screen's count may come first, by the stream)
        floor.wait_for_function(
            "n => document.querySelector('#knockouts tbody tr td:nth-child(2)').textContent === n", arg=name
        )
        _ask(floor, floor.locator("#finish"))
        _confirm(floor, "Завершить турнир? Места и призы станут окончательными. Это нельзя отменить.")
        _says(floor, "Турнир завершён.")
        cashier.wait_for_function("() => document.getElementById('t-status').textContent === 'завершён'")
        _shows(screen, "winner", "Победитель: walk1")
        _shows(screen, "level", "Турнир завершён")
        assert serious(floor) == []

        # the counter: every player owing settled at once, as confirmed; the day's totals
        cashier.get_by_role("button", name="Рассчитать всех").click()
        _confirm(
            cashier,
            "Принять 21\xa0000,00\xa0₽ со всех должников (игроков: 11), с каждого ровно его долг? "
            "Способ оплаты: наличные.",
        )
        _says(cashier, "Рассчитаны все должники (игроков: 11): 21\xa0000,00\xa0₽.")
        rub = "\xa0₽"
        figures = [
            ["Бай-ины", f"18\xa0000,00{rub}", f"0,00{rub}", ""],
            ["Ребаи", f"2\xa0000,00{rub}", f"0,00{rub}", ""],
            ["Повторные входы", f"1\xa0500,00{rub}", f"0,00{rub}", ""],
            ["Аддоны", f"1\xa0000,00{rub}", f"0,00{rub}", ""],
            ["Принято по способам", f"наличные: 22\xa0500,00{rub}"],
        ]
        _totals_become(
            cashier,
            [["Этот турнир", f"22\xa0500,00{rub}", f"0,00{rub}", f"0,00{rub}"], *figures]
            + [["День клуба", f"24\xa0000,00{rub}", f"0,00{rub}", f"0,00{rub}"]]  # the world's own tournament too
            + [["Бай-ины", f"19\xa0500,00{rub}", f"0,00{rub}", ""], *figures[1:4]]
            + [["Принято по способам", f"наличные: 24\xa0000,00{rub}"]],
        )
        assert serious(cashier) == []
        assert floor.errors == [] and cashier.errors == []
    finally:
        for context in (floor_ctx, cashier_ctx, screen_ctx):
            context.close()


def test_a_mystery_draw_at_the_desk_and_the_bust_then_stays(committed, web, browser):
    """3.3: the killer of a bust draws at the desk, the prize typed (no prize table declared), asked
    first; the bust's void is then refused in place, plainly, and nothing is sent."""
    w = world.access_world(committed, bootstrap.password_hasher(), passwords=("floor",))
    with unit_of_work(committed) as session:
        t = world.tournament(
            session, club_id=w.club_a, name="Мистери", start=world.now() - timedelta(minutes=5),
            bounty_type="mystery", mystery=True,
        )  # fmt: skip
        for n in range(1, 5):
            world.enter(session, t, player_id=world.player(session, f"Игрок {n}").id)
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
        assert serious(page) == []
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


def test_issue_39_the_desk_has_the_site_s_header_its_places_and_a_sign_out(committed, web, browser):
    """The desk's pages carry the site's header: the floor manager's places (the desk), my account,
    the e-mail signed in and «Выйти», which leaves a shared tablet signed out; an owner at the desk
    has the way back to the console. (The desk's own header had the desk's link alone.)"""
    w = world.access_world(committed, bootstrap.password_hasher(), passwords=("floor", "owner"))
    floor_ctx, floor = _tablet(browser, web, w, "floor")
    owner_ctx, owner = _tablet(browser, web, w, "owner")
    try:
        floor.goto(f"{web.url}/desk")
        assert floor.locator("header.top a.nav").all_text_contents() == [
            "Проверить сертификат",
            "Стойка",
            "Мой аккаунт",
        ]
        assert floor.locator("header.top .email").text_content() == w.emails["floor"]
        floor.goto(f"{web.url}/desk/t/{w.tournament_a}")
        assert floor.locator('header.top a.nav[aria-current="page"]').text_content() == "Стойка"
        floor.click("#header-sign-out")
        floor.wait_for_url(f"{web.url}/")
        assert floor.locator("header.top a.nav").all_text_contents() == ["Проверить сертификат", "Войти"]
        floor.goto(f"{web.url}/desk")
        assert urlsplit(floor.url).path == "/signin"  # signed out: the desk asks to sign in again
        owner.goto(f"{web.url}/desk")
        assert "Клуб" in owner.locator("header.top a.nav").all_text_contents()
        assert floor.errors == [] and owner.errors == []
    finally:
        floor_ctx.close()
        owner_ctx.close()
