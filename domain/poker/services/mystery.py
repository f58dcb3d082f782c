"""Mystery bounties on the database (Sport Poker 3.3; SP-4, SP-11): a knockout's draw, free text or
from the declared prize table by the phase's committed seed, and the public table. Each call locks
the tournament row, as the knockouts do, so draw numbers stay sequential."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from sqlalchemy import exists, func, select
from sqlalchemy.orm import Session

from domain.draw import commitment, new_seed
from domain.errors import Problem, Word, raise_problems
from domain.poker.rules import mystery as mystery_rules
from domain.poker.rules.knockouts import draw_problems
from domain.poker.rules.wording.check import wording_seal
from domain.poker.services.knockouts import locked_knockout, locked_tournament
from domain.poker.services.results import itm_status
from domain.poker.services.tournaments import get_tournament
from domain.poker.tables.knockouts_places import (
    Knockout,
    KnockoutAudit,
    MysteryDraw,
    MysteryPhase,
    MysteryPrize,
)
from domain.poker.tables.tournaments import Entry, Tournament


def mystery_draw(
    session: Session, knockout_id: int, *, now: datetime, actor: str, description: str | None = None
) -> MysteryDraw:
    """3.3: the killer entry of a knockout draws its mystery bounty, once per tournament."""
    knockout, tournament = locked_knockout(session, knockout_id)
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
        problems.append(
            Problem("mystery-cancelled", "tournament %(tournament_id)s is cancelled", tournament_id=tournament.id)
        )
    raise_problems(problems)
    number = (
        session.scalar(select(func.max(MysteryDraw.draw_number)).where(MysteryDraw.tournament_id == tournament.id)) or 0
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
            tournament_id=tournament.id,
            knockout_id=knockout.id,
            kind="drawn",
            actor=actor,
            at=now,
            data={"draw_number": number, "killer_entry_id": knockout.killer_entry_id, "prize_position": position},
        )
    )
    session.flush()
    return draw


# -- the mystery prize table (SP-11) ----------------------------------------------------------------


def declared_prizes(session: Session, tournament_id: int) -> tuple[str, ...]:
    return tuple(
        session.scalars(
            select(MysteryPrize.description)
            .where(MysteryPrize.tournament_id == tournament_id)
            .order_by(MysteryPrize.position)
        )
    )


def set_mystery_prizes(session: Session, tournament_id: int, lines: Sequence[str]) -> tuple[str, ...]:
    """SP-11: declare (replace) the mystery prize table; refused once its phase has started, or in a
    finished or cancelled tournament. An empty list goes back to today's free-text draws."""
    cleaned = tuple(line.strip() for line in lines)
    problems = mystery_rules.prize_table_problems(cleaned)
    tournament = locked_tournament(session, tournament_id)
    if tournament.status in ("finished", "cancelled"):
        problems.append(
            Problem(
                "mystery-table-frozen",
                "tournament %(tournament_id)s is %(status)s",
                tournament_id=tournament_id,
                status=Word(tournament.status),
            )
        )
    if session.get(MysteryPhase, tournament_id) is not None:
        problems.append(
            Problem(
                "mystery-table-frozen",
                "the mystery phase has started: its prizes are committed and can no longer change",
            )
        )
    if cleaned and tournament.bounty_type != "mystery":
        problems.append(
            Problem(
                "mystery-table-without-mystery",
                "a mystery prize table needs bounty type mystery, not '%(bounty_type)s'",
                bounty_type=tournament.bounty_type,
            )
        )
    raise_problems(problems)
    session.execute(MysteryPrize.__table__.delete().where(MysteryPrize.tournament_id == tournament_id))
    session.add_all(
        MysteryPrize(tournament_id=tournament_id, position=n, description=d, wording_seal=wording_seal(d))
        for n, d in enumerate(cleaned, 1)
    )
    session.flush()
    return cleaned


def _remaining_after(session: Session, knockout: Knockout) -> int:
    """Players in after the knockout's block: entries made by then, less live busts by then."""
    made = session.scalar(
        select(func.count()).where(
            Entry.tournament_id == knockout.tournament_id,
            Entry.state != "voided",
            Entry.created_at <= knockout.recorded_at,
        )
    )
    out = session.scalar(
        select(func.count()).where(
            Knockout.tournament_id == knockout.tournament_id,
            Knockout.voided_at.is_(None),
            Knockout.bust_number <= knockout.bust_number,
        )
    )
    return made - out


def _table_draw(
    session: Session,
    tournament: Tournament,
    knockout: Knockout,
    killer_drew: bool,
    description: str | None,
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
    draws_made = session.scalar(
        select(func.count()).where(  # draws from the table: a free-text one took none
            MysteryDraw.tournament_id == tournament.id, MysteryDraw.prize_position.is_not(None)
        )
    )
    knockout_drawn = session.scalar(select(exists().where(MysteryDraw.knockout_id == knockout.id)))
    problems += mystery_rules.table_draw_problems(
        mode=tournament.mystery_draw_per,
        killer_drew_before=killer_drew,
        knockout_drawn=bool(knockout_drawn),
        draws_made=draws_made,
        prize_count=prize_count,
        description=description,
        killer_entry_id=knockout.killer_entry_id,
    )
    if problems:
        return problems, None
    started = session.get(MysteryPhase, tournament.id)
    if started is None:
        seed = new_seed()
        started = MysteryPhase(
            tournament_id=tournament.id, seed=seed, commitment=commitment(seed), prize_count=prize_count, started_at=now
        )
        session.add(started)
        session.flush()
    return [], mystery_rules.next_prize(started.seed, started.prize_count, draws_made)


def mystery_table(session: Session, tournament_id: int) -> dict:
    """SP-11, public: the declared prizes with the draw that took each (remaining ones are public),
    the commitment of the phase's seed, and the seed itself once the tournament is finished."""
    tournament = get_tournament(session, tournament_id)
    prizes = declared_prizes(session, tournament_id)
    taken = dict(
        session.execute(
            select(MysteryDraw.prize_position, MysteryDraw.draw_number).where(
                MysteryDraw.tournament_id == tournament_id, MysteryDraw.prize_position.is_not(None)
            )
        ).all()
    )
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
            {
                "position": n,
                "prize": d,
                "draw_number": taken.get(n),
                "state": "drawn" if n in taken else ("undrawn" if finished else "remaining"),
            }
            for n, d in enumerate(prizes, 1)
        ],
        "remaining": [d for n, d in enumerate(prizes, 1) if n not in taken],
    }
