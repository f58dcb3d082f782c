"""Lists of `/api/v1` a page at a time (issue 38): `limit` and an opaque `cursor`, the next page's
address in `Link: <…>; rel="next"` (RFC 8288), every item once across the pages; the filters (the
tournaments' status and days in the club's calendar, the trail's who, what, which tournament and when);
a cursor not of ours is a 422."""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta
from zoneinfo import ZoneInfo

import pytest

from domain.clubs.tables import Club
from domain.store.db import unit_of_work
from tests.support.world import access_world, tournament


@pytest.fixture
def world(web, committed):
    return access_world(committed)


def _walk(http, url: str, headers: dict) -> tuple[list, int]:
    """Every item of a list by following its `Link` headers; the number of pages."""
    items, pages = [], 0
    while url:
        answer = http.get(url, headers=headers)
        assert answer.status_code == 200, answer.text
        items += answer.json()
        pages += 1
        found = re.match(r'<([^>]+)>; rel="next"', answer.headers.get("link", ""))
        url = found.group(1) if found else None
    return items, pages


def test_a_list_walked_a_page_at_a_time_gives_every_item_once(http, committed, world):
    now = datetime.now(UTC)
    with unit_of_work(committed) as session:
        for n, status in enumerate(("draft", "finished", "registration_open", "running")):
            tournament(session, club_id=world.club_a, status=status, start=now + timedelta(days=n + 1))
    owner = world.headers("owner")
    base = f"/api/v1/clubs/{world.club_a}/tournaments"
    whole = http.get(base, headers=owner)
    assert "link" not in whole.headers
    items, pages = _walk(http, f"{base}?limit=2", owner)
    assert [t["id"] for t in items] == [t["id"] for t in whole.json()] and pages == 3
    starts = [t["scheduled_start"] for t in items]
    assert starts == sorted(starts)
    running = http.get(f"{base}?status=running", headers=owner).json()
    assert {t["status"] for t in running} == {"running"}
    with unit_of_work(committed) as session:
        zone = ZoneInfo(session.get(Club, world.club_a).timezone)
    day = (now + timedelta(days=2)).astimezone(zone).date().isoformat()  # the finished one's, in the club's calendar
    on_day = http.get(f"{base}?date_from={day}&date_to={day}", headers=owner).json()
    assert [t["status"] for t in on_day] == ["finished"]
    bad = http.get(f"{base}?cursor=bm90LWpzb24", headers=owner)
    assert (bad.status_code, bad.json()["code"]) == (422, "bad-cursor")


def test_ac_3_the_trail_is_read_by_who_what_which_tournament_and_when(http, committed, world):
    """AC-3: the owner reads who did what, narrowed and paged, newest first."""
    floor, cashier = world.headers("floor"), world.headers("cashier")  # the cashier's settle: audited or not
    t = world.tournament_a
    registrations = f"/api/v1/tournaments/{t}/registrations"
    assert http.post(registrations, json={"player": "anna"}, headers=floor).status_code == 200
    assert http.delete(f"{registrations}/anna", headers=floor).status_code == 200
    assert http.post(registrations, json={"player": "anna"}, headers=floor).status_code == 200
    http.post(f"/api/v1/tournaments/{t}/settlements", json={"player": "anna"}, headers=cashier)
    owner = world.headers("owner")
    base = f"/api/v1/clubs/{world.club_a}/audit"
    everything = http.get(base, headers=owner).json()
    ids = [r["id"] for r in everything]
    assert ids == sorted(ids, reverse=True)
    paged, pages = _walk(http, f"{base}?limit=1", owner)
    assert [r["id"] for r in paged] == ids and pages == len(ids)
    registered = http.get(f"{base}?action=poker.register", headers=owner).json()
    assert [r["action"] for r in registered] == ["poker.register", "poker.register"]
    by_floor = http.get(f"{base}?actor={world.emails['floor'][:6]}", headers=owner).json()
    assert by_floor and all(world.emails["floor"] in r["actor"] for r in by_floor)
    about = http.get(f"{base}?tournament={t}", headers=owner).json()
    assert len(about) >= 3 and all(r["target"].startswith(f"tournament {t}") for r in about)
    assert http.get(f"{base}?tournament={world.tournament_b}", headers=owner).json() == []
    later = (datetime.now(UTC) + timedelta(minutes=1)).isoformat()
    assert http.get(base, params={"since": later}, headers=owner).json() == []
    assert len(http.get(base, params={"until": later}, headers=owner).json()) == len(ids)
