"""Knockouts, voids and mystery draws on the database (Sport Poker 3.2, 3.3; SP-4, SP-5).

Each call locks the tournament row (`SELECT ... FOR UPDATE`), so knockouts, voids and draws of one
tournament run one at a time: bust and draw numbers stay sequential, and two floors recording the
same bust at once write one record (the second is refused as already out). The database backs the
same invariants by itself (poker_results models). The caller owns the transaction.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime, timedelta

from sqlalchemy import exists, func, select, update
from sqlalchemy.orm import Session

from domain.draw import commitment, new_seed
from domain.errors import DomainError, NotFound, Problem, raise_problems
from domain.poker.rules import mystery as mystery_rules
from domain.poker.rules.bounties import (
    KnockoutShares,
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
    draw_problems,
    group_problems,
    knockout_problems,
    void_problems,
)
from domain.poker.rules.wording import wording_seal
from domain.poker.services.due import notify
from domain.poker.services.results import itm_status
from domain.poker.services.seating import seat_if_drawn
from domain.poker.services.tournaments import get_tournament
from domain.poker.tables.results import (
    Knockout,
    KnockoutAudit,
    KnockoutSettings,
    KnockoutShare,
    MysteryDraw,
    MysteryPhase,
    MysteryPrize,
)
from domain.poker.tables.tournaments import Entry, Tournament


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
        KnockoutShares(k.id, k.busted_entry_id, sum(s.pko_points + s.head_added for s in by_ko[k.id]),
                       tuple(by_ko[k.id]))
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
            Problem("settings-frozen", f"tournament {tournament_id} has started: its settings are frozen")
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
    """Record `busts` as one block (one bust number): entries out, records and audit rows written."""
    tournament = locked_tournament(session, tournament_id)
    if tournament.status != "running":
        raise DomainError(
            "knockout-not-running", f"tournament {tournament_id} is {tournament.status}: knockouts need it running"
        )
    rows = session.execute(
        select(Entry.id, Entry.player_id, Entry.state).where(
            Entry.tournament_id == tournament_id, Entry.state != "voided"
        )
    ).all()
    entries = {r.id: EntryState(r.id, r.player_id, r.state == "busted") for r in rows}
    problems = knockout_problems(busts, entries, level)
    shared = bool(tournament.shared_knockouts)
    for b in busts:
        problems += [p for p in shared_killer_problems(b.killers, shared=shared) if p.code != "knockout-same-killers"]
    live = Knockout.tournament_id == tournament_id, Knockout.voided_at.is_(None)
    latest = session.scalar(select(func.max(Knockout.bust_number)).where(*live)) or 0
    group_number = None
    if group is not None:
        group_number = session.scalar(
            select(func.min(Knockout.bust_number)).where(*live, Knockout.bust_group == group)
        )
        problems += group_problems(group, group_number, [latest])
    raise_problems(problems)

    number = bust_number([latest], group_number)
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
    shares_of: dict[int, tuple[Share, ...]] = {}
    if uses_shares(tournament):
        for r, b in zip(records, busts, strict=True):
            if before is not None:
                _, shares = record(head, before, b.busted_entry_id, b.killers, shared=shared)
            else:
                shares = classic_shares(b.killers, shared=shared)
            shares_of[r.id] = shares
            session.add_all(
                KnockoutShare(knockout_id=r.id, position=x.position, killer_entry_id=x.killer_entry_id,
                              credit_units=x.credit_units, pko_points=x.pko_points, head_added=x.head_added)
                for x in shares
            )
        session.flush()
    session.add_all(
        KnockoutAudit(
            tournament_id=tournament_id,
            knockout_id=r.id,
            kind="recorded",
            second_killer_entry_id=b.second_killer_entry_id,
            actor=actor,
            at=now,
            data={"busted_entry_id": r.busted_entry_id, "killer_entry_id": r.killer_entry_id,
                  "bust_number": number, "credit_halves": r.credit_halves,
                  **({"killers": list(b.killers),
                      "shares": [[x.credit_units, x.pko_points, x.head_added] for x in shares_of[r.id]]}
                     if r.id in shares_of else {})},
        )
        for r, b in zip(records, busts, strict=True)
    )
    busted_ids = [b.busted_entry_id for b in busts]
    session.execute(update(Entry).where(Entry.id.in_(busted_ids)).values(state="busted", busted_at=now))
    session.flush()
    if sum(1 for r in rows if r.state == "active") - len(busted_ids) == 1:
        notify(session, "last-knockout", tournament_id)  # one left: finalize when its void window closes
    return records


def _locked_knockout(session: Session, knockout_id: int) -> tuple[Knockout, Tournament]:
    tournament_id = session.scalar(select(Knockout.tournament_id).where(Knockout.id == knockout_id))
    if tournament_id is None:
        raise NotFound("knockout-not-found", f"no knockout {knockout_id}")
    tournament = locked_tournament(session, tournament_id)
    knockout = session.get(Knockout, knockout_id, populate_existing=True)
    assert knockout is not None
    return knockout, tournament


def void_knockout(session: Session, knockout_id: int, *, now: datetime, actor: str) -> Knockout:
    """3.2/SP-5: mark the knockout voided (never deleted) and put the busted entry back in."""
    knockout, tournament = _locked_knockout(session, knockout_id)
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
    drawn = session.scalar(select(exists().where(MysteryDraw.knockout_id == knockout_id)))
    state = KnockoutState(knockout.id, knockout.recorded_at, knockout.voided_at is not None, reentered, drawn)
    problems = void_problems(state, now, void_window(session, tournament.id))
    if pko_head_of(tournament) is not None:
        killers = list(session.scalars(
            select(KnockoutShare.killer_entry_id).where(KnockoutShare.knockout_id == knockout.id)
        ))
        killers_out = session.scalars(
            select(Knockout.busted_entry_id).where(
                Knockout.busted_entry_id.in_(killers), Knockout.voided_at.is_(None)
            )
        ).all() if killers else []
        problems += pko_void_problems(knockout.id, killers, killers_out)
    if tournament.status != "running":
        problems.append(
            Problem("void-not-running", f"tournament {tournament.id} is {tournament.status}: its knockouts are final")
        )
    raise_problems(problems)
    knockout.voided_at = now
    knockout.voided_by = actor
    busted.state = "active"
    busted.busted_at = None
    session.flush()
    seat = seat_if_drawn(session, busted.id, now)  # the bust freed the seat (3.6); back in, seated again
    session.add(
        KnockoutAudit(
            tournament_id=tournament.id, knockout_id=knockout.id, kind="voided", actor=actor, at=now,
            data={"busted_entry_id": busted.id, "seat": seat},
        )
    )
    session.flush()
    return knockout


def mystery_draw(
    session: Session, knockout_id: int, *, now: datetime, actor: str, description: str | None = None
) -> MysteryDraw:
    """3.3: the killer entry of a knockout draws its mystery bounty, once per tournament."""
    knockout, tournament = _locked_knockout(session, knockout_id)
    if description is not None:
        description = description.strip() or None
    already = knockout.killer_entry_id is not None and session.scalar(
        select(
            exists().where(
                MysteryDraw.tournament_id == tournament.id, MysteryDraw.killer_entry_id == knockout.killer_entry_id
            )
        )
    )
    table = declared_prizes(session, tournament.id)
    position = None
    if not table:
        problems = draw_problems(
            enabled=tournament.mystery_draw,
            knockout_voided=knockout.voided_at is not None,
            killer_entry_id=knockout.killer_entry_id,
            already_drawn=bool(already),
            description=description,
        )
    else:
        problems, position = _table_draw(session, tournament, knockout, bool(already), description, now)
        if position is not None:
            description = table[position - 1]
    if tournament.status == "cancelled":
        problems.append(Problem("mystery-cancelled", f"tournament {tournament.id} is cancelled"))
    raise_problems(problems)
    number = (
        session.scalar(select(func.max(MysteryDraw.draw_number)).where(MysteryDraw.tournament_id == tournament.id))
        or 0
    ) + 1
    draw = MysteryDraw(
        tournament_id=tournament.id,
        knockout_id=knockout.id,
        killer_entry_id=knockout.killer_entry_id,
        draw_number=number,
        description=description,
        wording_seal=wording_seal(description) if description is not None else None,  # SP-4
        drawn_at=now,
        drawn_by=actor,
        per_killer=not table or tournament.mystery_draw_per == "per_killer_entry",
        prize_position=position,
    )
    session.add(draw)
    session.flush()
    session.add(
        KnockoutAudit(
            tournament_id=tournament.id, knockout_id=knockout.id, kind="drawn", actor=actor, at=now,
            data={"draw_number": number, "killer_entry_id": knockout.killer_entry_id, "prize_position": position},
        )
    )
    session.flush()
    return draw


# -- the mystery prize table (SP-11) ----------------------------------------------------------------


def declared_prizes(session: Session, tournament_id: int) -> tuple[str, ...]:
    return tuple(session.scalars(
        select(MysteryPrize.description).where(MysteryPrize.tournament_id == tournament_id)
        .order_by(MysteryPrize.position)
    ))


def set_mystery_prizes(session: Session, tournament_id: int, lines: Sequence[str]) -> tuple[str, ...]:
    """SP-11: declare (replace) the mystery prize table; refused once its phase has started, or in a
    finished or cancelled tournament. An empty list goes back to today's free-text draws."""
    cleaned = tuple(line.strip() for line in lines)
    problems = mystery_rules.prize_table_problems(cleaned)
    tournament = locked_tournament(session, tournament_id)
    if tournament.status in ("finished", "cancelled"):
        problems.append(Problem("mystery-table-frozen", f"tournament {tournament_id} is {tournament.status}"))
    if session.get(MysteryPhase, tournament_id) is not None:
        problems.append(Problem(
            "mystery-table-frozen", "the mystery phase has started: its prizes are committed and can no longer change"
        ))
    if cleaned and tournament.bounty_type != "mystery":
        problems.append(Problem(
            "mystery-table-without-mystery", f"a mystery prize table needs bounty type mystery, not '{tournament.bounty_type}'"
        ))
    raise_problems(problems)
    session.execute(MysteryPrize.__table__.delete().where(MysteryPrize.tournament_id == tournament_id))
    session.add_all(MysteryPrize(tournament_id=tournament_id, position=n, description=d, wording_seal=wording_seal(d))
                    for n, d in enumerate(cleaned, 1))
    session.flush()
    return cleaned


def _remaining_after(session: Session, knockout: Knockout) -> int:
    """Players in after the knockout's block: entries made by then, less live busts by then."""
    made = session.scalar(select(func.count()).where(
        Entry.tournament_id == knockout.tournament_id, Entry.state != "voided", Entry.created_at <= knockout.recorded_at
    ))
    out = session.scalar(select(func.count()).where(
        Knockout.tournament_id == knockout.tournament_id, Knockout.voided_at.is_(None),
        Knockout.bust_number <= knockout.bust_number,
    ))
    return made - out


def _table_draw(
    session: Session, tournament: Tournament, knockout: Knockout, killer_drew: bool, description: str | None,
    now: datetime,
) -> tuple[list[Problem], int | None]:
    """SP-11: the refusals of a draw from the table, else the position of the prize it takes (the
    phase's seed committed at its first draw)."""
    problems: list[Problem] = []
    if tournament.status == "cancelled":
        return problems, None  # refused by the caller as cancelled, nothing committed
    if not tournament.mystery_draw:
        return [Problem("mystery-off", "the mystery bounty is not switched on for this tournament")], None
    if knockout.voided_at is not None:
        problems.append(Problem("mystery-knockout-voided", "the knockout was voided: nothing to draw on"))
    phase, _ = mystery_rules.parse_phase(tournament.mystery_phase)
    assert phase is not None
    problems += mystery_rules.phase_reached(
        phase,
        remaining_after=_remaining_after(session, knockout),
        paid_places=itm_status(session, tournament.id).paid_places if phase.kind == "itm" else 0,
        knockout_level=knockout.level,
    )
    prize_count = session.scalar(select(func.count()).where(MysteryPrize.tournament_id == tournament.id))
    draws_made = session.scalar(select(func.count()).where(MysteryDraw.tournament_id == tournament.id))
    knockout_drawn = session.scalar(select(exists().where(MysteryDraw.knockout_id == knockout.id)))
    problems += mystery_rules.table_draw_problems(
        mode=tournament.mystery_draw_per, killer_drew_before=killer_drew, knockout_drawn=bool(knockout_drawn),
        draws_made=draws_made, prize_count=prize_count, description=description,
        killer_entry_id=knockout.killer_entry_id,
    )
    if problems:
        return problems, None
    started = session.get(MysteryPhase, tournament.id)
    if started is None:
        seed = new_seed()
        started = MysteryPhase(tournament_id=tournament.id, seed=seed, commitment=commitment(seed),
                               prize_count=prize_count, started_at=now)
        session.add(started)
        session.flush()
    return [], mystery_rules.next_prize(started.seed, started.prize_count, draws_made)


def mystery_table(session: Session, tournament_id: int) -> dict:
    """SP-11, public: the declared prizes with the draw that took each (remaining ones are public),
    the commitment of the phase's seed, and the seed itself once the tournament is finished."""
    tournament = get_tournament(session, tournament_id)
    prizes = declared_prizes(session, tournament_id)
    taken = dict(session.execute(
        select(MysteryDraw.prize_position, MysteryDraw.draw_number).where(
            MysteryDraw.tournament_id == tournament_id, MysteryDraw.prize_position.is_not(None)
        )
    ).all())
    phase = session.get(MysteryPhase, tournament_id)
    finished = tournament.status == "finished"
    return {
        "tournament_id": tournament_id,
        "phase": tournament.mystery_phase,
        "draw_per": tournament.mystery_draw_per,
        "started_at": phase.started_at if phase else None,
        "commitment": phase.commitment if phase else None,
        "seed": phase.seed if phase and finished else None,
        "prizes": [
            {"position": n, "prize": d, "draw_number": taken.get(n),
             "state": "drawn" if n in taken else ("undrawn" if finished else "remaining")}
            for n, d in enumerate(prizes, 1)
        ],
        "remaining": [d for n, d in enumerate(prizes, 1) if n not in taken],
    }
