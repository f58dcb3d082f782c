"""Issue 39's "Done when", in Debian's headless Chromium through Playwright against a real server, PostgreSQL
and a real SMTP server, in Russian: the club runs itself.

A new club is listed and applies, its owner and the operator are made and the organizer's role granted by the
operator's CLI; that is the last CLI call. The operator approves the club in `/platform` (CL-3); from then on
the test uses only browsers and the mail server (`flows.cli.app.main` refuses to run, and every audit row after
the approval is a signed-in person's, never the CLI's): the owner sets their password through the letter's
link, invites a floor manager and a cashier by e-mail (each sets a password through their letter's link and
lands at the desk), builds a structure, creates a mystery-bounty tournament with prize lines and a mystery
table and opens it, makes a weekly series of it and a season; the floor registers four walk-ins, starts,
draws a mystery prize and busts down to the champion, the cashier settles everyone at the counter; the places
are right (SP-7); the documents are published by the documents job, the owner downloads the results sheet,
sends the documents again (a second letter to the club's e-mail) and reads in the audit trail who did each
step (AC-3). Then an organizer's cup: created in `/cups`, eight players join in `/play`, its game server
reports every game through `/api/v1` with the token the organizer made, the event consumer completing each
round at its last report (flows/jobs/events.py, as `tourney serve` runs it), to the champion; the results reach
the organizer's e-mail, the organizer downloads them from the cup's page and sends them again (a second letter),
and the champion downloads their certificate (DOC-1). axe-core finds no serious or
critical violation on any page visited."""

from __future__ import annotations

import re
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path
from zoneinfo import ZoneInfo

import httpx
import pytest
from sqlalchemy import select
from sqlalchemy.orm import Session

from domain.access.services import accounts, signin
from domain.access.tables import Account, AuditRecord
from domain.poker.tables.knockouts_places import FinalPlace
from domain.poker.tables.tournaments import Player, Tournament
from domain.pusoy.tables import PusoyTournament
from domain.store.db import unit_of_work
from flows.jobs.documents import publish_documents, send_documents
from flows.web.auth import COOKIE
from tests.clubs_registry_data import inn10, ogrn13
from tests.documents_samples import smtp_inbox
from tests.support import world
from tests.support.axe import serious
from tests.support.cli import j
from tests.support.events import consuming, wait_for
from tests.web.test_api_owner_series import DAY_NAMES
from tests.web.test_club_console import WAIT_MS, _said
from tests.web.test_desk_browser import _ask, _bust, _confirm, _says

MOSCOW = ZoneInfo("Europe/Moscow")
PASSWORD = "a long and fine passphrase"
DOCS = "docs@tuz.example"
WALK_INS = ["Анна Белова", "Борис Гельфанд", "Вера Менчик", "Глеб Орлов"]


@pytest.fixture
def mail(monkeypatch, tmp_path):
    """The real SMTP server every letter goes to (SMTP_URL), the documents' outbox the web server's
    (TOURNEY_HOME/outbox)."""
    with smtp_inbox() as (url, inbox):
        monkeypatch.setenv("SMTP_URL", url)
        monkeypatch.setenv("TOURNEY_HOME", str(tmp_path))
        yield inbox


def _letters(inbox, to: str) -> list:
    return [m for m in inbox.messages if m["To"].lower() == to.lower()]


def _link(inbox, to: str) -> str:
    """The newest letter's link to set a password, read from the mail server (waiting for it)."""
    deadline = time.monotonic() + WAIT_MS / 1000
    while time.monotonic() < deadline:
        for message in reversed(_letters(inbox, to)):
            found = re.search(r"/reset/[A-Za-z0-9_-]+", message.get_content())
            if found:
                return found.group(0)
        time.sleep(0.05)
    raise AssertionError(f"no letter to {to}")


def _context(browser, **options):
    context = browser.new_context(locale="ru-RU", bypass_csp=True, **options)  # axe is injected
    context.set_default_timeout(WAIT_MS)
    page = context.new_page()
    page.errors = []
    page.on(
        "console",
        lambda m: (
            page.errors.append(m.text)
            if m.type == "error" and not m.text.startswith("Failed to load resource")  # a refusal's 409
            else None
        ),
    )
    page.on("pageerror", lambda e: page.errors.append(str(e)))
    page.on("dialog", lambda dialog: dialog.accept())
    return context, page


def _set_password(page, web, inbox, email: str, lands: str) -> None:
    """The letter's link opened, the password chosen twice: signed in, at the person's home."""
    page.goto(web.url + _link(inbox, email))
    assert serious(page) == []
    page.fill("#password", PASSWORD)
    page.fill("#repeated", PASSWORD)
    page.click("button[type=submit]")
    page.wait_for_url(f"{web.url}{lands}")


def _no_cli_from_here(monkeypatch) -> None:
    """From here on no `tourney` command may run in this process."""

    def refused(*args, **kwargs):
        raise AssertionError("a CLI call after the operator approved the club")

    monkeypatch.setattr("flows.cli.app.main", refused)


def _documents_job() -> None:
    """What the documents job does when a tournament is over (the event consumer starts a `publish-results`
    run at `tournament.finished`; no runner serves deployments here, so its two tasks run in this process):
    every finished tournament's results sheet and certificates rendered, signed and stored, then every due
    delivery sent by SMTP."""
    now = datetime.now(UTC)
    publish_documents.fn(now)
    send_documents.fn(now)


def _did(page) -> set[tuple[str, str]]:
    """The audit trail's page as (action, who) pairs, once it is shown (a click on its link only starts
    the load: read at once, the page before had no trail, an empty set)."""
    rows = page.locator("#trail tbody tr")
    rows.first.wait_for()
    return {(row.locator("td").nth(2).inner_text(), row.locator("td").nth(1).inner_text()) for row in rows.all()}


def _trail_after(engine, first: int) -> set[tuple[str, str]]:
    """Who made the changes after audit row `first`: (the actor's kind, their account's e-mail)."""
    with Session(engine) as session:
        return set(
            session.execute(
                select(AuditRecord.actor_kind, Account.email)
                .outerjoin(Account, Account.id == AuditRecord.account_id)
                .where(AuditRecord.id > first)
            ).all()
        )


def test_issue_39_a_new_club_runs_a_tournament_from_the_browser_alone(committed, web, browser, mail, monkeypatch):
    """Issue 39 (CL-3, AC-1, AC-3, SP-4, SP-7, SP-11, LG-1, DOC-1): see the module."""
    owner, floor, cashier, operator = (
        "owner@tuz.example",
        "floor@tuz.example",
        "cashier@tuz.example",
        "op@tourney.example",
    )
    club = j("club", "add", "Туз", "--inn", inn10(39), "--ogrn", ogrn13(39), "--email", DOCS,
             "--timezone", "Europe/Moscow")["id"]  # fmt: skip
    j("user", "add", owner, "--club", str(club), "--role", "owner")
    j("user", "add", operator, "--role", "operator")
    assert j("club", "apply", str(club))["verification_status"] == "pending"

    op_ctx, page = _context(browser)
    try:  # the operator approves the application in the queue
        _set_password(page, web, mail, operator, "/platform")
        application = page.locator(f"li.application[data-club='{club}']")
        application.locator("input[name=reason]").first.fill("Выписка ЕГРЮЛ сверена")
        application.locator("button", has_text="Одобрить").click()
        _said(page, "Одобрено: клуб проверен.")
        assert serious(page) == []
    finally:
        op_ctx.close()
    with Session(committed) as session:
        approved = session.scalar(select(AuditRecord.id).order_by(AuditRecord.id.desc()).limit(1))
    _no_cli_from_here(monkeypatch)

    start = (datetime.now(UTC) + timedelta(minutes=30)).astimezone(MOSCOW).replace(second=0, microsecond=0)
    owner_ctx, page = _context(browser, accept_downloads=True)
    floor_ctx, desk = _context(browser)
    cashier_ctx, counter = _context(browser)
    try:
        # the owner's letter (sent when the operator made the account) sets the password: the console
        _set_password(page, web, mail, owner, f"/club/{club}")
        assert page.locator("h1").inner_text().startswith("Сегодня в клубе")
        assert serious(page) == []

        # the staff: a floor manager and a cashier invited by e-mail
        page.click("nav.console-nav >> text=Команда")
        for email, role in ((floor, "floor"), (cashier, "cashier")):
            page.fill("#invite-email", email)
            page.select_option("#invite-role", role)
            page.click("#invite button[type=submit]")
            page.locator("#staff", has_text=email).wait_for()
        assert serious(page) == []

        # a blind structure of three levels
        page.click("nav.console-nav >> text=Структуры блайндов")
        assert serious(page) == []
        page.fill("#name", "Турбо")
        page.select_option("#ante_type", "bb_ante")
        for n, (small, big) in enumerate(((100, 200), (200, 400), (300, 600)), 1):
            page.fill(f"input[name=sb_{n}]", str(small))
            page.fill(f"input[name=bb_{n}]", str(big))
            page.fill(f"input[name=ante_{n}]", str(big))
            page.fill(f"input[name=min_{n}]", "20")
        page.click("#new-structure button[type=submit]")
        _said(page, "Создано.")
        assert "3 уровня" in page.locator("main").inner_text()
        assert serious(page) == []
        sid = page.url.split("/structures/")[1].split("?")[0]

        # a mystery-bounty tournament, its prize lines (a money line said at once) and its mystery table
        page.click("nav.console-nav >> text=Турниры")
        assert serious(page) == []
        page.fill("#name", "Пятница в Тузе")
        page.fill("#scheduled_start", start.strftime("%Y-%m-%dT%H:%M"))
        page.select_option("#structure_id", sid)
        page.fill("#starting_stack", "20000")
        page.fill("#buy_in", "1 000")
        page.select_option("#bounty_type", "mystery")
        page.click("#new-tournament button[type=submit]")
        _said(page, "Создано.")
        tid = int(page.url.split("/tournaments/")[1].split("?")[0])
        page.check("#mystery_draw")
        page.fill("#mystery_phase", "start")
        page.click("#save-settings")
        _said(page, "Сохранено.")
        page.fill("#prize-lines", "Кубок\n1 000 ₽")
        page.wait_for_selector("#prize-check li[data-line='2']")
        assert "называет деньги" in page.locator("#prize-check").inner_text()
        page.fill("#prize-lines", "Кубок\nМедаль")
        page.wait_for_function("() => document.getElementById('prize-lines').getAttribute('aria-invalid') === 'false'")
        page.click("#save-prizes")
        _said(page, "Сохранено.")
        page.fill("#mystery-lines", "Худи клуба\nКепка")
        page.wait_for_function(
            "() => document.getElementById('mystery-lines').getAttribute('aria-invalid') === 'false'"
        )
        page.click("#save-mystery")
        _said(page, "Сохранено.")
        page.click("#open")
        _said(page, "Регистрация открыта.")
        assert serious(page) == []

        # a weekly series made like it, and a season
        page.click("nav.console-nav >> text=Серии")
        assert serious(page) == []
        page.fill("#name", "Пятницы")
        page.select_option("#from_tournament", str(tid))
        page.check(f"#day_{DAY_NAMES[start.weekday()]}")
        page.fill("#time", "19:00")
        page.click("#new-series button[type=submit]")
        _said(page, "Создано.")
        assert page.locator("#next time").count() >= 1
        assert serious(page) == []
        page.click("nav.console-nav >> text=Сезоны")
        assert serious(page) == []
        today = datetime.now(UTC).astimezone(MOSCOW).date()
        page.fill("#name", "Зима")
        page.fill("#from", (today - timedelta(days=1)).isoformat())
        page.fill("#to", (today + timedelta(days=60)).isoformat())
        page.select_option("#formula", "table")
        page.fill("#table", "10 6 3")
        page.click("#new-season button[type=submit]")
        _said(page, "Создано.")
        season_url = page.url.split("?")[0]
        assert serious(page) == []

        # the floor and the cashier set their passwords through their letters: both land at the desk
        _set_password(desk, web, mail, floor, "/desk")
        _set_password(counter, web, mail, cashier, "/desk")
        assert serious(desk) == []
        desk.click(f'a[href="/desk/t/{tid}"]')
        counter.goto(f"{web.url}/desk/t/{tid}")
        for tablet in (desk, counter):
            tablet.wait_for_selector('#desk[data-live="live"]')

        # four walk-ins registered and checked in, the start (seats by lot), a mystery draw, busts to one
        for n, name in enumerate(WALK_INS, 1):
            desk.get_by_label("Полное имя", exact=True).fill(name)
            desk.get_by_label("Ник", exact=True).fill(f"tuz{n}")
            desk.get_by_label("Дата рождения", exact=True).fill("1990-02-16")
            desk.locator("#walk-in button").click()
            _says(desk, f"{name} отмечен(а); долг 1\xa0000,00\xa0₽.")
        assert serious(desk) == []
        desk.click("#start-tournament")
        _confirm(desk)
        _says(desk, "Турнир начат: места разыграны.")
        champion = WALK_INS[0]
        _bust(desk, WALK_INS[3], champion)
        _ask(desk, desk.get_by_role("button", name="Мистери-розыгрыш #1"))
        desk.click("#confirm-yes")
        desk.locator("#desk-message", has_text=f"Розыгрыш № 1: {champion} получает «").wait_for()
        _bust(desk, WALK_INS[2], champion)
        _bust(desk, WALK_INS[1], champion)
        desk.wait_for_function("() => document.getElementById('t-players').textContent === 'в игре: 1'")
        _ask(desk, desk.locator("#finish"))
        _confirm(desk, "Завершить турнир? Места и призы станут окончательными. Это нельзя отменить.")
        _says(desk, "Турнир завершён.")
        assert serious(desk) == []

        # the counter settles every debt at once
        counter.wait_for_function("() => document.getElementById('t-status').textContent === 'завершён'")
        counter.get_by_role("button", name="Рассчитать всех").click()
        _confirm(counter)
        _says(counter, "Рассчитаны все должники (игроков: 4): 4\xa0000,00\xa0₽.")
        assert serious(counter) == []
        with Session(committed) as session:
            places = dict(
                session.execute(
                    select(Player.name, FinalPlace.place)
                    .join(FinalPlace, FinalPlace.player_id == Player.id)
                    .where(FinalPlace.tournament_id == tid)
                ).all()
            )
            assert session.get(Tournament, tid).status == "finished"
        assert places == {WALK_INS[0]: 1, WALK_INS[1]: 2, WALK_INS[2]: 3, WALK_INS[3]: 4}  # SP-7

        # the season counts it
        page.goto(season_url)
        page.check(f"#tournament-{tid}")
        page.click("#add")
        _said(page, "Добавлено в сезон.")
        rows = page.locator("#standings tbody tr")
        assert [rows.nth(n).locator("td").nth(2).inner_text() for n in range(rows.count())] == [
            "10,00",
            "6,00",
            "3,00",
            "0,00",
        ]
        assert serious(page) == []

        # the documents: published by their job and mailed to the club; downloaded and sent again
        _documents_job()
        letters = [(m["Subject"], sorted(p.get_filename() for p in m.iter_attachments())) for m in _letters(mail, DOCS)]
        certificates = [f"certificate-SP-{tid:06d}-0{n}.pdf" for n in (1, 2)]  # the two prize places (DOC-1)
        assert letters == [
            ("Results: Пятница в Тузе", [*certificates, "results.pdf"]),
            ("Season standings: Зима after Пятница в Тузе", [f"standings-after-{tid}.pdf"]),
        ]
        page.click("nav.console-nav >> text=Документы")
        section = page.locator(f"section.documents[data-tournament='{tid}']").filter(has_not_text="Зима")
        assert section.locator(".delivery").inner_text().startswith("покер · отправлены на docs@tuz.example, ")
        assert serious(page) == []
        with page.expect_download() as download:
            section.locator("a", has_text="итоги").click()
        assert Path(download.value.path()).read_bytes()[:5] == b"%PDF-"
        assert section.locator("a", has_text="сертификат").count() >= 1
        section.locator("button").click()
        _said(page, "Документы будут отправлены ещё раз на почту клуба.")
        _documents_job()
        first, again = (m for m in _letters(mail, DOCS) if m["Subject"] == "Results: Пятница в Тузе")
        assert first["Message-ID"] != again["Message-ID"]  # a new message, not a retry of the first

        # the audit trail: who did each step, the club's and the tournament's
        page.click("nav.console-nav >> text=Журнал действий")
        assert {
            ("club.invite", owner), ("club.add-structure", owner), ("club.create-tournament", owner),
            ("club.add-series", owner), ("club.add-season", owner), ("club.add-to-season", owner),
            ("club.resend-documents", owner),
        } <= _did(page)  # fmt: skip
        assert serious(page) == []
        page.fill("#f-tournament", str(tid))
        page.click("text=Показать")
        page.wait_for_url("**tournament=**")
        assert _did(page) == {
            ("club.edit-tournament", owner), ("club.set-prizes", owner), ("club.set-mystery-table", owner),
            ("club.open-tournament", owner), ("desk.arrive", floor), ("poker.start", floor), ("desk.bust", floor),
            ("desk.mystery-draw", floor), ("poker.finish", floor), ("desk.settle-all", cashier),
        }  # fmt: skip
        assert serious(page) == []
        for tablet in (page, desk, counter):
            assert tablet.errors == []
    finally:
        for context in (owner_ctx, floor_ctx, cashier_ctx):
            context.close()
    assert _trail_after(committed, approved) == {("person", owner), ("person", floor), ("person", cashier)}


HANDLES = [f"cup{n}" for n in range(8)]
CHAMPION = "cup5"


def _cup_players(engine) -> dict[str, str]:
    """Eight players of the platform with accounts, each signed in on a device of their own (a session)."""
    now = datetime.now(UTC)
    with unit_of_work(engine) as session:
        sessions = {}
        for handle in HANDLES:
            player = world.player(session, f"Игрок {handle}", handle=handle)
            account = accounts.add(session, f"{handle}@example.org", now, player_id=player.id)
            sessions[handle] = signin.start_session(session, account.id, now, address="127.0.0.1", agent="tests")
        return sessions


def _cup_status(engine, code: str) -> str:
    with Session(engine) as session:
        return session.scalar(select(PusoyTournament.status).where(PusoyTournament.code == code))


def _report_round(web, token: str, code: str, round_no: int) -> dict:
    """The game server reads the round's tables from the public API (once the event consumer has seated
    them) and reports each table's one game, the champion first where they sit; the answer of the round's
    last report."""
    headers = {"authorization": f"Bearer {token}"}
    with httpx.Client(base_url=f"{web.url}/api/v1", timeout=60, headers=headers) as client:
        seated = 8 if round_no == 1 else 4

        def tables() -> list[dict]:
            shown = client.get(f"/public/cups/{code}").json()["tables"]
            return [t for t in shown if t["playoff"] == 0 and sum(len(x["players"]) for x in shown) == seated]

        assert wait_for(tables)
        for table in tables():
            order = sorted(table["players"], key=lambda p: (p != CHAMPION, p))
            body = {"round": round_no, "table": table["table"], "game": 1, "finishes": order}
            answer = client.post(f"/pusoy/{code}/reports", json=body)
            assert answer.status_code == 200, answer.text
    return answer.json()


def test_issue_39_an_organizer_runs_a_cup_from_the_browser_alone(committed, web, browser, mail, monkeypatch):
    """Issue 39 (PD-1, PD-4, PD-11, AC-1, AC-3, DOC-1): see the module."""
    organizer = "org@cups.example"
    j("user", "add", organizer, "--role", "organizer")
    sessions = _cup_players(committed)
    with Session(committed) as session:
        granted = session.scalar(select(AuditRecord.id).order_by(AuditRecord.id.desc()).limit(1))
    _no_cli_from_here(monkeypatch)

    auth = world.web_auth()
    org_ctx, page = _context(browser, accept_downloads=True)
    contexts = [org_ctx]
    try:
        # the organizer's letter sets the password: their cups; a cup of 8, one game a round, open
        _set_password(page, web, mail, organizer, "/cups")
        assert serious(page) == []
        page.fill("#name", "Зимний кубок")
        page.select_option("#capacity", "8")
        page.select_option("#games_per_round", "1")
        page.check("#open")
        page.select_option("#locale", "ru")
        page.click("#new-cup button[type=submit]")
        _said(page, "Создано")
        assert page.locator("#bracket").inner_text().startswith("8 → 4")
        code = page.locator("#code").inner_text()
        page.fill("#token-name", "игровой сервер")
        page.click("#new-token-form button[type=submit]")
        token = page.locator("#token-secret").input_value()
        token_id = page.locator("#tokens tbody tr").first.get_attribute("data-token")
        assert serious(page) == []

        # eight players join from the list on /play; the eighth join starts the cup (PD-4)
        players = {}
        for handle in HANDLES:
            context, player = _context(browser, accept_downloads=True)
            contexts.append(context)
            context.add_cookies([{"name": COOKIE, "value": auth.cookie(sessions[handle]), "url": web.url}])
            player.goto(f"{web.url}/play")
            if handle == HANDLES[0]:
                assert serious(player) == []
            player.click(f'tr[data-code="{code}"] button.join')
            player.wait_for_url(f"{web.url}/play/{code}")
            players[handle] = player
        assert serious(players[HANDLES[0]]) == []
        page.reload()
        assert page.locator("#entrants").inner_text() == "занято мест: 8 из 8"

        # the game server reports every game through /api/v1 to the champion; the event consumer completes
        # each round at its last report (as `tourney serve` runs it)
        with consuming():
            for round_no in (1, 2):
                assert _report_round(web, token, code, round_no)["round_ready"] is True
            assert wait_for(lambda: _cup_status(committed, code) == "complete")
        page.reload()
        assert page.locator("#champion").inner_text() == CHAMPION
        assert serious(page) == []

        # the documents: the results to the organizer's e-mail, the champion's certificate on /play
        _documents_job()
        (letter,) = _letters(mail, organizer)[1:]  # after the letter that set the password
        with Session(committed) as session:
            tid = session.scalar(select(PusoyTournament.id).where(PusoyTournament.code == code))
        assert sorted(p.get_filename() for p in letter.iter_attachments()) == [
            f"certificate-PD-{tid:06d}-01.pdf", "results.pdf",
        ]  # fmt: skip
        # the organizer downloads the results from the cup's page and sends the documents again
        page.reload()
        assert page.locator("p.delivery").inner_text() == f"отправлены на {organizer}"
        with page.expect_download() as download:
            page.locator("#cup-files a", has_text="итоги").click()
        assert Path(download.value.path()).read_bytes()[:5] == b"%PDF-"
        page.click("#resend")
        _said(page, "Документы будут отправлены ещё раз.")
        assert serious(page) == []
        _documents_job()
        first, again = _letters(mail, organizer)[1:]
        assert first["Message-ID"] != again["Message-ID"]  # a new message, not a retry of the first
        page.reload()  # the cup's trail: who did each step (AC-3)
        did = {(row[2], row[1]) for row in page.locator("#trail tbody tr").evaluate_all(
            "rows => rows.map(r => [...r.cells].map(c => c.innerText.trim()))")}  # fmt: skip
        assert {
            ("cups.create", organizer), ("cups.create-token", organizer), ("cups.resend-documents", organizer),
            ("round-completed", "job:events"), *(("pusoy.join", f"{h}@example.org") for h in HANDLES),
            ("pusoy.report", f"token {token_id} (игровой сервер) of {organizer}"),
        } <= did, sorted(did)  # fmt: skip
        champion = players[CHAMPION]
        champion.goto(f"{web.url}/play")
        with champion.expect_download() as download:
            champion.locator("#mine a.certificate").click()
        assert Path(download.value.path()).read_bytes()[:5] == b"%PDF-"
        assert serious(champion) == []
        for shown in (page, *players.values()):
            assert shown.errors == []
    finally:
        for context in contexts:
            context.close()
    assert _trail_after(committed, granted) == {
        ("person", organizer),
        *(("person", f"{h}@example.org") for h in HANDLES),
        ("token", organizer),  # the game server's reports, by the token the organizer made
        ("system", None),  # the rounds completed at their last report
    }
