"""Blind structures (Sport Poker 3.5): a club's level grid, immutable once stored."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from domain.clubs.services.clubs import get_club
from domain.errors import DomainError, NotFound, Problem, raise_problems
from domain.poker.rules.structures import (
    LevelSpec,
    ante_type_problems,
    level_problems,
    total_duration,
)
from domain.poker.tables.tournaments import Level, Structure


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
    session.add_all(
        Level(
            structure_id=structure.id,
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
    return structure


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
