"""The audit trail in the owner's console (issue 39; RULES AC-3): the owner reads who did what and when,
newest first, in the club's time, narrowed by who, what and which tournament, an older page by its link;
another club's trail is not found; axe-core finds nothing serious."""

from __future__ import annotations

import httpx

from flows import bootstrap
from tests.support import world
from tests.support.axe import serious
from tests.support.browser import russian_page, sign_in
from tests.web.test_club_console import WAIT_MS


def test_ac_3_the_owner_reads_the_trail_narrowed_and_paged(committed, web, browser):
    w = world.access_world(committed, bootstrap.password_hasher(), passwords=("owner",))
    floor = w.headers("floor")
    registrations = f"{web.url}/api/v1/tournaments/{w.tournament_a}/registrations"
    for _ in range(3):  # six changes by the floor, each audited
        assert httpx.post(registrations, json={"player": "anna"}, headers=floor).status_code == 200
        assert httpx.delete(f"{registrations}/anna", headers=floor).status_code == 200
    context, page, errors = russian_page(browser)
    try:
        sign_in(page, web.url, w.emails["owner"], world.PASSWORD, f"{web.url}/club/{w.club_a}")
        page.click("nav.console-nav >> text=Журнал действий")
        page.wait_for_selector("#trail")
        assert serious(page) == []
        actions = page.locator("#trail tbody tr td:nth-child(3)").all_inner_texts()
        assert actions[:6] == ["poker.unregister", "poker.register"] * 3  # newest first
        page.fill("#f-action", "poker.register")
        page.fill("#f-tournament", str(w.tournament_a))
        page.click("text=Показать")
        page.wait_for_url("**action=poker.register**", timeout=WAIT_MS)
        assert page.locator("#trail tbody tr td:nth-child(3)").all_inner_texts() == ["poker.register"] * 3
        who = page.locator("#trail tbody tr td:nth-child(2)").all_inner_texts()
        assert all(w.emails["floor"] in label for label in who)
        page.goto(f"{web.url}/club/{w.club_a}/audit?actor=nobody-did-this")
        assert page.locator("#trail tbody").inner_text().strip() == "По этому отбору записей нет."
        assert errors == []  # before the other club's 404, which the console reports
        other = page.goto(f"{web.url}/club/{w.club_b}/audit")
        assert other.status == 404
    finally:
        context.close()
