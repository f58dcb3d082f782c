"""The desk's counter and keyboard in a real browser (Debian's headless Chromium through Playwright):
the cashier settles every player owing in one step, confirmed with the total and the number of
players, refused in place writing nothing when a player arrived meanwhile; voiding a settlement names
the player; the day's totals in roubles; the keys of docs/desk.md#keyboard at a laptop, silent while
typing; axe-core finds no serious or critical violation (SP-1, 3.4, 3.10, AC-2)."""

from __future__ import annotations

import httpx
from sqlalchemy.orm import Session

from flows import bootstrap
from tests.support.axe import serious
from tests.support.db import contents
from tests.support.world import access_world
from tests.web.test_desk_browser import WAIT_MS, _open, _row, _said, _tablet, _totals_become, _tournament

FOCUSED = (
    "() => document.activeElement && (document.activeElement.getAttribute('aria-label') || document.activeElement.id)"
)


def _walk_in(web, w, tid: int, name: str, handle: str) -> None:
    body = {"name": name, "handle": handle, "birth_date": "1990-02-16"}
    made = httpx.post(f"{web.url}/api/v1/desk/tournaments/{tid}/arrivals", json=body, headers=w.headers("floor"))
    assert made.status_code == 200, made.text


def test_sp_1_the_cashier_settles_everyone_as_confirmed_and_reads_the_day_and_the_keys_work(committed, web, browser):
    w = access_world(committed, bootstrap.password_hasher(), passwords=("floor", "cashier"))
    t = _tournament(committed, w.club_a)["id"]
    for n, name in enumerate(("Вера Менчик", "Нона Гаприндашвили", "Майя Чибурданидзе"), start=1):
        _walk_in(web, w, t, name, f"counter{n}")
    floor_ctx, floor = _tablet(browser, web, w, "floor")
    cashier_ctx, cashier = _tablet(browser, web, w, "cashier", bypass_csp=True)  # axe is injected there
    try:
        _open(cashier, web, t)
        _open(floor, web, t)
        cashier.wait_for_selector('#desk[data-keys="ready"]', timeout=WAIT_MS)
        _row(cashier, "debts", "Майя Чибурданидзе").wait_for(timeout=WAIT_MS)

        # the help: "?" opens it, Escape closes it
        cashier.locator("body").press("?")
        assert cashier.is_visible("#keys") and cashier.text_content("#keys-h") == "Клавиатура"
        cashier.keyboard.press("Escape")
        assert not cashier.is_visible("#keys")

        # "A" asks to settle all, naming the total and the count; a player arrives meanwhile: refused in place
        cashier.locator("body").press("a")
        assert cashier.text_content("#confirm-text") == (
            "Принять 4\xa0500,00\xa0₽ со всех должников (игроков: 3), с каждого ровно его долг? "
            "Способ оплаты: наличные."
        )
        _walk_in(web, w, t, "Елизавета Быкова", "counter4")
        _row(cashier, "debts", "Елизавета Быкова").wait_for(timeout=WAIT_MS)  # the page moved under the question
        with Session(committed) as session:
            before = contents(session)
            session.rollback()
        cashier.click("#confirm-yes")
        _said(cashier, "Сейчас должны 6\xa0000,00\xa0₽ (должников: 4), а не 4\xa0500,00\xa0₽ (должников: 3). "
                "Проверьте ещё раз перед расчётом.")  # fmt: skip
        with Session(committed) as session:
            assert contents(session) == before
            session.rollback()
        cashier.get_by_role("button", name="Рассчитать всех").click()
        assert cashier.text_content("#confirm-text") == (
            "Принять 6\xa0000,00\xa0₽ со всех должников (игроков: 4), с каждого ровно его долг? "
            "Способ оплаты: наличные."
        )
        cashier.click("#confirm-yes")
        _said(cashier, "Рассчитаны все должники (игроков: 4): 6\xa0000,00\xa0₽.")
        _row(cashier, "settlements", "Елизавета Быкова").wait_for(timeout=WAIT_MS)
        assert cashier.is_hidden("#settle-all")

        # a void names the player and the amount, and asks first with a reason
        _row(cashier, "settlements", "Вера Менчик").get_by_role("button").click()
        assert cashier.text_content("#confirm-text") == (
            "Отменить расчёт на 1\xa0500,00\xa0₽ от Вера Менчик? Его сборы снова станут долгом."
        )
        cashier.fill("#confirm-reason", "карта не прошла")
        cashier.click("#confirm-yes")
        _said(cashier, "Расчёт на 1\xa0500,00\xa0₽ — Вера Менчик — отменён: сумма снова в долге.")
        _row(cashier, "debts", "Вера Менчик").wait_for(timeout=WAIT_MS)
        # this tournament, then the club's day (the world's own tournament's settlement too)
        _totals_become(
            cashier,
            [
                ["Этот турнир", "4\xa0500,00\xa0₽", "1\xa0500,00\xa0₽", "1\xa0500,00\xa0₽ (расчётов: 1)"],
                ["Бай-ины", "4\xa0500,00\xa0₽", "1\xa0500,00\xa0₽", ""],
                ["Принято по способам", "наличные: 4\xa0500,00\xa0₽"],
                ["День клуба", "6\xa0000,00\xa0₽", "1\xa0500,00\xa0₽", "1\xa0500,00\xa0₽ (расчётов: 1)"],
                ["Бай-ины", "6\xa0000,00\xa0₽", "1\xa0500,00\xa0₽", ""],
                ["Принято по способам", "наличные: 6\xa0000,00\xa0₽"],
            ],
        )

        # "S" goes to the first amount; typing there is typing, not a key of the desk; Enter settles (asked)
        cashier.locator("body").press("s")
        assert cashier.evaluate(FOCUSED) == "Сумма от Вера Менчик"
        cashier.keyboard.press("End")
        cashier.keyboard.type("a")
        assert (
            not cashier.is_visible("#confirm") and cashier.get_by_label("Сумма от Вера Менчик").input_value() == "1500a"
        )
        cashier.get_by_label("Сумма от Вера Менчик").fill("1500")
        cashier.get_by_label("Сумма от Вера Менчик").press("Enter")
        assert (
            cashier.text_content("#confirm-text") == "Принять 1\xa0500,00\xa0₽ от Вера Менчик? Способ оплаты: наличные."
        )
        cashier.click("#confirm-no")
        assert serious(cashier) == []

        # the floor: "/" finds, "R" goes to the first found, "B" to the first bust button, "X" busts without killer
        floor.locator("body").press("/")
        assert floor.evaluate(FOCUSED) == "find"
        floor.keyboard.type("Нона")  # her letters are typing, not keys
        floor.keyboard.press("Enter")
        floor.locator("#found button").first.wait_for(timeout=WAIT_MS)
        floor.keyboard.press("r")  # still in the field: typed there
        assert floor.input_value("#find") == "Нонаr"
        floor.keyboard.press("Escape")  # leaves the field
        floor.keyboard.press("r")
        assert floor.evaluate(FOCUSED) == "Отметить: Нона Гаприндашвили"
        floor.keyboard.press("b")
        assert floor.evaluate(FOCUSED) == "Вылет: Игрок 1"
        floor.keyboard.press("Enter")
        assert floor.text_content("#bust-text") == "Кто выбил Игрок 1? Нажмите на выбившего, или:"
        floor.keyboard.press("x")
        _said(floor, "Вылет № 1: Игрок 1.")
        assert floor.errors == [] and cashier.errors == []
    finally:
        for context in (floor_ctx, cashier_ctx):
            context.close()
