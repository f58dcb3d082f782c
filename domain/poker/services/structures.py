"""Blind structures (Sport Poker 3.5): a club's level grid. Tournaments share it, so it is immutable
once a tournament past its draft uses it (registration opened: the SP-2 windows of its registrants
and its clock depend on it); until then its owner may edit it, and may always copy it."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import delete, select
from sqlalchemy.orm import Session

from domain.clubs.services.clubs import get_club
from domain.errors import DomainError, NotFound, Problem, raise_problems
from domain.poker.rules.structures import (
    LevelSpec,
    ante_type_problems,
    level_problems,
    total_duration,
)
from domain.poker.tables.tournaments import Level, Structure, Tournament


def import_structure(
    session: Session, club_id: int, name: str, ante_type: str, levels: list[LevelSpec], now: datetime
) -> Structure:
    """3.5: a club's level grid, immutable once stored (tournaments share it)."""
    get_club(session, club_id)
    problems = ante_type_problems(ante_type) + level_problems(levels)
    if not name.strip():
        problems.insert(0, Problem("name-blank", "the structure needs a name"))
    raise_problems(problems)
    if session.scalar(select(Structure.id).where(Structure.club_id == club_id, Structure.name == name.strip())):
        raise DomainError(
            "structure-exists",
            "club %(club_id)s already has a structure named '%(name)s'",
            club_id=club_id,
            name=name.strip(),
        )
    structure = Structure(club_id=club_id, name=name.strip(), ante_type=ante_type, created_at=now)
    session.add(structure)
    session.flush()
    _add_levels(session, structure.id, levels)
    return structure


def _add_levels(session: Session, structure_id: int, levels: list[LevelSpec]) -> None:
    session.add_all(
        Level(
            structure_id=structure_id,
            position=n,
            small_blind=lv.small_blind,
            big_blind=lv.big_blind,
            ante=lv.ante,
            duration_seconds=lv.duration_seconds,
            is_break=lv.is_break,
        )
        for n, lv in enumerate(levels, start=1)
    )
    session.flush()


def structure_levels(session: Session, structure_id: int) -> list[LevelSpec]:
    rows = session.scalars(select(Level).where(Level.structure_id == structure_id).order_by(Level.position))
    return [LevelSpec(r.small_blind, r.big_blind, r.ante, r.duration_seconds, r.is_break) for r in rows]


def get_structure(session: Session, structure_id: int) -> Structure:
    structure = session.get(Structure, structure_id)
    if structure is None:
        raise NotFound("structure-not-found", "no blind structure %(structure_id)s", structure_id=structure_id)
    return structure


def structure_view(session: Session, structure_id: int) -> dict[str, Any]:
    s = get_structure(session, structure_id)
    levels = structure_levels(session, structure_id)
    return {
        "id": s.id,
        "club_id": s.club_id,
        "name": s.name,
        "ante_type": s.ante_type,
        "total_minutes": int(total_duration(levels).total_seconds()) // 60,
        "levels": [
            {
                "level": n,
                "small_blind": lv.small_blind,
                "big_blind": lv.big_blind,
                "ante": lv.ante,
                "minutes": lv.duration_seconds // 60,
                "break": lv.is_break,
            }
            for n, lv in enumerate(levels, start=1)
        ],
    }


def club_structure(session: Session, club_id: int, structure_id: int, *, lock: bool = False) -> Structure:
    """The club's structure; another club's is the same NotFound as a missing one (AC-2)."""
    query = select(Structure).where(Structure.id == structure_id, Structure.club_id == club_id)
    found = session.scalar(query.with_for_update().execution_options(populate_existing=True) if lock else query)
    if found is None:
        raise NotFound("structure-not-found", "no blind structure %(structure_id)s", structure_id=structure_id)
    return found


def edit_structure(
    session: Session,
    club_id: int,
    structure_id: int,
    name: str,
    ante_type: str,
    levels: list[LevelSpec],
    now: datetime,
) -> bool:
    """Replace a structure's name, ante type and levels, every problem at once; refused once a
    tournament past its draft uses it (`structure-in-use`: copy it and edit the copy). False when it is
    so already (nothing written). Locks: the structure's row (FOR UPDATE: a tournament switched to it
    meanwhile reads it FOR SHARE and waits), then every tournament using it (FOR SHARE, whatever its
    status: one opening at that moment is waited for and read as it committed, and one opened after
    waits for this edit)."""
    structure = club_structure(session, club_id, structure_id, lock=True)
    problems = ante_type_problems(ante_type) + level_problems(levels)
    if not name.strip():
        problems.insert(0, Problem("name-blank", "the structure needs a name"))
    elif session.scalar(
        select(Structure.id).where(
            Structure.club_id == club_id, Structure.name == name.strip(), Structure.id != structure_id
        )
    ):
        problems.insert(
            0,
            Problem(
                "structure-exists",
                "club %(club_id)s already has a structure named '%(name)s'",
                club_id=club_id,
                name=name.strip(),
            ),
        )
    users = session.execute(
        select(Tournament.id, Tournament.name, Tournament.status)
        .where(Tournament.structure_id == structure_id)
        .order_by(Tournament.id)
        .with_for_update(read=True)
    ).all()
    used = next((t for t in users if t.status != "draft"), None)
    if used is not None:
        problems.append(
            Problem(
                "structure-in-use",
                "blind structure %(structure_id)s is used by tournament %(tournament_id)s '%(tournament)s', "
                "whose registration has opened: copy the structure and edit the copy (rule 3.5)",
                structure_id=structure_id,
                tournament_id=used.id,
                tournament=used.name,
            )
        )
    raise_problems(problems)
    if (structure.name, structure.ante_type, structure_levels(session, structure_id)) == (
        name.strip(),
        ante_type,
        list(levels),
    ):
        return False
    structure.name, structure.ante_type = name.strip(), ante_type
    session.execute(delete(Level).where(Level.structure_id == structure_id))
    session.flush()
    _add_levels(session, structure_id, levels)
    return True


def copy_structure(session: Session, club_id: int, structure_id: int, name: str, now: datetime) -> Structure:
    """A new structure of the club with another's ante type and levels, under a name of its own."""
    source = club_structure(session, club_id, structure_id)
    return import_structure(session, club_id, name, source.ante_type, structure_levels(session, structure_id), now)
