"""Knockouts and voids on the database (Sport Poker 3.2; SP-5, SP-9, SP-10); the mystery draws are
in `mystery.py`.

Each call locks the tournament row (`SELECT ... FOR UPDATE`), so knockouts, voids and draws of one
tournament run one at a time: bust and draw numbers stay sequential, and two floors recording the
same bust at once write one record (the second is refused as already out). The database backs the
same invariants by itself (domain/poker/tables/knockouts_places.py). The caller owns the transaction.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime, timedelta

from sqlalchemy import exists, func, select, update
from sqlalchemy.orm import Session

from domain.errors import DomainError, NotFound, Problem, Word, raise_problems
from domain.poker.rules.bounties import (
    KnockoutShares,
    PkoLedger,
    Share,
    classic_shares,
    ledger,
    pko_void_problems,
    record,
    shared_killer_problems,
)
from domain.poker.rules.knockouts import (
    DEFAULT_VOID_WINDOW,
    Bust,
    EntryState,
    KnockoutState,
    bust_number,
    credit_halves,
    group_problems,
    knockout_problems,
    void_problems,
)
from domain.poker.services.due import notify
from domain.poker.services.seating import back_plan, seat_back, seats_of
from domain.poker.services.tournaments import get_tournament
from domain.poker.tables.knockouts_places import (
    Knockout,
    KnockoutAudit,
    KnockoutSettings,
    KnockoutShare,
    MysteryDraw,
)
from domain.poker.tables.tournaments import Entry, Tournament
from domain.poker.tables.tournaments import Level as LevelRow


def pko_head_of(tournament: Tournament) -> int | None:
    """SP-9: the starting head when the tournament plays progressive knockouts, else None."""
    return tournament.pko_head if tournament.bounty_type == "pko" else None


def uses_shares(tournament: Tournament) -> bool:
    """Share rows are written under SP-9 or SP-10; otherwise a knockout is recorded as today."""
    return pko_head_of(tournament) is not None or bool(tournament.shared_knockouts)


def live_shares(session: Session, tournament_id: int) -> list[KnockoutShares]:
    """The live knockouts of a tournament with their shares (two statements)."""
    kos = session.execute(
        select(Knockout.id, Knockout.busted_entry_id).where(
            Knockout.tournament_id == tournament_id, Knockout.voided_at.is_(None)
        )
    ).all()
    by_ko: dict[int, list[Share]] = {k.id: [] for k in kos}
    for r in session.execute(
        select(KnockoutShare)
        .join(Knockout, Knockout.id == KnockoutShare.knockout_id)
        .where(Knockout.tournament_id == tournament_id, Knockout.voided_at.is_(None))
        .order_by(KnockoutShare.knockout_id, KnockoutShare.position)
    ).scalars():
        by_ko[r.knockout_id].append(Share(r.killer_entry_id, r.position, r.credit_units, r.pko_points, r.head_added))
    return [
        KnockoutShares(
            k.id, k.busted_entry_id, sum(s.pko_points + s.head_added for s in by_ko[k.id]), tuple(by_ko[k.id])
        )
        for k in kos
    ]


def locked_tournament(session: Session, tournament_id: int) -> Tournament:
    """The tournament row, locked FOR UPDATE: this area's writes to one tournament run one at a time
    (registration and top-ups hold it FOR SHARE, so a void and a re-entry never interleave)."""
    return get_tournament(session, tournament_id, lock="update")


def void_window(session: Session, tournament_id: int) -> timedelta:
    seconds = session.scalar(
        select(KnockoutSettings.void_window_seconds).where(KnockoutSettings.tournament_id == tournament_id)
    )
    return DEFAULT_VOID_WINDOW if seconds is None else timedelta(seconds=seconds)


def set_void_window(session: Session, tournament_id: int, minutes: int) -> timedelta:
    """SP-5: the tournament's void window, a setting like the others (editable before the start)."""
    tournament = locked_tournament(session, tournament_id)
    problems = []
    if minutes < 1:
        problems.append(Problem("void-window-bad", "the void window is a whole number of minutes, at least 1"))
    if tournament.status not in ("draft", "registration_open"):
        problems.append(
            Problem(
                "settings-frozen",
                "tournament %(tournament_id)s has started: its settings are frozen",
                tournament_id=tournament_id,
            )
        )
    raise_problems(problems)
    row = session.get(KnockoutSettings, tournament_id)
    if row is None:
        session.add(KnockoutSettings(tournament_id=tournament_id, void_window_seconds=minutes * 60))
    else:
        row.void_window_seconds = minutes * 60
    session.flush()
    return timedelta(minutes=minutes)


def record_knockouts(
    session: Session,
    tournament_id: int,
    busts: Sequence[Bust],
    *,
    now: datetime,
    actor: str,
    level: int | None = None,
    group: str | None = None,
) -> list[Knockout]:
    """Record `busts` as one block (one bust number): entries out, records and audit rows written.
    `level` is the level it happened at (the floor's, or the clock's: `desk.knock_out`); a level
    beyond the structure's is refused."""
    tournament = locked_tournament(session, tournament_id)
    if tournament.status != "running":
        raise DomainError(
            "knockout-not-running",
            "tournament %(tournament_id)s is %(status)s: knockouts need it running",
            tournament_id=tournament_id,
            status=Word(tournament.status),
        )
    rows = session.execute(
        select(Entry.id, Entry.player_id, Entry.state).where(
            Entry.tournament_id == tournament_id, Entry.state != "voided"
        )
    ).all()
    entries = {r.id: EntryState(r.id, r.player_id, r.state == "busted") for r in rows}
    level_count = session.scalar(select(func.count()).where(LevelRow.structure_id == tournament.structure_id))
    problems = knockout_problems(busts, entries, level, level_count)
    shared = bool(tournament.shared_knockouts)
    for b in busts:
        problems += [p for p in shared_killer_problems(b.killers, shared=shared) if p.code != "knockout-same-killers"]
    latest, highest, group_number = _numbers(session, tournament_id, group)
    if group is not None:
        problems += group_problems(group, group_number, [latest])
    raise_problems(problems)

    number = bust_number([highest], group_number)  # SP-5: a voided bust keeps its number; none is reused
    head = pko_head_of(tournament)
    # SP-9: the heads as they stand before this block (read before its records exist)
    before = ledger(head, entries, live_shares(session, tournament_id)) if head is not None else None
    records = [
        Knockout(
            tournament_id=tournament_id,
            busted_entry_id=b.busted_entry_id,
            killer_entry_id=b.killer_entry_id,
            bust_number=number,
            bust_group=group,
            level=level,
            credit_halves=credit_halves(b),
            recorded_at=now,
            recorded_by=actor,
        )
        for b in busts
    ]
    session.add_all(records)
    session.flush()
    shares_of = _write_shares(session, tournament, records, busts, before, head)
    busted_ids = [b.busted_entry_id for b in busts]
    _audit_recorded(session, records, busts, shares_of, number, actor, now, seats_of(session, busted_ids))
    session.execute(update(Entry).where(Entry.id.in_(busted_ids)).values(state="busted", busted_at=now))
    session.flush()
    if sum(1 for r in rows if r.state == "active") - len(busted_ids) == 1:
        notify(session, "last-knockout", tournament_id)  # one left: finalize when its void window closes
    return records


def _numbers(session: Session, tournament_id: int, group: str | None) -> tuple[int, int, int | None]:
    """The latest live bust number, the highest number ever given (voided busts included: a void
    keeps its number and the next bust takes a new one, SP-5's audit), and the number of the group's
    earlier busts (3.2 multi-bust)."""
    mine = Knockout.tournament_id == tournament_id
    live = Knockout.voided_at.is_(None)
    latest, highest = session.execute(
        select(
            func.coalesce(func.max(Knockout.bust_number).filter(live), 0),
            func.coalesce(func.max(Knockout.bust_number), 0),
        ).where(mine)
    ).one()
    if group is None:
        return latest, highest, None
    return (
        latest,
        highest,
        session.scalar(select(func.min(Knockout.bust_number)).where(mine, live, Knockout.bust_group == group)),
    )


def _write_shares(
    session: Session,
    tournament: Tournament,
    records: Sequence[Knockout],
    busts: Sequence[Bust],
    before: PkoLedger | None,
    head: int | None,
) -> dict[int, tuple[Share, ...]]:
    """SP-9, SP-10: each record's shares of credit and head, when the tournament keeps shares."""
    shares_of: dict[int, tuple[Share, ...]] = {}
    if not uses_shares(tournament):
        return shares_of
    shared = bool(tournament.shared_knockouts)
    for r, b in zip(records, busts, strict=True):
        if before is not None:
            _, shares = record(head, before, b.busted_entry_id, b.killers, shared=shared)
        else:
            shares = classic_shares(b.killers, shared=shared)
        shares_of[r.id] = shares
        session.add_all(
            KnockoutShare(
                knockout_id=r.id,
                position=x.position,
                killer_entry_id=x.killer_entry_id,
                credit_units=x.credit_units,
                pko_points=x.pko_points,
                head_added=x.head_added,
            )
            for x in shares
        )
    session.flush()
    return shares_of


def _audit_recorded(
    session: Session,
    records: Sequence[Knockout],
    busts: Sequence[Bust],
    shares_of: dict[int, tuple[Share, ...]],
    number: int,
    actor: str,
    now: datetime,
    seats: dict[int, tuple[int, int]],
) -> None:
    """The `recorded` audit rows; each keeps the seat the busted entry had (3.6: it stays empty), where
    a void puts the player back."""
    session.add_all(
        KnockoutAudit(
            tournament_id=r.tournament_id,
            knockout_id=r.id,
            kind="recorded",
            second_killer_entry_id=b.second_killer_entry_id,
            actor=actor,
            at=now,
            data={
                "busted_entry_id": r.busted_entry_id,
                "killer_entry_id": r.killer_entry_id,
                "bust_number": number,
                "credit_halves": r.credit_halves,
                **({"seat": list(seats[r.busted_entry_id])} if r.busted_entry_id in seats else {}),
                **(
                    {
                        "killers": list(b.killers),
                        "shares": [[x.credit_units, x.pko_points, x.head_added] for x in shares_of[r.id]],
                    }
                    if r.id in shares_of
                    else {}
                ),
            },
        )
        for r, b in zip(records, busts, strict=True)
    )


def knockout_by_bust_number(
    session: Session, tournament_id: int, number: int, busted_entry_id: int | None = None
) -> Knockout:
    """The knockout the floor names by the bust number it sees (3.2), only the tournament's: the one
    standing (else the voided one, so a second void says it is voided already). A shared bust (several
    players out under one number) needs the busted entry: refused `bust-shared` without it."""
    query = select(Knockout).where(Knockout.tournament_id == tournament_id, Knockout.bust_number == number)
    if busted_entry_id is not None:
        query = query.where(Knockout.busted_entry_id == busted_entry_id)
    found = list(session.scalars(query.order_by(Knockout.id)))
    if not found:
        raise NotFound(
            "knockout-not-found",
            "no bust %(number)s in tournament %(tournament_id)s",
            number=number,
            tournament_id=tournament_id,
        )
    standing = [k for k in found if k.voided_at is None] or found
    if len({k.busted_entry_id for k in standing}) > 1:
        raise DomainError(
            "bust-shared",
            "bust %(number)s took out %(count_standing)s players together: name the one to void (--player)",
            number=number,
            count_standing=len(standing),
        )
    return standing[0]


def locked_knockout(session: Session, knockout_id: int) -> tuple[Knockout, Tournament]:
    tournament_id = session.scalar(select(Knockout.tournament_id).where(Knockout.id == knockout_id))
    if tournament_id is None:
        raise NotFound("knockout-not-found", "no knockout %(knockout_id)s", knockout_id=knockout_id)
    tournament = locked_tournament(session, tournament_id)
    knockout = session.get(Knockout, knockout_id, populate_existing=True)
    assert knockout is not None
    return knockout, tournament


def _void_problems(session: Session, knockout: Knockout, tournament: Tournament, now: datetime) -> list[Problem]:
    busted = session.get(Entry, knockout.busted_entry_id, populate_existing=True)
    assert busted is not None
    reentered = session.scalar(
        select(
            exists().where(
                Entry.tournament_id == busted.tournament_id,
                Entry.player_id == busted.player_id,
                Entry.sequence > busted.sequence,
                Entry.state != "voided",
            )
        )
    )
    drawn = session.scalar(select(exists().where(MysteryDraw.knockout_id == knockout.id)))
    state = KnockoutState(knockout.id, knockout.recorded_at, knockout.voided_at is not None, reentered, drawn)
    problems = void_problems(state, now, void_window(session, tournament.id))
    if pko_head_of(tournament) is not None:
        killers = list(
            session.scalars(select(KnockoutShare.killer_entry_id).where(KnockoutShare.knockout_id == knockout.id))
        )
        killers_out = (
            session.scalars(
                select(Knockout.busted_entry_id).where(
                    Knockout.busted_entry_id.in_(killers), Knockout.voided_at.is_(None)
                )
            ).all()
            if killers
            else []
        )
        problems += pko_void_problems(knockout.id, killers, killers_out)
    if tournament.status != "running":
        problems.append(
            Problem(
                "void-not-running",
                "tournament %(tournament_id)s is %(status)s: its knockouts are final",
                tournament_id=tournament.id,
                status=Word(tournament.status),
            )
        )
    return problems


def seat_had(session: Session, knockout_id: int) -> tuple[int, int] | None:
    """The table and seat the busted entry of a knockout had when it was recorded (its audit row)."""
    data = session.scalar(
        select(KnockoutAudit.data).where(KnockoutAudit.knockout_id == knockout_id, KnockoutAudit.kind == "recorded")
    )
    seat = (data or {}).get("seat")
    return (int(seat[0]), int(seat[1])) if seat else None


def void_plan(session: Session, knockout_id: int, now: datetime) -> dict:
    """What voiding a knockout would do now, writing nothing: the refusals (SP-5, 3.2, 3.3), the seat
    the player had and whether it is still there to go back to, else why not (its table broken, or
    the seat taken) and where they would sit instead (3.6, `seating.back_plan`)."""
    knockout, tournament = locked_knockout(session, knockout_id)
    problems = _void_problems(session, knockout, tournament, now)
    had = seat_had(session, knockout.id)
    return {"problems": problems, "seat_had": had} | back_plan(session, tournament.id, had)


def void_knockout(session: Session, knockout_id: int, *, now: datetime, actor: str) -> Knockout:
    """3.2/SP-5: mark the knockout voided (never deleted) and put the busted entry back in, at the seat
    it had when that seat is still free at a table in play (3.6: the seat stays empty after a bust),
    else seated as a late entry."""
    knockout, tournament = locked_knockout(session, knockout_id)
    busted = session.get(Entry, knockout.busted_entry_id, populate_existing=True)
    assert busted is not None
    raise_problems(_void_problems(session, knockout, tournament, now))
    knockout.voided_at = now
    knockout.voided_by = actor
    busted.state = "active"
    busted.busted_at = None
    session.flush()
    seat = seat_back(session, busted.id, seat_had(session, knockout.id), now)
    session.add(
        KnockoutAudit(
            tournament_id=tournament.id,
            knockout_id=knockout.id,
            kind="voided",
            actor=actor,
            at=now,
            data={"busted_entry_id": busted.id, "seat": seat},
        )
    )
    session.flush()
    return knockout
