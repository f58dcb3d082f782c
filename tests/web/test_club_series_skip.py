"""A date of a series skipped by its club's owner (issue 39; `club.skip-series-date`, the use case of
`tourney series skip`: domain/series/services/series.py `skip_date`) over `/api/v1` and on the console's
page `/club/<id>/series/<sid>`, against a real server and PostgreSQL: the start of that day, planned, is
dropped and not planned again, the day listed as skipped, one audit row (AC-3); the same day again a
change of nothing (204, "nothing to change") writing nothing; a past day, a day without a start, a start
whose registration is open and an ended series refused, nothing written; another club's series answered as
a missing one (AC-2); a form without CSRF refused."""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta

import pytest

from flows import bootstrap
from tests.support.axe import serious
from tests.support.browser import WAIT_MS, russian_page, sign_in
from tests.support.world import PASSWORD, access_world
from tests.web.test_api_owner_series import MOSCOW, _call, _refused, _rows, _same_as_missing, _trail
from tests.web.test_club_pages import _csrf, _signed_in
from tests.web.test_club_series_edit import MISSING, _series


@pytest.fixture
def world(web, committed):
    return access_world(committed, bootstrap.password_hasher(), passwords=("owner", "owner_b"))


def _day(days: int):
    return datetime.now(UTC).astimezone(MOSCOW).date() + timedelta(days=days)


def _problems(page: str) -> list[str]:
    return re.findall(r'<li data-code="([a-z0-9-]+)">', page)


def test_the_owner_skips_a_date_of_a_series_over_the_api(http, committed, world):
    c = world.club_a
    made = _series(http, world, "owner", c, "Пятничный турбо", 3, world.tournament_a)
    sid, path = made["id"], f"/clubs/{c}/series/{made['id']}/skips"
    first, second = _day(3), _day(10)
    assert [s["local"][:10] for s in made["next"]] == [first.isoformat(), second.isoformat()]
    assert made["skipped"] == []

    r = _call(http, world, "owner", "POST", path, {"local_date": first.isoformat()})
    assert r.status_code == 200, r.text
    assert r.json() == made | {"skipped": [first.isoformat()], "planned": 1, "next": made["next"][1:]}
    assert _trail(committed, 1) == [("club.skip-series-date", f"series {sid}")]
    before = _rows(committed)  # skipped already: nothing to change
    again = _call(http, world, "owner", "POST", path, {"local_date": first.isoformat()})
    assert (again.status_code, again.content) == (204, b"") and _rows(committed) == before
    # not planned again: a change of the horizon plans anew, the skipped day stays out
    wider = _call(http, world, "owner", "POST", f"/clubs/{c}/series/{sid}", {"horizon_days": 21})
    assert wider.status_code == 200, wider.text
    assert [s["local"][:10] for s in wider.json()["next"]] == [second.isoformat(), _day(17).isoformat()]

    _refused(http, world, committed, "owner", "POST", path, {"local_date": _day(-1).isoformat()}, 409,
             ["series-skip-past"])  # fmt: skip
    _refused(http, world, committed, "owner", "POST", path, {"local_date": _day(4).isoformat()}, 409,
             ["series-skip-no-start"])  # fmt: skip
    bad = _call(http, world, "owner", "POST", path, {"local_date": "31.12.2026"})
    assert bad.status_code == 422, bad.text
    # a start whose registration is open: its tournament is cancelled instead
    opened = _call(http, world, "owner", "POST", f"/clubs/{c}/series/{sid}", {"opens_before_minutes": 12 * 24 * 60})
    assert opened.json()["next"][0]["status"] == "open", opened.text
    _refused(http, world, committed, "owner", "POST", path, {"local_date": second.isoformat()}, 409,
             ["series-date-already-open"])  # fmt: skip
    # AC-2: club B's series is answered as a missing one, nothing written
    other = _series(http, world, "owner_b", world.club_b, "Чужая", 3, world.tournament_b)
    _same_as_missing(
        http, world, committed, "POST", f"/clubs/{c}/series/{other['id']}/skips", f"/clubs/{c}/series/{MISSING}/skips",
        {"local_date": first.isoformat()}, other["id"], MISSING,
    )  # fmt: skip
    assert _call(http, world, "owner", "POST", f"/clubs/{c}/series/{sid}/end").status_code == 200
    _refused(http, world, committed, "owner", "POST", path, {"local_date": _day(17).isoformat()}, 409,
             ["series-ended"])  # fmt: skip


def test_the_owner_skips_a_date_on_the_console_page(web, http, committed, world):
    c = world.club_a
    sid = _series(http, world, "owner", c, "Пятничный турбо", 3, world.tournament_a)["id"]
    page_path, first = f"/club/{c}/series/{sid}", _day(3)
    with _signed_in(web, world) as client:
        page = client.get(page_path)
        assert page.status_code == 200, page.text
        assert "Пропустить день" in page.text and f'id="skip-{first.isoformat()}"' in page.text
        csrf = _csrf(page.text)
        before = _rows(committed)
        assert client.post(f"{page_path}/skip", data={"local_date": first.isoformat()}).status_code == 403
        past = client.post(f"{page_path}/skip", data={"csrf": csrf, "local_date": _day(-1).isoformat()})
        assert past.status_code == 409 and _problems(past.text) == ["series-skip-past"]
        assert "Этот день прошёл: пропускать нечего." in past.text
        none = client.post(f"{page_path}/skip", data={"csrf": csrf, "local_date": ""})
        assert none.status_code == 422 and _problems(none.text) == ["series-skip-date-invalid"]
        assert _rows(committed) == before
        done = client.post(f"{page_path}/skip", data={"csrf": csrf, "local_date": first.isoformat()})
        assert (done.status_code, done.headers["location"]) == (303, f"{page_path}?done=skipped")
        assert _trail(committed, 1) == [("club.skip-series-date", f"series {sid}")]
        shown = client.get(done.headers["location"])
        assert "Серия пропускает этот день" in shown.text
        assert f'<time datetime="{first.isoformat()}">' in shown.text  # among the days skipped
        assert f'id="skip-{first.isoformat()}"' not in shown.text
        before = _rows(committed)
        again = client.post(f"{page_path}/skip", data={"csrf": csrf, "local_date": first.isoformat()})
        assert again.headers["location"] == f"{page_path}?done=unchanged" and _rows(committed) == before
    with _signed_in(web, world, "owner_b") as other:  # AC-2: another club's owner, the missing page, nothing written
        csrf = _csrf(other.get("/account").text)
        before = _rows(committed)
        r = other.post(f"{page_path}/skip", data={"csrf": csrf, "local_date": _day(10).isoformat()})
        assert r.status_code == 404 and _rows(committed) == before


def test_the_owner_skips_a_date_in_the_browser(web, http, committed, world, browser):
    """Chromium, in Russian: the next start's "Пропустить" asked and confirmed, then a later day typed in
    "Пропустить день"; both listed as skipped; axe-core finds no serious or critical violation."""
    c = world.club_a
    sid = _series(http, world, "owner", c, "Пятничный турбо", 3, world.tournament_a)["id"]
    first, second = _day(3), _day(10)
    context, page, errors = russian_page(browser)
    try:
        page.on("dialog", lambda dialog: dialog.accept())
        sign_in(page, web.url, world.emails["owner"], PASSWORD, f"{web.url}/club/{c}")
        page.goto(f"{web.url}/club/{c}/series/{sid}")
        assert page.locator("#skip-heading").inner_text() == "Пропустить день"
        assert serious(page) == []
        page.click(f"#skip-{first.isoformat()}")
        page.wait_for_selector("#done:has-text('Серия пропускает этот день')", timeout=WAIT_MS)
        assert page.locator(f"#skipped time[datetime='{first.isoformat()}']").count() == 1
        page.fill("#local_date", second.isoformat())
        page.click("#skip-day button[type=submit]")
        page.wait_for_selector(f"#skipped time[datetime='{second.isoformat()}']", timeout=WAIT_MS)
        assert page.locator("#next-empty").inner_text() == "Ничего не запланировано."
        assert serious(page) == []
        assert errors == []
    finally:
        context.close()


def _planned(page: str) -> list[tuple[str, str]]:
    """The console's first page's series starts: (the series' link, the start's day as it reads)."""
    table = page.partition('id="planned"')[2].partition("</table>")[0]
    return re.findall(r'<a href="(/club/\d+/series/\d+)">[^<]*</a></td><td>([^<]*)</td>', table)


def test_the_console_s_first_page_lists_the_series_planned_starts(web, http, committed, world):
    """Issue 39: «Впереди» on `/club/<id>` also lists the series' planned starts (not tournaments yet),
    the soonest first, each linking its series; a skipped day goes, a paused series shows none."""
    c = world.club_a
    sid = _series(http, world, "owner", c, "Пятничный турбо", 3, world.tournament_a)["id"]
    link = f"/club/{c}/series/{sid}"
    with _signed_in(web, world) as client:
        page = client.get(f"/club/{c}")
        assert page.status_code == 200, page.text
        assert "Запланировано сериями" in page.text
        shown = _planned(page.text)
        assert [href for href, _ in shown] == [link, link]
        assert [day.split(",")[1].strip().split()[0] for _, day in shown] == [str(_day(3).day), str(_day(10).day)]
        assert _call(http, world, "owner", "POST", f"/clubs/{c}/series/{sid}/skips",
                     {"local_date": _day(3).isoformat()}).status_code == 200  # fmt: skip
        assert [day.split(",")[1].strip().split()[0] for _, day in _planned(client.get(f"/club/{c}").text)] == [
            str(_day(10).day)
        ]
        assert _call(http, world, "owner", "POST", f"/clubs/{c}/series/{sid}/pause").status_code == 200
        after = client.get(f"/club/{c}").text
        assert _planned(after) == [] and "Запланировано сериями" not in after
