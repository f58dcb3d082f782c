"""The desk on a 390 × 844 phone (a coarse pointer) in a real browser (Debian's Chromium through
Playwright), issue 40: a floor manager or a cashier holding a phone reaches every button, link and
field without scrolling sideways, each at least 44 × 44 px to tap: /desk's tournaments and the header's
link, the players' "Вылет" and a bust's killers, the counter's amount, method and "Рассчитать". The
tables of players, busts and the counter read as cards, a cell naming its column ("Долг: …");
a bust's bar or a re-entry offer covers at most a tenth of the screen, and the keyboard's "? Клавиши"
is not shown; axe-core finds nothing serious."""

from __future__ import annotations

import httpx

from flows import bootstrap
from tests.support import world
from tests.support.axe import serious
from tests.web.test_desk_browser import _open, _row, _tablet
from tests.web.test_desk_issue40_browser import NAMES, _sticky, _tap, _tournament

PHONE = {"viewport": {"width": 390, "height": 844}, "has_touch": True, "is_mobile": True}
SCREEN_TENTH = 84.4  # what the sticky bar of a bust or of a re-entry offer may cover of the screen's 844 px
# what a person taps, shown, and smaller than 44 × 44 CSS pixels or not inside the screen's width
UNREACHABLE = """() => [...document.querySelectorAll(
    "header a[href], header button, main a[href], main button, main input, main select")]
  .filter(n => n.offsetParent !== null && !n.closest("dialog:not([open])"))
  .map(n => [n, n.getBoundingClientRect()])
  .filter(([n, r]) => r.width < 44 || r.height < 44 || r.left < 0 || r.right > innerWidth)
  .map(([n, r]) => (n.getAttribute("aria-label") || n.textContent.trim() || n.id)
    + ": " + Math.round(r.width) + "×" + Math.round(r.height) + " at x " + Math.round(r.left))"""


def _fits(page) -> None:
    assert page.evaluate("document.documentElement.scrollWidth") <= 390
    assert page.evaluate(UNREACHABLE) == []
    assert serious(page) == []


def test_issue_40_the_desk_on_a_phone_every_action_in_the_screen_and_44_px_to_tap(committed, web, browser):
    w = world.access_world(committed, bootstrap.password_hasher(), passwords=("floor", "cashier"))
    t = _tournament(committed, w.club_a, NAMES[:4])
    walk_in = {"name": "Анна Смирнова", "handle": "anna_s", "birth_date": "1991-04-12"}
    made = httpx.post(f"{web.url}/api/v1/desk/tournaments/{t['id']}/arrivals", json=walk_in, headers=w.headers("floor"))
    assert made.status_code == 200, made.text  # she owes her buy-in at the counter
    floor_ctx, floor = _tablet(browser, web, w, "floor", bypass_csp=True, **PHONE)
    cashier_ctx, cashier = _tablet(browser, web, w, "cashier", bypass_csp=True, **PHONE)
    try:
        floor.goto(f"{web.url}/desk")
        floor.locator(".day li .t-link").first.wait_for()
        _fits(floor)

        _open(floor, web, t["id"])
        _fits(floor)
        assert floor.locator("#keys-open").is_hidden()  # no keyboard's help on a phone
        row = _row(floor, "entries", "Анна Смирнова")
        assert row.locator("td").nth(3).get_attribute("data-label") == "Долг"
        assert row.evaluate("r => getComputedStyle(r).display") == "flex"  # a card, not a table's row
        _tap(floor, "Вылет: Анна Петрова")
        floor.wait_for_selector("#bust-bar:not([hidden])")
        _fits(floor)  # the killers' buttons and the bar's
        assert _sticky(floor) <= SCREEN_TENTH  # 147 px before: the bar's buttons wrapped in three rows
        _tap(floor, "Выбыли в одной раздаче")
        assert _sticky(floor) <= SCREEN_TENTH
        _tap(floor, "Отмена")
        _tap(floor, "Вылет: Анна Петрова")
        _tap(floor, "Без выбившего")
        floor.wait_for_selector("#after-bust:not([hidden])")  # the re-entry offered: that bar alone
        _fits(floor)
        assert _sticky(floor) <= SCREEN_TENTH
        _tap(floor, "Не сейчас")

        _open(cashier, web, t["id"])
        _row(cashier, "debts", "Анна Смирнова").wait_for()
        _fits(cashier)
        assert floor.errors == [] and cashier.errors == []
    finally:
        floor_ctx.close()
        cashier_ctx.close()
