"""Screenshots of every public page for the docs (`make screenshots`, docs/web.md#screenshots).

    python -m tests.web.screenshots [--out docs/pictures/web] [--width 1000] [--only play.png ...]

Builds a world on a throwaway database of the project's cluster (`scratch_database`, dropped at the
end) with the tests' world builders and the real services, at the club Pik (Moscow, Russian): a
running poker tournament with its clock started and a few busts, one open for registration starting
in 45 minutes, one at its break, one finished; a season of two finished tournaments with their
documents published (a certificate to check, the season's standings), a complete Pusoy Dos cup of
the club with a playoff and a public one filling (no club); the desk's day and the running tournament at
the desk, signed in as Pik's floor and cashier; the sign-up form, and `/play` and `/play/<code>` signed
in as the season's anna (Russian): registered for the upcoming tournament, in round 2 of a running cup
of 16, champion of another cup; the owner's console (Pik's owner sets up next week's tournament through
`/api/v1` first: staff invited, a structure, a mystery-bounty tournament with prizes and its mystery table
opened, a weekly series, a tablet's token, a webhook with three deliveries), the operator's queue (two
clubs applying, one the registry could not decide; an account blocked) and the organizer's cups (one
filling with a game server's token, one private), each signed in as its person; the tournament's prize
check after a step (a money line typed: SP-4). The browser asks for Russian. `--only NAME` takes only those PNGs. Serves the
pages with uvicorn on a free loopback port, opens each in Debian's headless Chromium through
Playwright (`/usr/bin/chromium`, never a downloaded browser) at `--width` CSS pixels, and writes one
palette PNG per page (at most `MAX_HEIGHT` pixels tall), optimized. Nothing outside `--out` is written.
"""

from __future__ import annotations

import argparse
import io
import os
import sys
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from flows import bootstrap

ROOT = Path(__file__).resolve().parents[2]
OUT = ROOT / "docs" / "pictures" / "web"
MAX_HEIGHT = 1400
MARGIN = 12  # CSS pixels around an element taken alone (a fragment)
Step = Callable[[object], None]  # a step on an open page (Playwright's Page) before its picture
KEY = b"screenshots-only-key-of-at-least-32-bytes"
DESK = ("desk@pik.example", "screenshots only, a desk password")  # the floor and the cashier of Pik at once
PLAYER = ("anna@pik.example", "screenshots only, a player password")  # Анна Белова (anna), Russian
OWNER = ("owner@pik.example", "screenshots only, an owner password")  # Pik's owner
OPERATOR = ("operator@tourney.example", "screenshots only, an operator password")  # the platform's operator
ORGANIZER = ("cups@royal.example", "screenshots only, an organizer password")  # a Pusoy Dos organizer, "royal"
CUP_PLAYERS = ("anna", "misha", "dasha", "kolya", "lena", "petya", "sasha", "tanya")
CUP_FIELD = (*CUP_PLAYERS, "vanya", "galya", "fedya", "zhenya", "olya", "yura", "nina", "stas")


def world(engine, outbox: Path) -> tuple[dict[str, str], dict[str, str], dict[str, str]]:
    """The pages to take, by file name: their paths on the server; the public ones, then the desk's
    (taken signed in as `DESK`: Pik's floor and cashier, with two walk-ins owing and one settled), then
    the player's (taken signed in as `PLAYER`: anna of the season, registered for the upcoming
    tournament, playing round 2 of a running cup, champion of another)."""
    from datetime import timedelta

    from sqlalchemy import select

    from domain.documents.rules.signing import verification_code
    from domain.documents.services import sources
    from domain.documents.services.publish import publish
    from domain.documents.tables import Document
    from domain.pusoy.services import setup as pusoy_setup
    from domain.store.db import unit_of_work
    from infra.render import Renderer
    from tests.support import world as w
    from tests.support.world import complete_pusoy

    season = w.season(engine, name="Зима 2026/27")
    prizes = ("Кубок и вход на турнир клуба", "Вход на турнир клуба", "Медаль")
    poker = w.running_poker(
        engine, players=18, name="Пятничный дипстек", prizes=prizes, names="Игрок {n}", handles="deep{n}", seat_cap=8
    )
    with unit_of_work(engine) as session:
        floor = desk_tournament(session, poker["id"], poker["club_id"], w.now())
    upcoming = w.upcoming_poker(engine, timedelta(minutes=45), players=20, name="Субботний турбо", prizes=prizes)
    on_break = w.running_poker(
        engine, players=9, name="Вечерний фриролл", prizes=prizes[:1], names="Игрок {n}", handles="free{n}"
    )
    for _ in range(2):  # level 1, level 2, then the break
        w.clock(engine, on_break["id"], "next")
    done = w.running_poker(
        engine, players=12, name="Воскресный хайроллер", prizes=prizes[:2], names="Игрок {n}", handles="high{n}"
    )
    for busted in done["entries"][:11]:
        w.knock_out(engine, done["id"], busted, done["entries"][-1])
    w.finish(engine, done["id"])
    with unit_of_work(engine) as session:
        pusoy, _, _ = complete_pusoy(session, club_id=w.club(session).id)
        code = pusoy.code
        filling = pusoy_setup.create(
            session, name="Воскресный кубок", organizer="royal", capacity=16, now=w.now(), organizer_email=ORGANIZER[0]
        )
        for i, name in enumerate(("ann", "bob", "cyd", "dee", "eve", "fay", "gus")):
            pusoy_setup.join(session, filling.code, name, w.now() + timedelta(seconds=i))
        running, won = player_cups(session, w.club(session).id, w.now())
        player_account(session, upcoming["id"], w.now())
        platform = platform_world(session, w.club(session).id, filling, w.now())
    with Renderer(KEY) as renderer:
        for due in (sources.due, sources.season_bundles):  # results sheets, then the season's standings
            with unit_of_work(engine) as session:
                for item in due(session):
                    if not isinstance(item, sources.Skipped):
                        publish(session, renderer, outbox, item, w.now())
    with unit_of_work(engine) as session:
        cert = session.scalars(select(Document).where(Document.kind == "certificate").order_by(Document.id)).first()
        serial, check = cert.serial, verification_code(cert.signature)
    return Pictures(
        {
            "home.png": "/",
            "screen.png": f"/t/{poker['id']}/screen",
            "screen-start.png": f"/t/{upcoming['id']}/screen",
            "screen-break.png": f"/t/{on_break['id']}/screen",
            "screen-finished.png": f"/t/{done['id']}/screen",
            "results.png": f"/t/{poker['id']}",
            "results-finished.png": f"/t/{done['id']}",
            "season.png": f"/seasons/{season['id']}",
            "pusoy.png": f"/p/{code}",
            "verify.png": f"/verify/{serial}?code={check}",
            "verify-form.png": "/verify",
            "signup.png": "/signup",
        },
        desk_pages(poker["id"], floor),
        {
            "play.png": "/play",
            "play-cup.png": f"/play/{running}",
            "play-champion.png": f"/play/{won}",
        },
        {
            **platform,
            "club": poker["club_id"],
            "cup": filling.code,
            "season": season["id"],
            "poker": poker["id"],
            "done": done["id"],
        },
    )


@dataclass
class Pictures:
    """The world's pages by file name (a path, or a path and a step), in groups signed in as one person;
    `made`: what the consoles' pages name (ids, codes, the owner's token)."""

    public: dict
    desk: dict
    player: dict
    made: dict


def platform_world(session, club_id: int, filling, now) -> dict:
    """Pik's owner (a password and a token), the operator and the organizer "royal" (each a password);
    two new clubs applying (one with no registry provider, so it waits for a moderator; one the registry
    answered with two head offices, so it waits for one too, the answer kept), an account the operator
    blocked; royal's cups in Russian: `filling` with a game server's token, and a private one."""
    from datetime import timedelta

    from domain.access.services import accounts, signin
    from domain.clubs.rules.catalog import NewClub
    from domain.clubs.rules.verification import Check
    from domain.clubs.services import clubs
    from domain.documents.services import locales
    from domain.pusoy.services import setup as pusoy_setup
    from tests.clubs_registry_data import answer, inn10, ogrn13, party

    hasher = bootstrap.password_hasher()
    made = {}
    for (email, password), roles in ((OWNER, [("owner", club_id)]), (OPERATOR, [("operator", None)]),
                                     (ORGANIZER, [("organizer", None)])):  # fmt: skip
        account = accounts.add(session, email, now - timedelta(days=30), locale="ru")
        for role, club in roles:
            accounts.grant(session, account, role, club, now - timedelta(days=30))
        accounts.set_password(session, hasher, account, password, now - timedelta(days=30))
        made[email] = account
    owner = made[OWNER[0]]
    scopes = [signin.scope_name(r, c) for r, c in accounts.roles_of(session, owner.id)]
    _, made["owner_token"] = signin.create_token(session, owner, "Скрипт сайта клуба", scopes, now)
    for n, (name, at) in enumerate((("Клуб «Ривер»", timedelta(hours=3)), ("Покер-клуб «Флоп»", timedelta(hours=1)))):
        new = clubs.add_club(
            session,
            NewClub(name, "legal_entity", inn10(n + 1), ogrn13(n + 1), f"info{n}@river.example", "Europe/Samara"),
            now - at,
        )
        clubs.apply(session, new.id, now - at, provider_configured=n == 0)
        made.setdefault("applying", new.id)
        if n == 0:  # the verify-clubs job asked the registry: two head offices for its INN, a moderator decides
            (candidate,) = [c for c in clubs.claim(session, now - at + timedelta(minutes=5)) if c.club_id == new.id]
            heads = [party(inn10(1), ogrn13(1), name=f"ООО «РИВЕР{s}»") for s in ("", "-ПЛЮС")]
            clubs.record(session, [Check(candidate, answer(*heads))], now - at + timedelta(minutes=5), "dadata", 5)
    blocked = accounts.add(session, "spam@mail.example", now - timedelta(days=2))
    accounts.block(session, blocked, "рассылка спама в чатах кубков", now - timedelta(days=1))
    private = pusoy_setup.create(
        session, name="Кубок друзей", organizer="royal", capacity=8, now=now, organizer_email=ORGANIZER[0],
        private=True,
    )  # fmt: skip
    for cup in (filling, private):
        locales.set_locale(session, "pusoy", cup.id, "ru", now)
    signin.create_token(session, made[ORGANIZER[0]], "Игровой сервер 1", [f"cup:{filling.code}"], now)
    return {"owner_token": made["owner_token"], "applying": made["applying"], "private_cup": private.code}


def owner_sets_up(url: str, made: dict) -> dict:
    """Pik's owner sets up next week's tournament through `/api/v1` as the demo's owner does
    (`OverApi.owner_sets_up`: a structure, the mystery-bounty tournament with its prize lines and mystery
    table, opened), after inviting a floor manager and a cashier, then makes a weekly series of it and a
    token for the desk's tablet, so the audit trail says who did each step. Returns the ids the pages name."""
    from datetime import UTC, datetime
    from zoneinfo import ZoneInfo

    from domain.simulate.rules.owner import NAME, next_week
    from domain.simulate.services.demo import Tokens
    from flows.simulate_api import OverApi

    club = made["club"]
    plan = next_week(datetime.now(UTC), ZoneInfo("Europe/Moscow"))
    api = OverApi(url + "/api/v1", Tokens(None, None, {}, (), owner=made["owner_token"]))
    try:
        for email, role in (("nina@pik.example", "floor"), ("oleg@pik.example", "cashier")):
            api.call("POST", f"/clubs/{club}/invitations", api.tokens.owner, {"email": email, "role": role})
        made_up = api.owner_sets_up(club, plan)
        structure, tournament = made_up["structure"], made_up["tournament"]
        weekly = {"name": NAME, "weekly": {"days": ["fri"], "time": "19:00"}, "from_tournament": tournament}
        series = api.call("POST", f"/clubs/{club}/series", api.tokens.owner, weekly)["id"]
        token = {"email": DESK[0], "name": "Планшет у стола 1", "roles": ["floor"]}
        api.call("POST", f"/clubs/{club}/tokens", api.tokens.owner, token)
        hook = {"url": "https://pik-club.example/hooks/tourney", "events": ["tournament.finished", "documents.ready"]}
        api.call("POST", f"/clubs/{club}/webhooks", api.tokens.owner, hook)
    finally:
        api.close()
    return {"structure": structure, "tournament": tournament, "series": series}


def webhook_deliveries(engine, club_id: int, finished_id: int) -> None:
    """The club's webhook heard three events of the finished tournament: its places and its documents
    delivered (HTTP 200), then its documents again, answered 500 twice and waiting for the next attempt."""
    from datetime import UTC, datetime, timedelta

    from sqlalchemy import update

    from domain.store.db import unit_of_work
    from domain.webhooks.services import outbox
    from domain.webhooks.tables import Delivery

    now = datetime.now(UTC)
    payload = {"source": "poker", "tournament_id": finished_id}
    with unit_of_work(engine) as session:
        for kind, ago, values in (
            ("tournament.finished", timedelta(hours=2), {"delivered_at": now, "attempts": 1, "last_status": 200}),
            ("documents.ready", timedelta(minutes=110), {"delivered_at": now, "attempts": 1, "last_status": 200}),
            ("documents.ready", timedelta(minutes=20), {"attempts": 2, "last_status": 500,
             "last_error": "Internal Server Error", "next_attempt_at": now + timedelta(minutes=4)}),
        ):  # fmt: skip
            event = outbox.emit(session, kind, now - ago, club_id=club_id, organizer=None, payload=payload)
            session.execute(update(Delivery).where(Delivery.event_id == event).values(**values))


def console_pages(made: dict) -> tuple[dict, dict, dict]:
    """The owner's console (signed in as `OWNER`), the operator's queue (`OPERATOR`) and the
    organizer's cups (`ORGANIZER`), by file name; `made` the world's and `owner_sets_up`'s ids."""
    c = f"/club/{made['club']}"

    def money_line(page) -> None:  # SP-4: a prize line naming money, said under the field as it is typed
        page.fill("#prize-lines", "Кубок и вход на главный турнир серии\nВход на турнир клуба\nМедаль и 5 000 р")
        page.wait_for_selector("#prize-check li[data-line='3']")

    return (
        {
            "club.png": c,
            "club-profile.png": f"{c}/profile",
            "club-staff.png": f"{c}/staff",
            "club-structures.png": f"{c}/structures",
            "club-structure.png": f"{c}/structures/{made['structure']}",
            "club-tournaments.png": f"{c}/tournaments",
            "club-tournament.png": f"{c}/tournaments/{made['tournament']}",
            "club-prizes.png": (f"{c}/tournaments/{made['tournament']}#prizes-heading+mystery", money_line),
            "club-series.png": f"{c}/series",
            "club-series-one.png": f"{c}/series/{made['series']}",
            "club-seasons.png": f"{c}/seasons",
            "club-season.png": f"{c}/seasons/{made['season']}",
            "club-documents.png": f"{c}/documents",
            "club-tokens.png": f"{c}/tokens",
            "club-webhooks.png": f"{c}/webhooks",
            "club-audit.png": f"{c}/audit",
        },
        {
            "platform.png": "/platform",
            "platform-clubs.png": "/platform/clubs",
            "platform-club.png": f"/platform/clubs/{made['applying']}",
            "platform-accounts.png": "/platform/accounts?q=example",
        },
        {
            "cups.png": "/cups",
            "cups-cup.png": f"/cups/{made['cup']}",
        },
    )


def player_cups(session, club_id: int, now) -> tuple[str, str]:
    """Two cups of Pik anna plays (their codes): a running one of 16, round 1 played (anna first at her
    table) and round 2 with only anna's table reported; and one of 8 she won."""
    from datetime import timedelta

    from domain.pusoy.services import reports, rounds
    from domain.pusoy.services import setup as pusoy_setup
    from tests.support.world import in_order, seating

    running = pusoy_setup.create(
        session, name="Кубок четверга", organizer="pik", capacity=16, games_per_round=1, now=now, club_id=club_id
    )
    for i, name in enumerate(CUP_FIELD):
        pusoy_setup.join(session, running.code, name, now + timedelta(seconds=i))
    in_order(session, running, 1, "anna", now)
    assert rounds.complete_round(session, running.id, 1, now).outcome == "advanced"
    table, players = next((t, ps) for t, ps in seating(session, running.id, 2).items() if "anna" in ps)
    reports.report(
        session,
        running.code,
        round_no=2,
        table=table,
        game=1,
        finishes=[(p, i) for i, p in enumerate(sorted(players, key=lambda p: (p != "anna", p)), start=1)],
        two_of_diamonds=None,
        now=now,
        by="floor",
    )
    won = pusoy_setup.create(
        session, name="Осенний кубок", organizer="pik", capacity=8, games_per_round=1, now=now, club_id=club_id
    )
    for i, name in enumerate(CUP_PLAYERS):
        pusoy_setup.join(session, won.code, name, now + timedelta(seconds=i))
    for round_no in (1, 2):
        in_order(session, won, round_no, "anna", now)
        rounds.complete_round(session, won.id, round_no, now)
    return running.code, won.code


def player_account(session, upcoming_id: int, now) -> None:
    """anna (the season's Анна Белова) gets an account in Russian with a password, registered for the
    upcoming tournament."""
    from sqlalchemy import select

    from domain.access.services import accounts
    from domain.poker.tables.tournaments import Player, Tournament
    from tests.support import world as w

    anna = session.scalar(select(Player).where(Player.handle == "anna"))
    w.register(session, session.get(Tournament, upcoming_id), False, player_id=anna.id)
    account = accounts.add(session, PLAYER[0], now, player_id=anna.id, locale="ru")
    accounts.set_password(session, bootstrap.password_hasher(), account, PLAYER[1], now)


def desk_tournament(session, tournament_id: int, club_id: int, now) -> dict[str, str]:
    """The seats drawn (three tables of 8 seats), three players arriving at the desk (registered late,
    checked in and seated, owing the buy-in), one settling; then five busts at the last table, one
    shared by two killers, so that table can be broken. The account that takes the desk's pictures
    holds Pik's floor and cashier roles. Says who the pictures' steps name: `busted` (in play, the
    bust begun), `killer` (the first of its two killers)."""
    from sqlalchemy import select

    from domain.access.services import accounts
    from domain.poker.rules.knockouts import Bust
    from domain.poker.services import desk, fees, seating
    from domain.poker.tables.tournaments import Entry, Player
    from tests.support import world as w

    seating.draw_initial(session, tournament_id, now, seed="screenshots")
    for name, handle in (("Вера Менчик", "menchik"), ("Людмила Руденко", "rudenko"), ("Нона Гаприндашвили", "nona")):
        desk.arrive(session, tournament_id, w.player(session, name, handle=handle).id, now)
    fees.settle(session, tournament_id, "nona", "cash", DESK[0], now)
    entries = session.scalars(select(Entry).where(Entry.tournament_id == tournament_id).order_by(Entry.id)).all()
    seats = seating.seats_of(session, [e.id for e in entries])
    last = max(table for table, _ in seats.values())
    here = sorted((e for e in entries if seats[e.id][0] == last), key=lambda e: seats[e.id][1])
    others = sorted((e for e in entries if seats[e.id][0] != last), key=lambda e: seats[e.id])
    room = 8 * (last - 1) - len(others)
    gone = here[: len(here) - room]
    for n, busted in enumerate(gone):
        killers = (others[n].id, others[n + 1].id) if n == 1 else (others[n].id, None)
        desk.knock_out(session, tournament_id, [Bust(busted.id, *killers)], now=now, actor="floor")
    names = {e.id: session.get(Player, e.player_id).name for e in entries}
    account = accounts.add(session, DESK[0], now)
    for role in ("floor", "cashier"):
        accounts.grant(session, account, role, club_id, now)
    accounts.set_password(session, bootstrap.password_hasher(), account, DESK[1], now)
    playing = sorted(e.id for e in others if e.id not in {b.id for b in gone})  # the first two of the list
    return {"busted": names[playing[0]], "killer": names[playing[1]]}


def desk_pages(tournament_id: int, floor: dict[str, str]) -> dict[str, str | tuple[str, Step]]:
    """The desk's pictures: a page, or a page and the step taken on it before the picture (then the
    window as it shows, or the fragment's element)."""
    t = f"/desk/t/{tournament_id}"

    def bust(page) -> None:  # a shared bust under way: the busted player, two killers, the first
        page.get_by_role("button", name=f"Вылет: {floor['busted']}", exact=True).click()
        page.click("#bust-two")
        page.get_by_role("button", name=f"Выбил: {floor['killer']}", exact=True).click()
        page.wait_for_selector("#bust-bar:not([hidden])")
        page.evaluate("window.scrollTo(0, document.getElementById('entries-h').offsetTop - 160)")

    def void(page) -> None:  # the last bust's void, what it will do asked first
        page.click("#void-last")
        page.wait_for_selector("#confirm[open]")

    def settle_all(page) -> None:
        page.click("#settle-all")
        page.wait_for_selector("#confirm[open]")

    def keys(page) -> None:
        page.wait_for_selector('#desk[data-keys="ready"]')
        page.locator("body").press("?")
        page.wait_for_selector("#keys[open]")

    return {
        "desk.png": "/desk",
        "desk-tournament.png": t,
        "desk-bust.png": (t, bust),
        "desk-void.png": (t, void),
        "desk-balancing.png": f"{t}#floor-needs",
        "desk-counter.png": f"{t}#counter",
        "desk-settle-all.png": (t, settle_all),
        "desk-totals.png": f"{t}#totals",
        "desk-keys.png": (t, keys),
    }


def small_png(data: bytes) -> bytes:
    """A palette PNG (the pages are flat colours and text), optimized."""
    from PIL import Image

    image = Image.open(io.BytesIO(data)).convert("RGB")
    out = io.BytesIO()
    image.quantize(colors=64, method=Image.Quantize.MEDIANCUT).save(out, format="PNG", optimize=True)
    return out.getvalue()


def signed_in(page, url: str, who: tuple[str, str]) -> None:
    """The page's browser context signed in as `who` (e-mail, password): `POST /api/v1/session`."""
    signed = page.request.post(url + "/api/v1/session", data={"email": who[0], "password": who[1]})
    assert signed.ok, signed.text()


def settled(page, path: str, timeout: int = 5000) -> None:
    """Waits (each wait at most `timeout` ms) until the page just opened at `path` shows what its scripts
    fetch: the screen's live state, the desk's day and totals, the desk tournament's state and the
    countdown's first tick."""
    if path.endswith("/screen"):
        page.wait_for_selector('#live[data-state="live"]', timeout=timeout)
    if path == "/desk":
        page.wait_for_selector(".day li", timeout=timeout)
        page.wait_for_selector(".totals tbody tr", timeout=timeout)
    if path.startswith("/desk/t/"):
        page.wait_for_selector("#desk[data-version]", timeout=timeout)
        page.wait_for_selector("#totals-table tbody tr", timeout=timeout)  # the day's, a second call
        page.wait_for_timeout(300)  # the countdown's first tick


def take(
    browser,
    url: str,
    pages: dict[str, str | tuple[str, Step]],
    out: Path,
    width: int,
    sign_in: tuple[str, str] | None = None,
) -> list[tuple[str, int]]:
    """Each page of `pages` (file name: path, or path and a step taken on the page first, then the
    window as it shows) opened in `browser` and written into `out`: (name, bytes); `sign_in`:
    (e-mail, password) signed in first (`POST /api/v1/session`), for the desk's pages."""
    written = []
    context = browser.new_context(viewport={"width": width, "height": 700}, locale="ru-RU")
    try:
        page = context.new_page()
        if sign_in:
            signed_in(page, url, sign_in)
        for name, address in pages.items():
            address, step = address if isinstance(address, tuple) else (address, None)
            path, _, part = address.partition("#")  # a fragment: only that element of the page
            page.goto(url + path, wait_until="load")
            settled(page, path)
            if step:
                step(page)
                page.wait_for_timeout(200)  # the dialog's or the bar's first paint
            if part:  # the element (or "first+last": from the first's top to the last's bottom) and a margin
                first, _, last = part.partition("+")
                box = page.locator("#" + first).bounding_box()  # in the window: to the page's place
                if last:
                    end = page.locator("#" + last).bounding_box()
                    right = max(box["x"] + box["width"], end["x"] + end["width"])
                    box["x"] = min(box["x"], end["x"])
                    box["width"], box["height"] = right - box["x"], end["y"] + end["height"] - box["y"]
                top = box["y"] + page.evaluate("window.scrollY")
                x, y = max(0, box["x"] - MARGIN), max(0, top - MARGIN)
                clip = {"x": x, "y": y, "width": min(width, box["x"] + box["width"] + MARGIN) - x,
                        "height": box["height"] + 2 * MARGIN}  # fmt: skip
                data = small_png(page.screenshot(clip=clip, full_page=True))
                (out / name).write_bytes(data)
                written.append((name, len(data)))
                continue
            if step and not part:
                data = small_png(page.screenshot())
                (out / name).write_bytes(data)
                written.append((name, len(data)))
                continue
            height = min(MAX_HEIGHT, page.evaluate("document.documentElement.scrollHeight"))
            shot = page.screenshot(clip={"x": 0, "y": 0, "width": width, "height": height}, full_page=True)
            data = small_png(shot)
            (out / name).write_bytes(data)
            written.append((name, len(data)))
    finally:
        context.close()
    return written


class _Parser(argparse.ArgumentParser):
    def error(self, message: str):  # one line, exit 2, like every command of the project
        print(f"error: {message}", file=sys.stderr)
        sys.exit(2)


def main(argv: list[str]) -> int:
    parser = _Parser(prog="python -m tests.web.screenshots", description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=OUT, help="the folder of the PNGs (default docs/pictures/web)")
    parser.add_argument("--width", type=int, default=1000, help="the pages' width in CSS pixels (default 1000)")
    parser.add_argument(
        "--only", action="append", metavar="NAME", help="take only this PNG (e.g. play.png; repeatable; default all)"
    )
    args = parser.parse_args(argv)
    if not 320 <= args.width <= 3000:
        print(f"error: --width {args.width} must be from 320 to 3000", file=sys.stderr)
        return 2
    from tests.web.conftest import CHROMIUM

    if not Path(CHROMIUM).exists():
        print(
            "error: Debian's chromium is missing: run infra/setup-system.sh (apt-get install chromium)", file=sys.stderr
        )
        return 2
    os.environ.setdefault("TOURNEY_SECRET_KEY", KEY.decode())

    from playwright.sync_api import sync_playwright

    from domain.store.migrate import upgrade
    from domain.store.scratch import scratch_database
    from flows.web.app import create_app
    from tests.support.net import free_port
    from tests.support.web_server import Server
    from tests.web.conftest import CHROMIUM_ARGS

    args.out.mkdir(parents=True, exist_ok=True)
    with scratch_database(bootstrap.server_url(), "screenshots") as db, tempfile.TemporaryDirectory() as tmp:
        os.environ["DATABASE_URL"] = db
        try:
            engine = bootstrap.engine()
            upgrade(engine)
            outbox = Path(tmp) / "outbox"
            outbox.mkdir()
            pictures = world(engine, outbox)
            with Server(create_app(engine, outbox=outbox), free_port()) as server, sync_playwright() as p:
                made = pictures.made | owner_sets_up(server.url, pictures.made)
                webhook_deliveries(engine, made["club"], made["done"])
                club, platform, cups = console_pages(made)
                groups = ((pictures.public, None), (pictures.desk, DESK), (pictures.player, PLAYER), (club, OWNER),
                          (platform, OPERATOR), (cups, ORGANIZER))  # fmt: skip
                browser = p.chromium.launch(
                    executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True, env={**os.environ, "LANGUAGE": "ru"}
                )  # LANGUAGE: the browser's own parts (a date field's mask) in Russian too (chromium-l10n)
                try:
                    written = []
                    for pages, who in groups:
                        chosen = {name: path for name, path in pages.items() if not args.only or name in args.only}
                        written += take(browser, server.url, chosen, args.out, args.width, sign_in=who)
                finally:
                    browser.close()
        finally:
            bootstrap.dispose()
    for name, size in written:
        print(f"{args.out / name}: {size // 1024} KiB")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
