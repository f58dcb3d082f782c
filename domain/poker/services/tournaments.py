"""Poker tournaments (Sport Poker 3.1, 3.9): create, edit, change status, list, and their time
windows (SP-2: an edit never makes a registrant's windows overlap). Status changes and edits lock
the tournament's row."""

from __future__ import annotations

from dataclasses import replace
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from domain.clubs.services.clubs import get_club
from domain.errors import DomainError, NotFound, Problem, Word, raise_problems
from domain.poker.rules import entries as rules
from domain.poker.rules.lifecycle import (
    CANCELLED,
    DRAFT,
    FINISHED,
    edit_problems,
    transition,
)
from domain.poker.rules.settings import (
    SETTING_FIELDS,
    TournamentSettings,
    settings_problems,
)
from domain.poker.rules.structures import total_duration
from domain.poker.services import draws
from domain.poker.services.audit import audit
from domain.poker.services.due import notify
from domain.poker.services.structures import structure_levels
from domain.poker.tables.tournaments import (
    Entry,
    Level,
    Player,
    Registration,
    Structure,
    Tournament,
)
from domain.store.db import hold


def settings_of(t: Tournament) -> TournamentSettings:
    return TournamentSettings(**{f: getattr(t, f) for f in SETTING_FIELDS})


def get_tournament(session: Session, tournament_id: int, *, lock: str | None = None) -> Tournament:
    """`lock` = 'update' (status changes, edits) or 'share' (registration, top-ups, settlement): the row
    is locked and read afresh. Without a lock, the tournament as this transaction read it already, else
    one read; the session holds it (`hold`), so the steps of a request that name it read it once."""
    if lock:
        query = select(Tournament).where(Tournament.id == tournament_id).execution_options(populate_existing=True)
        t = session.scalar(query.with_for_update(read=lock == "share"))
    else:
        t = session.get(Tournament, tournament_id)
    if t is None:
        raise NotFound("tournament-not-found", "no tournament %(tournament_id)s", tournament_id=tournament_id)
    return hold(session, t)


def _structure_problems(session: Session, club_id: int, structure_id: int) -> list[Problem]:
    """The structure is the club's; its row is read FOR SHARE, so an owner's edit of its levels
    (`structures.edit_structure`, FOR UPDATE) and this tournament's use of it happen one after the other."""
    structure = session.scalar(
        select(Structure)
        .where(Structure.id == structure_id)
        .with_for_update(read=True)
        .execution_options(populate_existing=True)
    )
    if structure is None:
        return [Problem("structure-not-found", "no blind structure %(structure_id)s", structure_id=structure_id)]
    if structure.club_id != club_id:
        return [
            Problem(
                "structure-other-club",
                "blind structure %(structure_id)s belongs to another club (rule 3.5)",
                structure_id=structure_id,
            )
        ]
    return []


def create_tournament(
    session: Session, club_id: int, structure_id: int, settings: TournamentSettings, now: datetime
) -> Tournament:
    club = get_club(session, club_id)
    problems = settings_problems(settings) + _structure_problems(session, club_id, structure_id)
    if club.listing_status != "listed":
        problems.insert(
            0,
            Problem(
                "club-not-listed",
                "club %(club_id)s is %(listing_status)s: it cannot list tournaments (rule 1.7.4)",
                club_id=club_id,
                listing_status=Word(club.listing_status),
            ),
        )
    raise_problems(problems)
    t = Tournament(
        club_id=club_id,
        structure_id=structure_id,
        status=DRAFT,
        created_at=now,
        **{f: getattr(settings, f) for f in SETTING_FIELDS},
    )
    session.add(t)
    session.flush()
    draws.commit(session, t.id, now)  # SP-13: the first draw's seed, published before any floor seed
    audit(session, "tournament-created", now, tournament_id=t.id)
    return t


DEADLINES = ("late_reg_deadline", "reentry_deadline", "addon_deadline", "rebuy_until")


def copied_settings(
    session: Session, club_id: int, tournament_id: int, *, name: str, start: datetime
) -> tuple[int, TournamentSettings]:
    """Another tournament of the club as the settings of a new one: its structure and every setting,
    the deadlines moved with the start (each as long after it as in the original). Another club's
    tournament is the same NotFound as a missing one (AC-2)."""
    source = get_tournament(session, tournament_id)
    if source.club_id != club_id:
        raise NotFound("tournament-not-found", "no tournament %(tournament_id)s", tournament_id=tournament_id)
    values = {f: getattr(source, f) for f in SETTING_FIELDS} | {"name": name, "scheduled_start": start}
    for field in DEADLINES:
        if values[field] is not None:
            try:
                values[field] = start + (values[field] - source.scheduled_start)
            except OverflowError:
                raise DomainError(
                    "time-out-of-range", "%(field)s would fall outside the calendar", field=field.replace("_", " ")
                ) from None
    return source.structure_id, TournamentSettings(**values)


def edit_tournament(
    session: Session, tournament_id: int, changes: dict[str, Any], now: datetime, structure_id: int | None = None
) -> Tournament:
    """3.9: settings change only in draft and registration open; the result must validate whole."""
    t = get_tournament(session, tournament_id, lock="update")
    unknown = sorted(set(changes) - set(SETTING_FIELDS))
    if unknown:
        raise DomainError("setting-unknown", "no such setting: %(value)s", value=", ".join(unknown))
    new = replace(settings_of(t), **changes)
    problems = edit_problems(t.status)
    if not problems:
        problems = settings_problems(new)
        if structure_id is not None:
            problems += _structure_problems(session, t.club_id, structure_id)
    if not problems and ("scheduled_start" in changes or structure_id is not None):
        levels = structure_levels(session, structure_id if structure_id is not None else t.structure_id)
        problems = _moved_window_problems(
            session, t, rules.Window.scheduled(new.scheduled_start, total_duration(levels))
        )
    raise_problems(problems)
    for field in changes:
        setattr(t, field, getattr(new, field))
    if structure_id is not None:
        t.structure_id = structure_id
    audit(
        session,
        "tournament-edited",
        now,
        tournament_id=t.id,
        fields=sorted(changes) + (["structure_id"] if structure_id else []),
    )
    session.flush()
    notify(session, "tournament-edited", t.id)  # its deadlines may have moved (the timekeeper)
    return t


def change_status(session: Session, tournament_id: int, action: str, now: datetime) -> Tournament:
    """open, start, finish or cancel (3.9)."""
    t = get_tournament(session, tournament_id, lock="update")
    target, problems = transition(t.status, action)
    raise_problems(problems)
    t.status = target
    stamp = {"open": "opened_at", "start": "started_at", "finish": "finished_at", "cancel": "cancelled_at"}[action]
    setattr(t, stamp, now)
    audit(session, f"tournament-{action}", now, tournament_id=t.id)
    session.flush()
    notify(session, f"tournament-{action}", t.id)  # a start makes its no-shows due (the timekeeper)
    return t


def _durations():
    return (
        select(Level.structure_id, func.sum(Level.duration_seconds).label("seconds"))
        .group_by(Level.structure_id)
        .subquery()
    )


def tournament_window(session: Session, t: Tournament) -> rules.Window:
    return rules.Window.scheduled(t.scheduled_start, total_duration(structure_levels(session, t.structure_id)))


def tournament_view(session: Session, t: Tournament) -> dict[str, Any]:
    window = tournament_window(session, t)
    counts = session.execute(
        select(
            select(func.count())
            .where(Registration.tournament_id == t.id, Registration.status == "active")
            .scalar_subquery(),
            select(func.count()).where(Entry.tournament_id == t.id, Entry.state != "voided").scalar_subquery(),
        )
    ).one()
    return {
        "id": t.id,
        "club_id": t.club_id,
        "status": t.status,
        "structure_id": t.structure_id,
        **{f: getattr(t, f) for f in SETTING_FIELDS},
        "window_end": window.end,
        "registrations": counts[0],
        "entries": counts[1],
    }


def list_tournaments(session: Session, club_id: int | None = None, status: str | None = None) -> list[dict[str, Any]]:
    query = select(Tournament).order_by(Tournament.scheduled_start, Tournament.id)
    if club_id is not None:
        query = query.where(Tournament.club_id == club_id)
    if status is not None:
        query = query.where(Tournament.status == status)
    return [
        {
            "id": t.id,
            "club_id": t.club_id,
            "name": t.name,
            "status": t.status,
            "scheduled_start": t.scheduled_start,
            "format": t.format,
            "buy_in": t.buy_in,
            "currency": t.currency,
        }
        for t in session.scalars(query)
    ]


def held_windows(session: Session, player_ids: list[int], other_than: int) -> list[tuple[int, int, str, rules.Window]]:
    """(player id, tournament id, name, window) of the players' other active registrations in
    tournaments neither finished nor cancelled."""
    d = _durations()
    rows = session.execute(
        select(
            Registration.player_id,
            Tournament.id,
            Tournament.name,
            Tournament.scheduled_start,
            func.coalesce(d.c.seconds, 0),
        )
        .join(Registration, Registration.tournament_id == Tournament.id)
        .outerjoin(d, d.c.structure_id == Tournament.structure_id)
        .where(
            Registration.player_id.in_(player_ids),
            Registration.status == "active",
            Tournament.id != other_than,
            Tournament.status.not_in((FINISHED, CANCELLED)),
        )
        .order_by(Registration.player_id, Tournament.scheduled_start)
    )
    return [
        (pid, tid, name, rules.Window.scheduled(start, timedelta(seconds=int(sec))))
        for pid, tid, name, start, sec in rows
    ]


def _moved_window_problems(session: Session, t: Tournament, window: rules.Window) -> list[Problem]:
    """SP-2 on an edit: a new start or structure must not make a registrant's window overlap. The
    registrants' rows are locked (in id order, after the tournament's, the order every registration
    takes), so a registrant's concurrent sign-up elsewhere is either seen here or sees the new window."""
    registrants = list(
        session.scalars(
            select(Player.id)
            .join(Registration, Registration.player_id == Player.id)
            .where(Registration.tournament_id == t.id, Registration.status == "active")
            .order_by(Player.id)
            .with_for_update(of=Player)
        )
    )
    return [
        Problem(
            "edit-creates-overlap",
            "player %(pid)s is also registered in tournament %(tid)s '%(name)s', which the new window %(window_start)s to %(window_end)s would overlap (SP-2)",
            pid=pid,
            tid=tid,
            name=name,
            window_start=window.start,
            window_end=window.end,
        )
        for pid, tid, name, other in held_windows(session, registrants, t.id)
        if window.overlaps(other)
    ]
