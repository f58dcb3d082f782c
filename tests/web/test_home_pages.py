"""The front page after the tournaments are over (issue 40): with nothing open it says so once and leads
to what was played, the latest finished tournaments' results pages, the public Pusoy Dos cups and the
certificate check, never to "None open right now" and "No seasons yet" (PD-3: a private cup is never
listed; a club that is not listed is not either; AC-5: no player named). Then, in Chromium, the
product's pages at a phone's width and a laptop's: none scrolls sideways, the header stays inside its
bar, and axe-core finds no serious or critical violation (color-contrast included)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from sqlalchemy import update

from domain.access.services import accounts, signin
from domain.clubs.tables import Club
from domain.poker.tables.tournaments import Tournament
from domain.pusoy.services import setup as pusoy_setup
from domain.store.db import unit_of_work
from flows import bootstrap
from flows.web.auth import COOKIE
from tests.support import world
from tests.support.axe import serious
from tests.support.world import web_auth

PHONE = {"width": 390, "height": 844}
LAPTOP = {"width": 1000, "height": 800}
OVERFLOW = "document.documentElement.scrollWidth"
HEADER = """() => { const bar = document.querySelector("header.top").getBoundingClientRect();
  return [...document.querySelectorAll("header.top a, header.top button, header.top .email")]
    .map(e => [e.textContent.trim(), e.getBoundingClientRect()])
    .filter(([, r]) => r.top < bar.top || r.bottom > bar.bottom || r.left < bar.left || r.right > bar.right)
    .map(([t]) => t) }"""


def _played(engine) -> dict:
    """What the demo leaves: a finished tournament of Pik (listed), one of a club no longer listed, a
    public cup complete and a private one complete; nothing open, no season."""
    now = datetime.now(UTC)
    with unit_of_work(engine) as session:
        finished = world.finished_poker(session)  # "<b>Пятница</b>", the SP-7 example, its places final
        hidden_club = world.club(session, fresh=True)
        hidden = world.tournament(
            session,
            club_id=hidden_club.id,
            status="finished",
            name="Closed club night",
            start=now - timedelta(days=2),
            finished_at=now - timedelta(days=2),
        )
        session.execute(update(Club).where(Club.id == hidden_club.id).values(listing_status="suspended"))
        cup = world.won_by(session, "champ", now, name="Кубок Pusoy Dos")
        private = world.won_by(session, "secret", now, name="Private cup", private=True)
        return {"finished": finished.id, "hidden": hidden.id, "cup": cup.code, "private": private.code}


def test_the_front_page_with_nothing_open_leads_to_the_latest_results_the_cups_and_the_certificate_check(
    committed, http
):
    """PD-3, AC-5, issue 40: after the demo nothing is open; the page leads to what was played."""
    w = _played(committed)
    body = http.get("/").text
    assert "<h1>Ничего не открыто</h1>" in body and 'id="nothing-open"' in body
    assert '<li><a href="#results">последние результаты</a></li>' in body
    assert '<li><a href="#cups">кубки Pusoy Dos</a></li>' in body
    assert '<li><a href="/verify">проверить сертификат</a></li>' in body
    assert '<h2 id="results">Последние результаты</h2>' in body
    assert f'<a href="/t/{w["finished"]}">&lt;b&gt;Пятница&lt;/b&gt;</a>' in body  # escaped, its results page
    assert f"/t/{w['hidden']}" not in body and "Closed club night" not in body  # a club not listed
    assert '<h2 id="cups">Кубки Pusoy Dos</h2>' in body
    assert f'<a href="/p/{w["cup"]}">Кубок Pusoy Dos</a></td><td>завершён</td>' in body
    assert w["private"] not in body and "Private cup" not in body  # PD-3: never listed
    assert 'href="/verify" id="verify-lead"' in body
    assert "champ" not in body  # AC-5: the front page names no player; the cup's page names its champion
    for gone in ("Сейчас нет открытых турниров", "Сейчас нет турниров с открытым набором", "Сезонов пока нет"):
        assert gone not in body
    english = http.get("/", headers={"accept-language": "en"}).text
    assert "<h1>Nothing is open right now</h1>" in english and "Latest results" in english
    assert "None open right now" not in english and "No seasons yet" not in english
    assert http.get(f"/t/{w['finished']}").status_code == 200 and http.get(f"/p/{w['cup']}").status_code == 200


def test_the_front_page_with_a_tournament_open_lists_it_first_and_the_results_after(committed, http):
    """Open tournaments first (as before), the latest results still below, the certificate check last."""
    w = _played(committed)
    t = world.upcoming_poker(committed, timedelta(hours=2), name="Суббота")
    body = http.get("/").text
    assert "<h1>Открытые турниры</h1>" in body and 'id="nothing-open"' not in body
    assert body.index(f'href="/t/{t["id"]}"') < body.index('id="results"') < body.index(f'href="/t/{w["finished"]}"')
    assert body.index('id="results"') < body.index('id="cups"') < body.index('id="check"')
    assert "Сейчас нет турниров с открытым набором." in body  # no cup filling: said in its section


# -- in Chromium: a phone and a laptop -------------------------------------------------------------------


def _signed_in_context(browser, web, engine, who: str, viewport: dict):
    """A browser context (Russian, the CSP bypassed for axe's script) signed in by the sign-in form as
    `who` (an e-mail with the tests' password), or anonymous for None."""
    context = browser.new_context(viewport=viewport, locale="ru-RU", bypass_csp=True)
    page = context.new_page()
    page.errors = []
    page.on("pageerror", lambda e: page.errors.append(str(e)))
    if who:
        page.goto(f"{web.url}/signin")
        page.fill("#email", who)
        page.fill("#password", world.PASSWORD)
        page.click("main form.account button[type=submit]")
        page.wait_for_load_state()
    return context, page


def _sweep(page, web, paths) -> dict[str, list]:
    """Each page's problems: its width past the viewport, the header's parts outside its bar, axe's
    serious and critical violations."""
    width = page.viewport_size["width"]
    found = {}
    for path in paths:
        page.goto(f"{web.url}{path}")
        problems = []
        if (wide := page.evaluate(OVERFLOW)) > width:
            problems.append(f"{wide} px wide")
        problems += [f"outside the header: {t}" for t in page.evaluate(HEADER)]
        problems += serious(page)
        if problems:
            found[path] = problems
    return found


@pytest.mark.parametrize("viewport", [PHONE, LAPTOP], ids=["phone", "laptop"])
def test_the_product_pages_fit_the_screen_keep_the_header_in_its_bar_and_pass_axe(committed, web, browser, viewport):
    """Issue 40 and the pages' accessibility: anonymous, a player and a floor manager, at 390 px and
    1000 px wide: no page scrolls sideways (scrollWidth within the viewport), every link and button of
    the header is inside the dark bar, axe-core 0 serious or critical."""
    w = _played(committed)
    season = world.season(committed)
    running = world.running_poker(committed, players=4, name="Пятничный турнир с очень длинным названием")
    hasher = bootstrap.password_hasher()
    now = datetime.now(UTC)
    with unit_of_work(committed) as session:
        filling = pusoy_setup.create(session, name="Кубок выходного дня", organizer="org", capacity=8, now=now)
        pusoy_setup.join(session, filling.code, "anna.long.handle", now)
        anna = world.player(session, "Анна Белова", handle="anna.long.handle")
        t = session.get(Tournament, running["id"])
        world.register(session, t, True, player_id=anna.id)
        player = accounts.add(session, "anna.belova.with.a.long.address@example.org", now, player_id=anna.id)
        accounts.set_password(session, hasher, player, world.PASSWORD, now)
        staff = accounts.add(session, "floor.manager.of.pik@example.org", now)
        accounts.grant(session, staff, "floor", t.club_id, now)
        accounts.set_password(session, hasher, staff, world.PASSWORD, now)
        signin.start_session(session, staff.id, now, address="127.0.0.1", agent="a long browser name " * 5)
    public = ["/", "/verify", "/signin", "/signup", "/reset", f"/t/{running['id']}", f"/t/{w['finished']}"]
    public += [f"/p/{w['cup']}", f"/seasons/{season['id']}", "/nothing-here"]
    mine = ["/", "/play", f"/play/{filling.code}", f"/play/{w['cup']}", "/account", "/account/password"]
    found = {}
    for who, paths in ((None, public), (player.email, mine), (staff.email, ["/", "/account", f"/t/{t.id}"])):
        context, page = _signed_in_context(browser, web, committed, who, viewport)
        try:
            found |= {f"{who or 'anonymous'} {path}": p for path, p in _sweep(page, web, paths).items()}
            assert page.errors == [], page.errors
        finally:
            context.close()
    assert found == {}


def test_a_session_cookie_alone_signs_the_browser_in_for_the_header(committed, web, browser):
    """A browser holding only a session (begun elsewhere) gets the header of a signed-in person: my account
    and sign out; the places come with the first page that reads the roles (`/account`)."""
    now = datetime.now(UTC)
    with unit_of_work(committed) as session:
        club = world.club(session)
        staff = accounts.add(session, "cashier@example.org", now)
        accounts.grant(session, staff, "cashier", club.id, now)
        secret = signin.start_session(session, staff.id, now, address="127.0.0.1", agent="tests")
    context = browser.new_context(viewport=PHONE, locale="ru-RU")
    context.add_cookies([{"name": COOKIE, "value": web_auth().cookie(secret), "url": web.url}])
    try:
        page = context.new_page()
        page.goto(f"{web.url}/")
        assert page.locator("header.top a.nav").all_text_contents() == ["Проверить сертификат", "Мой аккаунт"]
        page.goto(f"{web.url}/account")
        page.goto(f"{web.url}/")
        assert page.locator("header.top a.nav").all_text_contents() == ["Проверить сертификат", "Стойка", "Мой аккаунт"]
        page.click("#header-sign-out")
        page.wait_for_url(f"{web.url}/")
        assert page.locator("header.top a.nav").all_text_contents() == ["Проверить сертификат", "Войти"]
    finally:
        context.close()
