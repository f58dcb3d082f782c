"""The operator's queue's pages (flows/web/platform.py, issue 39) over HTTP against a real server and
PostgreSQL: the operator lands at `/platform` after signing in; applications approved and refused with
a reason (CL-3), a club suspended and terminated (CL-4; AC-4 at the staff's next request), an account
blocked and unblocked (AC-4), the Pusoy Dos organizer role granted and taken back, each form's change made by the API's use case and audited (AC-3), each
refusal said in the operator's language with nothing written; a form without its CSRF field is
refused; anyone but the operator gets the 404 page (AC-2)."""

from __future__ import annotations

import re
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime, timedelta

import httpx
import pytest
from sqlalchemy import select
from sqlalchemy.orm import Session

from domain.access.services import accounts
from domain.access.tables import Account, AuditRecord
from domain.clubs.services import clubs as club_service
from domain.clubs.tables import Club
from domain.store.db import unit_of_work
from flows import bootstrap
from tests.support.db import contents
from tests.support.world import PASSWORD, access_world

CREDENTIALS = ("account_tokens", "account_sessions")


@pytest.fixture
def world(web, committed):
    w = access_world(committed, bootstrap.password_hasher(), passwords=("operator", "owner", "organizer"))
    now = datetime.now(UTC)
    with unit_of_work(committed) as session:  # A waits for a moderator, B for the registry
        club_service.apply(session, w.club_a, now - timedelta(hours=2), provider_configured=False)
        club_service.apply(session, w.club_b, now - timedelta(hours=1), provider_configured=True)
    return w


@contextmanager
def _signed_in(web, world, who: str = "operator") -> Iterator[httpx.Client]:
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


def _last(engine) -> tuple[str, str, int | None]:
    with Session(engine) as session:
        row = session.scalars(select(AuditRecord).order_by(AuditRecord.id.desc()).limit(1)).one()
        return row.action, row.target, row.club_id


def _club(engine, club_id: int) -> Club:
    with Session(engine) as session:
        return session.get_one(Club, club_id)


def _problems(page: str) -> list[str]:
    return re.findall(r'<li data-code="([^"]+)">', page)


def test_issue_39_the_operator_lands_at_the_queue_and_decides_applications(web, world, committed):
    """Issue 39, CL-3: signing in lands the operator at `/platform`, in their account's language; the
    queue lists the moderator's first with why they wait; approved with what was checked, refused with
    a reason; a refusal without one says so in Russian and writes nothing; a form without CSRF: 403."""
    with _signed_in(web, world) as client:
        assert client.landed == "/platform"
        page = client.get("/platform")
        assert page.status_code == 200, page.text
        assert '<html lang="ru">' in page.text
        order = [int(n) for n in re.findall(r'<li class="application" data-club="(\d+)"', page.text)]
        assert order == [world.club_a, world.club_b]
        assert club_service.NO_PROVIDER in page.text
        csrf = _csrf(page.text)
        before = _rows(committed)
        blank = client.post(
            f"/platform/clubs/{world.club_b}/refuse", data={"csrf": csrf, "reason": " ", "back": "queue"}
        )
        assert blank.status_code == 409 and _problems(blank.text) == ["reason-missing"]
        assert "Укажите причину" in blank.text
        assert _rows(committed) == before
        stale = client.post(f"/platform/clubs/{world.club_a}/approve", data={"reason": "x", "back": "queue"})
        assert stale.status_code == 403 and _rows(committed) == before
        done = client.post(
            f"/platform/clubs/{world.club_a}/approve", data={"csrf": csrf, "reason": "выписка ЕГРЮЛ", "back": "queue"}
        )
        assert (done.status_code, done.headers["location"]) == (303, "/platform?done=approved")
        assert _last(committed) == ("platform.approve-club", f"club {world.club_a}", world.club_a)
        club = _club(committed, world.club_a)
        assert (club.verification_status, club.verification_reason) == ("verified", "выписка ЕГРЮЛ")
        after = client.get(done.headers["location"])
        assert 'id="done"' in after.text and "Одобрено" in after.text
        refused = client.post(
            f"/platform/clubs/{world.club_b}/refuse",
            data={"csrf": csrf, "reason": "ОГРН другого лица", "back": "queue"},
        )
        assert refused.headers["location"] == "/platform?done=refused"
        assert _club(committed, world.club_b).verification_status == "refused"
        assert 'id="queue-empty"' in client.get("/platform").text
        # the club's page: its history, and approving again is refused with the reason, nothing written
        page = client.get(f"/platform/clubs/{world.club_a}")
        assert page.status_code == 200 and "выписка ЕГРЮЛ" in page.text and 'id="history"' in page.text
        before = _rows(committed)
        again = client.post(f"/platform/clubs/{world.club_a}/approve", data={"csrf": csrf, "back": "club"})
        assert again.status_code == 409 and _problems(again.text) == ["cannot-verify"]
        assert _rows(committed) == before


def test_cl_4_the_operator_suspends_and_terminates_a_club_from_its_page(web, world, committed):
    """CL-4, AC-4: suspended with a reason, the club's owner's next change is refused; listed again;
    terminated for good; the catalog lists the clubs by status."""
    a = world.club_a
    with _signed_in(web, world) as client:
        csrf = _csrf(client.get(f"/platform/clubs/{a}").text)
        r = client.post(f"/platform/clubs/{a}/suspend", data={"csrf": csrf, "reason": "1.7.4: долг"})
        assert (r.status_code, r.headers["location"]) == (303, f"/platform/clubs/{a}?done=suspended")
        assert (_club(committed, a).listing_status, _club(committed, a).listing_reason) == ("suspended", "1.7.4: долг")
        assert _last(committed) == ("platform.suspend-club", f"club {a}", a)
        listed = client.get("/platform/clubs?listing=suspended")
        assert [int(n) for n in re.findall(r'<tr data-club="(\d+)"', listed.text)] == [a]
        with _signed_in(web, world, "owner") as owner:
            profile = owner.get(f"/club/{a}/profile")
            assert profile.status_code == 200  # reads still answer
            before = _rows(committed)
            refused = owner.post(
                f"/club/{a}/profile",
                data={
                    "csrf": _csrf(profile.text),
                    "name": "X",
                    "contact_email": "x@example.org",
                    "timezone": "Europe/Moscow",
                    "locale": "ru",
                },
            )
            assert refused.status_code in (403, 409) and _rows(committed) == before
        r = client.post(f"/platform/clubs/{a}/reinstate", data={"csrf": csrf, "reason": "оплачено"})
        assert _club(committed, a).listing_status == "listed"
        r = client.post(f"/platform/clubs/{a}/terminate", data={"csrf": csrf, "reason": "1.7.4"})
        assert r.headers["location"] == f"/platform/clubs/{a}?done=terminated"
        assert _club(committed, a).listing_status == "terminated"
        page = client.get(f"/platform/clubs/{a}")
        assert f'action="/platform/clubs/{a}/suspend"' not in page.text  # nothing left to decide but history


def test_ac_4_the_operator_blocks_and_unblocks_an_account(web, world, committed):
    """AC-4: the accounts found by e-mail; a block needs its reason; blocked, the person's sessions end;
    the block lifted; one's own account offers no block."""
    spare = world.account_ids["spare"]
    with _signed_in(web, world) as client:
        page = client.get("/platform/accounts?q=spare")
        assert [int(n) for n in re.findall(r'<tr data-account="(\d+)"', page.text)] == [spare]
        csrf = _csrf(page.text)
        before = _rows(committed)
        blank = client.post(f"/platform/accounts/{spare}/block", data={"csrf": csrf, "reason": "", "q": "spare"})
        assert blank.status_code == 409 and _problems(blank.text) == ["reason-required"]
        assert _rows(committed) == before
        r = client.post(f"/platform/accounts/{spare}/block", data={"csrf": csrf, "reason": "1.5.3: спам", "q": "spare"})
        assert (r.status_code, r.headers["location"]) == (303, "/platform/accounts?q=spare&done=blocked")
        with Session(committed) as session:
            assert session.get_one(Account, spare).blocked_reason == "1.5.3: спам"
        assert _last(committed)[:2] == ("platform.block-account", f"account {spare}")
        r = client.post(f"/platform/accounts/{spare}/unblock", data={"csrf": csrf, "q": "spare"})
        assert r.headers["location"] == "/platform/accounts?q=spare&done=unblocked"
        again = client.post(f"/platform/accounts/{spare}/unblock", data={"csrf": csrf})
        assert again.headers["location"] == "/platform/accounts?done=unchanged"
        mine = client.get("/platform/accounts?q=operator@")
        assert f'action="/platform/accounts/{world.account_ids["operator"]}/block"' not in mine.text


def _organizer_cell(page: str, account_id: int) -> str:
    row = re.search(rf'<tr data-account="{account_id}">.*?</tr>', page, re.S).group(0)
    return re.search(r'data-organizer="(yes|no)"', row).group(1)


def test_issue_39_the_operator_grants_and_takes_back_the_organizer_role(web, world, committed):
    """Issue 39, AC-1: the accounts page shows whether an account is a Pusoy Dos organizer and grants the
    role or takes it back by `platform.grant-organizer`'s and `revoke-organizer`'s use case, audited
    like the API's (AC-3); once more changes nothing and writes nothing; without CSRF: 403, nothing
    written; an account that does not exist: the 404 page."""
    spare = world.account_ids["spare"]
    with _signed_in(web, world) as client:
        page = client.get("/platform/accounts?q=spare")
        assert _organizer_cell(page.text, spare) == "no"
        assert f'action="/platform/accounts/{spare}/grant-organizer"' in page.text
        assert "Сделать организатором" in page.text
        csrf = _csrf(page.text)
        before = _rows(committed)
        stale = client.post(f"/platform/accounts/{spare}/grant-organizer", data={"q": "spare"})
        assert stale.status_code == 403 and _rows(committed) == before
        r = client.post(f"/platform/accounts/{spare}/grant-organizer", data={"csrf": csrf, "q": "spare"})
        assert (r.status_code, r.headers["location"]) == (303, "/platform/accounts?q=spare&done=organizer-granted")
        assert _last(committed) == ("platform.grant-organizer", f"account {spare}", None)
        after = client.get(r.headers["location"])
        assert 'id="done"' in after.text and "организатор Pusoy Dos" in after.text
        assert _organizer_cell(after.text, spare) == "yes"
        assert f'action="/platform/accounts/{spare}/revoke-organizer"' in after.text
        with Session(committed) as session:
            assert ("organizer", None) in [(r.value, c) for r, c in accounts.roles_of(session, spare)]
        before = _rows(committed)
        again = client.post(f"/platform/accounts/{spare}/grant-organizer", data={"csrf": csrf})
        assert again.headers["location"] == "/platform/accounts?done=unchanged" and _rows(committed) == before
        r = client.post(f"/platform/accounts/{spare}/revoke-organizer", data={"csrf": csrf, "q": "spare"})
        assert r.headers["location"] == "/platform/accounts?q=spare&done=organizer-revoked"
        assert _last(committed) == ("platform.revoke-organizer", f"account {spare}", None)
        assert _organizer_cell(client.get("/platform/accounts?q=spare").text, spare) == "no"
        with Session(committed) as session:
            assert accounts.roles_of(session, spare) == ()
        before = _rows(committed)
        again = client.post(f"/platform/accounts/{spare}/revoke-organizer", data={"csrf": csrf})
        assert again.headers["location"] == "/platform/accounts?done=unchanged" and _rows(committed) == before
        missing = client.post("/platform/accounts/999999999/grant-organizer", data={"csrf": csrf})
        assert missing.status_code == 404 and _rows(committed) == before


def test_ac_2_the_queue_is_the_operator_s_alone(web, world, committed):
    """AC-2: an owner and an organizer get the 404 page for every page of the queue and a post writes
    nothing; signed out, to the sign-in page and back."""
    with httpx.Client(base_url=web.url, timeout=15, follow_redirects=False) as anonymous:
        r = anonymous.get("/platform/clubs?listing=listed")
        assert r.headers["location"] == "/signin?next=%2Fplatform%2Fclubs%3Flisting%3Dlisted"
    for who in ("owner", "organizer"):
        with _signed_in(web, world, who) as client:
            for path in ("/platform", "/platform/clubs", f"/platform/clubs/{world.club_a}", "/platform/accounts"):
                assert client.get(path).status_code == 404, (who, path)
            csrf = _csrf(client.get("/account").text)
            before = _rows(committed)
            r = client.post(f"/platform/clubs/{world.club_a}/suspend", data={"csrf": csrf, "reason": "x"})
            assert r.status_code == 404 and _rows(committed) == before
            for change in ("grant-organizer", "revoke-organizer"):  # the organizer's own role too
                for account in (world.account_ids["spare"], world.account_ids["organizer"]):
                    r = client.post(f"/platform/accounts/{account}/{change}", data={"csrf": csrf})
                    assert r.status_code == 404 and _rows(committed) == before, (who, change, account)
                    assert r.text == client.post("/platform/no-such-page", data={"csrf": csrf}).text
