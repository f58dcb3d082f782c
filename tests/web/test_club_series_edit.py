"""A series changed by its club's owner (issue 39; `club.edit-series`, the use case of `tourney series edit`:
domain/series/services/series.py `edit_series`) over `/api/v1` and on the console's page
`/club/<id>/series/<sid>`, against a real server and PostgreSQL: its name, its calendar (the weekly form or
an RRULE, in the club's time), its template and horizon; the planned starts follow, one audit row (AC-3);
the same again a change of nothing (204, "nothing to change") writing nothing; every problem at once, a
name another series bears among them; an ended series refused; another club's series answered as a
missing one and nothing written (AC-2); a form without CSRF refused."""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta

import pytest
from sqlalchemy import select
from sqlalchemy.orm import Session

from domain.series.tables import SeriesOccurrence
from flows import bootstrap
from tests.support.axe import serious
from tests.support.browser import WAIT_MS, russian_page, sign_in
from tests.support.world import PASSWORD, access_world
from tests.web.test_api_owner_series import (
    DAY_NAMES,
    MOSCOW,
    RRULE_DAYS,
    _call,
    _codes,
    _in_days,
    _refused,
    _rows,
    _same_as_missing,
    _trail,
)
from tests.web.test_club_pages import _csrf, _signed_in

MISSING = 999_999_999


@pytest.fixture
def world(web, committed):
    return access_world(committed, bootstrap.password_hasher(), passwords=("owner", "owner_b"))


def _series(http, world, who: str, club: int, name: str, days: int, tournament: int) -> dict:
    r = _call(
        http, world, who, "POST", f"/clubs/{club}/series",
        {"name": name, "weekly": {"days": [DAY_NAMES[_in_days(days)]], "time": "19:00"}, "from_tournament": tournament},
    )  # fmt: skip
    assert r.status_code == 201, r.text
    return r.json()


def _planned_settings(engine, series_id: int) -> list[dict]:
    with Session(engine) as session:
        return list(
            session.scalars(
                select(SeriesOccurrence.settings).where(
                    SeriesOccurrence.series_id == series_id, SeriesOccurrence.status == "planned"
                )
            )
        )


def test_the_owner_changes_a_series_name_calendar_and_template_over_the_api(http, committed, world):
    c = world.club_a
    made = _series(http, world, "owner", c, "Пятничный турбо", 3, world.tournament_a)
    sid, path = made["id"], f"/clubs/{c}/series/{made['id']}"
    weekday = _in_days(4)
    r = _call(
        http, world, "owner", "POST", path,
        {"name": " Субботний турбо ", "weekly": {"days": [DAY_NAMES[weekday]], "time": "18:30"}, "horizon_days": 21},
    )  # fmt: skip
    assert r.status_code == 200, r.text
    body = r.json()
    assert (body["name"], body["cron"], body["horizon_days"]) == (
        "Субботний турбо",
        f"30 18 * * {DAY_NAMES[weekday]}",
        21,
    )
    assert body["rrule"] == f"FREQ=WEEKLY;BYDAY={RRULE_DAYS[weekday]};BYHOUR=18;BYMINUTE=30"
    first = datetime.now(UTC).astimezone(MOSCOW).date() + timedelta(days=4)
    assert [s["local"] for s in body["next"]] == [
        datetime(d.year, d.month, d.day, 18, 30, tzinfo=MOSCOW).isoformat()
        for d in (first, first + timedelta(days=7), first + timedelta(days=14))
    ]  # planned again in the club's time, three weeks ahead
    assert body["template"] == made["template"]
    assert _trail(committed, 1) == [("club.edit-series", f"series {sid}")]
    before = _rows(committed)  # the same again: nothing to change
    again = _call(http, world, "owner", "POST", path, {"name": "Субботний турбо", "horizon_days": 21})
    assert (again.status_code, again.content) == (204, b"") and _rows(committed) == before

    r = _call(http, world, "owner", "POST", path, {"template": {"starting_stack": 30000, "late_reg_minutes": None}})
    assert r.status_code == 200, r.text
    assert r.json()["template"]["starting_stack"] == 30000 and "late_reg_minutes" not in r.json()["template"]
    assert r.json()["cron"] == body["cron"]  # the calendar stays
    planned = _planned_settings(committed, sid)
    assert planned and all(s["starting_stack"] == 30000 for s in planned)  # the planned starts follow

    # every problem at once, nothing written; a name another series of the club bears
    _series(http, world, "owner", c, "Вторник", 5, world.tournament_a)
    _refused(http, world, committed, "owner", "POST", path, {"rrule": "FREQ=HOURLY;BYHOUR=19", "horizon_days": 0},
             409, ["series-rrule-freq-unsupported", "series-rrule-time-missing", "series-horizon-out-of-range"])  # fmt: skip
    _refused(http, world, committed, "owner", "POST", path, {"name": "Вторник"}, 409, ["series-name-taken"])
    _refused(
        http, world, committed, "owner", "POST", path,
        {"rrule": "FREQ=WEEKLY;BYDAY=FR;BYHOUR=19;BYMINUTE=0", "weekly": {"days": ["fri"], "time": "19:00"}},
        409, ["series-rule-both"],
    )  # fmt: skip
    # AC-2: club B's series (and club B's tournament as a template) are answered as missing ones
    other = _series(http, world, "owner_b", world.club_b, "Чужая", 3, world.tournament_b)
    _same_as_missing(
        http, world, committed, "POST", f"/clubs/{c}/series/{other['id']}", f"/clubs/{c}/series/{MISSING}",
        {"name": "Моя"}, other["id"], MISSING,
    )  # fmt: skip
    b = _call(http, world, "owner", "POST", path, {"from_tournament": world.tournament_b})
    m = _call(http, world, "owner", "POST", path, {"from_tournament": MISSING})
    assert (b.status_code, _codes(b)) == (m.status_code, _codes(m)) == (404, ["tournament-not-found"])
    assert _call(http, world, "owner", "POST", f"/clubs/{c}/series/{sid}/end").status_code == 200
    _refused(http, world, committed, "owner", "POST", path, {"name": "Поздно"}, 409, ["series-ended"])


def _problems(page: str) -> list[str]:
    return re.findall(r'<li data-code="([a-z0-9-]+)">', page)


def test_the_owner_changes_a_series_on_its_console_page(web, http, committed, world):
    c = world.club_a
    made = _series(http, world, "owner", c, "Пятничный турбо", 3, world.tournament_a)
    sid = made["id"]
    page_path = f"/club/{c}/series/{sid}"
    with _signed_in(web, world) as client:
        page = client.get(page_path)
        assert page.status_code == 200, page.text
        form = re.search(r'<form method="post" action="/club/\d+/series/\d+" .*?</form>', page.text, re.S).group(0)
        assert "Изменить серию" in page.text and 'value="Пятничный турбо"' in form
        assert f'id="day_{DAY_NAMES[_in_days(3)]}" name="day_{DAY_NAMES[_in_days(3)]}" value="1" checked' in form
        assert 'value="19:00"' in form and 'value="14"' in form
        csrf = _csrf(page.text)
        weekday = DAY_NAMES[_in_days(4)]
        typed = {"csrf": csrf, "name": "Субботний турбо", f"day_{weekday}": "1", "time": "18:30",
                 "rrule": "", "from_tournament": "", "horizon_days": "14", "opens_before_minutes": "1440"}  # fmt: skip
        before = _rows(committed)
        assert client.post(page_path, data={k: v for k, v in typed.items() if k != "csrf"}).status_code == 403
        blank = client.post(page_path, data=typed | {"name": " ", "horizon_days": "0"})
        assert blank.status_code == 409, blank.text
        assert _problems(blank.text) == ["series-name-empty", "series-horizon-out-of-range"]
        assert "У серии должно быть название." in blank.text and "Планируйте от 1 до 365 дней вперёд." in blank.text
        assert 'value="Субботний турбо"' not in blank.text and 'value="0"' in blank.text  # the form as typed
        assert _rows(committed) == before
        done = client.post(page_path, data=typed)
        assert (done.status_code, done.headers["location"]) == (303, f"{page_path}?done=edited")
        assert _trail(committed, 1) == [("club.edit-series", f"series {sid}")]
        shown = client.get(done.headers["location"])
        assert "Серия изменена" in shown.text and "<h1>Субботний турбо</h1>" in shown.text
        first = datetime.now(UTC).astimezone(MOSCOW).date() + timedelta(days=4)
        assert f'datetime="{first.isoformat()}T18:30:00+03:00"' in shown.text
        before = _rows(committed)
        again = client.post(page_path, data=typed)
        assert again.headers["location"] == f"{page_path}?done=unchanged" and _rows(committed) == before
        # the template from another tournament of the club, by the form's choice
        r = client.post(page_path, data=typed | {"from_tournament": str(world.tournament_a), "rrule": ""})
        assert r.headers["location"] == f"{page_path}?done=unchanged"  # the same tournament's settings: nothing new
    with _signed_in(web, world, "owner_b") as other:  # AC-2: another club's owner, the missing page, nothing written
        csrf = _csrf(other.get("/account").text)
        before = _rows(committed)
        r = other.post(page_path, data={**typed, "csrf": csrf})
        assert r.status_code == 404 and _rows(committed) == before
        assert other.get(page_path).status_code == 404


def test_the_owner_changes_a_series_in_the_browser(web, http, committed, world, browser):
    """Chromium, in Russian: the series' page with its edit form, the days ticked again and the name typed,
    saved; axe-core finds no serious or critical violation before or after."""
    c = world.club_a
    sid = _series(http, world, "owner", c, "Пятничный турбо", 3, world.tournament_a)["id"]
    context, page, errors = russian_page(browser)
    try:
        sign_in(page, web.url, world.emails["owner"], PASSWORD, f"{web.url}/club/{c}")
        page.goto(f"{web.url}/club/{c}/series/{sid}")
        assert page.locator("#edit-heading").inner_text() == "Изменить серию"
        assert serious(page) == []
        page.fill("#name", "Субботний турбо")
        page.uncheck(f"#day_{DAY_NAMES[_in_days(3)]}")
        page.check(f"#day_{DAY_NAMES[_in_days(4)]}")
        page.fill("#time", "18:30")
        page.click("#edit-series button[type=submit]")
        page.wait_for_selector("#done:has-text('Серия изменена')", timeout=WAIT_MS)
        assert page.locator("h1").inner_text() == "Субботний турбо"
        assert page.locator("#calendar").inner_text().endswith("18:30")
        assert serious(page) == []
        assert errors == []
    finally:
        context.close()
