"""The players' pages over real HTTP and PostgreSQL (RULES AC-1, AC-2, AC-5, PD-3, PD-4): signing up with a
welcome link (the same answer for an address that has an account, nothing written on bad input), `/play`
(join, withdraw, a private cup by its code, join codes throttled per account, a club's tournament to
register for) and a player's view of a cup (`GET /api/v1/pusoy/{code}/me`, `/play/{code}`)."""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import UTC, datetime

import httpx
import pytest
from sqlalchemy import func, select
from sqlalchemy.orm import Session

from domain.access.tables import Account, AuditRecord
from domain.poker.tables.tournaments import Player, Registration
from domain.pusoy.services import setup as pusoy_setup
from domain.pusoy.tables import PusoyEntry
from domain.store.db import unit_of_work
from flows import bootstrap
from tests.support.db import contents
from tests.support.events import consuming
from tests.support.world import PASSWORD, access_world, seating, web_auth
from tests.web.test_account_pages import _link_from_outbox

SIGN_UP = {
    "email": "new.player@example.org",
    "handle": "newbie",
    "name": "Nina Newbie",
    "birth_date": "1995-05-17",
    "locale": "en",
}


@pytest.fixture
def world(web, committed):
    return access_world(committed, bootstrap.password_hasher(), passwords=("player",))


def _client(web) -> httpx.Client:
    return httpx.Client(base_url=web.url, timeout=10, follow_redirects=False, headers={"origin": web.url})


def _snapshot(engine) -> dict:
    with Session(engine) as session:
        found = contents(session)
        session.rollback()
    return found


@contextmanager
def _signed_in(web, world) -> Iterator[httpx.Client]:
    with _client(web) as client:
        r = client.post("/signin", data={"email": world.emails["player"], "password": PASSWORD})
        assert r.status_code == 303, r.text
        yield client


def _csrf(page: httpx.Response) -> str:
    assert page.status_code == 200, page.text
    return re.search(r'name="csrf" value="([0-9a-f]+)"', page.text).group(1)


def _events(client: httpx.Client, code: str, n: int, then: Callable[[], object] = lambda: None) -> list[dict]:
    """The first `n` events of my `/play/<code>/events`, `then` called once the first has come."""
    found = []
    with client.stream("GET", f"/play/{code}/events", timeout=30) as r:
        assert r.status_code == 200
        for line in r.iter_lines():
            if line.startswith("data: "):
                found.append(json.loads(line[6:]))
                if len(found) == 1:
                    then()
                if len(found) == n:
                    return found
    return found


def _parts(page: str) -> dict[str, str]:
    """The parts of a `/play/<code>` page as its events carry them: my row not marked (the page does it,
    `data-me`), a form's CSRF field empty (the page fills it, `data-csrf`)."""
    page = re.sub(r'name="csrf" value="[0-9a-f]*"', 'name="csrf" value=""', page).replace(' class="me"', "")
    return dict(re.findall(r'<div data-part="(\w+)">(.*?)</div>', page, re.S))


def _count(engine, model, *where) -> int:
    with Session(engine) as session:
        return session.scalar(select(func.count()).select_from(model).where(*where))


# -- sign up -------------------------------------------------------------------------------------------


def test_ac_1_signing_up_makes_a_player_and_an_account_whose_welcome_link_sets_the_password(web, committed):
    """AC-1, AC-4: the sign-up writes the player and the account linked to it, no password; the welcome
    letter's link sets the password, confirms the address and signs the browser in as that player."""
    with _client(web) as client:
        form = client.get("/signup")
        assert form.status_code == 200 and 'name="handle"' in form.text
        sent = client.post("/signup", data=SIGN_UP)
        assert sent.status_code == 200 and 'id="sent"' in sent.text and '<html lang="en">' in sent.text
        with Session(committed) as session:
            account = session.scalar(select(Account).where(Account.email == SIGN_UP["email"]))
            player = session.get(Player, account.player_id)
            assert (player.handle, player.name, str(player.birth_date)) == ("newbie", "Nina Newbie", "1995-05-17")
            assert account.password_hash is None and account.email_verified_at is None and account.locale == "en"
        secret = _link_from_outbox(web, SIGN_UP["email"])
        assert client.get(f"/reset/{secret}").status_code == 200
        done = client.post(
            f"/reset/{secret}", data={"password": "my own long passphrase", "repeated": "my own long passphrase"}
        )
        assert done.status_code == 303
        page = client.get("/play")
        assert page.status_code == 200 and '<html lang="en">' in page.text and 'id="join-code"' in page.text
        with Session(committed) as session:
            assert session.scalar(select(Account.email_verified_at).where(Account.email == SIGN_UP["email"]))


def test_ac_1_signing_up_with_an_address_that_has_an_account_answers_the_same_and_creates_nothing(
    web, committed, world
):
    """AC-1: the answer never tells whether the e-mail has an account; no player or account is made
    (the existing account gets a reset link instead)."""
    with _client(web) as client:
        fresh = client.post("/signup", data=SIGN_UP)
        players, accounts_ = _count(committed, Player), _count(committed, Account)
        again = client.post("/signup", data={**SIGN_UP, "email": world.emails["player"].upper(), "handle": "other1"})
    assert again.status_code == fresh.status_code == 200
    assert again.text == fresh.text
    assert (_count(committed, Player), _count(committed, Account)) == (players, accounts_)
    assert _count(committed, Player, Player.handle == "other1") == 0
    assert _link_from_outbox(web, world.emails["player"])  # a reset letter to the account's owner


def test_ac_1_a_bad_sign_up_shows_every_problem_at_once_writes_nothing(web, committed, world):
    """AC-1, Sport Poker 1.2.1: a bad address, a bad handle, an under-18 and a taken handle, all at once,
    422, and no row of any table changes."""
    before = _snapshot(committed)
    young = f"{datetime.now(UTC).year - 10}-01-01"
    with _client(web) as client:
        r = client.post("/signup", data={**SIGN_UP, "email": "not-an-address", "handle": "9lives", "birth_date": young})
        taken = client.post("/signup", data={**SIGN_UP, "handle": "ANNA", "name": ""})
    assert r.status_code == taken.status_code == 422
    problems = re.findall(r"<li>(.*?)</li>", r.text.split('id="problems"')[1].split("</ul>")[0])
    assert problems == [
        "That is not an e-mail address.",
        "A handle starts with a letter and has 2 to 32 letters, digits, dots, hyphens or underscores.",
        "Tourney is for adults only: you must be 18 or older.",
    ]
    assert "This handle is taken: choose another." in taken.text and "Type your full name." in taken.text
    assert 'value="not-an-address"' in r.text  # what was typed stays in the form
    assert _snapshot(committed) == before


def test_ac_1_a_sign_up_from_another_site_is_refused(web, committed):
    before = _snapshot(committed)
    with httpx.Client(base_url=web.url, timeout=10) as client:
        r = client.post("/signup", data=SIGN_UP, headers={"origin": "https://evil.example"})
    assert r.status_code == 403
    assert _snapshot(committed) == before


def test_ac_1_signing_up_through_the_api_follows_the_page_s_rules(web, committed, world, http):
    """AC-1, AC-4: `POST /api/v1/signup` (public): a new address makes the player and the account and
    gets the welcome link; a known address gets the very same 202 and nothing is made (a reset link goes
    to its owner); a bad one lists every problem at once (the page 422, the API 409) and writes nothing; the audit row names
    the anonymous actor."""
    body = {**SIGN_UP, "email": "api.player@example.org", "handle": "apiplayer"}
    fresh = http.post("/api/v1/signup", json=body)
    assert (fresh.status_code, fresh.json()) == (202, {"status": "check-your-mail"})
    with Session(committed) as session:
        account = session.scalar(select(Account).where(Account.email == body["email"]))
        assert session.get(Player, account.player_id).handle == "apiplayer" and account.password_hash is None
        audit = session.execute(select(AuditRecord.action, AuditRecord.actor_kind).order_by(AuditRecord.id)).all()
    assert audit[-1] == ("account.sign-up", "anonymous")
    assert _link_from_outbox(web, body["email"])
    players, accounts_ = _count(committed, Player), _count(committed, Account)
    known = http.post("/api/v1/signup", json={**body, "email": world.emails["player"], "handle": "other2"})
    assert (known.status_code, known.text) == (fresh.status_code, fresh.text)
    assert (_count(committed, Player), _count(committed, Account)) == (players, accounts_)
    assert _link_from_outbox(web, world.emails["player"])
    before = _snapshot(committed)
    young = f"{datetime.now(UTC).year - 10}-01-01"
    bad = http.post("/api/v1/signup", json={**body, "email": "nope", "handle": "ANNA", "name": "", "birth_date": young})
    assert bad.status_code == 409 and bad.json()["code"] == "bad-sign-up"
    assert [p["code"] for p in bad.json()["problems"]] == [
        "bad-email",
        "name-blank",
        "player-under-18",
        "handle-taken",
    ]
    assert _snapshot(committed) == before


def test_ac_4_the_api_s_sign_ups_and_the_page_s_are_throttled_together_per_address(web, committed, http):
    """AC-4: at most 10 sign-ups per address in 15 minutes, right or wrong, counted over the page and
    the API together; the 11th is refused (429) and writes nothing."""
    with _client(web) as client:
        for n in range(5):
            assert client.post("/signup", data={**SIGN_UP, "email": "bad"}).status_code == 422
    for n in range(5):
        assert http.post("/api/v1/signup", json={**SIGN_UP, "email": "bad"}).status_code == 409
    before = _snapshot(committed)
    refused = http.post("/api/v1/signup", json=SIGN_UP)
    assert (refused.status_code, refused.json()["code"]) == (429, "too-many-sign-ups")
    with _client(web) as client:
        assert client.post("/signup", data=SIGN_UP).status_code == 429
    assert _snapshot(committed) == before


# -- /play: join, withdraw, private cups, poker registration ------------------------------------------


def test_pd_4_a_player_joins_an_open_cup_from_play_and_withdraws_while_it_fills(web, committed, world):
    """PD-3, PD-4, AC-2, AC-3: the open cup is listed with a join button; joining takes the API's steps
    (the audit row `pusoy.join`); withdrawing while it fills frees the seat; a form without its CSRF
    field writes nothing."""
    with _signed_in(web, world) as client:
        page = client.get("/play")
        csrf = _csrf(page)
        assert f'data-code="{world.cup}"' in page.text and world.other_cup in page.text
        before = _snapshot(committed)
        assert client.post("/play/join", data={"code": world.cup}).status_code == 403
        assert _snapshot(committed) == before
        joined = client.post("/play/join", data={"code": world.cup.lower(), "csrf": csrf})
        assert joined.status_code == 303 and joined.headers["location"] == f"/play/{world.cup}"
        mine = client.get(f"/play/{world.cup}")
        assert 'data-state="waiting"' in mine.text and 'id="withdraw"' in mine.text
        event = _events(client, world.cup, 1)[0]  # my page as its events carry it (the form's CSRF left out)
        assert {**event["cup"], **event["mine"]} == _parts(mine.text)
        assert f'action="/play/{world.cup}/withdraw"' in client.get("/play").text
        twice = client.post("/play/join", data={"code": world.cup, "csrf": csrf})
        assert twice.status_code == 409 and 'id="problem"' in twice.text
        left = client.post(f"/play/{world.cup}/withdraw", data={"csrf": csrf})
        assert left.status_code == 303 and left.headers["location"] == "/play"
    with Session(committed) as session:
        assert session.scalar(select(func.count()).select_from(PusoyEntry)) == 0
        actions = session.scalars(select(AuditRecord.action).order_by(AuditRecord.id)).all()
    assert actions[-2:] == ["pusoy.join", "pusoy.withdraw"]


# a join's budget: who the session is, the cup named, my handle, the cup and my seat, the seat, the count, the audit
JOIN_STATEMENTS = 10  # the join-code throttle's 2 (PostgreSQL's, shared) and the NOTIFY included


def test_pd_4_a_join_through_the_api_keeps_to_its_statement_budget(web, committed, world):
    """PD-4, AC-3: a cookie session's `POST /api/v1/pusoy/{code}/entries` sends at most JOIN_STATEMENTS SQL
    statements (none of them per entrant; the session's last use is written at most once a minute, not
    on this request); a second join of mine is refused on the unlocked read, before any write."""
    from domain.store.db import StatementCounter
    from flows.web.auth import COOKIE, CSRF_HEADER
    from tests.support.world import web_auth

    with unit_of_work(committed) as session:
        for n in range(6):
            pusoy_setup.join(session, world.cup, f"p{n}", datetime.now(UTC))
    with _signed_in(web, world) as client:
        secret = web_auth().secret_of(client.cookies[COOKIE])
        with StatementCounter(committed) as counted:
            r = client.post(f"/api/v1/pusoy/{world.cup}/entries", headers={CSRF_HEADER: web_auth().csrf(secret)})
        assert r.status_code == 200 and r.json() == {"code": world.cup, "player": "anna", "started": False}, r.text
        assert counted.count <= JOIN_STATEMENTS
        with StatementCounter(committed) as twice:
            again = client.post(f"/api/v1/pusoy/{world.cup}/entries", headers={CSRF_HEADER: web_auth().csrf(secret)})
        assert again.status_code == 409 and again.json()["code"] == "already-joined"
        # refused on the unlocked read: nothing written, no lock taken, no NOTIFY, the code known to the throttle
        assert twice.count <= JOIN_STATEMENTS - 6
    assert _count(committed, PusoyEntry) == 7
    with Session(committed) as session:
        assert session.scalars(select(AuditRecord.action).order_by(AuditRecord.id)).all()[-1:] == ["pusoy.join"]


def test_pd_4_a_join_through_the_api_wakes_the_cup_s_event_stream_at_once(committed, world, tmp_path):
    """PD-4: a change committed by this process (a join through `/api/v1`) reaches the cup's followers
    at once, not at the poller's next look: with the poll interval at 60 s, the stream's next event
    still comes within seconds, with the cup's new version."""
    import json
    import threading

    from flows.web.app import create_app
    from flows.web.auth import CSRF_HEADER
    from tests.support.net import free_port
    from tests.support.web_server import Server
    from tests.support.world import web_auth

    with Server(create_app(committed, poll_interval=60.0, outbox=tmp_path), free_port()) as server:
        with _signed_in(server, world) as client:
            secret = web_auth().secret_of(client.cookies["tourney_session"])
            versions: list[str] = []
            first, second = threading.Event(), threading.Event()

            def follow() -> None:
                with client.stream("GET", f"/play/{world.cup}/events", timeout=30) as r:
                    for line in r.iter_lines():
                        if line.startswith("data: "):
                            versions.append(json.loads(line[6:])["version"])
                            (second if first.is_set() else first).set()
                            if second.is_set():
                                return

            follower = threading.Thread(target=follow, daemon=True)
            follower.start()
            assert first.wait(10)
            with httpx.Client(base_url=server.url, cookies=client.cookies, timeout=10) as joiner:
                joined = joiner.post(
                    f"/api/v1/pusoy/{world.cup}/entries", headers={CSRF_HEADER: web_auth().csrf(secret)}
                )
            assert joined.status_code == 200, joined.text
            assert second.wait(10), "the join's event waited for the poller"
            assert versions[0] != versions[1]
            follower.join(5)


def test_pd_4_ac_2_an_event_carries_each_follower_s_page_built_once_for_all_of_them(web, committed, world, http):
    """PD-4, AC-2, AC-5: a cup's event carries what its followers' pages show, built once per change for
    all of them (no follower reads its page again): two players at different tables follow the cup; a
    report at one table makes one build of the cup's state and an event to each, the same shared parts
    (the head, the round's standings) and each its own (its state, its table and games, its rounds):
    the game reported reaches that table's players alone; handles only. Signed out: 404."""
    import threading

    from domain.access.services import accounts, signin
    from tests.support.world import player as a_player

    now = datetime.now(UTC)
    assert http.post(f"/api/v1/pusoy/{world.cup}/entries", headers=world.headers("player")).status_code == 200
    with unit_of_work(committed) as session:
        locale = session.scalar(select(Account.locale).where(Account.email == world.emails["player"]))
        secrets = {}
        for n in range(7):
            p = a_player(session, f"Full Name {n}", handle=f"p{n}")
            account = accounts.add(session, f"p{n}@example.org", now, player_id=p.id, locale=locale)
            secrets[p.handle] = signin.start_session(session, account.id, now, address="127.0.0.1", agent="tests")
            pusoy_setup.join(session, world.cup, p.handle, now)
        tables = seating(session, session.scalar(select(PusoyEntry.tournament_id).limit(1)), 1)
    mine = next(t for t, players in tables.items() if "anna" in players)
    other = tables[next(t for t in tables if t != mine)][0]
    order = ["anna", *[p for p in tables[mine] if p != "anna"]]
    hub, theirs, listening, topics = web.app.state.hub, [], threading.Event(), []

    def follow() -> None:
        cookie = {"cookie": f"tourney_session={web_auth().cookie(secrets[other])}"}
        with httpx.Client(base_url=web.url, headers=cookie) as client:
            theirs.extend(_events(client, world.cup, 2, listening.set))

    def report() -> None:
        assert listening.wait(10)
        topics.extend(t for key, t in hub.topics.items() if key.startswith(f"pusoy:{world.cup}:"))
        built.append(sum(t.builds for t in topics))
        body = {"round": 1, "table": mine, "game": 1, "finishes": order}
        r = http.post(f"/api/v1/pusoy/{world.cup}/reports", json=body, headers=world.headers("server"))
        assert r.status_code == 200

    built: list[int] = []
    follower = threading.Thread(target=follow, daemon=True)
    follower.start()
    with _signed_in(web, world) as client:
        ours = _events(client, world.cup, 2, report)
    follower.join(10)
    assert len(topics) == 1 and len(theirs) == 2  # one topic for both (the cup, in their language)
    assert topics[0].builds - built[0] == 1  # built once for every follower of the change
    (_, after), (_, seen) = ours, theirs
    assert after["version"] == seen["version"] and after["cup"] == seen["cup"]
    assert "<td>anna</td><td>3</td>" in after["cup"]["standings"] and set(after["mine"]) == {"state", "table", "rounds"}
    assert 'id="games"' in after["mine"]["table"] and all(p in after["mine"]["table"] for p in order)
    assert (
        'id="games"' not in seen["mine"]["table"] and f'id="opponents">{tables[mine][0]}' not in seen["mine"]["table"]
    )
    raw = json.dumps([ours, theirs], ensure_ascii=False)
    assert "parts" not in after and "Karenina" not in raw and "Full Name" not in raw  # AC-5
    assert httpx.get(f"{web.url}/play/{world.cup}/events", timeout=10).status_code == 404  # signed out


def test_pd_3_a_private_cup_is_joined_by_its_code_only_and_codes_are_throttled_per_account(web, committed, world):
    """PD-3: a private cup is not listed on /play; its code (any case) opens its page and joins it; a
    code that names nothing is a 404; after 10 distinct codes a minute the account waits (429), while
    another player at the same address does not (the limit is the account's, not the network's)."""
    with unit_of_work(committed) as session:
        private = pusoy_setup.create(
            session, name="Hidden", capacity=8, now=datetime.now(UTC), organizer="org", private=True
        ).code
    with _signed_in(web, world) as client:
        page = client.get("/play")
        csrf = _csrf(page)
        assert private not in page.text
        view = client.get(f"/play/{private.lower()}")
        assert view.status_code == 200 and "Hidden" in view.text and 'data-state="not-entered"' in view.text
        event = _events(client, private, 1)[0]  # without a seat: the cup alone, every part mine
        assert event["mine"] == _parts(view.text) and 'id="join"' in event["mine"]["state"]
        assert client.post("/play/join", data={"code": private, "csrf": csrf}).status_code == 303
        assert 'data-state="waiting"' in client.get(f"/play/{private}").text
        assert client.get("/play/ZZZZZZ").status_code == 404
        codes = [f"ZZZZ{a}{b}" for a in "23456789" for b in "23"]
        statuses = [client.get(f"/play/{code}").status_code for code in codes]
        assert statuses[:7] == [404] * 7 and statuses[-1] == 429  # 10 distinct codes, the 11th waits
        assert client.get(f"/play/{private}").status_code == 200  # a code already looked up costs nothing
    with Session(committed) as session:
        assert session.scalar(select(PusoyEntry.player).where(PusoyEntry.player == "anna")) == "anna"
    api = httpx.get(f"{web.url}/api/v1/pusoy", timeout=10).json()  # PD-3: the public list never shows it
    assert private not in {c["code"] for c in api}


def test_sp_a_player_registers_for_a_club_tournament_from_play_and_unregisters(web, committed, world):
    """The Sport Poker rules 3.x through the API's `poker.register-self`: the club's open tournament is
    listed with a register button; registering and unregistering change the player's registration."""
    with _signed_in(web, world) as client:
        page = client.get("/play")
        csrf = _csrf(page)
        assert f'action="/play/tournaments/{world.tournament_a}/register"' in page.text
        r = client.post(f"/play/tournaments/{world.tournament_a}/register", data={"csrf": csrf})
        assert r.status_code == 303, r.text
        page = client.get("/play")
        assert f'action="/play/tournaments/{world.tournament_a}/unregister"' in page.text
        assert _count(committed, Registration, Registration.player_id == world.players["player"]) == 1
        r = client.post(f"/play/tournaments/{world.tournament_a}/unregister", data={"csrf": csrf})
        assert r.status_code == 303
    with Session(committed) as session:
        status = session.scalar(select(Registration.status).where(Registration.player_id == world.players["player"]))
    assert status == "withdrawn"


# -- a player's view of a cup ----------------------------------------------------------------------------


def test_pd_4_the_players_view_of_a_full_cup_shows_their_table_seat_opponents_and_game_points(
    web, committed, world, http
):
    """PD-4, PD-6, AC-2: the last seat starts the cup; `GET /api/v1/pusoy/{code}/me` shows my table, my
    seat and my 3 opponents, then, once the server reports my table's game, my place and points and the
    live standings; `/play/{code}` shows the same. Someone else's view of it is the cup alone."""
    now = datetime.now(UTC)
    headers = world.headers("player")
    assert http.post(f"/api/v1/pusoy/{world.cup}/entries", headers=headers).status_code == 200
    with unit_of_work(committed) as session:
        for n in range(7):
            pusoy_setup.join(session, world.cup, f"p{n}", now)
    with Session(committed) as session:
        tables = seating(session, session.scalar(select(PusoyEntry.tournament_id).limit(1)), 1)
    mine = http.get(f"/api/v1/pusoy/{world.cup}/me", headers=headers).json()
    table = next(t for t, players in tables.items() if "anna" in players)
    assert mine["entered"] and mine["state"] == "playing" and mine["cup"]["status"] == "active"
    assert mine["table"]["table"] == table and mine["table"]["seat"] == tables[table].index("anna") + 1
    assert [o["player"] for o in mine["table"]["opponents"]] == [p for p in tables[table] if p != "anna"]
    assert "organizer_email" not in mine["cup"]
    order = ["anna", *[p for p in tables[table] if p != "anna"]]
    report = {"round": 1, "table": table, "game": 1, "finishes": order}
    server = world.headers("server")
    assert http.post(f"/api/v1/pusoy/{world.cup}/reports", json=report, headers=server).status_code == 200
    mine = http.get(f"/api/v1/pusoy/{world.cup}/me", headers=headers).json()
    assert mine["games"] == [{"game": 1, "finishes": order, "position": 1, "two_of_diamonds": False, "points": 3}]
    assert mine["standings"][0] == {"rank": 1, "player": "anna", "points": 3, "decided_by": None, "advanced": None}
    others = [p for t, players in tables.items() if t != table for p in players]
    assert len(mine["standings"]) == 8 and {r["points"] for r in mine["standings"] if r["player"] in others} == {0}
    with _signed_in(web, world) as client:
        page = client.get(f"/play/{world.cup}")
        assert 'data-state="playing"' in page.text and 'id="opponents"' in page.text
        assert all(p in page.text for p in order) and 'class="me"' in page.text
        event = _events(client, world.cup, 1)[0]  # what the page swaps in, live, with no fetch
        assert {**event["cup"], **event["mine"]} == _parts(page.text)  # exactly what the page shows (AC-2)
        assert 'id="games"' in event["mine"]["table"] and all(p in event["mine"]["table"] for p in order)
        assert 'data-player="anna"' in event["cup"]["standings"] and "Anna Karenina" not in json.dumps(event)
    floor = http.get(f"/api/v1/pusoy/{world.cup}/me", headers=world.headers("floor"))
    assert floor.status_code == 404  # not a player: the same answer as a missing cup (AC-2)


# -- in a browser ------------------------------------------------------------------------------------------


def test_pd_4_ac_1_in_a_browser_the_eighth_player_joins_from_play_and_follows_the_cup_to_the_champion(
    web, committed, world, page, prefect_api
):
    """PD-4, PD-8, PD-10, AC-1: 7 players take their seats through the service; the 8th signs in, joins
    from `/play` (the last seat starts the cup) and lands on `/play/<code>`; a game server's token reports
    every game through the API, and the page follows, without a reload, the player's table, round 2
    (the final table) and the champion."""
    from tests.web.test_browser import WAIT_S

    now = datetime.now(UTC)
    with unit_of_work(committed) as session:
        for n in range(7):
            pusoy_setup.join(session, world.cup, f"p{n}", now)
        tid = session.scalar(select(PusoyEntry.tournament_id).limit(1))
    page.goto(f"{web.url}/signin?next=/play")
    page.fill("#email", world.emails["player"])
    page.fill("#password", PASSWORD)
    page.click("button[type=submit]")
    page.wait_for_url(f"{web.url}/play")
    page.click(f'tr[data-code="{world.cup}"] button.join')
    page.wait_for_url(f"{web.url}/play/{world.cup}")
    page.wait_for_selector('#state[data-state="playing"]', timeout=WAIT_S * 1000)
    assert page.text_content("#opponents").count(",") == 2
    server = {**world.headers("server")}

    def report(round_no: int) -> None:
        with Session(committed) as session:
            tables = seating(session, tid, round_no)
        with httpx.Client(base_url=web.url, timeout=60, headers=server) as client:
            for table, players in tables.items():
                order = sorted(players, key=lambda p: p != "anna")  # anna first wherever she sits
                body = {"round": round_no, "table": table, "game": 1, "finishes": order}
                assert client.post(f"/api/v1/pusoy/{world.cup}/reports", json=body).status_code == 200

    page.evaluate("window.__same_page = true")  # gone if the page reloads
    with consuming():  # the event consumer completes each round after its last report, as `tourney serve`'s does
        report(1)
        page.wait_for_selector("#my-rounds", timeout=WAIT_S * 1000)  # round 1 locked: anna advanced
        page.wait_for_function("document.querySelector('#state').textContent.includes('2')", timeout=WAIT_S * 1000)
        report(2)
        page.wait_for_selector('#state[data-state="champion"]', timeout=WAIT_S * 1000)
    assert page.text_content("#champion") == "anna"
    assert page.evaluate("window.__same_page") is True
    assert page.errors == []
