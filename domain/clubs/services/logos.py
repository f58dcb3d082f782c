"""A club's logo on its documents: set (checked by domain.clubs.rules.logo), removed, and read for
the documents of many clubs at once."""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from datetime import datetime

from sqlalchemy import delete, select
from sqlalchemy.dialects.postgresql import insert
from sqlalchemy.orm import Session

from domain.clubs.rules.logo import Logo, checked_logo
from domain.clubs.services.clubs import get_club
from domain.clubs.tables import ClubLogo


def _view(club_id: int, logo: Logo | None, sha256: str | None = None) -> dict:
    if logo is None:
        return {"club_id": club_id, "logo": None}
    return {
        "club_id": club_id,
        "logo": {
            "media_type": logo.media_type,
            "width": logo.width,
            "height": logo.height,
            "bytes": len(logo.data),
            "sha256": sha256,
        },
    }


def set_logo(session: Session, club_id: int, data: bytes, now: datetime) -> dict:
    """Store the club's logo (replacing one it had); a bad image is refused before anything is written."""
    logo = checked_logo(data)
    get_club(session, club_id)
    digest = hashlib.sha256(data).hexdigest()
    values = {
        "media_type": logo.media_type,
        "width": logo.width,
        "height": logo.height,
        "data": data,
        "sha256": digest,
        "updated_at": now,
    }
    session.execute(
        insert(ClubLogo)
        .values(club_id=club_id, **values)
        .on_conflict_do_update(index_elements=["club_id"], set_=values)
    )
    return _view(club_id, logo, digest)


def remove_logo(session: Session, club_id: int) -> dict:
    """The club's documents go back to having no logo (removing none is not an error)."""
    get_club(session, club_id)
    session.execute(delete(ClubLogo).where(ClubLogo.club_id == club_id))
    return _view(club_id, None)


def logos(session: Session, club_ids: Sequence[int]) -> dict[int, Logo]:
    """The logos of these clubs (a club without one is absent), in one statement."""
    if not club_ids:
        return {}
    rows = session.execute(
        select(ClubLogo.club_id, ClubLogo.media_type, ClubLogo.width, ClubLogo.height, ClubLogo.data).where(
            ClubLogo.club_id.in_(list(club_ids))
        )
    )
    return {r.club_id: Logo(r.media_type, r.width, r.height, bytes(r.data)) for r in rows}


def logo_of(session: Session, club_id: int) -> dict:
    """The club's logo as `set_logo` answers it (its type, size in pixels and bytes, sha256), or none."""
    get_club(session, club_id)
    row = session.get(ClubLogo, club_id)
    if row is None:
        return _view(club_id, None)
    return _view(club_id, Logo(row.media_type, row.width, row.height, bytes(row.data)), row.sha256)
