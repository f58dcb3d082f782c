"""The club's webhooks in the owner's console (issue 39, flows/web/club_webhooks.py) over HTTP against a
real server and PostgreSQL: the owner adds an endpoint by the API's use case (its signing secret on the
answering page alone, `no-store`, in no table and no audit row), sees it listed with its deliveries (the
last one, the recent ones with their state and answer, in the club's time), disables it (audited, AC-3;
again: nothing to change, nothing written); every refusal said in Russian with nothing written; without
the CSRF field a plain 403; every role of the club but the owner, another club's owner and a person with no
role get the missing club's 404 and write nothing; another club's endpoint is refused exactly as a missing
one (AC-2)."""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta

import pytest
from sqlalchemy import select, update
from sqlalchemy.orm import Session

from domain.access.tables import AuditRecord
from domain.store.db import unit_of_work
from domain.webhooks.rules.signing import derive_secret
from domain.webhooks.services import endpoints, outbox
from domain.webhooks.tables import Delivery, Endpoint
from flows import bootstrap
from infra.config import load_settings
from tests.support.db import contents
from tests.support.world import access_world
from tests.web.test_club_pages import _client, _csrf, _rows, _signed_in

ROLES = ("floor", "cashier", "owner_b", "both", "player", "operator")
URL = "https://hooks.club.example/tourney"


@pytest.fixture
def world(web, committed):
    return access_world(committed, bootstrap.password_hasher(), passwords=("owner", "owner_b", *ROLES))


def _audit(engine) -> list[tuple[str, str]]:
    with Session(engine) as session:
        return [(r.action, r.target) for r in session.scalars(select(AuditRecord).order_by(AuditRecord.id))]


def _everything(engine) -> str:
    """Every row of every table, as text."""
    with Session(engine) as session:
        return repr(contents(session))


def test_issue_39_the_owner_adds_sees_and_disables_a_webhook_in_the_console(web, world, committed):
    """Issue 39, AC-3, DOC-4: the page's changes are the API's, audited; the secret is shown once."""
    page_url = f"/club/{world.club_a}/webhooks"
    with _signed_in(web, world) as client:
        empty = client.get(page_url)
        assert empty.status_code == 200 and "Вебхуков пока нет." in empty.text
        assert f'href="{page_url}" aria-current="page"' in empty.text  # in the console's navigation
        csrf = _csrf(empty.text)
        before = _rows(committed)
        for data, code in (
            ({"url": "http://hooks.club.example/x", "event": "round.completed"}, "webhook-https"),
            ({"url": "https://192.168.1.10/x", "event": "round.completed"}, "webhook-private-host"),
            ({"url": "ftp://x", "event": "round.completed"}, "webhook-url"),
            ({"url": URL}, "webhook-events"),
        ):
            bad = client.post(page_url, data={"csrf": csrf, **data})
            assert bad.status_code == 409, bad.text
            assert f'data-code="{code}"' in bad.text and "Ничего не сохранено" in bad.text, code
            assert "whsec_" not in bad.text
            assert _rows(committed) == before
        both = client.post(page_url, data={"csrf": csrf, "url": "http://hooks.club.example/x"})
        codes = re.findall(r'data-code="([a-z-]+)"', both.text)
        assert codes == ["webhook-https", "webhook-events"]  # every problem at once
        assert "Адрес должен начинаться с https://." in both.text and "Выберите хотя бы одно событие." in both.text
        assert 'value="http://hooks.club.example/x"' in both.text  # the form as typed
        stale = client.post(page_url, data={"url": URL, "event": "round.completed"})
        assert stale.status_code == 403 and _rows(committed) == before

        made = client.post(
            page_url, data={"csrf": csrf, "url": URL, "event": ["tournament.finished", "documents.ready"]}
        )
        assert made.status_code == 201, made.text
        assert made.headers["cache-control"] == "no-store"
        secret = re.search(r'<code id="secret">(whsec_[0-9a-f]+)</code>', made.text).group(1)
        with Session(committed) as session:
            endpoint = session.scalars(select(Endpoint).where(Endpoint.club_id == world.club_a)).one()
            assert endpoint.events == ["tournament.finished", "documents.ready"]
            assert derive_secret(load_settings().secret_key(), endpoint.id, endpoint.created_at) == secret
        assert secret.removeprefix("whsec_") not in _everything(committed)
        assert _audit(committed)[-1] == ("club.add-webhook", f"webhook {URL}")
        listed = client.get(page_url)
        assert secret not in listed.text and "whsec_" not in listed.text and URL in listed.text
        assert "турнир завершён: его места" in listed.text and "доставлено: 0, ждут: 0, брошено: 0" in listed.text

        # two deliveries: one answered 200, a newer one refused with a 500 and waiting for its next attempt
        now = datetime.now(UTC)
        with unit_of_work(committed) as session:
            first = outbox.emit(session, "tournament.finished", now - timedelta(hours=2), club_id=world.club_a,
                                organizer=None, payload={"source": "poker"})  # fmt: skip
            second = outbox.emit(session, "documents.ready", now - timedelta(hours=1), club_id=world.club_a,
                                 organizer=None, payload={"source": "poker"})  # fmt: skip
            session.execute(update(Delivery).where(Delivery.event_id == first)
                            .values(delivered_at=now, attempts=1, last_status=200))  # fmt: skip
            session.execute(update(Delivery).where(Delivery.event_id == second)
                            .values(attempts=2, last_status=500, last_error="server error", next_attempt_at=now + timedelta(minutes=2)))  # fmt: skip
        seen = client.get(page_url)
        row = re.search(rf'<tr data-webhook="{endpoint.id}">(.*?)</tr>', seen.text, re.S).group(1)
        assert "доставлено: 1, ждут: 1, брошено: 0" in row and "ждёт (HTTP 500)" in row
        recent = re.search(rf'<table class="cards" data-deliveries="{endpoint.id}".*?</table>', seen.text, re.S).group(
            0
        )
        assert recent.index("documents.ready") < recent.index("tournament.finished")  # newest first
        assert "HTTP 500: server error" in recent and "HTTP 200" in recent
        assert recent.count("следующая попытка") == 1  # the waiting one's

        disabled = client.post(f"{page_url}/{endpoint.id}/disable", data={"csrf": csrf})
        assert (disabled.status_code, disabled.headers["location"]) == (303, f"{page_url}?done=disabled")
        assert "Вебхук отключён" in client.get(disabled.headers["location"]).text
        assert _audit(committed)[-1] == ("club.remove-webhook", f"webhook {endpoint.id}")
        with Session(committed) as session:
            given_up = session.scalars(select(Delivery).where(Delivery.event_id == second)).one()
            assert given_up.failed_at is not None  # its pending delivery given up
        before = _rows(committed)
        again = client.post(f"{page_url}/{endpoint.id}/disable", data={"csrf": csrf})
        assert again.headers["location"] == f"{page_url}?done=unchanged" and _rows(committed) == before


def test_ac_2_another_club_s_webhook_is_a_missing_one_and_no_other_role_sees_the_page(web, world, committed):
    """AC-1, AC-2: another club's endpoint answers exactly as a missing one, writing nothing; every role
    but the club's owner (and another club's owner, a player, an account with no role, the operator)
    gets the missing club's 404 on the page and on each form (posted with their own CSRF field), writing
    nothing."""
    with unit_of_work(committed) as session:
        key = load_settings().secret_key()
        theirs, _ = endpoints.register(session, key, datetime.now(UTC), url=URL, events=["round.completed"],
                                       club_id=world.club_b)  # fmt: skip
        mine, _ = endpoints.register(session, key, datetime.now(UTC), url=URL + "/a", events=["round.completed"],
                                     club_id=world.club_a)  # fmt: skip
    page_url = f"/club/{world.club_a}/webhooks"
    with _signed_in(web, world) as client:
        csrf = _csrf(client.get(page_url).text)
        before = _rows(committed)
        other = client.post(f"{page_url}/{theirs['id']}/disable", data={"csrf": csrf})
        missing = client.post(f"{page_url}/900000001/disable", data={"csrf": csrf})
        assert other.status_code == missing.status_code == 404
        assert other.text == missing.text and 'data-code="webhook-not-found"' in other.text
        assert "Такого вебхука нет." in other.text and URL + "/a" in other.text and URL + "<" not in other.text
        assert _rows(committed) == before
        assert client.get(f"/club/{world.club_b}/webhooks").status_code == 404
    for who in ROLES:
        with _signed_in(web, world, who) as client:
            csrf = _csrf(client.get("/account").text)  # their own form's field: the policy refuses, not CSRF
            absent = client.get("/club/900000001/webhooks")
            assert absent.status_code == 404
            for path in (page_url, f"/club/{world.club_b}/webhooks"):
                if who == "owner_b" and path.endswith(f"{world.club_b}/webhooks"):
                    assert client.get(path).status_code == 200  # their own club's page
                    continue
                r = client.get(path)
                assert (r.status_code, r.text) == (404, absent.text), (who, path)
            before = _rows(committed)
            for path, data in (
                (page_url, {"csrf": csrf, "url": URL + "/x", "event": "round.completed"}),
                (f"{page_url}/{mine['id']}/disable", {"csrf": csrf}),
            ):
                r = client.post(path, data=data)
                assert r.status_code == 404, (who, path, r.status_code)
            assert _rows(committed) == before, who
    with _client(web) as client:  # not signed in: to the sign-in page
        r = client.get(page_url)
        assert r.status_code == 303 and r.headers["location"].startswith("/signin?next=")
