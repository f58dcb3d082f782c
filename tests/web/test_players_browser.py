"""Players online in real browsers (RULES PD-3, PD-4, PD-8, PD-10, AC-1): 8 players, each in a browser
context of their own, join an open cup from the list on `/play` (the 8th join starts it) and 4 of them
a private cup by its code; a game server's token reports every game through the API, and every
player's `/play/<code>` follows, without a reload, round 1's end, the advancement or elimination,
round 2 (the final table) and the champion. A short cup: 8 players, 1 game a round.

Then a player on a phone (issue 40, 390 × 844): their pages never scroll sideways, the header wraps
inside its dark bar, axe-core finds no serious or critical violation, and a tournament they are checked
in for offers no registration."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import httpx
from sqlalchemy import select
from sqlalchemy.orm import Session

from domain.access.services import accounts, signin
from domain.poker.tables.tournaments import Tournament
from domain.pusoy.services import setup as pusoy_setup
from domain.pusoy.tables import PusoyTournament
from domain.store.db import unit_of_work
from flows.web.auth import COOKIE
from tests.support import world
from tests.support.axe import serious
from tests.support.events import consuming
from tests.support.world import seating, web_auth
from tests.web.test_browser import WAIT_S

HANDLES = [f"pl{n}" for n in range(8)]
CHAMPION = "pl5"


def _world(engine):
    """The open cup, the private cup, 8 players signed in (session secrets), a game server's token."""
    now = datetime.now(UTC)
    with unit_of_work(engine) as session:
        open_cup = pusoy_setup.create(session, name="Open", capacity=8, games_per_round=1, now=now, organizer="org")
        private = pusoy_setup.create(
            session, name="Hidden", capacity=8, games_per_round=1, now=now, organizer="org", private=True
        )
        secrets = {}
        for handle in HANDLES:
            player = world.player(session, handle.upper(), handle=handle)
            account = accounts.add(session, f"{handle}@example.org", now, player_id=player.id, locale="en")
            secrets[handle] = signin.start_session(session, account.id, now, address="127.0.0.1", agent="tests")
        server = accounts.add(session, "games@example.org", now)
        _, token = signin.create_token(session, server, "game server 1", [f"cup:{open_cup.code}"], now)
        return open_cup.code, private.code, secrets, token


def test_pd_4_ac_1_eight_browsers_join_from_the_list_four_by_code_and_follow_every_round_to_the_champion(
    web, committed, browser, prefect_api
):
    """PD-3, PD-4, PD-8, PD-10, AC-1: see the module."""
    code, private, secrets, token = _world(committed)
    auth = web_auth()
    contexts, pages, errors = [], {}, []
    try:
        for handle in HANDLES:
            context = browser.new_context()
            context.add_cookies([{"name": COOKIE, "value": auth.cookie(secrets[handle]), "url": web.url}])
            page = context.new_page()
            page.on("pageerror", lambda e: errors.append(str(e)))
            contexts.append(context)
            pages[handle] = page
        for handle in HANDLES[:4]:  # a private cup by its code, typed in any case
            page = pages[handle]
            page.goto(f"{web.url}/play")
            assert page.locator(f'tr[data-code="{private}"]').count() == 0  # never listed (PD-3)
            page.fill("#code", private.lower())
            page.click("#join-code button[type=submit]")
            page.wait_for_url(f"{web.url}/play/{private}")
            page.wait_for_selector('#state[data-state="waiting"]', timeout=WAIT_S * 1000)
        for handle in HANDLES:  # the open cup from the list; the 8th join starts it
            page = pages[handle]
            page.goto(f"{web.url}/play")
            page.click(f'tr[data-code="{code}"] button.join')
            page.wait_for_url(f"{web.url}/play/{code}")
        for page in pages.values():
            page.wait_for_selector('#state[data-state="playing"]', timeout=WAIT_S * 1000)
            page.evaluate("window.__same_page = true")  # gone if the page reloads
        with Session(committed) as session:
            tid, hidden = (
                session.scalar(select(PusoyTournament.id).where(PusoyTournament.code == c)) for c in (code, private)
            )
            entrants = session.scalar(select(PusoyTournament.entrants).where(PusoyTournament.id == hidden))
        assert entrants == 4

        def report(round_no: int) -> None:
            with Session(committed) as session:
                tables = seating(session, tid, round_no)
            headers = {"authorization": f"Bearer {token}"}
            with httpx.Client(base_url=web.url, timeout=60, headers=headers) as client:
                for table, players in tables.items():
                    order = sorted(players, key=lambda p: (p != CHAMPION, p))
                    body = {"round": round_no, "table": table, "game": 1, "finishes": order}
                    assert client.post(f"/api/v1/pusoy/{code}/reports", json=body).status_code == 200

        with Session(committed) as session:
            final = {
                p
                for players in seating(session, tid, 1).values()
                for p in sorted(players, key=lambda p: (p != CHAMPION, p))[:2]
            }
        with consuming():  # the event consumer completes each round after its last report
            report(1)  # each table's first two advance (3 and 2 points; the cut-off falls between places)
            for handle, page in pages.items():
                page.wait_for_selector("#my-rounds", timeout=WAIT_S * 1000)
                state = "playing" if handle in final else "out"
                page.wait_for_selector(f'#state[data-state="{state}"]', timeout=WAIT_S * 1000)
                if handle in final:
                    page.wait_for_function(
                        "document.querySelector('#state').textContent.includes('2')", timeout=WAIT_S * 1000
                    )
                    assert page.text_content("#opponents").count(",") == 2  # the final table: 3 opponents
            report(2)
            for handle, page in pages.items():
                page.wait_for_selector("#champion", timeout=WAIT_S * 1000)
                assert page.text_content("#champion") == CHAMPION
                expected = "champion" if handle == CHAMPION else "finished"  # the cup is over for everyone else
                assert page.get_attribute("#state", "data-state") == expected, handle
                assert page.evaluate("window.__same_page") is True, handle
        assert errors == []
    finally:
        for context in contexts:
            context.close()


PHONE = {"width": 390, "height": 844}
HEADER_OUTSIDE = """() => { const bar = document.querySelector("header.top").getBoundingClientRect();
  return [...document.querySelectorAll("header.top a, header.top button")]
    .filter(e => { const r = e.getBoundingClientRect();
      return r.top < bar.top || r.bottom > bar.bottom || r.left < 0 || r.right > window.innerWidth; })
    .map(e => e.textContent.trim()) }"""


def _phone_world(engine):
    """anna, in Russian, with a long e-mail address: checked in for a running tournament of Pik with a long
    name (late registration open), registered for an upcoming one, another open to register for; a seat in
    a cup filling."""
    now = datetime.now(UTC)
    running = world.running_poker(engine, players=3, name="Пятничный турнир с очень длинным названием клуба")
    upcoming = world.upcoming_poker(engine, timedelta(hours=3), players=2, name="Субботний турнир")
    other = world.upcoming_poker(engine, timedelta(days=1), players=0, name="Воскресный турнир")
    with unit_of_work(engine) as session:
        anna = world.player(session, "Анна Белова", handle="anna")
        world.register(session, session.get(Tournament, running["id"]), True, player_id=anna.id)  # checked in
        world.register(session, session.get(Tournament, upcoming["id"]), False, player_id=anna.id)
        cup = pusoy_setup.create(
            session, name="Кубок выходного дня", capacity=8, games_per_round=1, now=now, organizer="org"
        )
        pusoy_setup.join(session, cup.code, "anna", now)
        account = accounts.add(session, "anna.belova.from.the.club@example.org", now, player_id=anna.id, locale="ru")
        secret = signin.start_session(session, account.id, now, address="127.0.0.1", agent="Mozilla/5.0 (iPhone) " * 4)
    return {"running": running["id"], "upcoming": upcoming["id"], "other": other["id"], "cup": cup.code}, secret


def test_a_player_on_a_phone_sees_their_pages_whole_the_header_in_its_bar_and_no_register_once_checked_in(
    web, committed, browser
):
    """Issue 40: at 390 × 844, /play, /play/<code>, /account and / are no wider than the screen
    (scrollWidth ≤ 390), every link and button of the header lies inside the dark bar, axe-core 0 serious
    or critical (color-contrast included); the tournament anna is checked in for says so, with no
    "Зарегистрироваться"; the one she is registered for offers to unregister, the other to register."""
    w, secret = _phone_world(committed)
    context = browser.new_context(viewport=PHONE, locale="ru-RU", bypass_csp=True, is_mobile=True, has_touch=True)
    context.add_cookies([{"name": COOKIE, "value": web_auth().cookie(secret), "url": web.url}])
    errors = []
    try:
        page = context.new_page()
        page.on("pageerror", lambda e: errors.append(str(e)))
        for path in ("/play", f"/play/{w['cup']}", "/account", "/"):
            page.goto(f"{web.url}{path}")
            assert page.evaluate("document.documentElement.scrollWidth") <= 390, path
            assert page.evaluate(HEADER_OUTSIDE) == [], path
            assert page.evaluate("getComputedStyle(document.querySelector('header.top')).backgroundColor") == (
                "rgb(34, 34, 34)"
            )
            assert serious(page) == [], path
        page.goto(f"{web.url}/play")
        checked = page.locator(f'#poker tr[data-id="{w["running"]}"]')
        assert checked.locator("button").count() == 0 and checked.locator(".checked-in").text_content() == "прибыл"
        assert "Зарегистрироваться" not in checked.text_content()
        assert page.locator(f'#poker tr[data-id="{w["upcoming"]}"] button.unregister').count() == 1
        assert page.locator(f'#poker tr[data-id="{w["other"]}"] button.register').count() == 1
        nav = page.locator("header.top a.nav").all_text_contents()
        assert nav == ["Проверить сертификат", "Играть", "Мой аккаунт"]  # a player: play, no desk
        assert errors == []
    finally:
        context.close()
