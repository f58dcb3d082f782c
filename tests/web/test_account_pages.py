"""The account pages over real HTTP (uvicorn on loopback) and the real PostgreSQL (RULES AC-2..AC-5):
signing in and out, the password reset by the e-mailed link (read from the outbox's .eml), my
account's sessions and tokens, the CSRF token of every form of a session, the Origin check of the
forms of none, and the download of my data; then twice in a real browser (Russian and English)."""

from __future__ import annotations

import email
import json
import re
import time
from datetime import UTC, datetime, timedelta
from email import policy
from zoneinfo import ZoneInfo

import httpx
import pytest
from sqlalchemy import select, update
from sqlalchemy.orm import Session

from domain.access.services import accounts
from domain.access.tables import Account, AuditRecord, Token, UserSession
from domain.clubs.tables import Club
from domain.poker.tables.tournaments import Tournament
from domain.store.db import unit_of_work
from flows import bootstrap
from flows.web.auth import COOKIE
from tests.support.db import contents
from tests.support.world import PASSWORD, access_world, register

NEW_PASSWORD = "a brand new passphrase for anna"


@pytest.fixture
def world(web, committed):
    return access_world(committed, bootstrap.password_hasher(), passwords=("player", "owner"))


def _client(web, **headers) -> httpx.Client:
    return httpx.Client(base_url=web.url, timeout=10, follow_redirects=False, headers=headers)


def _sign_in(client: httpx.Client, web, who_email: str, password: str = PASSWORD, **form) -> httpx.Response:
    return client.post("/signin", data={"email": who_email, "password": password, **form}, headers={"origin": web.url})


def _csrf(client: httpx.Client) -> str:
    page = client.get("/account")
    assert page.status_code == 200, page.text
    return re.search(r'name="csrf" value="([0-9a-f]+)"', page.text).group(1)


def _snapshot(engine) -> dict:
    with Session(engine) as session:
        found = contents(session)
        session.rollback()
    return found


def _link_from_outbox(web, to: str, timeout: float = 10.0) -> str:
    """The reset link of the newest .eml to `to` in the outbox (it is written just after the answer)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        for path in sorted((web.outbox / "accounts").glob("*.eml"), reverse=True):
            msg = email.message_from_bytes(path.read_bytes(), policy=policy.default)
            if msg["To"] == to:
                return re.search(r"/reset/([A-Za-z0-9_-]+)", msg.get_content()).group(1)
        time.sleep(0.05)
    raise AssertionError(f"no link to {to} in {web.outbox / 'accounts'}")


def test_ac_4_signing_in_sets_an_httponly_samesite_cookie_and_the_account_page_shows_the_email(web, world):
    with _client(web) as client:
        assert client.get("/account").headers["location"] == "/signin?next=/account"
        assert 'href="/signin"' in client.get("/").text  # the header: sign in
        r = _sign_in(client, web, world.emails["player"])
        assert r.status_code == 303 and r.headers["location"] == "/play"  # a player's home
        cookie = r.headers.get_list("set-cookie")[0]
        assert cookie.startswith(f"{COOKIE}=") and "HttpOnly" in cookie and "SameSite=lax" in cookie
        assert "Path=/" in cookie and "Max-Age=1209600" in cookie
        page = client.get("/account")
        assert page.status_code == 200 and '<html lang="ru">' in page.text  # the account's language
        assert f'id="email">{world.emails["player"]}<' in page.text and "Мой аккаунт" in page.text
        assert "игрок" in page.text and "это устройство" in page.text
        assert "tests" in page.text and world.tokens["player"] not in page.text  # a token's name, never its secret
        assert 'href="/account">Мой аккаунт' in client.get("/").text  # the header, with no read of the database
    with _client(web) as client:  # `next`: a path of this site only
        assert _sign_in(client, web, world.emails["owner"], next="/t/1").headers["location"] == "/t/1"
    for hostile in ("//evil.example/x", "https://evil.example/", "/\\evil.example", "http:/x", " /t/1"):
        with _client(web) as client:  # never another site (no open redirect): the person's home instead
            assert _sign_in(client, web, world.emails["owner"], next=hostile).headers["location"] == "/club"


def test_ac_4_a_wrong_password_is_401_and_the_form_keeps_the_email_but_never_the_password(web, world):
    with _client(web, **{"accept-language": "en"}) as client:
        r = _sign_in(client, web, world.emails["player"], "not the password at all")
        assert r.status_code == 401 and "set-cookie" not in r.headers
        assert "That e-mail and password do not match." in r.text
        assert f'value="{world.emails["player"]}"' in r.text and "not the password at all" not in r.text
    with _client(web) as client:
        r = _sign_in(client, web, world.emails["player"], "ещё один неверный пароль")
        assert r.status_code == 401 and "не подходят" in r.text and "неверный" not in r.text
        for _ in range(3):
            _sign_in(client, web, world.emails["player"], "wrong again and again")
        r = _sign_in(client, web, world.emails["player"], PASSWORD)  # the 6th: throttled, even when right
        assert r.status_code == 429 and int(r.headers["retry-after"]) > 0
        assert re.search(r"попробуйте снова через [\d\s ]+ секунд", r.text), r.text


def test_ac_4_a_cross_origin_sign_in_post_is_refused_and_writes_nothing(web, world, committed):
    before = _snapshot(committed)
    with _client(web) as client:
        r = client.post(
            "/signin",
            data={"email": world.emails["player"], "password": PASSWORD},
            headers={"origin": "https://evil.example"},
        )
        assert r.status_code == 403 and "set-cookie" not in r.headers and "другого сайта" in r.text
        r = client.post("/reset", data={"email": world.emails["player"]}, headers={"origin": "https://evil.example"})
        assert r.status_code == 403
        for headers in ({"sec-fetch-site": "cross-site"}, {"sec-fetch-site": "same-site", "origin": web.url}):
            r = client.post("/signin", data={"email": world.emails["player"], "password": PASSWORD}, headers=headers)
            assert r.status_code == 403, headers
    assert _snapshot(committed) == before
    with _client(web) as client:  # Chromium's own form: Origin null (no-referrer), Sec-Fetch-Site same-origin
        headers = {"origin": "null", "sec-fetch-site": "same-origin"}
        r = client.post("/signin", data={"email": world.emails["player"], "password": PASSWORD}, headers=headers)
        assert r.status_code == 303


def test_ac_4_signing_out_ends_the_session_row_and_the_old_cookie_no_longer_works(web, world, committed):
    with _client(web) as client:
        _sign_in(client, web, world.emails["player"])
        old = client.cookies[COOKIE]
        r = client.post("/signout", data={"csrf": _csrf(client)})
        assert r.status_code == 303 and r.headers["location"] == "/"
        assert f'{COOKIE}=""' in r.headers["set-cookie"] and "Max-Age=0" in r.headers["set-cookie"]
    with Session(committed) as session:
        rows = session.scalars(select(UserSession).where(UserSession.account_id == world.account_ids["player"])).all()
        assert len(rows) == 1 and rows[0].ended_at is not None
        assert session.scalars(select(AuditRecord.action)).all() == ["account.sign-out"]
    with _client(web) as client:
        client.cookies.set(COOKIE, old)
        assert client.get("/account").headers["location"] == "/signin?next=/account"


def test_ac_4_a_form_post_without_its_csrf_token_is_refused_and_writes_nothing(web, world, committed):
    with _client(web) as client:
        _sign_in(client, web, world.emails["player"])
        csrf = _csrf(client)
        with Session(committed) as session:
            mine = session.scalar(select(Token.id).where(Token.account_id == world.account_ids["player"]))
            owners = session.scalar(select(Token.id).where(Token.account_id == world.account_ids["owner"]))
        before = _snapshot(committed)
        for path in ("/account/sign-out-everywhere", f"/account/tokens/{mine}/revoke", "/signout"):
            for data in ({}, {"csrf": "0" * 32}):
                r = client.post(path, data=data)
                assert r.status_code == 403 and "Форма устарела" in r.text, (path, r.status_code)
        assert _snapshot(committed) == before
        r = client.post(f"/account/tokens/{owners}/revoke", data={"csrf": csrf})  # another's: as a missing one (AC-2)
        assert r.status_code == 404
        assert client.post("/account/tokens/900000001/revoke", data={"csrf": csrf}).status_code == 404
        assert _snapshot(committed) == before
        r = client.post(f"/account/tokens/{mine}/revoke", data={"csrf": csrf})
        assert r.status_code == 303 and r.headers["location"] == "/account"
        assert "отозван" in client.get("/account").text
        r = client.post("/account/sign-out-everywhere", data={"csrf": csrf})
        assert r.status_code == 303 and r.headers["location"] == "/"
        assert client.get("/account").status_code == 303
    with Session(committed) as session:
        assert session.get(Token, mine).revoked_at is not None and session.get(Token, owners).revoked_at is None
        trail = session.execute(select(AuditRecord.action, AuditRecord.actor_label).order_by(AuditRecord.id)).all()
        assert trail == [
            ("account.revoke-token", world.emails["player"]),
            ("account.sign-out-everywhere", world.emails["player"]),
        ]
        assert all(
            s.ended_at for s in session.scalars(select(UserSession)) if s.account_id == world.account_ids["player"]
        )


def test_ac_4_the_reset_never_tells_whether_an_email_has_an_account_and_its_link_works_once(web, world, committed):
    player = world.emails["player"]
    with _client(web) as elsewhere:  # another device, signed in before the reset
        _sign_in(elsewhere, web, player)
        assert elsewhere.get("/account").status_code == 200
        with _client(web) as client:
            assert client.get("/reset").status_code == 200
            unknown = client.post("/reset", data={"email": "no-such-person@example.org"}, headers={"origin": web.url})
            known = client.post("/reset", data={"email": player.upper()}, headers={"origin": web.url})
            assert unknown.status_code == known.status_code == 200
            assert unknown.content == known.content and "Проверьте почту" in known.text
            secret = _link_from_outbox(web, player)
            assert len(list((web.outbox / "accounts").glob("*.eml"))) == 1
            assert client.get(f"/reset/{secret}").status_code == 200
            r = client.post(
                f"/reset/{secret}", data={"password": "short", "repeated": "other"}, headers={"origin": web.url}
            )
            assert r.status_code == 422  # every problem at once; the link is not spent
            assert "не меньше 10 символов" in r.text and "Пароли не совпадают" in r.text and "short" not in r.text
            r = client.post(
                f"/reset/{secret}",
                data={"password": NEW_PASSWORD, "repeated": NEW_PASSWORD},
                headers={"origin": web.url},
            )
            assert r.status_code == 303 and r.headers["location"] == "/play"  # signed in afresh, at home
            assert COOKIE in r.headers["set-cookie"]
            assert client.get("/account").status_code == 200
            again = client.post(
                f"/reset/{secret}",
                data={"password": "yet another passphrase", "repeated": "yet another passphrase"},
                headers={"origin": web.url},
            )
            assert again.status_code == 410 and "Ссылка больше не действует" in again.text
            assert client.get(f"/reset/{secret}").status_code == 410
        assert elsewhere.get("/account").status_code == 303  # a changed password signed the other device out
    with _client(web) as client:
        assert _sign_in(client, web, player).status_code == 401
        assert _sign_in(client, web, player, NEW_PASSWORD).status_code == 303


def test_ac_4_an_expired_reset_link_is_refused_and_changes_nothing(web, world, committed):
    with unit_of_work(committed) as session:
        account = session.get(Account, world.account_ids["player"])
        secret = accounts.issue_link(session, account, "reset", datetime.now(UTC) - timedelta(hours=2))
    before = _snapshot(committed)
    with _client(web, **{"accept-language": "en"}) as client:
        r = client.get(f"/reset/{secret}")
        assert r.status_code == 410 and "This link no longer works" in r.text and 'href="/reset"' in r.text
        r = client.post(
            f"/reset/{secret}", data={"password": NEW_PASSWORD, "repeated": NEW_PASSWORD}, headers={"origin": web.url}
        )
        assert r.status_code == 410 and "set-cookie" not in r.headers
        assert client.get("/reset/not-a-link").status_code == 410
    assert _snapshot(committed) == before


def test_ac_5_my_data_download_holds_my_full_name_and_handle_and_no_password_hash(web, world):
    with _client(web) as client:
        assert client.get("/account/data.json").status_code == 303
        _sign_in(client, web, world.emails["player"])
        r = client.get("/account/data.json")
        assert r.status_code == 200 and r.headers["content-type"].startswith("application/json")
        assert r.headers["content-disposition"].startswith("attachment;")
        data = json.loads(r.text)
        assert data["player"]["name"] == "Anna Karenina" and data["player"]["handle"] == "anna"
        assert data["account"]["email"] == world.emails["player"] and data["sessions"]
        assert "argon2" not in r.text and "password" not in r.text and "secret" not in r.text
        assert client.cookies[COOKIE].split(".")[0] not in r.text


# -- where a person lands, the header of their pages, their times -----------------------------------------

EVERYONE = ("operator", "owner", "floor", "cashier", "owner_b", "both", "organizer", "player")
HOMES = {  # issue 39: the first of operator, owner, floor or cashier, organizer, player decides
    "operator": "/platform",  # the operator's queue (issue 39)
    "owner": "/club",  # the owner's console (issue 39)
    "floor": "/desk",
    "cashier": "/desk",
    "owner_b": "/club",
    "both": "/desk",  # floor of A, cashier of B
    "organizer": "/cups",  # a Pusoy Dos organizer's cups (issue 39)
    "player": "/play",
}


@pytest.fixture
def everyone(web, committed):
    return access_world(committed, bootstrap.password_hasher(), passwords=EVERYONE)


def _grant(engine, account_id: int, role: str, club_id: int | None) -> None:
    with unit_of_work(engine) as session:
        accounts.grant(session, session.get(Account, account_id), role, club_id, datetime.now(UTC))


def _header(page: str) -> list[str]:
    """The header's places, as links (`href`s) and the sign-out form's action."""
    header = page[page.index('<header class="top">') : page.index("</header>")]
    return re.findall(r'<a class="nav" href="([^"]+)"', header) + re.findall(
        r'<form method="post" action="(/signout)"', header
    )


def test_ac_1_each_role_lands_at_its_home_after_signing_in_and_a_next_path_of_this_site_wins(web, everyone, committed):
    """Issue 39: floor and cashier at the desk, the owner at the owner's console /club, a player at
    /play, the operator at the queue /platform; several roles: the first of operator, owner, floor or cashier,
    player. A `next` of this site wins; another site's never (no open redirect)."""
    w = everyone
    for who, home in HOMES.items():
        with _client(web) as client:
            assert _sign_in(client, web, w.emails[who]).headers["location"] == home, who
    _grant(committed, w.account_ids["player"], "cashier", w.club_b)  # a player who is also a club's cashier
    with _client(web) as client:
        assert _sign_in(client, web, w.emails["player"]).headers["location"] == "/desk"
    _grant(committed, w.account_ids["player"], "operator", None)  # ... and the platform's operator
    with _client(web) as client:
        assert _sign_in(client, web, w.emails["player"]).headers["location"] == "/platform"
    with _client(web) as client:
        form = client.get("/signin")
        assert '<input type="hidden" name="next" value="">' in form.text  # no next asked: the home decides
        assert 'name="next" value="/play/ABCDEF"' in client.get("/signin?next=/play/ABCDEF").text
        r = _sign_in(client, web, w.emails["floor"], next="/play/ABCDEF?x=1")
        assert r.headers["location"] == "/play/ABCDEF?x=1"
    for hostile in ("https://evil.example/desk", "//evil.example", "/\\evil.example", "javascript:alert(1)", "desk"):
        with _client(web) as client:
            assert _sign_in(client, web, w.emails["floor"], next=hostile).headers["location"] == "/desk", hostile


def test_ac_1_every_page_of_a_signed_in_person_links_the_places_they_may_go(web, everyone, committed):
    """Issue 39: the header links the operator's queue, the owner's console, the desk for a club's
    staff, play for a player, my account and a sign-out form (the session's CSRF token), on every page
    they open: the front page, a results page, the certificate check, an error page, their account, play."""
    w = everyone
    places = {
        "floor": ["/verify", "/desk", "/account", "/signout"],
        "player": ["/verify", "/play", "/account", "/signout"],
        "operator": ["/verify", "/platform", "/account", "/signout"],
    }
    for who, expected in places.items():
        with _client(web) as client:
            _sign_in(client, web, w.emails[who])
            csrf = _csrf(client)
            for path in ("/", f"/t/{w.tournament_a}", "/verify", "/no-such-page", "/account", "/account/password"):
                page = client.get(path)
                assert _header(page.text) == expected, (who, path)
                assert f'name="csrf" value="{csrf}"' in page.text[: page.text.index("</header>")], (who, path)
            if who == "player":
                assert _header(client.get("/play").text) == expected
                assert 'href="/play" aria-current="page">Играть</a>' in client.get("/play").text
    with _client(web) as client:  # the header's sign-out ends the session
        _sign_in(client, web, w.emails["both"])
        r = client.post("/signout", data={"csrf": _csrf(client)})
        assert r.status_code == 303 and r.headers["location"] == "/"
        assert all("Max-Age=0" in c for c in r.headers.get_list("set-cookie"))  # the session's cookie and its places'
        assert _header(client.get("/").text) == ["/verify", "/signin"]
    with _client(web) as client:  # signed out: "Sign in"
        assert _header(client.get("/").text) == ["/verify", "/signin"]


def test_ac_1_the_header_places_are_the_session_s_own_and_come_with_the_pages_that_read_the_roles(
    web, everyone, committed
):
    """The places live in a cookie beside the session's (no read of the database on a public page),
    bound to that session: another session's, or a forged one, shows nothing more than my account."""
    w = everyone
    with _client(web) as client:  # a session begun through the API: no places until /account reads them
        assert (
            client.post("/api/v1/session", json={"email": w.emails["owner"], "password": PASSWORD}).status_code == 200
        )
        assert _header(client.get("/").text) == ["/verify", "/account", "/signout"]
        client.get("/account")
        assert _header(client.get("/").text) == ["/verify", "/club", "/desk", "/account", "/signout"]
        owners = client.cookies["tourney_places"]
    with _client(web) as client:
        _sign_in(client, web, w.emails["player"])
        for forged in (owners, "desk,play." + "0" * 32):  # the owner's places on the player's session; a forgery
            client.cookies.delete("tourney_places")
            client.cookies.set("tourney_places", forged, domain="127.0.0.1")
            assert _header(client.get("/").text) == ["/verify", "/account", "/signout"]
        assert client.get("/play").headers["set-cookie"].startswith("tourney_places=play.")  # read, set again
        assert _header(client.get("/").text) == ["/verify", "/play", "/account", "/signout"]


def test_account_times_are_in_the_club_s_timezone_or_said_to_be_utc(web, everyone, committed):
    """Issue 40: an account has no timezone; /account shows its times in the timezone of the club of its
    first role, else (a player) of the club of the latest registration, else UTC, and says which."""
    from babel.dates import format_time

    w = everyone
    with unit_of_work(committed) as session:
        session.execute(update(Club).where(Club.id == w.club_a).values(timezone="Asia/Vladivostok"))
        session.execute(update(Club).where(Club.id == w.club_b).values(timezone="Asia/Yekaterinburg"))
        register(session, session.get(Tournament, w.tournament_b), False, player_id=w.players["player"])
        club_a = session.get(Club, w.club_a).name

    def sessions(page: str) -> str:
        return page[page.index('id="zone"') : page.index("</table>")]

    for who, zone, offset in (
        ("floor", "Asia/Vladivostok", "GMT+10:00"),
        ("player", "Asia/Yekaterinburg", "GMT+05:00"),
    ):
        with _client(web) as client:
            _sign_in(client, web, w.emails[who])
            with Session(committed) as session:
                started = session.scalar(
                    select(UserSession.started_at).where(UserSession.account_id == w.account_ids[who])
                )
            shown = sessions(client.get("/account").text)
            local = format_time(started, "short", tzinfo=ZoneInfo(zone), locale="ru")
            assert f"по часовому поясу {zone} ({offset})" in shown and local in shown, (who, shown)
            assert "UTC" not in shown and format_time(started, "short", tzinfo=UTC, locale="ru") not in shown
    with _client(web) as client:
        _sign_in(client, web, w.emails["floor"])
        assert f"поясу клуба «{club_a}»" in client.get("/account").text
    with _client(web) as client:  # no club at all: UTC, said so
        _sign_in(client, web, w.emails["operator"])
        shown = sessions(client.get("/account").text)
        assert "Время — по UTC: ваш аккаунт пока не связан ни с одним клубом." in shown


# -- in a real browser ----------------------------------------------------------------------------------


def _browse_sign_in_and_out(web, page, email_address: str, words: dict[str, str]) -> None:
    page.goto(f"{web.url}/")
    page.click(f"text={words['sign in']}")
    page.fill("#email", email_address)
    page.fill("#password", PASSWORD)
    page.click("form.account button[type=submit]")
    page.wait_for_url(f"{web.url}{words['home']}")  # the person's home: a player's /play, an owner's console
    page.goto(f"{web.url}/account")
    assert page.text_content("h1") == words["my account"]
    assert page.text_content("#email") == email_address
    assert words["this device"] in page.text_content("#sessions")
    page.click("#sign-out")
    page.wait_for_url(f"{web.url}/")
    assert page.text_content(".top .who") == words["sign in"]
    assert page.context.cookies() == []
    page.goto(f"{web.url}/account")
    assert page.url.startswith(f"{web.url}/signin")
    assert page.errors == [], page.errors


def test_ac_4_in_a_browser_sign_in_account_and_sign_out_in_russian(web, world, page):
    page.set_extra_http_headers({"accept-language": "ru-RU,ru;q=0.9"})
    words = {"sign in": "Войти", "my account": "Мой аккаунт", "this device": "это устройство", "home": "/play"}
    _browse_sign_in_and_out(web, page, world.emails["player"], words)


def test_ac_4_in_a_browser_sign_in_account_and_sign_out_in_english(web, world, page, committed):
    with unit_of_work(committed) as session:
        session.get(Account, world.account_ids["owner"]).locale = "en"
    page.set_extra_http_headers({"accept-language": "en-GB,en;q=0.9"})
    words = {
        "sign in": "Sign in",
        "my account": "My account",
        "this device": "this device",
        "home": f"/club/{world.club_a}",
    }
    _browse_sign_in_and_out(web, page, world.emails["owner"], words)
