"""The club's logo on its public pages (issue 39; `/clubs/<id>/logo` and `/clubs/<id>`, flows/web/pages.py)
against a real server and PostgreSQL: uploaded by the owner through `/api/v1`, its bytes are served with
their type, an ETag of their digest (304 to an `If-None-Match` naming it) and `Cache-Control` (a year at
the digest's address the pages link, five minutes at the bare one); the club's page, its tournaments'
results pages (and their live fragment) and its season's standings show it as an `<img>` whose alt text
is the club's name, a new logo at a new address; nothing when the club has none. 404 for a club with
none, no such club, and a suspended or terminated club (its pages show no logo then either; its own page
is the 404 page)."""

from __future__ import annotations

import hashlib
import io
import re
from datetime import UTC, datetime

from markupsafe import escape
from PIL import Image
from sqlalchemy.orm import Session

from domain.clubs.services import clubs as club_service
from domain.clubs.services import logos
from domain.clubs.tables import Club
from domain.store.db import unit_of_work
from tests.support.axe import serious
from tests.support.browser import russian_page
from tests.support.world import access_world, season


def _image(kind: str, size: tuple[int, int]) -> bytes:
    out = io.BytesIO()
    Image.new("RGB", size, (29, 53, 87)).save(out, kind)
    return out.getvalue()


def _img(page: str) -> str | None:
    found = re.search(r'<img class="club-logo" id="club-logo"[^>]*>', page)
    return None if found is None else found.group(0)


def _club_name(engine, club_id: int) -> str:
    with Session(engine) as session:
        return str(escape(session.get_one(Club, club_id).name))  # as the page writes it


def _upload(http, world, data: bytes, kind: str) -> None:
    r = http.post(
        f"/api/v1/clubs/{world.club_a}/logo",
        content=data,
        headers={**world.headers("owner"), "content-type": f"image/{kind}"},
    )
    assert r.status_code == 200, r.text


def test_issue_39_the_club_s_logo_is_served_and_shown_on_its_results_pages(web, http, committed):
    w = access_world(committed)
    a, t = w.club_a, w.tournament_a
    logo = f"/clubs/{a}/logo"
    for path in (logo, f"/clubs/{w.club_b}/logo", "/clubs/999999999/logo", "/clubs/x/logo"):
        assert http.get(path).status_code == 404, path  # none yet, no such club, not an id
    assert _img(http.get(f"/t/{t}").text) is None  # nothing shown without a logo

    png = _image("PNG", (300, 120))
    _upload(http, w, png, "png")
    digest = hashlib.sha256(png).hexdigest()
    r = http.get(logo)
    assert r.status_code == 200 and r.content == png
    assert r.headers["content-type"] == "image/png"
    assert r.headers["etag"] == f'"{digest}"'
    assert r.headers["cache-control"] == "public, max-age=300"
    assert r.headers["x-content-type-options"] == "nosniff"
    kept = http.get(f"{logo}?v={digest[:16]}")
    assert kept.content == png and kept.headers["cache-control"] == "public, max-age=31536000, immutable"
    for tag in (f'"{digest}"', f'W/"{digest}"', f'"other", "{digest}"'):
        again = http.get(logo, headers={"if-none-match": tag})
        assert (again.status_code, again.content) == (304, b""), tag
        assert again.headers["etag"] == f'"{digest}"'
    assert http.get(logo, headers={"if-none-match": '"other"'}).status_code == 200
    assert http.get(f"/clubs/{w.club_b}/logo").status_code == 404  # one club's logo is not another's

    name = _club_name(committed, a)
    for page in (f"/t/{t}", f"/t/{t}?fragment=1"):
        img = _img(http.get(page).text)
        assert img is not None, page
        assert f'src="/clubs/{a}/logo?v={digest[:16]}"' in img and f'alt="{name}"' in img
        assert 'width="300"' in img and 'height="120"' in img
    assert _img(http.get(f"/t/{w.tournament_b}").text) is None  # club B has none

    jpeg = _image("JPEG", (200, 200))  # a new logo: a new address on the page, the old tag no longer matches
    _upload(http, w, jpeg, "jpeg")
    jpeg_digest = hashlib.sha256(jpeg).hexdigest()
    r = http.get(logo, headers={"if-none-match": f'"{digest}"'})
    assert (r.status_code, r.content, r.headers["content-type"]) == (200, jpeg, "image/jpeg")
    assert f"?v={jpeg_digest[:16]}" in _img(http.get(f"/t/{t}").text)

    now = datetime.now(UTC)
    with unit_of_work(committed) as session:  # a suspended club's logo is not public, nor on its pages
        club_service.suspend(session, a, "operator", "1.7.4", now)
    assert http.get(logo).status_code == 404
    assert http.get(logo, headers={"if-none-match": f'"{jpeg_digest}"'}).status_code == 404
    assert _img(http.get(f"/t/{t}").text) is None
    with unit_of_work(committed) as session:
        club_service.reinstate(session, a, "operator", "paid", now)
    assert http.get(logo).status_code == 200
    with unit_of_work(committed) as session:
        club_service.terminate(session, a, "operator", "1.7.4", now)
    assert http.get(logo).status_code == 404 and _img(http.get(f"/t/{t}").text) is None


def test_issue_39_a_removed_logo_is_gone_from_the_address_and_the_pages(web, http, committed):
    w = access_world(committed)
    _upload(http, w, _image("PNG", (64, 64)), "png")
    assert _img(http.get(f"/t/{w.tournament_a}").text) is not None
    r = http.delete(f"/api/v1/clubs/{w.club_a}/logo", headers=w.headers("owner"))
    assert r.status_code == 200, r.text
    assert http.get(f"/clubs/{w.club_a}/logo").status_code == 404
    assert _img(http.get(f"/t/{w.tournament_a}").text) is None


def test_issue_39_the_season_s_standings_show_the_club_s_logo(web, http, committed):
    s = season(committed)
    page = http.get(f"/seasons/{s['id']}")
    assert page.status_code == 200 and _img(page.text) is None
    png = _image("PNG", (120, 40))
    with unit_of_work(committed) as session:
        logos.set_logo(session, s["club_id"], png, datetime.now(UTC))
    img = _img(http.get(f"/seasons/{s['id']}").text)
    name = _club_name(committed, s["club_id"])
    assert f'src="/clubs/{s["club_id"]}/logo?v={hashlib.sha256(png).hexdigest()[:16]}"' in img
    assert f'alt="{name}"' in img
    assert http.get(f"/clubs/{s['club_id']}/logo").content == png
    assert f'<a href="/clubs/{s["club_id"]}">{name}</a>' in http.get(f"/seasons/{s['id']}").text
    club_page = http.get(f"/clubs/{s['club_id']}").text
    assert f'href="/seasons/{s["id"]}"' in club_page and all(f'href="/t/{t}"' in club_page for t in s["tournaments"])
    assert "Борис Гельфанд" not in club_page and "boris" not in club_page  # AC-5: no player on the club's page


def test_issue_39_the_club_s_public_page_shows_its_logo_its_tournaments_and_links_them(web, http, committed):
    """`/clubs/<id>`: a listed club's page in its language, its logo (none: no image), its tournaments open
    now linked, no player named (AC-5); its results page links it; a suspended club's is the 404 page,
    and its results page no longer links it."""
    w = access_world(committed)
    a, t = w.club_a, w.tournament_a
    name = _club_name(committed, a)
    page = http.get(f"/clubs/{a}")
    assert page.status_code == 200, page.text
    assert '<html lang="ru">' in page.text and f"<h1>{name}</h1>" in page.text
    assert _img(page.text) is None and f'href="/t/{t}"' in page.text
    assert f'href="/clubs/{a}/calendar.ics"' in page.text and "Owing Player" not in page.text
    assert f'href="/t/{w.tournament_b}"' not in page.text  # club B's tournament is on club B's page
    assert f'<a href="/clubs/{a}">{name}</a>' in http.get(f"/t/{t}").text
    png = _image("PNG", (90, 30))
    _upload(http, w, png, "png")
    img = _img(http.get(f"/clubs/{a}").text)
    assert f'src="/clubs/{a}/logo?v={hashlib.sha256(png).hexdigest()[:16]}"' in img and f'alt="{name}"' in img
    assert _img(http.get(f"/clubs/{w.club_b}").text) is None
    for path in ("/clubs/999999999", "/clubs/0", "/clubs/x"):
        assert http.get(path).status_code == 404, path
    with unit_of_work(committed) as session:
        club_service.suspend(session, a, "operator", "1.7.4", datetime.now(UTC))
    assert http.get(f"/clubs/{a}").status_code == 404
    assert f'href="/clubs/{a}"' not in http.get(f"/t/{t}").text


def shown_in_browser(browser, url: str, paths: list[str]) -> dict[str, tuple[float, str]]:
    """Chromium, in Russian: each page with the logo (300 px wide as stored) loaded under the page's
    CSP and nothing serious for axe-core, no console error; each page's logo as (height, alt text)."""
    context, page, errors = russian_page(browser)
    shown = {}
    try:
        for path in paths:
            page.goto(f"{url}{path}")
            logo = page.locator("#club-logo")
            logo.wait_for()
            page.wait_for_function("() => document.getElementById('club-logo').complete", timeout=15_000)
            assert page.evaluate("() => document.getElementById('club-logo').naturalWidth") == 300, path
            assert serious(page) == [], path
            shown[path] = (logo.bounding_box()["height"], logo.get_attribute("alt"))
        assert errors == []
    finally:
        context.close()
    return shown


def test_the_club_s_page_with_its_logo_in_the_browser(web, http, committed, browser):
    """The club's page and a results page with the logo, at most 64 px high, its proportions kept."""
    w = access_world(committed)
    _upload(http, w, _image("PNG", (300, 120)), "png")
    shown = shown_in_browser(browser, web.url, [f"/clubs/{w.club_a}", f"/t/{w.tournament_a}"])
    assert all(height <= 64 for height, _ in shown.values()), shown
