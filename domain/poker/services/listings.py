"""Read-only listings for the floor and the counter: a tournament's entries, knockouts and
settlements, the blind structures, players found by name or handle, entries' names, the club a
command's output is written for. One query each; no writes."""

from __future__ import annotations

from collections.abc import Callable
from functools import cache
from typing import Any

from sqlalchemy import BigInteger, ColumnElement, ScalarSelect, bindparam, cast, func, literal, or_, select
from sqlalchemy.dialects.postgresql import aggregate_order_by
from sqlalchemy.orm import Session, aliased

from domain.clubs.tables import Club
from domain.errors import NotFound
from domain.poker.services.tournaments import get_tournament
from domain.poker.tables.clock_seating import Seat
from domain.poker.tables.knockouts_places import Knockout, KnockoutAudit
from domain.poker.tables.tournaments import (
    Entry,
    Fee,
    Level,
    Player,
    Registration,
    Settlement,
    Structure,
    Tournament,
)

SEARCH_LIMIT = 50


def _name():
    return func.coalesce(Player.name, Player.pseudonym)


@cache
def _entries(one: bool):
    """`entries`' statement, built once (the desk state runs it at every redraw): of the tournament `t`,
    and of its registration `r` when `one`."""
    latest = (
        select(Entry.registration_id, func.max(Entry.sequence).label("sequence"))
        .where(Entry.tournament_id == bindparam("t"))
        .group_by(Entry.registration_id)
        .subquery()
    )
    current = aliased(Entry)
    owed = (
        select(Fee.player_id, func.sum(Fee.amount).label("owed"))
        .where(Fee.tournament_id == bindparam("t"), Fee.settlement_id.is_(None))
        .group_by(Fee.player_id)
        .subquery()
    )
    return (
        select(  # columns, not the Registration entity: the desk's field is hundreds of rows at every redraw
            Registration.status,
            Registration.late,
            Registration.registered_at,
            Registration.checked_in_at,
            Player.id,
            _name(),
            Player.handle,
            current.id,
            current.state,
            latest.c.sequence,
            Seat.table_no,
            Seat.seat_no,
            func.coalesce(owed.c.owed, 0),
        )
        .join(Player, Player.id == Registration.player_id)
        .outerjoin(latest, latest.c.registration_id == Registration.id)
        .outerjoin(current, (current.registration_id == Registration.id) & (current.sequence == latest.c.sequence))
        .outerjoin(Seat, Seat.entry_id == current.id)
        .outerjoin(owed, owed.c.player_id == Player.id)
        .where(Registration.tournament_id == bindparam("t"), *((Registration.id == bindparam("r"),) if one else ()))
        .order_by(Registration.registered_at, Registration.id)
    )


def entries(session: Session, tournament_id: int, registration_id: int | None = None) -> list[dict[str, Any]]:
    """Every registration of the tournament (or the one `registration_id`): checked in or not, its
    current entry's seat and state, its re-entries and what the player owes."""
    t = get_tournament(session, tournament_id)
    one = registration_id is not None
    rows = session.execute(_entries(one), {"t": t.id} | ({"r": registration_id} if one else {}))
    return [
        {
            "player_id": pid,
            "player": name,
            "handle": handle,
            "registration": status,
            "late": late,
            "registered_at": registered_at,
            "checked_in_at": checked_in_at,
            "entry_id": entry_id,
            "state": state,
            "reentries": max((sequence or 1) - 1, 0),
            "seat": f"{table}/{seat}" if table is not None else None,
            "owed": int(debt),
            "currency": t.currency,
        }
        for status, late, registered_at, checked_in_at, pid, name, handle, entry_id, state, sequence, table, seat, debt in rows
    ]


def killers_named(name: Callable[[Any], ColumnElement[str]], audit: Any = KnockoutAudit) -> ScalarSelect:
    """Every killer of a knockout by `name` (of a Player alias), in the order named, as one array: a
    correlated subquery of the enclosing statement's `Knockout` and its `recorded` audit row (`audit`,
    outer-joined there). The audit row names them all (`killers`, written under SP-9 and SP-10: the
    third and later killers are nowhere else); without it, the primary killer and the second killer
    of 3.2's shared bust. None for a bust with no killer."""
    named = func.coalesce(
        audit.data["killers"], func.jsonb_build_array(Knockout.killer_entry_id, audit.second_killer_entry_id)
    )
    ids = (
        func.jsonb_array_elements_text(named)
        .table_valued("value", with_ordinality="ord")
        .render_derived("named_killer")
    )
    entry, player = aliased(Entry), aliased(Player)
    return (
        select(func.array_agg(aggregate_order_by(name(player), ids.c.ord)))
        .select_from(
            ids.join(entry, entry.id == cast(ids.c.value, BigInteger)).join(player, player.id == entry.player_id)
        )
        .scalar_subquery()
    )


@cache
def _knockouts():
    """`knockouts`' statement, built once: of the tournament `t`, with the second killer of a shared
    bust (3.2: kept on the knockout's `recorded` audit row, SP-10 or not)."""
    busted, killer, second = aliased(Entry), aliased(Entry), aliased(Entry)
    busted_player, killer_player, second_player = aliased(Player), aliased(Player), aliased(Player)
    return (
        select(
            Knockout,
            func.coalesce(busted_player.name, busted_player.pseudonym),
            func.coalesce(killer_player.name, killer_player.pseudonym),
            KnockoutAudit.second_killer_entry_id,
            func.coalesce(second_player.name, second_player.pseudonym),
            killers_named(lambda p: func.coalesce(p.name, p.pseudonym)),
        )
        .join(busted, busted.id == Knockout.busted_entry_id)
        .join(busted_player, busted_player.id == busted.player_id)
        .outerjoin(killer, killer.id == Knockout.killer_entry_id)
        .outerjoin(killer_player, killer_player.id == killer.player_id)
        .outerjoin(KnockoutAudit, (KnockoutAudit.knockout_id == Knockout.id) & (KnockoutAudit.kind == "recorded"))
        .outerjoin(second, second.id == KnockoutAudit.second_killer_entry_id)
        .outerjoin(second_player, second_player.id == second.player_id)
        .where(Knockout.tournament_id == bindparam("t"))
        .order_by(Knockout.bust_number, Knockout.id)
    )


def knockouts(session: Session, tournament_id: int) -> list[dict[str, Any]]:
    """Every knockout of the tournament in bust order, with who busted whom: the killer, and the second
    killer of a shared bust."""
    t = get_tournament(session, tournament_id)
    rows = session.execute(_knockouts(), {"t": t.id})
    return [
        {
            "id": k.id,
            "bust_number": k.bust_number,
            "busted": bname,
            "busted_entry_id": k.busted_entry_id,
            "killer": kname,
            "killer_entry_id": k.killer_entry_id,
            "second_killer": sname,
            "killers": list(killers or ()),  # every killer named, in order (3.2, SP-10)
            "second_killer_entry_id": second_id,
            "level": k.level,
            "group": k.bust_group,
            "recorded_at": k.recorded_at,
            "recorded_by": k.recorded_by,
            "voided": k.voided_at is not None,
        }
        for k, bname, kname, second_id, sname, killers in rows
    ]


def settlements(session: Session, tournament_id: int) -> list[dict[str, Any]]:
    """Every settlement of the tournament, voided ones too, oldest first."""
    t = get_tournament(session, tournament_id)
    rows = session.execute(
        select(Settlement, _name())
        .join(Player, Player.id == Settlement.player_id)
        .where(Settlement.tournament_id == t.id)
        .order_by(Settlement.settled_at, Settlement.id)
    )
    return [
        {
            "id": s.id,
            "player_id": s.player_id,
            "player": name,
            "amount": s.amount,
            "currency": s.currency,
            "method": s.method,
            "settled_by": s.settled_by,
            "settled_at": s.settled_at,
            "voided": s.voided_at is not None,
            "voided_by": s.voided_by,
            "void_reason": s.void_reason,
        }
        for s, name in rows
    ]


def structures(session: Session, club_id: int | None = None) -> list[dict[str, Any]]:
    """Every blind structure (of one club), with its levels and minutes."""
    query = (
        select(Structure, func.count(Level.id), func.coalesce(func.sum(Level.duration_seconds), 0))
        .outerjoin(Level, Level.structure_id == Structure.id)
        .group_by(Structure.id)
        .order_by(Structure.club_id, Structure.name)
    )
    if club_id is not None:
        query = query.where(Structure.club_id == club_id)
    return [
        {
            "id": s.id,
            "club_id": s.club_id,
            "name": s.name,
            "ante_type": s.ante_type,
            "levels": n,
            "total_minutes": int(seconds) // 60,
        }
        for s, n, seconds in session.execute(query)
    ]


def search_players(session: Session, text: str, limit: int = SEARCH_LIMIT) -> list[dict[str, Any]]:
    """Players whose name or handle contains the text (any case), best first: exact handle, then
    handle prefix, then the rest by name. Forgotten players are found by pseudonym only."""
    needle = text.strip().lstrip("@").lower()
    pattern = "%" + needle.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_") + "%"
    rank = (
        (func.lower(Player.handle) == needle).desc(),
        func.lower(Player.handle).startswith(needle, autoescape=True).desc(),
    )
    rows = session.scalars(
        select(Player)
        .where(
            or_(
                func.lower(Player.handle).like(pattern, escape="\\"),
                func.lower(Player.name).like(pattern, escape="\\"),
                func.lower(Player.pseudonym) == needle,
            )
        )
        .order_by(*rank, _name(), Player.id)
        .limit(limit)
    )
    return [
        {
            "id": p.id,
            "name": p.display_name,
            "handle": p.handle,
            "blocked": p.blocked_at is not None,
            "forgotten": p.forgotten_at is not None,
        }
        for p in rows
    ]


def entry_names(session: Session, entry_ids) -> dict[int, str]:
    """The player's name (or pseudonym, once forgotten) of each entry named; None ids are skipped."""
    wanted = [i for i in entry_ids if i is not None]
    if not wanted:
        return {}
    return dict(
        session.execute(
            select(Entry.id, _name()).join(Player, Player.id == Entry.player_id).where(Entry.id.in_(wanted))
        ).all()
    )


def player_names(session: Session, player_ids) -> dict[int, str]:
    """The name (or pseudonym, once forgotten) of each player named; None ids are skipped."""
    wanted = [i for i in player_ids if i is not None]
    if not wanted:
        return {}
    return dict(session.execute(select(Player.id, _name()).where(Player.id.in_(wanted))).all())


def owed_by(session: Session, tournament_id: int, player_id: int) -> dict[str, Any]:
    """What a write at the desk or the command line says beside its ids: the player's name (or
    pseudonym, once forgotten) and what they owe in the tournament now (minor units, SP-1)."""
    name = session.scalar(select(_name()).where(Player.id == player_id))
    owed = session.scalar(
        select(func.coalesce(func.sum(Fee.amount), 0)).where(
            Fee.tournament_id == tournament_id, Fee.player_id == player_id, Fee.settlement_id.is_(None)
        )
    )
    return {"player": name, "owed": int(owed)}


def knockout_of(session: Session, tournament_id: int, knockout_id: int) -> Knockout:
    """The knockout, only if it is the tournament's (the floor names both)."""
    k = session.get(Knockout, knockout_id)
    if k is None or k.tournament_id != tournament_id:
        raise NotFound(
            "knockout-not-found",
            "no knockout %(knockout_id)s in tournament %(tournament_id)s",
            knockout_id=knockout_id,
            tournament_id=tournament_id,
        )
    return k


def club_of(session: Session, tournament_id: int | None = None, club_id: int | None = None):
    """(club id, timezone, currency) of the tournament's club, else of the club (currency None); None
    when it is not there."""
    if tournament_id is not None:
        query = (
            select(Club.id, Club.timezone, Tournament.currency)
            .join(Tournament, Tournament.club_id == Club.id)
            .where(Tournament.id == tournament_id)
        )
    else:
        query = select(Club.id, Club.timezone, literal(None).label("currency")).where(Club.id == club_id)
    return session.execute(query).one_or_none()
