"""A player's own certificates from their pages and the API (RULES AC-1, AC-2, AC-5, DOC-1): the
stored, signed PDF with the player's full name; another player's certificate is refused exactly as a
missing one; a poker player's entries, places and certificates on `/play`; a cup's champion's on
`/play/<code>`."""

from __future__ import annotations

import re
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime, timedelta

import httpx
import pytest

from domain.documents.services.publish import publish
from domain.documents.services.sources import bundle
from domain.poker.tables.tournaments import Player
from domain.store.db import unit_of_work
from flows import bootstrap
from infra import pdf
from infra.config import load_settings
from infra.render import Renderer
from tests.support.world import PASSWORD, access_world, played, player, won_by

MISSING = "SP-999999-01"


@pytest.fixture
def world(web, committed):
    return access_world(committed, bootstrap.password_hasher(), passwords=("player",))


def _publish(engine, outbox, source: str, tournament_id: int) -> None:
    with unit_of_work(engine) as session:
        assert publish(
            session,
            Renderer(load_settings().secret_key()),
            outbox,
            bundle(session, source, tournament_id),
            datetime.now(UTC),
        )


def _signed_player(data: bytes) -> str:
    embedded, problems = pdf.verify(load_settings().secret_key(), data)
    assert problems == [], problems
    return embedded["data"]["player"]


@contextmanager
def _client(web) -> Iterator[httpx.Client]:
    with httpx.Client(base_url=web.url, timeout=30, follow_redirects=False, headers={"origin": web.url}) as client:
        r = client.post("/signin", data={"email": "player@example.org", "password": PASSWORD})
        assert r.status_code == 303, r.text
        yield client


def _shape(response: httpx.Response, serial: str) -> tuple[int, str]:
    return response.status_code, response.text.replace(serial, "<serial>")


def test_ac_5_a_poker_player_downloads_their_own_certificate_with_their_full_name_and_never_another_s(
    web, committed, world, http
):
    """AC-5, AC-2, DOC-1: Anna wins, Boris takes the 2nd place's prize line; both get a certificate.
    Anna's `/play` lists her place and her certificate; the download is the stored signed PDF with her
    full name; Boris's serial, from her page or the API, is answered exactly as a serial that names
    nothing; signed out, the page asks to sign in."""
    start = datetime.now(UTC) - timedelta(days=2)
    with unit_of_work(committed) as session:
        boris = player(session, "Boris Godunov", handle="boris")
        anna = session.get(Player, world.players["player"])
        t = played(session, [boris, anna], start, "Friday", prizes=["Cup", "Medal"], club_id=world.club_a)
    _publish(committed, web.outbox, "poker", t.id)
    mine, theirs = f"SP-{t.id:06d}-01", f"SP-{t.id:06d}-02"
    with _client(web) as client:
        page = client.get("/play")
        row = re.search(rf'<tr><td><a href="/t/{t.id}">Friday</a>.*?</tr>', page.text, re.S).group(0)
        assert "1-е место" in row and f'href="/play/certificates/{mine}"' in row
        assert theirs not in page.text
        got = client.get(f"/play/certificates/{mine}")
        assert got.status_code == 200 and got.headers["content-type"] == "application/pdf"
        assert f'filename="certificate-{mine}.pdf"' in got.headers["content-disposition"]
        assert _signed_player(got.content) == "Anna Karenina"
        refused, missing = client.get(f"/play/certificates/{theirs}"), client.get(f"/play/certificates/{MISSING}")
        assert refused.status_code == missing.status_code == 404
        assert _shape(refused, theirs) == _shape(missing, MISSING)
    headers = world.headers("player")
    api = http.get(f"/api/v1/me/certificates/{mine}", headers=headers)
    assert api.status_code == 200 and _signed_player(api.content) == "Anna Karenina"
    entries = http.get("/api/v1/me/entries", headers=headers).json()["poker"]
    assert [(e["tournament_id"], e["place"], e["certificate"]) for e in entries if e["tournament_id"] == t.id] == [
        (t.id, 1, mine)
    ]
    refused = http.get(f"/api/v1/me/certificates/{theirs}", headers=headers)
    missing = http.get(f"/api/v1/me/certificates/{MISSING}", headers=headers)
    assert refused.status_code == missing.status_code == 404
    assert _shape(refused, theirs) == _shape(missing, MISSING)
    floor = http.get(f"/api/v1/me/certificates/{mine}", headers=world.headers("floor"))
    assert _shape(floor, mine) == _shape(missing, MISSING)  # the club's staff get it by e-mail, not here
    with httpx.Client(base_url=web.url, timeout=10) as anonymous:
        r = anonymous.get(f"/play/certificates/{mine}")
    assert r.status_code == 303 and r.headers["location"] == f"/signin?next=/play/certificates/{mine}"


def test_ac_5_a_cup_s_champion_downloads_their_certificate_from_the_cup_s_page_with_their_full_name(
    web, committed, world, http
):
    """AC-5, DOC-1: the champion's certificate carries the full name of the player whose handle won;
    `/play/<code>` links it for the champion only, `pusoy.mine` names its serial; a player who did not
    win sees no link and is refused it as a missing one."""
    with unit_of_work(committed) as session:
        cup = won_by(session, "anna", datetime.now(UTC))
    _publish(committed, web.outbox, "pusoy", cup.id)
    serial = f"PD-{cup.id:06d}-01"
    with _client(web) as client:
        page = client.get(f"/play/{cup.code}")
        assert 'data-state="champion"' in page.text and f'href="/play/certificates/{serial}"' in page.text
        got = client.get(f"/play/certificates/{serial}")
        assert got.status_code == 200 and _signed_player(got.content) == "Anna Karenina"
        assert f'href="/play/certificates/{serial}"' in client.get("/play").text
    assert http.get(f"/api/v1/pusoy/{cup.code}/me", headers=world.headers("player")).json()["certificate"] == serial
    with unit_of_work(committed) as session:
        loser = player(session, "Uma One", handle="u01")
        from domain.access.services import accounts, signin

        account = accounts.add(session, "u01@example.org", datetime.now(UTC), player_id=loser.id)
        _, token = signin.create_token(session, account, "tests", ["player"], datetime.now(UTC))
    other = {"authorization": f"Bearer {token}"}
    view = http.get(f"/api/v1/pusoy/{cup.code}/me", headers=other).json()
    assert view["entered"] and view["certificate"] is None
    refused = http.get(f"/api/v1/me/certificates/{serial}", headers=other)
    missing = http.get(f"/api/v1/me/certificates/{MISSING}", headers=other)
    assert _shape(refused, serial) == _shape(missing, MISSING)
