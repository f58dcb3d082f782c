"""Registration, check-in and top-ups (Sport Poker 3.10; SP-2, SP-12): sign-up, withdrawal, check-in
(the buy-in becomes a debt, SP-1), rebuys, re-entries and add-ons.

Seating hook: `check_in` and `reenter` return the new Entry inside the caller's transaction; the
seating service seats it in the same session before the commit."""

from __future__ import annotations

import re
from datetime import datetime
from typing import Any

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from domain.errors import DomainError, NotFound, Problem, Word, raise_problems
from domain.poker.rules import entries as rules
from domain.poker.rules.lifecycle import CANCELLED, FINISHED, RUNNING
from domain.poker.rules.players import eligibility_problems
from domain.poker.services.audit import audit
from domain.poker.services.fees import charge
from domain.poker.services.players import find_player, locked
from domain.poker.services.tournaments import (
    held_windows,
    settings_of,
    tournament_window,
)
from domain.poker.tables.clock_seating import Seat
from domain.poker.tables.tournaments import Entry, Player, Registration, TopUp, Tournament


def _active_registration(session: Session, tournament_id: int, player_id: int) -> Registration | None:
    return session.scalar(
        select(Registration)
        .where(
            Registration.tournament_id == tournament_id,
            Registration.player_id == player_id,
            Registration.status == "active",
        )
        .execution_options(populate_existing=True)
    )


def active_registration(session: Session, tournament_id: int, player_id: int) -> Registration | None:
    """The player's active registration in the tournament, if any."""
    return _active_registration(session, tournament_id, player_id)


def register(session: Session, tournament_id: int, player_ref: str | int, now: datetime) -> Registration:
    """3.10 sign-up (late registration while running, before its deadline); SP-2 parallel check."""
    t, player = locked(session, tournament_id, player_ref)
    return _register(session, t, player, _active_registration(session, t.id, player.id), now)


def _register(
    session: Session, t: Tournament, player: Player, active: Registration | None, now: datetime
) -> Registration:
    """`register` of a tournament and a player locked already, `active` their active registration."""
    problems = eligibility_problems(
        player.birth_date, player.blocked_at is not None, player.forgotten_at is not None, now.date()
    )
    problems += rules.registration_problems(t.status, t.late_reg_deadline, now)
    if not problems and active is not None:
        problems.append(
            Problem(
                "already-registered",
                "the player is already registered in tournament %(tournament_id)s",
                tournament_id=t.id,
            )
        )
    if not problems:
        held = [(tid, name, window) for _, tid, name, window in held_windows(session, [player.id], t.id)]
        problems += rules.parallel_problems(tournament_window(session, t), held)
    raise_problems(problems)
    reg = Registration(
        tournament_id=t.id, player_id=player.id, status="active", late=t.status == RUNNING, registered_at=now
    )
    session.add(reg)
    session.flush()
    audit(session, "registered", now, tournament_id=t.id, player_id=player.id, registration_id=reg.id, late=reg.late)
    return reg


def unregister(session: Session, tournament_id: int, player_ref: str | int, now: datetime) -> Registration:
    """A player withdraws before check-in (after check-in the buy-in is owed and the entry stands)."""
    t, player = locked(session, tournament_id, player_ref)
    reg = _active_registration(session, t.id, player.id)
    if reg is None:
        raise DomainError(
            "not-registered", "the player is not registered in tournament %(tournament_id)s", tournament_id=t.id
        )
    if reg.checked_in_at is not None:
        raise DomainError(
            "unregister-after-check-in", "the player has checked in: the entry and its buy-in stand (rule 3.4)"
        )
    if t.status in (FINISHED, CANCELLED):
        raise DomainError("registration-closed", "the tournament is %(status)s", status=Word(t.status))
    reg.status, reg.ended_at = "withdrawn", now
    audit(session, "unregistered", now, tournament_id=t.id, player_id=player.id, registration_id=reg.id)
    session.flush()
    return reg


def _open_entry(session: Session, t: Tournament, reg: Registration, now: datetime, previous: Entry | None) -> Entry:
    entry = Entry(
        tournament_id=t.id,
        player_id=reg.player_id,
        registration_id=reg.id,
        sequence=1 if previous is None else previous.sequence + 1,
        previous_entry_id=None if previous is None else previous.id,
        state="active",
        starting_chips=t.starting_stack,
        created_at=now,
    )
    session.add(entry)
    session.flush()
    audit(
        session,
        "entry-opened",
        now,
        tournament_id=t.id,
        player_id=reg.player_id,
        entry_id=entry.id,
        sequence=entry.sequence,
        chips=entry.starting_chips,
    )
    return entry


def check_in(session: Session, tournament_id: int, player_ref: str | int, now: datetime) -> Entry:
    """3.10/3.4: marked in at the counter without payment; the first entry opens with the starting
    stack and the buy-in is recorded as a debt. Returns the entry for the seating area to seat in
    the same transaction."""
    t, player = locked(session, tournament_id, player_ref)
    return _check_in(session, t, player, _active_registration(session, t.id, player.id), now)


def arrive(session: Session, tournament_id: int, player_ref: str | int, now: datetime) -> tuple[Entry, bool]:
    """A player at the counter: registered now unless already (`register`), then checked in
    (`check_in`), under one lock of the tournament and the player; also says whether this step
    registered them."""
    t, player = locked(session, tournament_id, player_ref)
    reg = _active_registration(session, t.id, player.id)
    registered_now = reg is None
    if reg is None:
        reg = _register(session, t, player, None, now)
    return _check_in(session, t, player, reg, now), registered_now


def _check_in(session: Session, t: Tournament, player: Player, reg: Registration | None, now: datetime) -> Entry:
    """`check_in` of a tournament and a player locked already, `reg` their active registration."""
    if reg is None:
        raise DomainError(
            "not-registered",
            "the player is not registered in tournament %(tournament_id)s (rule 3.10)",
            tournament_id=t.id,
        )
    if reg.checked_in_at is not None:
        raise DomainError(
            "already-checked-in", "the player already checked in to tournament %(tournament_id)s", tournament_id=t.id
        )
    problems = eligibility_problems(
        player.birth_date, player.blocked_at is not None, player.forgotten_at is not None, now.date()
    )
    raise_problems(problems + rules.registration_problems(t.status, t.late_reg_deadline, now))
    reg.checked_in_at = now
    entry = _open_entry(session, t, reg, now, previous=None)
    charge(session, t, entry, "buy_in", t.buy_in, now)
    return entry


def _entries(session: Session, tournament_id: int, player_id: int) -> list[Entry]:
    return list(
        session.scalars(
            select(Entry)
            .where(Entry.tournament_id == tournament_id, Entry.player_id == player_id)
            .order_by(Entry.sequence)
            .execution_options(populate_existing=True)
        )
    )


def _topup(session: Session, t: Tournament, entry: Entry, kind: str, now: datetime) -> TopUp:
    s = settings_of(t)
    top = TopUp(
        tournament_id=t.id,
        player_id=entry.player_id,
        entry_id=entry.id,
        kind=kind,
        chips=rules.topup_chips(kind, s),
        created_at=now,
    )
    session.add(top)
    session.flush()
    audit(
        session,
        "topup",
        now,
        tournament_id=t.id,
        player_id=entry.player_id,
        topup_id=top.id,
        kind=kind,
        entry_id=entry.id,
        chips=top.chips,
    )
    charge(session, t, entry, kind, rules.topup_price(kind, s) or 0, now, topup_id=top.id)
    return top


def rebuy(
    session: Session, tournament_id: int, player_ref: str | int, now: datetime, level: int | None = None
) -> TopUp:
    """3.1 rebuy: the starting stack into the current entry, at the rebuy amount. `level` is the
    clock's level at `now` (None: not started), for the `rebuy_until_level` window (SP-12); the
    `rebuy_limit` counts the player's rebuys over all their entries."""
    t, player = locked(session, tournament_id, player_ref)
    active = [e for e in _entries(session, t.id, player.id) if e.state == "active"]
    taken = session.scalar(
        select(func.count()).where(TopUp.tournament_id == t.id, TopUp.player_id == player.id, TopUp.kind == rules.REBUY)
    )
    raise_problems(
        rules.rebuy_problems(t.status, settings_of(t), bool(active), now=now, level=level, rebuys_taken=taken)
    )
    return _topup(session, t, active[0], rules.REBUY, now)


def reenter(session: Session, tournament_id: int, player_ref: str | int, now: datetime) -> Entry:
    """3.1 re-entry: after a bust, a new entry linked to the busted one, at the re-entry price.
    Returns the new entry for the seating area to seat in the same transaction."""
    t, player = locked(session, tournament_id, player_ref)
    entries = _entries(session, t.id, player.id)
    latest = entries[-1] if entries else None
    reentries = max(len([e for e in entries if e.state != "voided"]) - 1, 0)  # SP-12: entries after the first
    raise_problems(
        rules.reentry_problems(
            t.status, settings_of(t), latest.state if latest else None, now, reentries_taken=reentries
        )
    )
    reg = session.get(Registration, latest.registration_id)
    entry = _open_entry(session, t, reg, now, previous=latest)
    _topup(session, t, entry, rules.REENTRY, now)
    return entry


def add_on(
    session: Session, tournament_id: int, player_ref: str | int, now: datetime, breaks_reached: int = 0
) -> TopUp:
    """3.1 add-on into the current entry. `breaks_reached` is the clock's count of breaks passed at
    `now` (the clock lives in services/clock.py), for the "at the N-th break" gate."""
    t, player = locked(session, tournament_id, player_ref)
    active = [e for e in _entries(session, t.id, player.id) if e.state == "active"]
    taken = session.scalar(
        select(func.count()).where(TopUp.tournament_id == t.id, TopUp.player_id == player.id, TopUp.kind == rules.ADDON)
    )
    raise_problems(rules.addon_problems(t.status, settings_of(t), bool(active), taken, breaks_reached, now))
    return _topup(session, t, active[0], rules.ADDON, now)


def entry_view(e: Entry) -> dict[str, Any]:
    return {
        "entry_id": e.id,
        "tournament_id": e.tournament_id,
        "player_id": e.player_id,
        "sequence": e.sequence,
        "previous_entry_id": e.previous_entry_id,
        "state": e.state,
        "chips": e.starting_chips,
    }


def topup_view(top: TopUp) -> dict[str, Any]:
    return {
        "topup_id": top.id,
        "tournament_id": top.tournament_id,
        "player_id": top.player_id,
        "entry_id": top.entry_id,
        "kind": top.kind,
        "chips": top.chips,
    }


def players_in(session: Session, tournament_id: int) -> int:
    """Players with an active entry (still in the tournament)."""
    return (
        session.scalar(
            select(func.count(func.distinct(Entry.player_id))).where(
                Entry.tournament_id == tournament_id, Entry.state == "active"
            )
        )
        or 0
    )


_SEAT = re.compile(r"^(\d{1,9})/(\d{1,9})$")
BIGINT_MAX = 2**63 - 1


def entry_named(session: Session, tournament_id: int, ref: str) -> int:
    """The entry of the tournament that the floor names by `ref`: an entry id, a seat `TABLE/SEAT`
    (`3/7`), or a player's handle or unique name (their latest entry that is not voided)."""
    ref = ref.strip()
    if ref.isascii() and ref.isdigit():  # "³" is a digit, not a number
        number = int(ref)
        if not 0 < number <= BIGINT_MAX:
            raise NotFound(
                "entry-not-found",
                "no entry %(ref)s in tournament %(tournament_id)s",
                ref=ref,
                tournament_id=tournament_id,
            )
        return number
    seat = _SEAT.match(ref)
    if seat:
        table, number = int(seat[1]), int(seat[2])
        found = session.scalar(
            select(Seat.entry_id).where(
                Seat.tournament_id == tournament_id, Seat.table_no == table, Seat.seat_no == number
            )
        )
        if found is None:
            raise NotFound(
                "seat-empty",
                "nobody sits at table %(table)s seat %(number)s of tournament %(tournament_id)s",
                table=table,
                number=number,
                tournament_id=tournament_id,
            )
        return found
    player = find_player(session, ref)
    found = session.scalar(
        select(Entry.id)
        .where(Entry.tournament_id == tournament_id, Entry.player_id == player.id, Entry.state != "voided")
        .order_by(Entry.sequence.desc())
        .limit(1)
    )
    if found is None:
        raise DomainError(
            "entry-not-found",
            "%(display_name)s has no entry in tournament %(tournament_id)s",
            display_name=player.display_name,
            tournament_id=tournament_id,
        )
    return found
