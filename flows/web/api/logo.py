"""A club's logo (issue 39, docs/console.md): the PNG or JPEG on its certificates, results sheets and
pages' header, checked by its bytes (domain/clubs/rules/logo.py: at most 512 KiB and 2000 pixels a side;
SVG refused) and stored in PostgreSQL (`club_logos`). The body of `club.set-logo` is the image itself,
not JSON. The use cases (`*_use`) are the ones the console's profile page runs too (flows/web/club_logo.py)."""

from __future__ import annotations

import hashlib
from typing import Literal

from pydantic import BaseModel

from domain.access.services.gate import UNCHANGED
from domain.clubs.rules.logo import MAX_BYTES
from domain.clubs.services import logos
from flows.web.api.core import Id, Op, Operations, club_of

ops = Operations("club")
router = ops.router

BINARY = {"schema": {"type": "string", "format": "binary"}}
IMAGE = {
    "required": True,
    "description": "the image's bytes (its type is read from them, not from the header); at most 512 KiB",
    "content": {"image/png": BINARY, "image/jpeg": BINARY},
}
MAX_UPLOAD = 2 * MAX_BYTES  # up to here a body is read and refused by its rule (`logo-too-large`); past it, 413


class LogoShape(BaseModel):
    media_type: Literal["image/png", "image/jpeg"]
    width: int
    height: int
    bytes: int
    sha256: str


class ClubLogo(BaseModel):
    club_id: int
    logo: LogoShape | None


def logo_use(club_id: int):
    """The club's logo: its type, size and digest; none when it has none."""
    return lambda s, actor, now: logos.logo_of(s, club_id)


def set_logo_use(club_id: int, data: bytes):
    """Store the club's logo (replacing one), checked before anything is written; the same image again:
    UNCHANGED."""

    def do(s, actor, now):
        held = logos.logo_of(s, club_id)["logo"]
        if held is not None and held["sha256"] == hashlib.sha256(data).hexdigest():
            return UNCHANGED
        return logos.set_logo(s, club_id, data, now)

    return do


def remove_logo_use(club_id: int):
    """The club goes back to having no logo; none to remove: UNCHANGED."""

    def do(s, actor, now):
        if logos.logo_of(s, club_id)["logo"] is None:
            return UNCHANGED
        return logos.remove_logo(s, club_id)

    return do


@ops.get("/clubs/{club_id}/logo", "club.logo", response=ClubLogo)
def club_logo(op: Op, club_id: Id):
    """The club's logo: its type, size in pixels and bytes, sha256; `logo` null when it has none."""
    return op.run(club_of(club_id), logo_use(club_id), describe=f"club {club_id}")


@ops.post("/clubs/{club_id}/logo", "club.set-logo", response=ClubLogo, unchanged=True, body=IMAGE, max_body=MAX_UPLOAD)
def club_set_logo(op: Op, club_id: Id):
    """Set the club's logo: the body is a PNG or JPEG image (at most 512 KiB, 2000 pixels a side).
    Refused, nothing written: `logo-empty`, `logo-too-large`, `logo-type` (SVG or not an image),
    `logo-dimensions`, `logo-damaged`. The same image again: 204."""
    data = op.request.state.body
    return op.run(club_of(club_id), set_logo_use(club_id, data), describe=f"club {club_id} logo")


@ops.delete("/clubs/{club_id}/logo", "club.remove-logo", response=ClubLogo, unchanged=True)
def club_remove_logo(op: Op, club_id: Id):
    """Remove the club's logo (its documents and pages go back to none). None to remove: 204."""
    return op.run(club_of(club_id), remove_logo_use(club_id), describe=f"club {club_id} logo")
