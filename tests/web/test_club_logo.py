"""The club's logo (issue 39; flows/web/club_logo.py, flows/web/api/logo.py) against a real server and
PostgreSQL: on the profile page the owner uploads a PNG (shown on the page, stored in `club_logos`,
audited, AC-3), the same image again changes nothing, a JPEG replaces it, removing it is audited; an SVG,
a file over 512 KB, an empty upload, a GIF and a damaged PNG are each refused with their plain problem in
Russian and nothing changed; every other role and another club's owner get the missing club's 404 and
write nothing (AC-2). Over `/api/v1`: `club.logo`, `club.set-logo` (the body the image itself),
`club.remove-logo`, the same rule and refusals; another club's logo answers as a missing club."""

from __future__ import annotations

import hashlib
import io
import os
import re

import pytest
from PIL import Image
from sqlalchemy import select
from sqlalchemy.orm import Session

from domain.access.tables import AuditRecord
from domain.clubs.tables import ClubLogo
from flows import bootstrap
from tests.support.world import access_world
from tests.web.test_club_pages import _client, _csrf, _rows, _signed_in

ROLES = ("floor", "cashier", "owner_b", "both", "player", "operator")
SVG = b'<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"><image href="file:///etc/passwd"/></svg>'


def image(kind: str, size: tuple[int, int] = (300, 120)) -> bytes:
    out = io.BytesIO()
    Image.new("RGB", size, (29, 53, 87)).save(out, kind)
    return out.getvalue()


@pytest.fixture
def world(web, committed):
    return access_world(committed, bootstrap.password_hasher(), passwords=("owner", *ROLES))


def _logo(engine, club_id: int) -> tuple[str, str] | None:
    with Session(engine) as session:
        row = session.get(ClubLogo, club_id)
        return None if row is None else (row.media_type, row.sha256)


def _last(engine) -> tuple[str, str]:
    with Session(engine) as session:
        row = session.scalars(select(AuditRecord).order_by(AuditRecord.id.desc()).limit(1)).one()
        return row.action, row.target


def test_issue_39_the_owner_uploads_replaces_and_removes_the_logo_on_the_profile_page(web, world, committed):
    """Issue 39, DOC-1, AC-3: stored in PostgreSQL, shown on the page, audited; every bad file refused."""
    profile, upload = f"/club/{world.club_a}/profile", f"/club/{world.club_a}/logo"
    png, jpeg = image("PNG"), image("JPEG", (640, 480))
    with _signed_in(web, world) as client:
        page = client.get(profile)
        assert "Логотипа пока нет." in page.text and 'enctype="multipart/form-data"' in page.text
        csrf = _csrf(page.text)
        before = _rows(committed)
        damaged = png[:-20] + b"\x00" * 20
        for name, data, code, words in (
            ("logo.svg", SVG, "logo-type", "Логотип должен быть изображением PNG или JPEG"),
            ("big.png", b"\x89PNG\r\n\x1a\n" + os.urandom(600 * 1024), "logo-too-large", "Логотип больше 512 КБ"),
            ("", b"", "logo-empty", "Выберите файл PNG или JPEG"),
            ("anim.png", image("GIF"), "logo-type", "SVG и другие файлы не принимаются"),
            ("cut.png", damaged, "logo-damaged", "Файл повреждён или обрезан"),
            ("huge.jpg", image("JPEG", (2400, 100)), "logo-dimensions", "не больше 2000 по каждой стороне"),
        ):
            bad = client.post(upload, data={"csrf": csrf}, files={"logo": (name, data, "image/png")})
            assert bad.status_code == 409, (name, bad.status_code)
            assert f'data-code="{code}"' in bad.text and words in bad.text, name
            assert "Ничего не сохранено" in bad.text and 'aria-invalid="true"' in bad.text
            assert _rows(committed) == before, name
        stale = client.post(upload, files={"logo": ("logo.png", png, "image/png")})
        assert stale.status_code == 403 and _rows(committed) == before

        saved = client.post(upload, data={"csrf": csrf}, files={"logo": ("logo.png", png, "image/png")})
        assert (saved.status_code, saved.headers["location"]) == (303, f"{profile}?done=logo")
        assert _logo(committed, world.club_a) == ("image/png", hashlib.sha256(png).hexdigest())
        assert _last(committed) == ("club.set-logo", f"club {world.club_a} logo")
        shown = client.get(saved.headers["location"])
        assert "Логотип сохранён" in shown.text and "300×120 пикселей" in shown.text
        assert re.search(r'<img src="data:image/png;base64,[A-Za-z0-9+/=]+" alt="Логотип клуба ', shown.text)
        before = _rows(committed)
        again = client.post(upload, data={"csrf": csrf}, files={"logo": ("same.png", png, "image/png")})
        assert again.headers["location"] == f"{profile}?done=unchanged" and _rows(committed) == before

        replaced = client.post(upload, data={"csrf": csrf}, files={"logo": ("logo.jpg", jpeg, "image/jpeg")})
        assert replaced.status_code == 303
        assert _logo(committed, world.club_a) == ("image/jpeg", hashlib.sha256(jpeg).hexdigest())
        removed = client.post(f"{upload}/remove", data={"csrf": csrf})
        assert removed.headers["location"] == f"{profile}?done=logo-removed"
        assert _logo(committed, world.club_a) is None
        assert _last(committed) == ("club.remove-logo", f"club {world.club_a} logo")
        assert "Логотип удалён." in client.get(removed.headers["location"]).text
        before = _rows(committed)
        assert client.post(f"{upload}/remove", data={"csrf": csrf}).headers["location"].endswith("done=unchanged")
        assert _rows(committed) == before


def test_ac_2_no_other_role_sets_or_removes_the_club_s_logo(web, world, committed):
    """AC-1, AC-2: each role but the club's owner, posting with its own CSRF field, gets the missing
    club's 404 on the upload and on the removal, and writes nothing."""
    upload = f"/club/{world.club_a}/logo"
    png = image("PNG")
    with _signed_in(web, world) as client:  # the club has a logo, so a removal would change something
        csrf = _csrf(client.get(f"/club/{world.club_a}/profile").text)
        assert client.post(upload, data={"csrf": csrf}, files={"logo": ("a.png", png, "image/png")}).status_code == 303
    for who in ROLES:
        with _signed_in(web, world, who) as client:
            csrf = _csrf(client.get("/account").text)
            absent = client.get("/club/900000001/profile")
            before = _rows(committed)
            r = client.post(upload, data={"csrf": csrf}, files={"logo": ("b.png", image("PNG", (50, 50)), "image/png")})
            assert (r.status_code, r.text) == (404, absent.text), who
            r = client.post(f"{upload}/remove", data={"csrf": csrf})
            assert (r.status_code, r.text) == (404, absent.text), who
            assert _rows(committed) == before, who
    with _client(web) as client:
        assert client.post(upload, files={"logo": ("a.png", png, "image/png")}).status_code in (303, 403)


def test_issue_39_the_logo_through_the_api(http, world, committed):
    """The operations: the body is the image; refusals by code, nothing written; 204 for no change;
    another club's owner is answered as for a missing club; over 1 MiB the edge answers 413."""
    base = f"/api/v1/clubs/{world.club_a}/logo"
    owner = world.headers("owner")
    assert http.get(base, headers=owner).json() == {"club_id": world.club_a, "logo": None}
    png = image("PNG", (64, 32))
    before = _rows(committed)
    for data, code in (
        (SVG, "logo-type"),
        (b"", "logo-empty"),
        (b"\x89PNG\r\n\x1a\n" + b"\x00" * (600 * 1024), "logo-too-large"),
    ):
        refused = http.post(base, content=data, headers=owner | {"content-type": "image/png"})
        assert (refused.status_code, refused.json()["code"]) == (409, code), refused.text
    assert (
        http.post(base, content=b"x" * (2 * 1024 * 1024 + 1), headers=owner | {"content-type": "image/png"}).status_code
        == 413
    )
    assert _rows(committed) == before
    made = http.post(base, content=png, headers=owner | {"content-type": "image/png"})
    assert made.status_code == 200, made.text
    sha = hashlib.sha256(png).hexdigest()
    assert made.json() == {
        "club_id": world.club_a,
        "logo": {"media_type": "image/png", "width": 64, "height": 32, "bytes": len(png), "sha256": sha},
    }
    assert http.get(base, headers=owner).json() == made.json()
    assert http.post(base, content=png, headers=owner | {"content-type": "image/png"}).status_code == 204
    missing = http.get("/api/v1/clubs/900000001/logo", headers=world.headers("owner_b"))
    other = http.get(base, headers=world.headers("owner_b"))
    assert other.status_code == missing.status_code == 404
    assert other.json()["code"] == missing.json()["code"] == "club-not-found"
    refused = http.delete(base, headers=world.headers("floor"))
    assert refused.status_code == 404 and _logo(committed, world.club_a) is not None
    gone = http.delete(base, headers=owner)
    assert gone.status_code == 200 and gone.json()["logo"] is None
    assert http.delete(base, headers=owner).status_code == 204
