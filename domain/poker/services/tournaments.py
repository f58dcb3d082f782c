"""Poker services: players, structures, tournaments, registration, check-in, top-ups, fees
and settlement (Sport Poker 1.2, 1.6.1, 3.1, 3.4, 3.5, 3.9, 3.10; SP-1, SP-2).

Each function takes the caller's Session (the caller owns the transaction), loads rows, calls the
pure rule, writes the outcome. Concurrency: every write that concerns a player first locks that
player's row (`SELECT ... FOR UPDATE`), so SP-2 registration checks, add-on-once checks and
settlements for one player are serialised; status changes and edits lock the tournament row, and
registration and top-ups hold it FOR SHARE.

Seating hook: `check_in` and `reenter` return the new Entry inside the caller's transaction; the
seating service seats it in the same session before the commit.
"""

from __future__ import annotations

import secrets
from dataclasses import replace
from datetime import date, datetime, timedelta
from typing import Any

from sqlalchemy import func, select, text
from sqlalchemy.dialects.postgresql import aggregate_order_by
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from domain.clubs.tables import Club
from domain.errors import DomainError, NotFound, Problem, raise_problems
from domain.poker.rules import entries as rules
from domain.poker.rules.lifecycle import (
    CANCELLED,
    DRAFT,
    FINISHED,
    RUNNING,
    edit_problems,
    transition,
)
from domain.poker.rules.players import eligibility_problems, profile_problems
from domain.poker.rules.settings import (
    SETTING_FIELDS,
    TournamentSettings,
    settings_problems,
)
from domain.poker.rules.structures import (
    LevelSpec,
    ante_type_problems,
    level_problems,
    total_duration,
)
from domain.poker.services.due import notify
from domain.poker.tables.tournaments import (
    AuditEvent,
    Entry,
    Fee,
    Level,
    Player,
    Registration,
    Settlement,
    Structure,
    TopUp,
    Tournament,
)

# -- audit -----------------------------------------------------------------------------------------


def audit(
    session: Session, event: str, now: datetime, *, tournament_id: int | None = None,
    player_id: int | None = None, actor: str | None = None, **data: Any,
) -> None:
    """Append one event to the audit trail (ids and amounts only, never personal data)."""
    session.add(AuditEvent(tournament_id=tournament_id, player_id=player_id, kind=event, actor=actor, at=now, data=data))


# -- players ---------------------------------------------------------------------------------------


def add_player(session: Session, name: str, handle: str, birth_date: date, now: datetime) -> Player:
    raise_problems(profile_problems(name, handle, birth_date, now.date()))
    taken = session.scalar(select(Player.id).where(func.lower(Player.handle) == handle.lower()))
    if taken is not None:
        raise DomainError("handle-taken", f"handle '{handle}' is taken")
    player = Player(
        pseudonym=f"Player-{secrets.token_hex(4)}", name=name.strip(), handle=handle, birth_date=birth_date,
        created_at=now,
    )
    try:
        with session.begin_nested():  # a concurrent add of the same handle loses here, not at commit
            session.add(player)
    except IntegrityError as exc:
        if "uq_players_handle_lower" not in str(exc.orig):
            raise
        raise DomainError("handle-taken", f"handle '{handle}' is taken") from None
    return player


def find_player(session: Session, ref: str | int, *, lock: bool = False) -> Player:
    """A player by id (digits) or handle (any case); `lock` takes the row lock."""
    query = select(Player).execution_options(populate_existing=True)
    if isinstance(ref, int) or str(ref).isdigit():
        if not 0 < int(ref) <= 2**63 - 1:  # beyond BIGINT no player can have it
            raise NotFound("player-not-found", f"no player '{ref}'")
        query = query.where(Player.id == int(ref))
    else:
        query = query.where(func.lower(Player.handle) == str(ref).lstrip("@").lower())
    player = session.scalar(query.with_for_update() if lock else query)
    if player is None and not (isinstance(ref, int) or str(ref).isdigit()):
        player = _by_name(session, str(ref), lock)
    if player is None:
        raise NotFound("player-not-found", f"no player '{ref}'")
    return player


def _by_name(session: Session, name: str, lock: bool) -> Player | None:
    """The one player with that name (any case, spaces trimmed); several: the candidates listed."""
    query = (select(Player).where(func.lower(Player.name) == " ".join(name.split()).lower())
             .order_by(Player.id).limit(11).execution_options(populate_existing=True))
    found = list(session.scalars(query))
    if len(found) > 1:
        shown = ", ".join(f"@{p.handle} (id {p.id})" for p in found[:10])
        raise DomainError("player-ambiguous", f"several players are named '{name.strip()}': {shown}; "
                                              "name one by handle or id")
    if found and lock:
        return session.scalar(select(Player).where(Player.id == found[0].id).with_for_update()
                              .execution_options(populate_existing=True))
    return found[0] if found else None


def block_player(session: Session, ref: str | int, reason: str, now: datetime) -> Player:
    if not reason.strip():
        raise DomainError("block-reason-blank", "say why the player is blocked (rule 1.5.3)")
    player = find_player(session, ref, lock=True)
    player.blocked_at, player.blocked_reason = now, reason.strip()
    audit(session, "player-blocked", now, player_id=player.id)
    return player


def unblock_player(session: Session, ref: str | int, now: datetime) -> Player:
    player = find_player(session, ref, lock=True)
    player.blocked_at = player.blocked_reason = None
    audit(session, "player-unblocked", now, player_id=player.id)
    return player


def forget_player(session: Session, ref: str | int, now: datetime) -> Player:
    """1.6.1: erase name, handle and date of birth; results, knockouts and fee records stay under
    the player's stable pseudonym. Forgetting twice changes nothing."""
    player = find_player(session, ref, lock=True)
    if player.forgotten_at is None:
        player.name = player.handle = player.birth_date = None
        player.forgotten_at = now
        audit(session, "player-forgotten", now, player_id=player.id)
    return player


def player_view(player: Player) -> dict[str, Any]:
    return {
        "id": player.id,
        "name": player.display_name,
        "handle": player.handle,
        "birth_date": player.birth_date,
        "pseudonym": player.pseudonym,
        "blocked": player.blocked_at is not None,
        "blocked_reason": player.blocked_reason,
        "forgotten": player.forgotten_at is not None,
    }


# -- structures ------------------------------------------------------------------------------------


def _club(session: Session, club_id: int) -> Club:
    club = session.get(Club, club_id)
    if club is None:
        raise NotFound("club-not-found", f"no club {club_id}")
    return club


def import_structure(
    session: Session, club_id: int, name: str, ante_type: str, levels: list[LevelSpec], now: datetime
) -> Structure:
    """3.5: a club's level grid, immutable once stored (tournaments share it)."""
    _club(session, club_id)
    problems = ante_type_problems(ante_type) + level_problems(levels)
    if not name.strip():
        problems.insert(0, Problem("name-blank", "the structure needs a name"))
    raise_problems(problems)
    if session.scalar(select(Structure.id).where(Structure.club_id == club_id, Structure.name == name.strip())):
        raise DomainError("structure-exists", f"club {club_id} already has a structure named '{name.strip()}'")
    structure = Structure(club_id=club_id, name=name.strip(), ante_type=ante_type, created_at=now)
    session.add(structure)
    session.flush()
    session.add_all(
        Level(structure_id=structure.id, position=n, small_blind=lv.small_blind, big_blind=lv.big_blind,
              ante=lv.ante, duration_seconds=lv.duration_seconds, is_break=lv.is_break)
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
        raise NotFound("structure-not-found", f"no blind structure {structure_id}")
    return structure


def structure_view(session: Session, structure_id: int) -> dict[str, Any]:
    s = get_structure(session, structure_id)
    levels = structure_levels(session, structure_id)
    return {
        "id": s.id, "club_id": s.club_id, "name": s.name, "ante_type": s.ante_type,
        "total_minutes": int(total_duration(levels).total_seconds()) // 60,
        "levels": [
            {"level": n, "small_blind": lv.small_blind, "big_blind": lv.big_blind, "ante": lv.ante,
             "minutes": lv.duration_seconds // 60, "break": lv.is_break}
            for n, lv in enumerate(levels, start=1)
        ],
    }


# -- tournaments -----------------------------------------------------------------------------------


def settings_of(t: Tournament) -> TournamentSettings:
    return TournamentSettings(**{f: getattr(t, f) for f in SETTING_FIELDS})


def get_tournament(session: Session, tournament_id: int, *, lock: str | None = None) -> Tournament:
    """`lock` = 'update' (status changes, edits) or 'share' (registration, top-ups, settlement)."""
    query = select(Tournament).where(Tournament.id == tournament_id).execution_options(populate_existing=True)
    if lock:
        query = query.with_for_update(read=lock == "share")
    t = session.scalar(query)
    if t is None:
        raise NotFound("tournament-not-found", f"no tournament {tournament_id}")
    return t


def _structure_problems(session: Session, club_id: int, structure_id: int) -> list[Problem]:
    structure = session.get(Structure, structure_id)
    if structure is None:
        return [Problem("structure-not-found", f"no blind structure {structure_id}")]
    if structure.club_id != club_id:
        return [Problem("structure-other-club", f"blind structure {structure_id} belongs to another club (rule 3.5)")]
    return []


def create_tournament(
    session: Session, club_id: int, structure_id: int, settings: TournamentSettings, now: datetime
) -> Tournament:
    club = _club(session, club_id)
    problems = settings_problems(settings) + _structure_problems(session, club_id, structure_id)
    if club.listing_status != "listed":
        problems.insert(0, Problem("club-not-listed", f"club {club_id} is {club.listing_status}: it cannot list tournaments (rule 1.7.4)"))
    raise_problems(problems)
    t = Tournament(
        club_id=club_id, structure_id=structure_id, status=DRAFT, created_at=now,
        **{f: getattr(settings, f) for f in SETTING_FIELDS},
    )
    session.add(t)
    session.flush()
    audit(session, "tournament-created", now, tournament_id=t.id)
    return t


def edit_tournament(
    session: Session, tournament_id: int, changes: dict[str, Any], now: datetime, structure_id: int | None = None
) -> Tournament:
    """3.9: settings change only in draft and registration open; the result must validate whole."""
    t = get_tournament(session, tournament_id, lock="update")
    unknown = sorted(set(changes) - set(SETTING_FIELDS))
    if unknown:
        raise DomainError("setting-unknown", f"no such setting: {', '.join(unknown)}")
    new = replace(settings_of(t), **changes)
    problems = edit_problems(t.status)
    if not problems:
        problems = settings_problems(new)
        if structure_id is not None:
            problems += _structure_problems(session, t.club_id, structure_id)
    if not problems and ("scheduled_start" in changes or structure_id is not None):
        levels = structure_levels(session, structure_id if structure_id is not None else t.structure_id)
        problems = _moved_window_problems(session, t, rules.Window.scheduled(new.scheduled_start, total_duration(levels)))
    raise_problems(problems)
    for field in changes:
        setattr(t, field, getattr(new, field))
    if structure_id is not None:
        t.structure_id = structure_id
    audit(session, "tournament-edited", now, tournament_id=t.id, fields=sorted(changes) + (["structure_id"] if structure_id else []))
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
            select(func.count()).where(Registration.tournament_id == t.id, Registration.status == "active").scalar_subquery(),
            select(func.count()).where(Entry.tournament_id == t.id, Entry.state != "voided").scalar_subquery(),
        )
    ).one()
    return {
        "id": t.id, "club_id": t.club_id, "status": t.status, "structure_id": t.structure_id,
        **{f: getattr(t, f) for f in SETTING_FIELDS},
        "window_end": window.end, "registrations": counts[0], "entries": counts[1],
    }


def list_tournaments(session: Session, club_id: int | None = None, status: str | None = None) -> list[dict[str, Any]]:
    query = select(Tournament).order_by(Tournament.scheduled_start, Tournament.id)
    if club_id is not None:
        query = query.where(Tournament.club_id == club_id)
    if status is not None:
        query = query.where(Tournament.status == status)
    return [
        {"id": t.id, "club_id": t.club_id, "name": t.name, "status": t.status, "scheduled_start": t.scheduled_start,
         "format": t.format, "buy_in": t.buy_in, "currency": t.currency}
        for t in session.scalars(query)
    ]


# -- registration and check-in (3.10, SP-2) ---------------------------------------------------------


def _active_registration(session: Session, tournament_id: int, player_id: int) -> Registration | None:
    return session.scalar(
        select(Registration)
        .where(Registration.tournament_id == tournament_id, Registration.player_id == player_id,
               Registration.status == "active")
        .execution_options(populate_existing=True)
    )


def _held_windows(
    session: Session, player_ids: list[int], other_than: int
) -> list[tuple[int, int, str, rules.Window]]:
    """(player id, tournament id, name, window) of the players' other active registrations in
    tournaments neither finished nor cancelled."""
    d = _durations()
    rows = session.execute(
        select(Registration.player_id, Tournament.id, Tournament.name, Tournament.scheduled_start,
               func.coalesce(d.c.seconds, 0))
        .join(Registration, Registration.tournament_id == Tournament.id)
        .outerjoin(d, d.c.structure_id == Tournament.structure_id)
        .where(Registration.player_id.in_(player_ids), Registration.status == "active",
               Tournament.id != other_than, Tournament.status.not_in((FINISHED, CANCELLED)))
        .order_by(Registration.player_id, Tournament.scheduled_start)
    )
    return [(pid, tid, name, rules.Window.scheduled(start, timedelta(seconds=int(sec))))
            for pid, tid, name, start, sec in rows]


def _moved_window_problems(session: Session, t: Tournament, window: rules.Window) -> list[Problem]:
    """SP-2 on an edit: a new start or structure must not make a registrant's window overlap. The
    registrants' rows are locked (in id order, after the tournament's, the order every registration
    takes), so a registrant's concurrent sign-up elsewhere is either seen here or sees the new window."""
    registrants = list(session.scalars(
        select(Player.id)
        .join(Registration, Registration.player_id == Player.id)
        .where(Registration.tournament_id == t.id, Registration.status == "active")
        .order_by(Player.id)
        .with_for_update(of=Player)
    ))
    return [
        Problem("edit-creates-overlap",
                f"player {pid} is also registered in tournament {tid} '{name}', which the new window "
                f"{window.start.isoformat()} to {window.end.isoformat()} would overlap (SP-2)")
        for pid, tid, name, other in _held_windows(session, registrants, t.id)
        if window.overlaps(other)
    ]


def _locked(session: Session, tournament_id: int, player_ref: str | int) -> tuple[Tournament, Player]:
    """Every write about a player in a tournament locks the tournament's row (shared), then the
    player's: the order an edit takes (the tournament, then its registrants), so the two never
    deadlock, and two writes about one player are serialised."""
    return get_tournament(session, tournament_id, lock="share"), find_player(session, player_ref, lock=True)


def register(session: Session, tournament_id: int, player_ref: str | int, now: datetime) -> Registration:
    """3.10 sign-up (late registration while running, before its deadline); SP-2 parallel check."""
    t, player = _locked(session, tournament_id, player_ref)
    problems = eligibility_problems(player.birth_date, player.blocked_at is not None, player.forgotten_at is not None, now.date())
    problems += rules.registration_problems(t.status, t.late_reg_deadline, now)
    if not problems and _active_registration(session, t.id, player.id) is not None:
        problems.append(Problem("already-registered", f"the player is already registered in tournament {t.id}"))
    if not problems:
        held = [(tid, name, window) for _, tid, name, window in _held_windows(session, [player.id], t.id)]
        problems += rules.parallel_problems(tournament_window(session, t), held)
    raise_problems(problems)
    reg = Registration(tournament_id=t.id, player_id=player.id, status="active", late=t.status == RUNNING, registered_at=now)
    session.add(reg)
    session.flush()
    audit(session, "registered", now, tournament_id=t.id, player_id=player.id, registration_id=reg.id, late=reg.late)
    return reg


def unregister(session: Session, tournament_id: int, player_ref: str | int, now: datetime) -> Registration:
    """A player withdraws before check-in (after check-in the buy-in is owed and the entry stands)."""
    t, player = _locked(session, tournament_id, player_ref)
    reg = _active_registration(session, t.id, player.id)
    if reg is None:
        raise DomainError("not-registered", f"the player is not registered in tournament {t.id}")
    if reg.checked_in_at is not None:
        raise DomainError("unregister-after-check-in", "the player has checked in: the entry and its buy-in stand (rule 3.4)")
    if t.status in (FINISHED, CANCELLED):
        raise DomainError("registration-closed", f"the tournament is {t.status}")
    reg.status, reg.ended_at = "withdrawn", now
    audit(session, "unregistered", now, tournament_id=t.id, player_id=player.id, registration_id=reg.id)
    session.flush()
    return reg


def _charge(session: Session, t: Tournament, entry: Entry, kind: str, amount: int, now: datetime,
            topup_id: int | None = None) -> None:
    """SP-1: record the fee as a debt (post-payment, 3.4); a zero price owes nothing."""
    if amount > 0:
        fee = Fee(tournament_id=t.id, player_id=entry.player_id, entry_id=entry.id, topup_id=topup_id, kind=kind,
                  amount=amount, currency=t.currency, created_at=now)
        session.add(fee)
        session.flush()
        audit(session, "fee-charged", now, tournament_id=t.id, player_id=entry.player_id, fee_id=fee.id, kind=kind,
              amount=amount, currency=t.currency, entry_id=entry.id)


def _open_entry(session: Session, t: Tournament, reg: Registration, now: datetime, previous: Entry | None) -> Entry:
    entry = Entry(
        tournament_id=t.id, player_id=reg.player_id, registration_id=reg.id,
        sequence=1 if previous is None else previous.sequence + 1,
        previous_entry_id=None if previous is None else previous.id,
        state="active", starting_chips=t.starting_stack, created_at=now,
    )
    session.add(entry)
    session.flush()
    audit(session, "entry-opened", now, tournament_id=t.id, player_id=reg.player_id, entry_id=entry.id,
          sequence=entry.sequence, chips=entry.starting_chips)
    return entry


def check_in(session: Session, tournament_id: int, player_ref: str | int, now: datetime) -> Entry:
    """3.10/3.4: marked in at the counter without payment; the first entry opens with the starting
    stack and the buy-in is recorded as a debt. Returns the entry for the seating area to seat in
    the same transaction."""
    t, player = _locked(session, tournament_id, player_ref)
    reg = _active_registration(session, t.id, player.id)
    if reg is None:
        raise DomainError("not-registered", f"the player is not registered in tournament {t.id} (rule 3.10)")
    if reg.checked_in_at is not None:
        raise DomainError("already-checked-in", f"the player already checked in to tournament {t.id}")
    problems = eligibility_problems(player.birth_date, player.blocked_at is not None, player.forgotten_at is not None, now.date())
    raise_problems(problems + rules.registration_problems(t.status, t.late_reg_deadline, now))
    reg.checked_in_at = now
    entry = _open_entry(session, t, reg, now, previous=None)
    _charge(session, t, entry, "buy_in", t.buy_in, now)
    return entry


def _entries(session: Session, tournament_id: int, player_id: int) -> list[Entry]:
    return list(session.scalars(
        select(Entry).where(Entry.tournament_id == tournament_id, Entry.player_id == player_id)
        .order_by(Entry.sequence).execution_options(populate_existing=True)
    ))


def _topup(session: Session, t: Tournament, entry: Entry, kind: str, now: datetime) -> TopUp:
    s = settings_of(t)
    top = TopUp(tournament_id=t.id, player_id=entry.player_id, entry_id=entry.id, kind=kind,
                chips=rules.topup_chips(kind, s), created_at=now)
    session.add(top)
    session.flush()
    audit(session, "topup", now, tournament_id=t.id, player_id=entry.player_id, topup_id=top.id, kind=kind,
          entry_id=entry.id, chips=top.chips)
    _charge(session, t, entry, kind, rules.topup_price(kind, s) or 0, now, topup_id=top.id)
    return top


def rebuy(
    session: Session, tournament_id: int, player_ref: str | int, now: datetime, level: int | None = None
) -> TopUp:
    """3.1 rebuy: the starting stack into the current entry, at the rebuy amount. `level` is the
    clock's level at `now` (None: not started), for the `rebuy_until_level` window (SP-12); the
    `rebuy_limit` counts the player's rebuys over all their entries."""
    t, player = _locked(session, tournament_id, player_ref)
    active = [e for e in _entries(session, t.id, player.id) if e.state == "active"]
    taken = session.scalar(
        select(func.count()).where(TopUp.tournament_id == t.id, TopUp.player_id == player.id, TopUp.kind == rules.REBUY)
    )
    raise_problems(rules.rebuy_problems(t.status, settings_of(t), bool(active), now=now, level=level, rebuys_taken=taken))
    return _topup(session, t, active[0], rules.REBUY, now)


def reenter(session: Session, tournament_id: int, player_ref: str | int, now: datetime) -> Entry:
    """3.1 re-entry: after a bust, a new entry linked to the busted one, at the re-entry price.
    Returns the new entry for the seating area to seat in the same transaction."""
    t, player = _locked(session, tournament_id, player_ref)
    entries = _entries(session, t.id, player.id)
    latest = entries[-1] if entries else None
    reentries = max(len([e for e in entries if e.state != "voided"]) - 1, 0)  # SP-12: entries after the first
    raise_problems(rules.reentry_problems(
        t.status, settings_of(t), latest.state if latest else None, now, reentries_taken=reentries
    ))
    reg = session.get(Registration, latest.registration_id)
    entry = _open_entry(session, t, reg, now, previous=latest)
    _topup(session, t, entry, rules.REENTRY, now)
    return entry


def add_on(session: Session, tournament_id: int, player_ref: str | int, now: datetime, breaks_reached: int = 0) -> TopUp:
    """3.1 add-on into the current entry. `breaks_reached` is the clock's count of breaks passed at
    `now` (the clock lives in services/clock.py), for the "at the N-th break" gate."""
    t, player = _locked(session, tournament_id, player_ref)
    active = [e for e in _entries(session, t.id, player.id) if e.state == "active"]
    taken = session.scalar(
        select(func.count()).where(TopUp.tournament_id == t.id, TopUp.player_id == player.id, TopUp.kind == rules.ADDON)
    )
    raise_problems(rules.addon_problems(t.status, settings_of(t), bool(active), taken, breaks_reached, now))
    return _topup(session, t, active[0], rules.ADDON, now)


# -- fees and settlement (3.4) ----------------------------------------------------------------------

_SETTLE = text(
    """
    WITH owed AS (
        SELECT player_id, sum(amount) AS amount FROM poker_fees
        WHERE tournament_id = :t AND settlement_id IS NULL AND (CAST(:p AS bigint) IS NULL OR player_id = :p)
        GROUP BY player_id
    ), made AS (
        INSERT INTO poker_settlements (tournament_id, player_id, amount, currency, method, settled_by, settled_at)
        SELECT :t, player_id, amount, :currency, :method, :by, CAST(:now AS timestamptz) FROM owed
        RETURNING id, player_id, amount
    ), paid AS (
        UPDATE poker_fees f SET settlement_id = made.id FROM made
        WHERE f.tournament_id = :t AND f.settlement_id IS NULL AND f.player_id = made.player_id
        RETURNING f.id
    ), logged AS (
        INSERT INTO poker_audit (tournament_id, player_id, kind, actor, at, data)
        SELECT :t, player_id, 'settled', :by, CAST(:now AS timestamptz),
               jsonb_build_object('settlement_id', id, 'amount', amount, 'currency', CAST(:currency AS text),
                                  'method', CAST(:method AS text))
        FROM made
    )
    SELECT id, player_id, amount FROM made ORDER BY player_id
    """
)

_LOCK_DEBTORS = text(
    """
    SELECT id FROM players WHERE id IN (
        SELECT player_id FROM poker_fees WHERE tournament_id = :t AND settlement_id IS NULL
    ) ORDER BY id FOR UPDATE
    """
)


def _settle(session: Session, t: Tournament, method: str, settled_by: str, now: datetime,
            player_id: int | None) -> list[tuple[int, int, int]]:
    params = {"t": t.id, "p": player_id, "currency": t.currency, "method": method, "by": settled_by.strip(), "now": now}
    return [tuple(row) for row in session.execute(_SETTLE, params)]


def settle(session: Session, tournament_id: int, player_ref: str | int, method: str, settled_by: str,
           now: datetime) -> Settlement | None:
    """3.4: close all of the player's unpaid fees in the tournament at once with one settlement
    record; nothing owed = nothing written (None)."""
    t, player = _locked(session, tournament_id, player_ref)
    raise_problems(rules.settlement_problems(t.status, method, settled_by))
    made = _settle(session, t, method, settled_by, now, player.id)
    return session.get(Settlement, made[0][0]) if made else None


def settle_all(session: Session, tournament_id: int, method: str, settled_by: str, now: datetime) -> list[tuple[int, int, int]]:
    """3.4 for every debtor of the tournament at once: (settlement id, player id, amount) each.
    Three statements whatever the number of players."""
    t = get_tournament(session, tournament_id, lock="share")
    raise_problems(rules.settlement_problems(t.status, method, settled_by))
    session.execute(_LOCK_DEBTORS, {"t": t.id})
    return _settle(session, t, method, settled_by, now, None)


def get_settlement(session: Session, settlement_id: int, tournament_id: int | None = None) -> Settlement:
    """A settlement; with `tournament_id`, only one of that tournament's (another's is not found)."""
    s = session.get(Settlement, settlement_id)
    if s is None or (tournament_id is not None and s.tournament_id != tournament_id):
        where = f" in tournament {tournament_id}" if tournament_id is not None else ""
        raise NotFound("settlement-not-found", f"no settlement {settlement_id}{where}")
    return s


def void_settlement(session: Session, settlement_id: int, voided_by: str, reason: str, now: datetime,
                    tournament_id: int | None = None) -> Settlement:
    """3.4: the record stays, marked voided; its fees are owed again. With `tournament_id`, only a
    settlement of that tournament (the floor names both)."""
    s = get_settlement(session, settlement_id, tournament_id)
    find_player(session, s.player_id, lock=True)
    session.refresh(s)
    t = get_tournament(session, s.tournament_id, lock="share")
    problems = [p for p in rules.settlement_problems(t.status, s.method, voided_by)]
    if not reason.strip():
        problems.append(Problem("void-reason-blank", "say why the settlement is voided"))
    if s.voided_at is not None:
        problems.append(Problem("settlement-already-voided", f"settlement {s.id} was already voided"))
    raise_problems(problems)
    s.voided_at, s.voided_by, s.void_reason = now, voided_by.strip(), reason.strip()
    session.execute(text("UPDATE poker_fees SET settlement_id = NULL WHERE settlement_id = :s"), {"s": s.id})
    audit(session, "settlement-voided", now, tournament_id=t.id, player_id=s.player_id, actor=voided_by.strip(),
          settlement_id=s.id, amount=s.amount, currency=s.currency)
    session.flush()
    return s


def debts(session: Session, tournament_id: int) -> list[dict[str, Any]]:
    """Every player owing fees in the tournament, with the total and the fees it is made of."""
    t = get_tournament(session, tournament_id)
    rows = session.execute(
        select(Player.id, func.coalesce(Player.name, Player.pseudonym), func.sum(Fee.amount), func.count(),
               func.array_agg(aggregate_order_by(Fee.kind, Fee.id)))
        .join(Fee, Fee.player_id == Player.id)
        .where(Fee.tournament_id == t.id, Fee.settlement_id.is_(None))
        .group_by(Player.id).order_by(Player.id)
    )
    return [
        {"player_id": pid, "player": name, "owed": int(owed), "currency": t.currency, "fees": n, "kinds": list(kinds)}
        for pid, name, owed, n, kinds in rows
    ]


def players_in(session: Session, tournament_id: int) -> int:
    """Players with an active entry (still in the tournament)."""
    return session.scalar(
        select(func.count(func.distinct(Entry.player_id)))
        .where(Entry.tournament_id == tournament_id, Entry.state == "active")
    ) or 0


def settlement_view(s: Settlement) -> dict[str, Any]:
    return {
        "id": s.id, "tournament_id": s.tournament_id, "player_id": s.player_id, "amount": s.amount,
        "currency": s.currency, "method": s.method, "settled_by": s.settled_by, "settled_at": s.settled_at,
        "voided_at": s.voided_at, "voided_by": s.voided_by, "void_reason": s.void_reason,
    }


def entry_view(e: Entry) -> dict[str, Any]:
    return {"entry_id": e.id, "tournament_id": e.tournament_id, "player_id": e.player_id, "sequence": e.sequence,
            "previous_entry_id": e.previous_entry_id, "state": e.state, "chips": e.starting_chips}


def topup_view(top: TopUp) -> dict[str, Any]:
    return {"topup_id": top.id, "tournament_id": top.tournament_id, "player_id": top.player_id,
            "entry_id": top.entry_id, "kind": top.kind, "chips": top.chips}

