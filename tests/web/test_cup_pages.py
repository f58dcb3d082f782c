"""The Pusoy Dos organizer's pages (flows/web/cups.py, issue 39) over HTTP against a real server and
PostgreSQL: the organizer lands at `/cups` after signing in; a cup created from the form (PD-1, PD-2,
PD-3, PD-5, DOC-4), its players as they join, its settings amended while the rules allow, a game
server's token shown once, the cup cancelled (PD-11); each change by the API's use case and audited
(AC-3), each refusal said in the organizer's language with the form as typed and nothing written; a
form without its CSRF field is refused; another's cup and anyone but an organizer get the 404 page."""

from __future__ import annotations

import re
from collections.abc import Iterator
from contextlib import contextmanager

import httpx
import pytest
from sqlalchemy import select
from sqlalchemy.orm import Session

from domain.access.tables import AuditRecord, Token
from domain.documents.services import locales
from domain.pusoy.tables import PusoyTournament
from flows import bootstrap
from tests.support.db import contents
from tests.support.world import PASSWORD, access_world

CREDENTIALS = ("account_tokens", "account_sessions")


@pytest.fixture
def world(web, committed):
    return access_world(committed, bootstrap.password_hasher(), passwords=("organizer", "owner", "operator"))


@contextmanager
def _signed_in(web, world, who: str = "organizer") -> Iterator[httpx.Client]:
    with httpx.Client(base_url=web.url, timeout=15, follow_redirects=False) as client:
        r = client.post("/signin", data={"email": world.emails[who], "password": PASSWORD}, headers={"origin": web.url})
        assert r.status_code == 303, r.text
        client.landed = r.headers["location"]
        yield client


def _csrf(page: str) -> str:
    return re.search(r'name="csrf" value="([0-9a-f]+)"', page).group(1)


def _rows(engine) -> dict:
    with Session(engine) as session:
        return {k: v for k, v in contents(session).items() if k not in CREDENTIALS}


def _last(engine) -> tuple[str, str]:
    with Session(engine) as session:
        row = session.scalars(select(AuditRecord).order_by(AuditRecord.id.desc()).limit(1)).one()
        return row.action, row.target


def _cup(engine, code: str) -> PusoyTournament:
    with Session(engine) as session:
        return session.scalars(select(PusoyTournament).where(PusoyTournament.code == code)).one()


def _problems(page: str) -> list[str]:
    return re.findall(r'<li data-code="([^"]+)">', page)


NEW = {"name": "Воскресный кубок", "capacity": "16", "games_per_round": "2", "advancing": "", "private": "0"}


def test_issue_39_the_organizer_lands_at_their_cups_and_creates_one_from_the_form(web, world, committed):
    """Issue 39, PD-1, PD-3, PD-5, DOC-4: the organizer's home is `/cups`, in their account's language;
    the form makes a cup in their name and e-mail, in the language chosen; its page says so."""
    with _signed_in(web, world) as client:
        assert client.landed == "/cups"
        home = client.get("/cups")
        assert home.status_code == 200 and '<html lang="ru">' in home.text
        assert f'data-cup="{world.organizer_cup}"' in home.text and world.others_cup not in home.text
        assert 'id="organizer" name="organizer" value="maria"' in home.text  # the name of their last cup
        csrf = _csrf(home.text)
        before = _rows(committed)
        stale = client.post("/cups", data=NEW | {"locale": "ru", "organizer": "maria"})
        assert stale.status_code == 403 and _rows(committed) == before
        made = client.post("/cups", data=NEW | {"csrf": csrf, "locale": "en", "organizer": "maria"})
        assert made.status_code == 303, made.text
        code = made.headers["location"].removeprefix("/cups/").removesuffix("?done=created")
        assert _last(committed) == ("cups.create", f"cup {code}")
        t = _cup(committed, code)
        assert (t.name, t.capacity, t.games_per_round, list(t.bracket), t.private, t.organizer, t.organizer_email) == (
            "Воскресный кубок", 16, 2, [16, 8, 4], False, "maria", world.emails["organizer"],
        )  # fmt: skip
        with Session(committed) as session:
            assert locales.pusoy_tournament_locale(session, t.id) == "en"
        page = client.get(made.headers["location"])
        assert page.status_code == 200 and "Создано: поделитесь кодом для входа." in page.text
        assert f'<code id="code">{code}</code>' in page.text and "16 → 8 → 4" in page.text


def test_pd_2_a_refused_cup_is_said_in_russian_with_the_form_as_typed_and_nothing_written(web, world, committed):
    """PD-2: the bad round named in Russian; another organizer's name; numbers that are not; the form
    again as typed, nothing written."""
    with _signed_in(web, world) as client:
        csrf = _csrf(client.get("/cups").text)
        before = _rows(committed)
        bad = client.post(
            "/cups",
            data=NEW | {"csrf": csrf, "capacity": "32", "advancing": "12, 6", "organizer": "royal", "locale": "ru"},
        )
        assert bad.status_code == 409
        assert _problems(bad.text) == ["bad-bracket", "bad-bracket", "organizer-name-taken"]
        assert "Сетка: в последнем раунде (раунд 3) 6 игроков; за финальным столом — 4." in bad.text
        assert "Имя royal носят кубки другого организатора." in bad.text
        assert 'value="12, 6"' in bad.text and 'value="Воскресный кубок"' in bad.text
        letters = client.post("/cups", data=NEW | {"csrf": csrf, "advancing": "twelve", "locale": "ru"})
        assert letters.status_code == 409 and _problems(letters.text) == ["bracket-not-numbers"]
        assert _rows(committed) == before


def test_pd_4_the_organizer_sees_the_cup_fill_amends_it_and_makes_a_game_server_s_token(web, world, http, committed):
    """PD-4, PD-11, AC-4: a player joins through the API and the cup's page lists them; the name and
    the listing change while it fills, the terms no longer once someone joined (their fields disabled, a
    post of them refused); a token's secret is on the page that made it, once; revoked from the page."""
    code = world.organizer_cup
    joined = http.post(f"/api/v1/pusoy/{code}/entries", headers=world.headers("player"))
    assert joined.status_code == 200, joined.text
    with _signed_in(web, world) as client:
        page = client.get(f"/cups/{code}")
        assert "<li>anna</li>" in page.text and "занято мест: 1 из 8" in page.text
        assert '<fieldset id="terms" disabled' in page.text
        csrf = _csrf(page.text)
        saved = client.post(f"/cups/{code}", data={"csrf": csrf, "name": "Пятничный", "private": "0", "locale": "ru"})
        assert saved.headers["location"] == f"/cups/{code}?done=saved"
        assert (_cup(committed, code).name, _cup(committed, code).private) == ("Пятничный", False)
        assert _last(committed) == ("cups.edit", f"cup {code}")
        before = _rows(committed)
        fixed = client.post(
            f"/cups/{code}",
            data={
                "csrf": csrf,
                "name": "Пятничный",
                "private": "0",
                "locale": "ru",
                "capacity": "16",
                "games_per_round": "1",
            },
        )
        assert fixed.status_code == 409 and _problems(fixed.text) == ["terms-fixed"]
        assert _rows(committed) == before
        same = client.post(f"/cups/{code}", data={"csrf": csrf, "name": "Пятничный", "private": "0", "locale": "ru"})
        assert same.headers["location"] == f"/cups/{code}?done=unchanged"
        made = client.post(f"/cups/{code}/tokens", data={"csrf": csrf, "name": "стол 1"})
        assert made.status_code == 201 and made.headers["cache-control"] == "no-store"
        secret = re.search(r'id="token-secret" value="(tny_[A-Za-z0-9_-]+)"', made.text).group(1)
        assert _last(committed) == ("cups.create-token", f"token 'стол 1' of cup {code}")
        again = client.get(f"/cups/{code}")
        assert secret not in again.text and "стол 1" in again.text
        with Session(committed) as session:
            token = session.scalars(select(Token).where(Token.name == "стол 1")).one()
            assert token.scopes == [f"cup:{code}"]
        r = client.post(f"/cups/{code}/tokens/{token.id}/revoke", data={"csrf": csrf})
        assert r.headers["location"] == f"/cups/{code}?done=revoked"
        assert http.get(f"/api/v1/pusoy/{code}/me", headers={"authorization": f"Bearer {secret}"}).status_code == 401


def test_pd_11_the_organizer_cancels_a_cup_and_its_form_freezes(web, world, committed):
    """PD-11: cancelled while it fills; then its settings are shown disabled and a post of them is
    refused in Russian, nothing written."""
    code = world.organizer_cup
    with _signed_in(web, world) as client:
        csrf = _csrf(client.get(f"/cups/{code}").text)
        r = client.post(f"/cups/{code}/cancel", data={"csrf": csrf})
        assert r.headers["location"] == f"/cups/{code}?done=cancelled"
        assert _cup(committed, code).status == "cancelled"
        assert _last(committed) == ("cups.cancel", f"cup {code}")
        page = client.get(f"/cups/{code}")
        assert "Кубок отменён." not in page.text and 'id="cancel"' not in page.text and "disabled" in page.text
        before = _rows(committed)
        late = client.post(f"/cups/{code}", data={"csrf": csrf, "name": "x", "private": "0"})
        assert late.status_code == 409 and _problems(late.text) == ["cup-not-filling"]
        assert "Кубок начался или завершён" in late.text
        assert _rows(committed) == before


def test_ac_2_another_s_cup_and_anyone_but_an_organizer_get_the_404_page(web, world, committed):
    """AC-2: another organizer's cup, and a cup the operator made with no organizer's e-mail, read and
    post as a missing one, nothing written; an owner and the operator are no organizers."""
    with _signed_in(web, world) as client:
        csrf = _csrf(client.get("/cups").text)
        before = _rows(committed)
        for code in (world.others_cup, world.cup, "ZZZZZZ"):
            assert client.get(f"/cups/{code}").status_code == 404
            assert client.post(f"/cups/{code}/cancel", data={"csrf": csrf}).status_code == 404
            assert client.post(f"/cups/{code}/tokens", data={"csrf": csrf, "name": "x"}).status_code == 404
        assert _rows(committed) == before
    for who in ("owner", "operator"):
        with _signed_in(web, world, who) as client:
            assert client.get("/cups").status_code == 404
            assert client.get(f"/cups/{world.organizer_cup}").status_code == 404
    with httpx.Client(base_url=web.url, timeout=15, follow_redirects=False) as anonymous:
        assert anonymous.get("/cups").headers["location"] == "/signin?next=%2Fcups"
