"""Seating services (3.6): the initial draw, late entries and re-entries, moves and undo, table
breaking, suggestions and the final table. Every change of a tournament's seating first takes a
transaction-scoped advisory lock on the tournament, so concurrent changes queue; the unique
constraints on seats back it. Every draw by lot takes the tournament's committed platform seed and
the floor's optional seed, and records itself for `draw-proof` (SP-13, `draws`)."""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime

from sqlalchemy import delete, func, select, update
from sqlalchemy.orm import Session

from domain.errors import DomainError, Word
from domain.poker.rules import seating as pure
from domain.poker.rules.seating import Move, Seat, Seating
from domain.poker.services import draws
from domain.poker.services.tournaments import get_tournament
from domain.poker.tables.clock_seating import Move as MoveRow
from domain.poker.tables.clock_seating import Seat as SeatRow
from domain.poker.tables.clock_seating import Table as TableRow
from domain.poker.tables.tournaments import Entry, Player

SEATING_LOCK = 7411400


def lock(session: Session, tournament_id: int) -> None:
    session.execute(select(func.pg_advisory_xact_lock(SEATING_LOCK, tournament_id)))


def load(session: Session, tournament_id: int, seat_cap: int) -> Seating:
    """The tables and their seats in one statement, so a reader without the lock (the desk state) sees
    them as one moment: never a seat at a table opened or broken after its tables were read."""
    rows = session.execute(
        select(TableRow.table_no, TableRow.broken_at, SeatRow.seat_no, SeatRow.entry_id)
        .outerjoin(SeatRow, (SeatRow.tournament_id == TableRow.tournament_id) & (SeatRow.table_no == TableRow.table_no))
        .where(TableRow.tournament_id == tournament_id)
    ).all()
    broken = {r.table_no: r.broken_at is not None for r in rows}
    return Seating(
        seat_cap,
        tuple(sorted(n for n, out in broken.items() if not out)),
        frozenset(n for n, out in broken.items() if out),
    ).with_seats(Seat(r.table_no, r.seat_no, r.entry_id) for r in rows if r.entry_id is not None)


def save(session: Session, tournament_id: int, before: Seating, after: Seating, now: datetime) -> None:
    """Write the difference: tables opened and broken, seats left and taken."""
    for table in sorted(set(after.tables) - set(before.tables)):
        session.add(TableRow(tournament_id=tournament_id, table_no=table, opened_at=now))
    session.flush()
    newly_broken = after.broken - before.broken
    if newly_broken:
        session.execute(
            update(TableRow)
            .where(TableRow.tournament_id == tournament_id, TableRow.table_no.in_(newly_broken))
            .values(broken_at=now)
        )
    old = set(before.seats)
    new = set(after.seats)
    leaving = {s.entry for s in old - new}
    if leaving:
        session.execute(delete(SeatRow).where(SeatRow.entry_id.in_(leaving)))
    taken = [
        {
            "entry_id": s.entry,
            "tournament_id": tournament_id,
            "table_no": s.table,
            "seat_no": s.seat,
            "seated_at": now,
        }
        for s in sorted(new - old)
    ]
    if taken:
        session.execute(SeatRow.__table__.insert(), taken)


def _record_moves(
    session: Session, tournament_id: int, kind: str, moves: Iterable[Move], now: datetime, actor: str | None
) -> None:
    rows = [
        {
            "tournament_id": tournament_id,
            "entry_id": m.entry,
            "kind": kind,
            "from_table": m.from_table,
            "from_seat": m.from_seat,
            "to_table": m.to_table,
            "to_seat": m.to_seat,
            "at": now,
            "actor": actor,
        }
        for m in moves
    ]
    if rows:
        session.execute(MoveRow.__table__.insert(), rows)


def _begin(session: Session, tournament_id: int) -> Seating:
    """The tournament's seating, under its lock."""
    t = get_tournament(session, tournament_id)
    lock(session, t.id)
    return load(session, t.id, t.seat_cap)


def draw_initial(session: Session, tournament_id: int, now: datetime, seed: str | None = None) -> dict:
    """3.6, SP-13: the initial seating of every active entry, by lot; `seed` is the floor's (the
    platform's is the tournament's pending one)."""
    t = get_tournament(session, tournament_id)
    if t.status not in ("registration_open", "running"):
        raise DomainError(
            "seating-not-open",
            "tournament %(tournament_id)s is %(status)s: seats are drawn once registration is open",
            tournament_id=t.id,
            status=Word(t.status.replace("_", " ")),
        )
    before = _begin(session, t.id)
    if before.tables or before.broken:
        raise DomainError(
            "seating-already-drawn", "the seats of tournament %(tournament_id)s are already drawn", tournament_id=t.id
        )
    entries = (
        session.execute(select(Entry.id).where(Entry.tournament_id == t.id, Entry.state == "active").order_by(Entry.id))
        .scalars()
        .all()
    )
    after, drawn = draws.run(
        session,
        t.id,
        "initial-seating",
        {"seat_cap": before.seat_cap, "entries": list(entries)},
        seed,
        now,
        lambda s: pure.initial_seating(entries, before.seat_cap, s),
    )
    save(session, t.id, before, after, now)
    return show(session, t.id) | {"draw": drawn}


def _seat_one(
    session: Session, tournament_id: int, seating: Seating, entry_id: int, now: datetime
) -> tuple[Seating, Seat, bool, dict | None]:
    """One new entry by the late-seating rule; a tie between the emptiest tables is a draw by lot of
    the tournament's chain (SP-13), recorded with the seating before and the entry."""
    if len(pure.late_seating_tie(seating)) < 2:
        return (*pure.seat_new_entry(seating, entry_id), None)
    (after, seat, opened), drawn = draws.run(
        session,
        tournament_id,
        "late-seating",
        pure.snapshot(seating) | {"entry": entry_id},
        None,
        now,
        lambda s: pure.seat_new_entry(seating, entry_id, s),
    )
    return after, seat, opened, drawn


def seat_new_entry(session: Session, entry_id: int, now: datetime) -> dict:
    """3.6: seat a late entry or re-entry at the table with the fewest players (ties by lot, SP-13),
    or open a table. Call it in the transaction that creates the entry (the database refuses to
    commit an active entry of a running, seated tournament without a seat)."""
    entry = session.get(Entry, entry_id)
    if entry is None:
        raise DomainError("seating-no-such-entry", "there is no entry %(entry_id)s", entry_id=entry_id)
    return _seat_entry(session, entry, _begin(session, entry.tournament_id), now)


def _seat_entry(session: Session, entry: Entry, before: Seating, now: datetime) -> dict:
    """`seat_new_entry` with the tournament's seating loaded under its lock (`_begin`)."""
    after, seat, opened, drawn = _seat_one(session, entry.tournament_id, before, entry.id, now)
    save(session, entry.tournament_id, before, after, now)
    shown = {"entry_id": entry.id, "table": seat.table, "seat": seat.seat, "opened_table": opened}
    return shown | {"draw": drawn} if drawn else shown


def seat_new_entries(session: Session, tournament_id: int, entry_ids: Iterable[int], now: datetime) -> list[Seat]:
    """Several new entries of one tournament, one after another by the same rule."""
    before = _begin(session, tournament_id)
    after, seats = before, []
    for entry_id in entry_ids:
        after, seat, _, _ = _seat_one(session, tournament_id, after, entry_id, now)
        seats.append(seat)
    save(session, tournament_id, before, after, now)
    return seats


def move(
    session: Session,
    tournament_id: int,
    entry_id: int,
    table: int,
    seat: int,
    now: datetime,
    actor: str | None = None,
) -> dict:
    before = _begin(session, tournament_id)
    after, done = pure.move(before, entry_id, table, seat)
    save(session, tournament_id, before, after, now)
    _record_moves(session, tournament_id, "move", [done], now, actor)
    return _move_dict(done)


def undo(session: Session, tournament_id: int, now: datetime, actor: str | None = None) -> dict:
    """Undo the last move, if nothing has changed the seating since (a break or final table)."""
    before = _begin(session, tournament_id)
    last = session.execute(
        select(MoveRow)
        .where(MoveRow.tournament_id == tournament_id, MoveRow.kind != "undo", MoveRow.undone_at.is_(None))
        .order_by(MoveRow.id.desc())
        .limit(1)
    ).scalar_one_or_none()
    if last is None or last.kind != "move":
        raise DomainError("seating-nothing-to-undo", "there is no move to undo since the last table change")
    recorded = Move(last.entry_id, last.from_table, last.from_seat, last.to_table, last.to_seat)
    after, reverse = pure.undo(before, recorded)
    save(session, tournament_id, before, after, now)
    last.undone_at = now
    _record_moves(session, tournament_id, "undo", [reverse], now, actor)
    return _move_dict(reverse)


def break_table(
    session: Session,
    tournament_id: int,
    table: int,
    now: datetime,
    seed: str | None = None,
    actor: str | None = None,
) -> dict:
    """3.6, SP-13: break a table, its players to free seats of the others by lot (`seed`: the floor's)."""
    before = _begin(session, tournament_id)
    (after, moves), drawn = draws.run(
        session,
        tournament_id,
        f"break-table-{table}",
        pure.snapshot(before),
        seed,
        now,
        lambda s: pure.break_table(before, table, s),
    )
    save(session, tournament_id, before, after, now)
    _record_moves(session, tournament_id, "break-table", moves, now, actor)
    return {"table": table, "draw": drawn, "moves": [_move_dict(m) for m in moves]}


def suggest(session: Session, tournament_id: int) -> list[dict]:
    t = get_tournament(session, tournament_id)
    return suggestions(load(session, t.id, t.seat_cap))


def suggestions(seating: Seating) -> list[dict]:
    """`suggest` of a seating loaded already: the moves and table breaks balancing asks for."""
    out = []
    for s in pure.suggest(seating):
        row = {"kind": s.kind, "table": s.table}
        row.update(_move_dict(s.move) if s.move else {})
        out.append(row)
    return out


def final_table(
    session: Session,
    tournament_id: int,
    now: datetime,
    confirm: bool,
    seed: str | None = None,
    actor: str | None = None,
) -> dict:
    """Show the final-table proposal; with `confirm`, assemble it (seats by lot, SP-13; a late entry
    or re-entry can reopen a table after it: each assembly is its own draw)."""
    before = _begin(session, tournament_id)
    proposal = pure.final_table_proposal(before)
    if not confirm:
        return {
            "stage": pure.stage(before),
            "proposed": proposal is not None,
            "table": proposal.table if proposal else None,
            "entries": list(proposal.entries) if proposal else [],
        }
    (after, moves), drawn = draws.run(
        session,
        tournament_id,
        "final-table",
        pure.snapshot(before),
        seed,
        now,
        lambda s: pure.assemble_final_table(before, s),
    )
    save(session, tournament_id, before, after, now)
    _record_moves(session, tournament_id, "final-table", moves, now, actor)
    return {
        "stage": pure.stage(after),
        "table": after.tables[0],
        "draw": drawn,
        "moves": [_move_dict(m) for m in moves],
    }


def show(session: Session, tournament_id: int) -> dict:
    t = get_tournament(session, tournament_id)
    seating = load(session, t.id, t.seat_cap)
    names = dict(
        session.execute(
            select(SeatRow.entry_id, func.coalesce(Player.name, Player.pseudonym))
            .join(Entry, Entry.id == SeatRow.entry_id)
            .join(Player, Player.id == Entry.player_id)
            .where(SeatRow.tournament_id == t.id)
        ).all()
    )
    shown = layout(seating)
    return {
        "tournament_id": t.id,
        "stage": shown["stage"],
        "seat_cap": shown["seat_cap"],
        "tables": shown["tables"],
        "broken": shown["broken"],
        "next_draw_commitment": draws.pending_commitment(session, t.id),
        "seats": [s | {"player": names.get(s["entry_id"])} for s in shown["seats"]],
    }


def layout(seating: Seating) -> dict:
    """What `show` says of a seating loaded already, but the names and the next draw's commitment:
    its stage, seat cap, tables in play with their players' counts, broken tables, every seat taken."""
    counts = seating.counts()
    return {
        "stage": pure.stage(seating),
        "seat_cap": seating.seat_cap,
        "tables": [{"table": n, "players": counts[n]} for n in seating.tables],
        "broken": sorted(seating.broken),
        "seats": [{"table": s.table, "seat": s.seat, "entry_id": s.entry} for s in seating.seats],
    }


def _move_dict(m: Move) -> dict:
    return {
        "entry_id": m.entry,
        "from_table": m.from_table,
        "from_seat": m.from_seat,
        "to_table": m.to_table,
        "to_seat": m.to_seat,
    }


def seats_of(session: Session, entry_ids: Iterable[int]) -> dict[int, tuple[int, int]]:
    """Where each of the entries sits now: entry id -> (table, seat)."""
    rows = session.execute(
        select(SeatRow.entry_id, SeatRow.table_no, SeatRow.seat_no).where(SeatRow.entry_id.in_(list(entry_ids)))
    ).all()
    return {r.entry_id: (r.table_no, r.seat_no) for r in rows}


def back_plan(session: Session, tournament_id: int, had: tuple[int, int] | None) -> dict:
    """Where `seat_back` would seat a voided bust's player now, writing nothing: `back_to_seat` (the
    seat they had, `had`, is at a table in play and still free), else why not (`seat_gone`:
    "table-broken" when that table is no longer in play, "seat-taken") and where the late-seating rule
    puts them (`to_tables`: the table with the fewest players, or the tables tied on it between which a
    draw decides, SP-13; `new_table` when every table is full and one opens). Before the seats are
    drawn, none of it: nobody is seated."""
    t = get_tournament(session, tournament_id)
    seating = load(session, t.id, t.seat_cap)
    back = had is not None and had[0] in seating.tables and had[1] in seating.free_seats(had[0])
    plan: dict = {"back_to_seat": back, "seat_gone": None, "to_tables": [], "new_table": None}
    if back or not (seating.tables or seating.broken):
        return plan
    if had is not None:
        plan["seat_gone"] = "seat-taken" if had[0] in seating.tables else "table-broken"
    tied = pure.late_seating_tie(seating)
    if tied:
        plan["to_tables"] = list(tied)
    else:
        plan["new_table"] = max((*seating.tables, *seating.broken), default=0) + 1
    return plan


def seat_back(session: Session, entry_id: int, had: tuple[int, int] | None, now: datetime) -> dict | None:
    """3.2, 3.6: a voided bust's player goes back to the seat they had (`had`, kept by the bust: the
    seat stays empty after a bust) when its table is in play and the seat still free; else (the table
    broken, the seat taken) they are seated as a late entry. Before the seats are drawn, nothing."""
    entry = session.get(Entry, entry_id)
    if entry is None:
        raise DomainError("seating-no-such-entry", "there is no entry %(entry_id)s", entry_id=entry_id)
    before = _begin(session, entry.tournament_id)
    if had is not None and had[0] in before.tables and had[1] in before.free_seats(had[0]):
        after = before.with_seats([*before.seats, Seat(had[0], had[1], entry_id)])
        save(session, entry.tournament_id, before, after, now)
        return {"entry_id": entry_id, "table": had[0], "seat": had[1], "opened_table": False, "same_seat": True}
    return _seat_if_drawn(session, entry, before, now)


def seat_if_drawn(session: Session, entry_id: int, now: datetime) -> dict | None:
    """The seating hook of check-in and re-entry (registration returns the new entry inside the caller's
    transaction): once the tournament's seats are drawn, the entry is seated in that transaction;
    before the draw, the draw seats it."""
    entry = session.get(Entry, entry_id)
    if entry is None:
        raise DomainError("seating-no-such-entry", "there is no entry %(entry_id)s", entry_id=entry_id)
    return _seat_if_drawn(session, entry, _begin(session, entry.tournament_id), now)


def _seat_if_drawn(session: Session, entry: Entry, before: Seating, now: datetime) -> dict | None:
    drawn = before.tables or before.broken  # a table opened, in play or broken since
    return _seat_entry(session, entry, before, now) if drawn else None
