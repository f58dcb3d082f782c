"""The public pages over real HTTP (uvicorn on loopback) and the real PostgreSQL: contents,
security headers, hostile input, the rate limit, calendars and certificate checks."""

from __future__ import annotations

import json
import os
import re
from datetime import timedelta

import httpx

from domain.pusoy.services import reports as pusoy_reports
from domain.pusoy.services import rounds as pusoy_rounds
from domain.pusoy.services import setup as pusoy_setup
from domain.pusoy.services import views as pusoy_views
from tests.support import world


def test_sp_8_the_screen_shows_level_blinds_players_itm_and_prizes(committed, http):
    """SP-8, SP-3, DOC-4: in the club's language (Pik chose none: Russian), prize places never "paid"."""
    t = world.running_poker(committed, players=12, name="Friday <b>Deep</b>")
    r = http.get(f"/t/{t['id']}/screen")
    assert r.status_code == 200
    body = r.text
    assert '<html lang="ru">' in body
    assert 'id="level" class="level">Уровень 1<' in body and 'id="blinds" class="blinds">100 / 200<' in body
    assert "Friday &lt;b&gt;Deep&lt;/b&gt;" in body and "<b>Deep</b>" not in body
    assert 'id="players">Осталось 12 игроков из 12 входов<' in body
    assert 'id="prize-places">2 призовых места<' in body  # 15 % of 12 = 1.8 → 2
    assert 'id="itm" class="itm">10 вылетов до призовых мест<' in body
    assert "Cup and a free entry" in body
    assert not any(word in body.lower() for word in ("paid", "money", "bubble", "level 1", "оплач", "денег"))
    assert '<script src="/static/screen.js"' in body and "<script>" not in body
    csp = r.headers["content-security-policy"]
    assert "script-src 'self'" in csp and "unsafe-inline" not in csp
    assert r.headers["x-content-type-options"] == "nosniff"


def test_sp_8_the_event_stream_sends_the_state_at_once(committed, web):
    t = world.running_poker(committed, players=3)
    with httpx.Client(base_url=web.url, timeout=10) as client:
        with client.stream("GET", f"/t/{t['id']}/events") as r:
            assert r.headers["content-type"].startswith("text/event-stream")
            for line in r.iter_lines():
                if line.startswith("data: "):
                    state = json.loads(line[6:])
                    break
    assert state["clock"]["level"] == 1 and state["clock"]["status"] == "running"
    assert state["players_left"] == 3 and state["clock"]["level_ends_at"]
    assert state["clock"]["counts_to"] == state["clock"]["level_ends_at"]
    assert state["text"]["level"] == "Уровень 1" and state["text"]["players"] == "Осталось 3 игрока из 3 входов"


# -- certificates (DOC-5) ----------------------------------------------------------------------------


def _published(engine, tmp_path):
    from domain.documents.rules.model import Bundle
    from domain.documents.services.publish import publish
    from domain.store.db import unit_of_work
    from infra.render import Renderer
    from tests.documents_samples import poker_sheet

    with Renderer(os.environ["TOURNEY_SECRET_KEY"].encode()) as renderer, unit_of_work(engine) as session:
        outcome = publish(
            session, renderer, tmp_path, Bundle(poker_sheet(players=6, paid=2), club_id=12, recipient=None), world.now()
        )
    from pathlib import Path

    return Path(outcome["folder"])


def test_doc_5_the_qr_code_opens_the_verification_page_which_says_valid(committed, web, http, tmp_path, monkeypatch):
    """DOC-5: the QR code holds exactly TOURNEY_PUBLIC_URL/verify/<serial>?code=…; that page says valid"""
    from domain.documents.rules.model import poker_certificates
    from infra.render import certificate_order, verification_url
    from tests.documents_samples import poker_sheet

    monkeypatch.setenv("TOURNEY_PUBLIC_URL", web.url)
    folder = _published(committed, web.outbox)
    cert = poker_certificates(poker_sheet(players=6, paid=2))[0]
    order = certificate_order(cert, os.environ["TOURNEY_SECRET_KEY"].encode(), web.url)
    embedded = order.embedded
    from domain.documents.rules.signing import verification_code

    url = verification_url(web.url, cert.serial, verification_code(embedded["signature"]))
    assert url.startswith(f"{web.url}/verify/{cert.serial}?code=")
    assert order.url == url  # what the stamped QR code encodes (its pixels: test_documents_locale)
    r = httpx.get(url)
    assert r.status_code == 200 and 'id="verdict">Valid' in r.text
    assert "&lt;b&gt;Иван&lt;/b&gt;" in r.text and "<b>Иван</b>" not in r.text  # the player, escaped
    assert 'id="place">1st place<' in r.text and 'id="held-on">November 27, 2026<' in r.text  # signed, stored PDF
    assert '<html lang="en">' in r.text  # the certificate's own language
    altered = url[:-1] + ("A" if url[-1] != "A" else "B")
    r = httpx.get(altered, headers={"accept-language": "en-GB,en;q=0.9"})
    assert r.status_code == 200 and "Not valid" in r.text and "does not match" in r.text
    r = http.get("/verify/SP-999999-01?code=ABCD-EFGH")  # no language asked: Russian
    assert "Недействителен." in r.text and "Tourney не выдавал сертификат с этим номером" in r.text
    assert folder.is_dir()


def test_doc_5_an_uploaded_pdf_is_checked_and_an_altered_one_is_not_valid(committed, web, http):
    folder = _published(committed, web.outbox)
    data = (folder / "certificate-SP-000042-01.pdf").read_bytes()
    r = http.post("/verify/SP-000042-01", files={"file": ("c.pdf", data, "application/pdf")})
    assert r.status_code == 200 and "Valid: the file is the signed certificate" in r.text, r.text[
        r.text.find("<main") :
    ][:1500]
    main = r.text[r.text.index("<dl>") : r.text.index("</dl>")]
    labels = re.findall(r"<dt>(.*?)</dt>", main)
    assert labels == ["Player", "Tournament", "Club", "Title", "Place", "Prize", "Held on", "Serial"]  # no raw field
    assert 'id="place">1st place<' in main and 'id="held-on">November 27, 2026<' in main
    assert not any(raw in main for raw in ("held_on", "locale", "source", "tournament_id"))
    changed = bytearray(data)
    at = changed.index(b"/Producer") if b"/Producer" in changed else len(changed) // 2
    changed[at + 2] ^= 1
    r = http.post(
        "/verify/SP-000042-01",
        files={"file": ("c.pdf", bytes(changed), "application/pdf")},
        headers={"accept-language": "en"},
    )
    assert r.status_code == 200 and "Not valid" in r.text and "the file was changed after it was signed" in r.text
    r = http.post("/verify/SP-000042-01", files={"file": ("c.pdf", bytes(changed), "application/pdf")})
    assert "Недействителен." in r.text and "файл изменён после подписания" in r.text
    r = http.post("/verify/SP-000042-02", files={"file": ("c.pdf", data, "application/pdf")})
    assert "Not valid" in r.text and "the file is the certificate SP-000042-01, not SP-000042-02" in r.text
    r = http.post("/verify/SP-000042-01", content=b"junk", headers={"content-type": "multipart/form-data"})
    assert r.status_code == 400 and "Traceback" not in r.text
    import socket

    host, port = web.url.removeprefix("http://").split(":")
    with socket.create_connection((host, int(port)), timeout=10) as raw:  # declares 11 MB, sends none
        raw.sendall(
            b"POST /verify/SP-000042-01 HTTP/1.1\r\nHost: x\r\nContent-Length: 11534336\r\n"
            b"Content-Type: multipart/form-data; boundary=b\r\n\r\n"
        )
        assert raw.recv(200).startswith(b"HTTP/1.1 413")


def test_doc_5_the_verify_form_is_labelled_and_leads_to_the_check(committed, web, http, monkeypatch):
    """DOC-5: `/verify` (the address a certificate prints for typing) is a form with a labelled serial
    and code; filled in, it leads to the check of that serial; a malformed serial or code is said
    plainly beside the form (400), never a trace."""
    from domain.documents.rules.model import poker_certificates
    from domain.documents.rules.signing import verification_code
    from infra.render import certificate_order
    from tests.documents_samples import poker_sheet

    monkeypatch.setenv("TOURNEY_PUBLIC_URL", web.url)
    _published(committed, web.outbox)
    r = http.get("/verify")
    assert r.status_code == 200 and '<html lang="ru">' in r.text
    assert '<form method="get" action="/verify" class="check">' in r.text
    assert '<label for="serial">Номер</label>' in r.text and 'id="serial" name="serial"' in r.text
    assert '<label for="code">Код проверки</label>' in r.text and 'id="code" name="code"' in r.text
    assert 'aria-describedby="serial-hint"' in r.text and 'aria-describedby="code-hint"' in r.text
    assert '<a class="nav" href="/verify">Проверить сертификат</a>' in http.get("/").text  # on every page
    english = http.get("/verify", headers={"accept-language": "en-GB,en;q=0.8,ru;q=0.5"})
    assert '<label for="serial">Serial</label>' in english.text and '<html lang="en">' in english.text

    cert = poker_certificates(poker_sheet(players=6, paid=2))[0]
    code = verification_code(
        certificate_order(cert, os.environ["TOURNEY_SECRET_KEY"].encode(), web.url).embedded["signature"]
    )
    r = http.get("/verify", params={"serial": f" {cert.serial} ", "code": code.lower()})
    assert r.status_code == 303 and r.headers["location"] == f"/verify/{cert.serial}?code={code}"
    r = http.get("/verify", params={"serial": cert.serial, "code": code.lower()}, follow_redirects=True)
    assert r.status_code == 200 and 'id="verdict">Valid' in r.text
    bad = http.get("/verify", params={"serial": "<script>", "code": code})
    assert bad.status_code == 400 and 'role="alert">Это не номер сертификата' in bad.text
    assert 'id="serial" name="serial" value="&lt;script&gt;"' in bad.text and "<script>" not in bad.text
    assert 'aria-invalid="true"' in bad.text
    bad = http.get("/verify", params={"serial": cert.serial, "code": "nope"})
    assert bad.status_code == 400 and "Это не код проверки" in bad.text


def test_doc_4_a_russian_certificate_s_check_is_in_russian_with_its_fields_named(committed, web, http):
    """DOC-4, DOC-5: the check of a Russian certificate speaks Russian and names each field; never a
    raw field name (held_on, locale, source, tournament_id)."""
    from domain.documents.rules.model import Bundle, poker_certificates
    from domain.documents.rules.signing import verification_code
    from domain.documents.services.publish import publish
    from domain.documents.tables import Document
    from domain.store.db import unit_of_work
    from infra.render import Renderer
    from tests.documents_samples import poker_sheet

    sheet = poker_sheet(players=4, paid=2, locale="ru")
    with Renderer(os.environ["TOURNEY_SECRET_KEY"].encode()) as renderer, unit_of_work(committed) as session:
        publish(session, renderer, web.outbox, Bundle(sheet, club_id=12, recipient=None), world.now())
        serial = poker_certificates(sheet)[1].serial
        signature = session.query(Document.signature).filter(Document.serial == serial).scalar()
    r = http.get(f"/verify/{serial}?code={verification_code(signature)}", headers={"accept-language": "en"})
    assert r.status_code == 200 and '<html lang="ru">' in r.text  # the certificate's language, not the browser's
    main = r.text[r.text.index("<dl>") : r.text.index("</dl>")]
    assert re.findall(r"<dt>(.*?)</dt>", main) == [
        "Игрок",
        "Турнир",
        "Клуб",
        "Звание",
        "Место",
        "Приз",
        "Дата турнира",
        "Номер",
        "Код проверки",
        "Выдан",
    ]
    assert 'id="title">Призёр<' in main and 'id="place">2-е место<' in main and 'id="held-on">27 ноября 2026' in main
    assert "Действителен" in r.text and not any(raw in r.text for raw in ("held_on", "tournament_id", ">source<"))


# -- the front page, Pusoy Dos, privacy and the rate limit (PD-3) ----------------------------------------


def test_doc_4_the_front_page_gives_each_start_in_its_club_s_time(committed, http):
    """DOC-4: a Moscow club's start in Moscow time, labelled as the club's time (never UTC); the page
    of no club in the language the browser asks for, Russian when it asks for none."""
    from zoneinfo import ZoneInfo

    from infra import i18n

    t = world.upcoming_poker(committed, timedelta(hours=2), name="Суббота")
    moscow = t["start"].astimezone(ZoneInfo("Europe/Moscow"))
    r = http.get("/")
    assert '<html lang="ru">' in r.text and "<th>Старт (время клуба)</th>" in r.text and "UTC" not in r.text
    row = r.text[r.text.index(f'<a href="/t/{t["id"]}">') :]
    row = row[: row.index("</tr>")]
    assert f"<td>{i18n.day_and_time(moscow, 'ru')}</td><td>идёт регистрация</td>" in row
    assert f"{moscow:%H:%M}" in row
    english = http.get("/", headers={"accept-language": "en-US,en;q=0.9"}).text
    assert "<th>Start (the club's time)</th>" in english
    assert f"<td>{i18n.day_and_time(moscow, 'en')}</td><td>registration open</td>" in english


def _pusoy(engine, *, private: bool, capacity: int = 8, fill: bool = False, name: str = "Cup") -> str:
    from datetime import timedelta

    from domain.store.db import unit_of_work

    with unit_of_work(engine) as session:
        t = pusoy_setup.create(
            session,
            name=name,
            organizer="org",
            capacity=capacity,
            now=world.now(),
            private=private,
            organizer_email="secret-organizer@example.org",
        )
        if fill:
            for i in range(capacity):
                pusoy_setup.join(session, t.code, f"u{i:02d}", world.now() + timedelta(seconds=i))
        return t.code


def test_pd_3_the_front_page_lists_open_tournaments_but_never_a_private_one(committed, http):
    """PD-3"""
    poker = world.running_poker(committed, players=3, name="Open <script>x</script> Night")
    public = _pusoy(committed, private=False, name="Public cup")
    private = _pusoy(committed, private=True, name="Private cup")
    r = http.get("/")
    assert r.status_code == 200
    assert f'href="/t/{poker["id"]}"' in r.text and "Open &lt;script&gt;x&lt;/script&gt; Night" in r.text
    assert public in r.text and "Public cup" in r.text
    assert private not in r.text and "Private cup" not in r.text
    r = http.get(f"/p/{private}")  # the link with its join code opens it
    assert r.status_code == 200 and "Private cup" in r.text
    assert "secret-organizer" not in r.text


def test_pd_a_pusoy_page_shows_tables_and_live_standings(committed, http):
    from domain.store.db import unit_of_work

    code = _pusoy(committed, private=False, fill=True)
    with unit_of_work(committed) as session:
        tables = pusoy_views.show(session, code)["tables"]
        first = tables["table 1"]
        pusoy_reports.report(
            session,
            code,
            round_no=1,
            table=1,
            game=1,
            finishes=[(p, i) for i, p in enumerate(first, start=1)],
            two_of_diamonds=None,
            now=world.now(),
            by="floor",
        )
    r = http.get(f"/p/{code.lower()}")
    assert r.status_code == 200
    assert "Table 1" in r.text and "Table 2" in r.text and "Round 1" in r.text  # no club: English
    assert f"<td>{first[0]}</td><td>3</td>" in r.text  # a win is 3 points (PD-6)
    fragment = http.get(f"/p/{code}?fragment=1")
    assert fragment.status_code == 200 and "<html" not in fragment.text


def test_join_code_look_ups_are_rate_limited_per_client(committed, http):
    code = _pusoy(committed, private=True)
    guesses = ["ZZZZZ" + c for c in "23456789AB"]
    answers = [http.get(f"/p/{g}").status_code for g in guesses[:9]]
    assert answers == [404] * 9
    assert http.get(f"/p/{code}").status_code == 200  # the 10th code in the minute
    assert http.get(f"/p/{guesses[9]}").status_code == 429
    assert http.get(f"/p/{code}").status_code == 200  # the same code again costs nothing
    r = http.get("/p/QQQQQQ", headers={"accept-language": "en-US"})
    assert r.status_code == 429 and "Too many" in r.text
    r = http.get("/p/QQQQQQ")  # no language asked: Russian
    assert r.status_code == 429 and "Слишком много запросов" in r.text


# -- the club's calendar ------------------------------------------------------------------------------


def test_the_club_calendar_parses_with_icalendar_in_the_club_timezone(committed, http):
    from datetime import timedelta
    from zoneinfo import ZoneInfo

    from icalendar import Calendar

    from domain.series.services.series import SeriesSpec, add_series
    from domain.store.db import unit_of_work

    t = world.running_poker(committed, players=3, name="Friday <Deep>")
    with unit_of_work(committed) as session:
        add_series(
            session,
            SeriesSpec(
                club_id=t["club_id"],
                name="Nightly Pusoy",
                kind="pusoy",
                cron="30 21 * * *",
                timezone=None,
                template={"organizer": "royal", "capacity": 16},
                horizon_days=3,
                opens_before_minutes=60,
            ),
            world.now(),
        )
    r = http.get(f"/clubs/{t['club_id']}/calendar.ics")
    assert r.status_code == 200 and r.headers["content-type"].startswith("text/calendar")
    cal = Calendar.from_ical(r.content)
    events = [c for c in cal.walk("VEVENT")]
    names = [str(e["summary"]) for e in events]
    assert "Friday <Deep>" in names and names.count("Nightly Pusoy") >= 2
    moscow = ZoneInfo("Europe/Moscow")  # the club's timezone (tests/support/world/poker.py)
    for e in events:
        start = e["dtstart"].dt
        assert start.utcoffset() == start.astimezone(moscow).utcoffset()
        assert str(start.tzinfo) in ("Europe/Moscow", "MSK") or getattr(start.tzinfo, "key", "") == "Europe/Moscow"
    nightly = [e["dtstart"].dt for e in events if str(e["summary"]) == "Nightly Pusoy"]
    assert all((s.hour, s.minute) == (21, 30) for s in nightly)
    assert all(s > world.now() - timedelta(minutes=1) for s in nightly)
    assert any(c.name == "VTIMEZONE" for c in cal.walk())
    assert http.get("/clubs/999999/calendar.ics").status_code == 404


def test_a_line_break_in_a_club_name_is_escaped_in_the_calendar_never_a_500(committed, http):
    """DOC-3: user text is escaped, never interpreted: a club's name written to the database with line
    breaks and control characters (no service lets them in) gives a valid calendar whose name,
    location and summaries read back with the breaks as `\\n`, as a tournament's name does."""
    from icalendar import Calendar
    from sqlalchemy import text

    from domain.store.db import unit_of_work

    t = world.running_poker(committed, players=2, name="Friday\nLate")
    with unit_of_work(committed) as session:
        session.execute(
            text("UPDATE clubs SET name = :n WHERE id = :id"),
            {"n": "Pik\nClub\r\nTwo;\u2028Three\x07", "id": t["club_id"]},
        )
    r = http.get(f"/clubs/{t['club_id']}/calendar.ics")
    assert r.status_code == 200 and r.headers["content-type"].startswith("text/calendar")
    assert all(len(line) <= 75 or line.startswith(" ") for line in r.content.decode().split("\r\n")[:-1])
    cal = Calendar.from_ical(r.content)
    [event] = [e for e in cal.walk("VEVENT") if str(e["summary"]).startswith("Friday")]
    assert (str(event["summary"]), str(event["location"])) == ("Friday\nLate", "Pik\nClub\nTwo;\nThree")
    assert "Pik\\nClub\\nTwo\\;\\nThree: tournaments" in r.content.decode().replace("\r\n ", "")


# -- hostile input -------------------------------------------------------------------------------------


def test_hostile_input_in_every_parameter_gives_a_plain_400_or_404(committed, http):
    world.running_poker(committed, players=2)
    paths = [
        "/t/0",
        "/t/-1",
        "/t/abc",
        "/t/99999999999999999999",
        "/t/9223372036854775808",
        "/t/1%00",
        "/t/%3Cscript%3E/screen",
        "/t/99999/screen",
        "/t/99999/events",
        "/t/１/screen",
        "/p/%3Cscript%3E",
        "/p/AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA",
        "/verify/%00",
        "/verify/..%2F..%2Fetc%2Fpasswd",
        "/verify/SP-1?code=%3Cscript%3Ealert(1)%3C/script%3E",
        "/clubs/x/calendar.ics",
        "/clubs/99999999999999999999999/calendar.ics",
        "/static/../pyproject.toml",
        "/nope",
        "/t/1'%20OR%201=1--",
    ]
    for path in paths:
        r = http.get(path)
        assert r.status_code in (400, 404), (path, r.status_code)
        assert "Traceback" not in r.text and "sqlalchemy" not in r.text.lower() and "<script>" not in r.text
        assert "content-security-policy" in r.headers
    assert http.post("/t/1/screen").status_code == 405
    assert http.delete("/verify/SP-1").status_code == 405


# -- live results (3.7) --------------------------------------------------------------------------------


def test_places_fall_as_players_bust_and_knockouts_are_listed(committed, http):
    t = world.running_poker(committed, players=5)
    e = t["entries"]
    world.knock_out(committed, t["id"], e[0], e[4])
    world.knock_out(committed, t["id"], e[1], e[4])
    r = http.get(f"/t/{t['id']}")
    assert r.status_code == 200
    assert "<td>5</td><td>ace1</td>" in r.text and "<td>4</td><td>ace2</td>" in r.text
    assert "<td>2</td><td>1</td>\n<td>ace2</td><td>ace5</td>" in r.text  # bust 2 at level 1 (the clock's): out, by
    assert 'id="field">Осталось 3 игрока из 5 входов · 1 призовое место' in r.text


def test_an_internal_error_is_a_plain_500_page():
    """The server's database is unreachable: the page says so plainly and leaks no detail."""
    from sqlalchemy import create_engine

    from flows.web.app import create_app
    from tests.support.net import free_port
    from tests.support.web_server import Server

    dead = create_engine(f"postgresql+psycopg://nobody:x@127.0.0.1:{free_port()}/none")
    with Server(create_app(dead), free_port()) as server, httpx.Client(base_url=server.url, timeout=10) as client:
        r = client.get("/t/1", headers={"accept-language": "en"})
    assert r.status_code == 500 and "Something went wrong" in r.text
    assert "Traceback" not in r.text and "psycopg" not in r.text and "127.0.0.1" not in r.text


def test_a_draft_tournament_is_not_public(committed, http):
    from domain.store.db import unit_of_work

    with unit_of_work(committed) as session:
        draft = world.tournament(session, status="draft", late_reg=None).id
    for path in (f"/t/{draft}", f"/t/{draft}/screen", f"/t/{draft}/events"):
        assert http.get(path).status_code == 404, path
    assert f"/t/{draft}" not in http.get("/").text


def test_pd_13_a_finished_pusoy_tournament_shows_playoffs_tiebreaks_final_positions_and_champion(committed, http):
    """PD-7, PD-10, PD-13: the 32-player script of tests/integration/test_pusoy_tournament.py (its
    seeds give one playoff in round 1), played through the services with times from now."""
    import random

    from domain.pusoy.tables import PusoyRound
    from domain.store.db import unit_of_work
    from tests.support.seeds import fixed_seeds, played_through_seeds
    from tests.support.world import seating

    rnd = random.Random(5)
    with unit_of_work(committed) as session:
        fixed_seeds(session, played_through_seeds)
        t = pusoy_setup.create(
            session,
            name="Кубок <Пусой>",
            organizer="org",
            capacity=32,
            games_per_round=3,
            now=world.now(),
            private=True,
        )
        for i in range(32):
            pusoy_setup.join(session, t.code, f"u{i:02d}", world.now())
        for round_no in range(1, len(t.bracket) + 1):
            for table, players in seating(session, t.id, round_no).items():
                for game in range(1, 4):
                    order = rnd.sample(players, len(players))
                    pusoy_reports.report(
                        session,
                        t.code,
                        round_no=round_no,
                        table=table,
                        game=game,
                        finishes=[(p, i) for i, p in enumerate(order, start=1)],
                        two_of_diamonds=order[0] if rnd.random() < 0.25 else None,
                        now=world.now(),
                    )
            done = pusoy_rounds.complete_round(session, t.id, round_no, world.now())
            while done.outcome == "playoff":
                stage = session.get(PusoyRound, (t.id, round_no)).stage
                for i, x in enumerate(done.playoff_tables, start=1):
                    world.one_game(session, t, round_no, i, rnd.sample(list(x), len(x)), world.now(), playoff=stage)
                done = pusoy_rounds.complete_round(session, t.id, round_no, world.now())
        session.refresh(t)
        code, champion = t.code, t.champion
    assert champion
    r = http.get(f"/p/{code}")
    assert r.status_code == 200
    body = r.text
    assert "Кубок &lt;Пусой&gt;" in body
    assert f'id="champion">{champion}<' in body
    assert "1 playoff" in body  # round 1 went to one playoff
    steps = re.findall(
        r"<td>(fewer [^<]*|head-to-head|a later first win \(or none\)|a worse finish in the round's last game"
        r"|level: shared rank|the playoff)</td>",
        body,
    )
    assert steps and "the playoff" in steps  # the deciding PD-7 steps, worded as the results sheet words them
    assert not re.search(r"<td>(first-places|head-to-head-|last-game-position|playoff-\d)", body)  # never a code
    assert body.count("<h2>Round ") == 4 and "Final positions" in body
    assert f"<td>1</td><td>{champion}</td><td>4</td>" in body
    assert code not in http.get("/").text  # private: never listed


def test_a_pusoy_event_stream_announces_a_reported_game(committed, web):
    from domain.store.db import unit_of_work

    code = _pusoy(committed, private=True, fill=True)
    seen = []
    with httpx.Client(base_url=web.url, timeout=10) as client:
        with client.stream("GET", f"/p/{code}/events") as r:
            assert r.status_code == 200
            for line in r.iter_lines():
                if line.startswith("data: "):
                    seen.append(json.loads(line[6:])["version"])
                    if len(seen) == 1:
                        with unit_of_work(committed) as session:
                            first = pusoy_views.show(session, code)["tables"]["table 1"]
                            pusoy_reports.report(
                                session,
                                code,
                                round_no=1,
                                table=1,
                                game=1,
                                finishes=[(p, i) for i, p in enumerate(first, start=1)],
                                two_of_diamonds=None,
                                now=world.now(),
                                by="floor",
                            )
                    else:
                        break
    assert len(seen) == 2 and seen[0] != seen[1]


# -- a club's season (LG-1..LG-3) ------------------------------------------------------------------


def _rows(body: str) -> list[str]:
    import re

    table = body[body.index('<table id="standings">') : body.index("</table>", body.index('<table id="standings">'))]
    return [" ".join(re.findall(r"<td>(.*?)</td>", row)) for row in table.split("<tr>")[2:]]


def test_lg3_a_seasons_page_shows_its_standings_in_the_clubs_language(committed, http):
    """LG-3, DOC-4: derived on this read, ranked, in Russian (the club's default), players' handles
    escaped (AC-5), linked from the front page and from each counted tournament's page."""
    s = world.season(committed)
    r = http.get(f"/seasons/{s['id']}")
    assert r.status_code == 200 and '<html lang="ru">' in r.text
    assert _rows(r.text) == [
        "1 boris 16,00 2 2 1 10,00",
        "2 anna 13,00 2 2 1 10,00",
        "3 &lt;b&gt;vera&lt;/b&gt; 9,00 2 2 0 6,00",
    ]
    assert "<h2>Таблица</h2>" in r.text and "Очки за места: 10,00 · 6,00 · 3,00; за остальные места — 0." in r.text
    assert all(f'<a href="/t/{t}">' in r.text for t in s["tournaments"])
    assert "script-src 'self'" in r.headers["content-security-policy"]
    assert f'<a href="/seasons/{s["id"]}">Зима</a>' in http.get("/").text
    assert f'<a href="/seasons/{s["id"]}">сезон Зима</a>' in http.get(f"/t/{s['tournaments'][0]}").text


def test_lg3_a_seasons_page_speaks_english_when_the_club_chose_it(committed, http):
    """DOC-4"""
    s = world.season(committed, name="Winter", locale="en")
    r = http.get(f"/seasons/{s['id']}")
    assert '<html lang="en">' in r.text and "<h2>Standings</h2>" in r.text
    assert _rows(r.text)[0] == "1 boris 16.00 2 2 1 10.00" and "Every result counts." in r.text


def test_lg1_a_season_of_an_unlisted_club_and_hostile_ids_are_a_plain_404(committed, http):
    """LG-1: a season is public only while its club is listed; any other id is 404, never a trace."""
    from sqlalchemy import update

    from domain.clubs.tables import Club

    s = world.season(committed)
    for path in (
        "/seasons/0",
        "/seasons/abc",
        "/seasons/99999999999999999999",
        f"/seasons/{s['id'] + 1}",
        "/seasons/%3Cscript%3E",
        "/seasons/-1",
    ):
        r = http.get(path)
        assert (r.status_code, "Здесь ничего нет." in r.text, "Traceback" in r.text) == (404, True, False), path
    world.with_session(
        committed,
        lambda session: session.execute(update(Club).where(Club.id == s["club_id"]).values(listing_status="suspended")),
    )
    assert http.get(f"/seasons/{s['id']}").status_code == 404
    assert f"/seasons/{s['id']}" not in http.get("/").text


# -- personal data (AC-5): players by handle, never by full name ----------------------------------------

FULL_NAMES = re.compile(r"Player \d")  # running_poker's full names; its handles are ace1, ace2, …


def _forget(engine, handle: str) -> str:
    """The player forgotten (1.6.1: name and handle erased); their pseudonym."""
    from domain.poker.services.players import forget_player

    return world.with_session(engine, lambda session: forget_player(session, handle, world.now()).pseudonym)


def test_ac_5_results_page_shows_handles_not_full_names(committed, http):
    """AC-5: places as they fall, knockouts (busted and killer) and the final places name players
    by handle; a forgotten player by pseudonym."""
    t = world.running_poker(committed, players=4)
    e = t["entries"]
    world.knock_out(committed, t["id"], e[0], e[3])
    world.knock_out(committed, t["id"], e[1], e[3])
    forgotten = _forget(committed, "ace2")
    live = http.get(f"/t/{t['id']}").text
    assert "<td>4</td><td>ace1</td>" in live and f"<td>3</td><td>{forgotten}</td>" in live
    assert f"<td>2</td><td>1</td>\n<td>{forgotten}</td><td>ace4</td>" in live
    assert not FULL_NAMES.search(live)
    world.knock_out(committed, t["id"], e[2], e[3])
    world.finish(committed, t["id"])
    final = http.get(f"/t/{t['id']}").text
    assert "<td>1</td><td>ace4</td>" in final and 'id="winner">Победитель: ace4<' in final
    assert f"<td>3</td><td>{forgotten}</td>" in final and "<td>2</td><td>ace3</td>" in final
    assert not FULL_NAMES.search(final)


def test_ac_5_the_screen_and_its_event_stream_name_the_winner_by_handle(committed, web, http):
    """AC-5"""
    t = world.running_poker(committed, players=2)
    world.knock_out(committed, t["id"], t["entries"][0], t["entries"][1])
    world.finish(committed, t["id"])
    screen = http.get(f"/t/{t['id']}/screen").text
    assert 'id="winner" class="winner">Победитель: ace2<' in screen and not FULL_NAMES.search(screen)
    with httpx.Client(base_url=web.url, timeout=10) as client:
        with client.stream("GET", f"/t/{t['id']}/events") as r:
            line = next(line for line in r.iter_lines() if line.startswith("data: "))
    state = json.loads(line[6:])
    assert state["winners"] == ["ace2"] and state["text"]["winner"] == "Победитель: ace2"
    assert not FULL_NAMES.search(line)


def test_ac_5_a_seasons_standings_show_handles_not_full_names(committed, http):
    """AC-5: the world's season (tests/support/world/live.py): Борис Гельфанд is boris, Анна Белова anna."""
    s = world.season(committed)
    body = http.get(f"/seasons/{s['id']}").text
    assert [row.split()[1] for row in _rows(body)] == ["boris", "anna", "&lt;b&gt;vera&lt;/b&gt;"]
    assert not any(name in body for name in ("Гельфанд", "Белова", "Менчик"))


def test_ac_5_a_certificate_s_check_shows_the_full_name_only_with_its_code(committed, web, http):
    """AC-5, DOC-5: the certificate carries the full name; its check shows it only to a visitor who
    gives the certificate's verification code (printed on it, in its QR code). Without the code, or
    with a wrong one, the page says nothing of the certificate, not even whose it is."""
    from domain.documents.rules.signing import verification_code
    from domain.documents.tables import Document

    _published(committed, web.outbox)
    signature = world.with_session(
        committed,
        lambda session: session.query(Document.signature).filter(Document.serial == "SP-000042-01").scalar(),
    )
    for path in ("/verify/SP-000042-01", "/verify/SP-000042-01?code=ABCD-EFGH"):
        r = http.get(path)
        assert r.status_code == 200 and 'id="verdict">' in r.text and "Иван" not in r.text, path
        assert 'id="player"' not in r.text
    r = http.get(f"/verify/SP-000042-01?code={verification_code(signature)}")
    assert 'id="verdict">Valid' in r.text and 'id="player">&lt;b&gt;Иван&lt;/b&gt;<' in r.text


def test_ac_5_a_pusoy_page_names_players_by_handle_and_never_the_organizer_s_e_mail(committed, http):
    """AC-5: a Pusoy Dos player is their handle (the seats hold it), the organiser too."""
    code = _pusoy(committed, private=False, fill=True)
    body = http.get(f"/p/{code}").text
    assert all(f"<li>u{i:02d}</li>" in body for i in range(8)) and "organised by org" in body
    assert "secret-organizer" not in body and "@example.org" not in body


def test_ac_5_the_front_page_and_the_club_calendar_name_no_player(committed, http):
    """AC-5: they list tournaments, series and seasons, never a player."""
    t = world.running_poker(committed, players=3)
    world.season(committed)
    for path in ("/", f"/clubs/{t['club_id']}/calendar.ics"):
        body = http.get(path).text
        assert not FULL_NAMES.search(body) and not re.search(r"ace\d|boris|Гельфанд", body), path
