"""axe-core on every page of the product (issue 40, done when "axe-core 0 serious/critical on every page
of the product"): the screenshots' world (tests/web/screenshots.py: a running, an upcoming, one at its break and
a finished tournament, a season with its documents, cups, the desk's day, a player's account, the
owner's console set up through `/api/v1`, the operator's queue, the organizer's cups), each page opened
in Debian's headless Chromium as the person who uses it, at a phone's width and a desktop's, in Russian,
and axe-core (tests/support/axe.py) run on it, the desk's dialogs and bust bar opened too. Every GET route
of `flows.web.app.ROUTES` is either visited here or named below with the reason it is not a page, so a
new page fails this test until it is visited."""

from __future__ import annotations

import re
from urllib.parse import urlsplit

import httpx
import pytest
from starlette.routing import compile_path

from domain.access.services import accounts
from domain.store.db import unit_of_work
from flows.web.app import ROUTES
from tests.support import world
from tests.support.axe import violations
from tests.web import screenshots

WAIT_MS = 15_000  # the longest a page's scripts may take to show what they fetch on a loaded machine
WIDTHS = {  # the browser contexts: a phone (touch, so the coarse pointer's larger buttons) and a desktop
    "phone": {"viewport": {"width": 390, "height": 844}, "has_touch": True},
    "desktop": {"viewport": {"width": 1000, "height": 800}},
}
NOT_PAGES = {  # GET routes that answer no HTML page, and what they answer
    "/t/{id}/events": "an event stream (text/event-stream) the screen and results pages read",
    "/p/{code}/events": "an event stream the cup's public page reads",
    "/play/{code}/events": "an event stream the player's cup page reads",
    "/clubs/{id}/calendar.ics": "the club's iCalendar file",
    "/clubs/{id}/logo": "the club's logo, an image its public pages show",
    "/account/data.json": "my data, a JSON download",
    "/club/{id}/structures/{sid}/levels.csv": "a structure's levels, a CSV download",
    "/club/{id}/documents/{pid}/files/{did}": "a published document's stored file (a PDF or a ZIP)",
    "/cups/{code}/documents/{pid}/files/{did}": "a cup's published document, the stored signed PDF",
    "/play/certificates/{serial}": "my certificate, the stored signed PDF",
    "/club": "no page of its own: a redirect (303) to the first club's console /club/<id>, visited",
}
STATUS = {"/reset/not-a-link": 410, "/no-such-page": 404}  # pages people see that are not a 200
IMPACTS = ("minor", "moderate", "serious", "critical")  # all: no <main>, no <h1> or an empty <th> fails
STICKING_OUT = """() => { const edge = document.documentElement.clientWidth + 1, box = e => e.getBoundingClientRect();
  const right = e => getComputedStyle(e).overflowX === "visible" ? Math.max(box(e).right, box(e).left + e.scrollWidth) : box(e).right;
  const out = [...document.body.querySelectorAll("*")].filter(e => right(e) > edge);
  return out.filter(e => !out.some(d => d !== e && e.contains(d))).slice(0, 6)
    .map(e => e.tagName.toLowerCase() + (e.id ? "#" + e.id : "") + [...e.classList].map(c => "." + c).join("")
      + " to " + Math.round(right(e)) + " px") }"""  # the innermost elements reaching past the phone's edge
LEFT: dict[str, str] = {}  # minor or moderate rules deliberately left, each with its reason (none)


# the shown headings (h1-h3) whose level and text another shown heading of the page has
HEADINGS_TWICE = """() => {
  const seen = new Map();
  for (const h of document.querySelectorAll("h1, h2, h3")) {
    if (h.offsetParent === null) continue;
    const key = h.tagName.toLowerCase() + " " + h.innerText.trim();
    seen.set(key, (seen.get(key) || 0) + 1);
  }
  return [...seen].filter(([, n]) => n > 1).map(([key, n]) => key + " ×" + n);
}"""


def _route(path: str) -> str | None:
    """The ROUTES path (e.g. `/t/{id}`) that serves `path`, as Starlette matches it."""
    for template, _, _ in ROUTES:
        if compile_path(template)[0].match(path):
            return template
    return None


def _pages(committed, web) -> list[tuple[tuple[str, str] | None, str, object]]:
    """(who signs in, the path, a step taken on the page first or None), person by person."""
    pictures = screenshots.world(committed, web.outbox)
    made = pictures.made | screenshots.owner_sets_up(web.url, pictures.made)
    club, platform, cups = screenshots.console_pages(made)
    with unit_of_work(committed) as session:
        secret = accounts.issue_link(session, accounts.find(session, screenshots.PLAYER[0]), "reset", world.now())
    public = [*pictures.public.values(), f"/widget/t/{made['poker']}", f"/clubs/{made['club']}", "/signin"]
    public += [("/signin", _refused), "/reset", f"/reset/{secret}", *STATUS]
    player = [*pictures.player.values(), "/account", "/account/password"]
    screens = [path for path in pictures.public.values() if re.fullmatch(r"/t/\d+/screen", path)]
    desk = [*pictures.desk.values(), *(f"/desk{path.removesuffix('/screen')}" for path in screens)]  # every clock
    groups = (
        (None, public),
        (screenshots.DESK, desk),
        (screenshots.PLAYER, player),
        (screenshots.OWNER, [*club.values(), *_new_club_pages(web.url, made)]),
        (screenshots.OPERATOR, platform.values()),
        (screenshots.ORGANIZER, cups.values()),
    )
    seen, pages = set(), []
    for who, addresses in groups:
        for address in addresses:
            address, step = address if isinstance(address, tuple) else (address, None)
            address = address.partition("#")[0]  # a fragment is the same page
            if (address, step) not in seen:
                seen.add((address, step))
                pages.append((who, address, step))
    return pages


def _refused(page) -> None:
    """A sign-in refused: the form again with its problem said."""
    page.fill("#email", screenshots.PLAYER[0])
    page.fill("#password", "not the password")
    page.click("button[type=submit]")
    page.wait_for_selector("#problem")


def _new_club_pages(url: str, made: dict) -> list[str]:
    """Owner's console pages that came after the screenshots' list, visited once their route exists:
    the webhooks (one endpoint registered through `/api/v1` first, so the page lists it)."""
    c = f"/club/{made['club']}"
    if "/club/{id}/webhooks" not in {template for template, _, methods in ROUTES if "GET" in methods}:
        return []
    body = {"url": "https://hooks.pik.example/tourney", "events": ["tournament.finished"]}
    auth = {"authorization": f"Bearer {made['owner_token']}"}
    added = httpx.post(f"{url}/api/v1/clubs/{made['club']}/webhooks", json=body, headers=auth, timeout=10)
    assert added.status_code == 201, added.text
    return [f"{c}/webhooks"]


@pytest.mark.parametrize("width", list(WIDTHS))  # one test a width: the workers share the two out
def test_issue_40_axe_core_finds_no_serious_or_critical_violation_on_any_page_at_a_phone_or_desktop_width(
    committed, web, browser, width
):
    """Issue 40: every page of the product, as the person who uses it (signed out, the desk, a player,
    the owner, the operator, the organizer), at 390 and 1000 CSS pixels: 0 axe-core violations of any
    impact (minor and moderate too: a <main>, an <h1>, no empty <th>), and at 390 px no page wider than the
    phone (`scrollWidth` <= 390), and no page with two shown headings of one level and text (the series'
    page had two "Изменить серию"); the failure names each page, width, rule and element, and what sticks
    out. Every GET route is visited or in NOT_PAGES with its reason."""
    pages = _pages(committed, web)
    visited = {_route(urlsplit(path).path) for _, path, _ in pages} - {None}
    gets = {template for template, _, methods in ROUTES if "GET" in methods}
    assert not set(NOT_PAGES) - gets, f"NOT_PAGES names routes that are gone: {sorted(set(NOT_PAGES) - gets)}"
    assert not visited & set(NOT_PAGES), f"visited yet listed as not pages: {sorted(visited & set(NOT_PAGES))}"
    missing = gets - visited - set(NOT_PAGES)
    assert not missing, f"GET routes neither visited nor in NOT_PAGES (visit them or say why not): {sorted(missing)}"

    found, sideways, repeated = [], [], []
    device = WIDTHS[width]
    px = device["viewport"]["width"]
    context = browser.new_context(**device, locale="ru-RU", bypass_csp=True)  # axe is injected
    try:
        page, signed = None, object()
        for who, path, step in pages:
            if who != signed:  # a fresh browser per person: no session of the one before
                if page is not None:
                    page.context.clear_cookies()
                page = page or context.new_page()
                if who:
                    screenshots.signed_in(page, web.url, who)
                signed = who
            answer = page.goto(web.url + path, wait_until="load")
            assert answer.status == STATUS.get(path, 200), f"{path} at {width}: {answer.status}"
            assert urlsplit(page.url).path == urlsplit(path).path, f"{path} at {width} went to {page.url}"
            screenshots.settled(page, urlsplit(path).path, timeout=WAIT_MS)
            if step:
                step(page)
            name = f"{path}{' (' + step.__name__ + ')' if step else ''} at {width} ({px}px)"
            found += [f"{name}: {v}" for v in violations(page, IMPACTS) if v.split(" ", 1)[0] not in LEFT]
            if px == 390 and (wide := page.evaluate("document.documentElement.scrollWidth")) > px:
                sideways.append(f"{name}: {wide} px wide, {', '.join(page.evaluate(STICKING_OUT))}")
            if px != 390 and (twice := page.evaluate(HEADINGS_TWICE)):
                repeated.append(f"{name}: {', '.join(twice)}")
    finally:
        context.close()
    said = [f"{len(found)} axe-core violations (minor to critical):", *found] if found else []
    said += [f"{len(sideways)} pages wider than a 390 px phone (they scroll sideways):", *sideways] if sideways else []
    said += [f"{len(repeated)} pages with a heading twice (two sections read as one):", *repeated] if repeated else []
    assert not said, "\n".join(said)
