"""DOC-1: a club's logo, set and removed with `tourney club logo`, stored in PostgreSQL and printed on
its results sheet and certificates (part of the stamped certificates' template); every bad input is
one line, exit 2, and writes nothing."""

from __future__ import annotations

import io
import json

import pytest
from PIL import Image
from pypdf import PdfReader
from sqlalchemy import select

from domain.clubs.tables import ClubLogo
from domain.documents.services.sources import bundle
from domain.store.db import unit_of_work
from infra import pdf
from infra.render import Renderer
from tests.support.cli import fingerprint, run
from tests.support.world import finished_poker

KEY = b"logo-test-key-of-at-least-32-bytes!!"


def image(kind: str, size: tuple[int, int] = (300, 120)) -> bytes:
    out = io.BytesIO()
    Image.new("RGB", size, (201, 162, 39)).save(out, kind)
    return out.getvalue()


@pytest.fixture
def poker(committed, tmp_path) -> dict:
    with unit_of_work(committed) as session:
        t = finished_poker(session)
        club_id, tid = t.club_id, t.id
    (tmp_path / "logo.jpg").write_bytes(image("PNG"))  # a PNG named .jpg: the bytes decide
    (tmp_path / "logo.png").write_bytes(image("JPEG"))
    return {"club": club_id, "tournament": tid, "png": tmp_path / "logo.jpg", "jpeg": tmp_path / "logo.png"}


def _stored(engine, club_id: int) -> ClubLogo | None:
    with unit_of_work(engine) as session:
        return session.scalars(select(ClubLogo).where(ClubLogo.club_id == club_id)).one_or_none()


def test_doc_1_a_logo_is_set_by_its_bytes_replaced_and_removed(committed, poker):
    """DOC-1"""
    club = str(poker["club"])
    done = run("--json", "club", "logo", club, str(poker["png"]))
    assert done.returncode == 0, done.stderr
    shown = json.loads(done.stdout)
    assert shown["club_id"] == poker["club"]
    assert {k: shown["logo"][k] for k in ("media_type", "width", "height", "bytes")} == {
        "media_type": "image/png",
        "width": 300,
        "height": 120,
        "bytes": len(image("PNG")),
    }
    assert _stored(committed, poker["club"]).data == image("PNG")
    assert run("--json", "club", "logo", club, str(poker["jpeg"])).returncode == 0
    stored = _stored(committed, poker["club"])
    assert (stored.media_type, stored.data) == ("image/jpeg", image("JPEG"))
    removed = run("--json", "club", "logo", club, "--remove")
    assert removed.returncode == 0 and json.loads(removed.stdout) == {"club_id": poker["club"], "logo": None}
    assert _stored(committed, poker["club"]) is None


def test_doc_1_every_bad_logo_input_is_one_line_exit_2_and_writes_nothing(committed, poker, tmp_path):
    """DOC-1"""
    club = str(poker["club"])
    svg = tmp_path / "drawing.png"
    svg.write_bytes(b'<svg xmlns="http://www.w3.org/2000/svg"><image href="file:///etc/passwd"/></svg>')
    huge = tmp_path / "huge.png"
    huge.write_bytes(image("PNG", (2400, 50)))
    big = tmp_path / "big.jpg"
    big.write_bytes(b"\xff\xd8\xff" + b"\x00" * (600 * 1024))
    (tmp_path / "folder").mkdir()
    cases = {
        (club, str(svg)): "error: SVG logos are not accepted (they can load other files): use PNG or JPEG",
        (club, str(huge)): "error: the logo is 2400×50 pixels: at most 2000 on each side",
        (club, str(big)): "error: the logo is larger than 512 KiB (524,288 bytes)",
        (club, str(tmp_path / "folder")): f"error: '{tmp_path / 'folder'}' is a folder, not a file",
        (
            club,
            str(tmp_path / "missing.png"),
        ): f"error: cannot read '{tmp_path / 'missing.png'}': No such file or directory",
        ("99999", str(poker["png"])): "error: there is no club 99999",
        (club,): "error: give either a logo FILE or --remove",
        (club, str(poker["png"]), "--remove"): "error: give either a logo FILE or --remove",
    }
    before = fingerprint(committed)
    for args, message in cases.items():
        result = run("club", "logo", *args)
        assert (result.returncode, result.stderr.strip(), result.stdout) == (2, message, ""), args
    assert fingerprint(committed) == before


def test_doc_1_the_logo_is_on_the_sheet_and_on_every_stamped_certificate(committed, poker):
    """DOC-1, DOC-2: the published documents carry the club's logo and still verify"""
    assert run("club", "logo", str(poker["club"]), str(poker["png"])).returncode == 0
    with unit_of_work(committed) as session:
        found = bundle(session, "poker", poker["tournament"])
    assert found.logo is not None and found.logo.data == image("PNG")
    with Renderer(KEY) as renderer:
        sheet = renderer.poker_sheet(found.sheet, found.logo)
        certificates = list(renderer.certificates(found.certificates, logo=found.logo))
        plain = list(renderer.certificates(found.certificates))
    for data in [sheet, *certificates]:
        assert pdf.verify(KEY, data)[1] == []
        images = [i.image.size for i in PdfReader(io.BytesIO(data)).pages[0].images]
        assert (300, 120) in images
    assert [pdf.page_text(d) for d in certificates] == [pdf.page_text(d) for d in plain]
    assert all((300, 120) not in [i.image.size for i in PdfReader(io.BytesIO(d)).pages[0].images] for d in plain)


def test_doc_1_a_stamped_certificate_with_a_logo_is_weasyprint_s_page(tmp_path):
    """DOC-1: the logo is part of the template; the page looks as WeasyPrint draws it"""
    import shutil

    from domain.clubs.rules.logo import checked_logo
    from tests.support.pictures import (
        CERTIFICATES,
        PUBLIC_URL,
        STAMP_KEY,
        TOLERANCE,
        differing,
        first_page,
        weasyprint_page,
    )

    assert shutil.which("pdftoppm"), (
        "pdftoppm (poppler-utils) is missing: `make setup` installs it (infra/setup-system.sh)"
    )
    logo = checked_logo(image("JPEG", (400, 400)))
    cert = CERTIFICATES["russian"]
    with Renderer(STAMP_KEY, public_url=PUBLIC_URL) as renderer:
        (mine,) = renderer.certificates([cert], logo=logo)
    theirs = weasyprint_page(cert, logo)
    assert pdf.page_text(mine) == pdf.page_text(theirs)
    share = differing(first_page(mine, tmp_path, "mine"), first_page(theirs, tmp_path, "theirs"))
    assert share <= TOLERANCE, f"{share:.2%} of the pixels differ (pages in {tmp_path})"
