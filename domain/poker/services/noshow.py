"""No-show services (3.8, SP-6): processing a tournament's no-shows at the close of late
registration, the dead stacks' charges at level starts, and a player's arrival.

Late registration closes at the tournament's late-registration deadline, or at its scheduled start
when it has none. A tournament's no-shows are processed once (`poker_no_show_runs`), when it is
running and that close has come; concurrent runs skip tournaments another run holds (SKIP LOCKED),
and a tournament whose row lock was released by a run that just processed it is seen as processed
(the check again after the lock), so two runs never process one tournament twice.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from datetime import datetime

from sqlalchemy import Select, select, text
from sqlalchemy.orm import Session

from domain.errors import DomainError
from domain.poker.rules import clock as pure_clock
from domain.poker.rules import noshow as pure
from domain.poker.rules.clock_model import Loaded
from domain.poker.rules.knockouts import Bust
from domain.poker.services.due import NO_SHOWS
from domain.poker.services.knockouts import record_knockouts
from domain.poker.services.seating import seat_new_entries
from domain.poker.tables.clock_seating import DeadStack, NoShowRun
from domain.poker.tables.tournaments import AuditEvent, Entry, Registration, Tournament
from domain.store import live


def _due(now: datetime, tids: Sequence[int] | None, at_close_only: bool) -> Select:
    """The running tournaments whose no-shows are not processed (NO_SHOWS), at their close
    (`at_close_only`) or at once, of `tids` when given."""
    t = Tournament
    return NO_SHOWS.batch(
        t.id,
        t.no_show_policy,
        t.starting_stack,
        where=NO_SHOWS.due(now) if at_close_only else NO_SHOWS.pending,
        ids=tids,
    )


def process_no_shows(
    session: Session, now: datetime, tournament_id: int | Sequence[int] | None = None, *, at_close_only: bool = True
) -> list[dict]:
    """Apply each due tournament's policy to every registered player not checked in: drop cancels
    the registration; absent_mode seats a dead stack (a new entry with the starting stack).

    The jobs process a tournament only once its late registration has closed; the floor may
    process one at once (`at_close_only=False`): 3.8, the handler itself does not check the window,
    the hold is kept by when processing is invoked."""
    tids = [tournament_id] if isinstance(tournament_id, int) else tournament_id
    due = session.execute(_due(now, tids, at_close_only)).all()
    if due:  # a run that held a row until just now committed after this statement began: ask again
        ids = [t.id for t in due]
        done = set(session.scalars(select(NoShowRun.tournament_id).where(NoShowRun.tournament_id.in_(ids))))
        due = [t for t in due if t.id not in done]
    if not due:
        return []
    policy = {t.id: t.no_show_policy for t in due}
    decided = _decide(session, policy)
    drop_ids = [n.registration for found in decided.values() for n in found if n.action == "cancel"]
    if drop_ids:
        session.execute(
            text("UPDATE poker_registrations SET status = 'dropped', ended_at = :now WHERE id = ANY(:ids)"),
            {"now": now, "ids": drop_ids},
        )
    absent = [(tid, n) for tid, found in decided.items() for n in found if n.action == "dead-stack"]
    if absent:
        _seat_dead_stacks(session, absent, {t.id: t.starting_stack for t in due}, now)
    _audit(session, decided, now)
    summary = [
        {
            "tournament_id": tid,
            "policy": policy[tid],
            "dropped": sum(1 for n in decided[tid] if n.action == "cancel"),
            "dead_stacks": sum(1 for n in decided[tid] if n.action == "dead-stack"),
        }
        for tid in sorted(policy)
    ]
    session.execute(NoShowRun.__table__.insert(), [s | {"processed_at": now} for s in summary])
    live.changed(session, *(live.poker(tid) for tid in sorted(policy)))
    return summary


def _decide(session: Session, policy: Mapping[int, str]) -> dict[int, tuple[pure.NoShow, ...]]:
    """3.8: each tournament's registered players not checked in, and what its policy does to each."""
    regs = session.execute(
        select(Registration.id, Registration.tournament_id, Registration.player_id, Registration.checked_in_at)
        .where(Registration.tournament_id.in_(policy), Registration.status == "active")
        .where(~select(Entry.id).where(Entry.registration_id == Registration.id).exists())
        .order_by(Registration.id)
    ).all()
    return {
        tid: pure.no_shows(
            policy[tid],
            [pure.Registration(r.id, r.player_id, r.checked_in_at is not None) for r in regs if r.tournament_id == tid],
        )
        for tid in policy
    }


def _seat_dead_stacks(
    session: Session, absent: Sequence[tuple[int, pure.NoShow]], stack: Mapping[int, int], now: datetime
) -> None:
    """absent_mode: a new entry with the starting stack for each, seated at the drawn tables, and its
    dead stack (SP-6 charges it at each level start)."""
    created = session.execute(
        Entry.__table__.insert().returning(Entry.id, Entry.tournament_id, Entry.registration_id),
        [
            {
                "tournament_id": tid,
                "player_id": n.player_id,
                "registration_id": n.registration,
                "sequence": 1,
                "state": "active",
                "starting_chips": stack[tid],
                "created_at": now,
            }
            for tid, n in absent
        ],
    ).all()
    for tid in sorted({c.tournament_id for c in created}):
        seat_new_entries(session, tid, [c.id for c in created if c.tournament_id == tid], now)
    session.execute(
        DeadStack.__table__.insert(),
        [
            {
                "tournament_id": c.tournament_id,
                "registration_id": c.registration_id,
                "entry_id": c.id,
                "chips": stack[c.tournament_id],
                "seated_at": now,
            }
            for c in created
        ],
    )


def _audit(session: Session, decided: Mapping[int, Sequence[pure.NoShow]], now: datetime) -> None:
    rows = [
        {
            "tournament_id": tid,
            "player_id": n.player_id,
            "kind": "no-show-dropped" if n.action == "cancel" else "no-show-dead-stack",
            "actor": "process-no-shows",
            "at": now,
            "data": {"registration_id": n.registration},
        }
        for tid, found in decided.items()
        for n in found
    ]
    if rows:
        session.execute(AuditEvent.__table__.insert(), rows)


CHARGEABLE_SQL = """
SELECT d.id, d.tournament_id, d.entry_id, d.chips, d.seated_at,
       (SELECT count(*) FROM poker_seats o WHERE o.tournament_id = s.tournament_id AND o.table_no = s.table_no)
         AS table_size
FROM poker_dead_stacks d JOIN poker_seats s ON s.entry_id = d.entry_id
WHERE d.tournament_id = ANY(:tids) AND d.arrived_at IS NULL AND d.busted_at IS NULL
ORDER BY d.id
FOR UPDATE OF d
"""


def charge_dead_stacks(
    session: Session, loaded: Mapping[int, Loaded], starts: Sequence[dict], now: datetime
) -> list[dict]:
    """SP-6: at each newly recorded level start, every live dead stack of that tournament seated by
    then pays the level's forced bets; at 0 it busts with no killer. `loaded` maps tournament id to
    its loaded clock."""
    stacks = session.execute(text(CHARGEABLE_SQL), {"tids": sorted({s["tournament_id"] for s in starts})}).all()
    if not stacks:
        return []
    chips = {d.id: d.chips for d in stacks}
    busted_at: dict[int, datetime] = {}
    charges = _charges(loaded, starts, stacks, chips, busted_at)
    if not charges:
        return []
    session.execute(
        text(
            "INSERT INTO poker_dead_stack_charges (dead_stack_id, event_id, paid, chips_after, busted) "
            "SELECT * FROM jsonb_to_recordset(CAST(:rows AS jsonb)) "
            "AS v(dead_stack_id bigint, event_id bigint, paid bigint, chips_after bigint, busted boolean) "
            "ON CONFLICT DO NOTHING"
        ),
        {"rows": json.dumps(charges)},
    )
    changed = [
        {
            "id": d.id,
            "chips": chips[d.id],
            "busted_at": busted_at[d.id].isoformat() if d.id in busted_at else None,
        }
        for d in stacks
        if chips[d.id] != d.chips
    ]
    session.execute(
        text(
            "UPDATE poker_dead_stacks d SET chips = v.chips, busted_at = v.busted_at "
            "FROM jsonb_to_recordset(CAST(:rows AS jsonb)) AS v(id bigint, chips bigint, busted_at timestamptz) "
            "WHERE d.id = v.id"
        ),
        {"rows": json.dumps(changed)},
    )
    if busted_at:
        _bust_at_zero(session, stacks, starts, busted_at)
    return charges


def _charges(
    loaded: Mapping[int, Loaded],
    starts: Sequence[dict],
    stacks: Sequence,
    chips: dict[int, int],
    busted_at: dict[int, datetime],
) -> list[dict]:
    """SP-6 in order of the level starts: each start charges its own tournament's live dead stacks
    seated by then (`chips` and `busted_at` updated as it goes); the charge rows."""
    of_tournament: dict[int, list] = {}
    for d in stacks:
        of_tournament.setdefault(d.tournament_id, []).append(d)
    charges = []
    for start in sorted(starts, key=lambda s: (s["at"], s["id"])):
        run = loaded[start["tournament_id"]]
        index = start["level"] - 1
        level = run.levels[index]
        if level.is_break:
            continue
        small, big, ante = pure_clock.blinds_at(run.clock, run.levels, index, start["at"])
        for d in of_tournament.get(start["tournament_id"], ()):
            if d.seated_at > start["at"] or d.id in busted_at:
                continue
            cost = pure.level_cost(small, big, ante, level.seconds, run.ante_type, d.table_size, run.hands_per_hour)
            result = pure.charge(chips[d.id], cost)
            chips[d.id] = result.stack
            if result.busted:
                busted_at[d.id] = start["at"]
            charges.append(
                {
                    "dead_stack_id": d.id,
                    "event_id": start["id"],
                    "paid": result.paid,
                    "chips_after": result.stack,
                    "busted": result.busted,
                }
            )
    return charges


def _bust_at_zero(
    session: Session, stacks: Sequence, starts: Sequence[dict], busted_at: Mapping[int, datetime]
) -> None:
    """The stacks at 0 are out with no killer: one knockout block per tournament and level start."""
    blocks: dict[tuple[int, datetime, int], list[int]] = {}
    level_at = {(s["tournament_id"], s["at"]): s["level"] for s in starts}
    for d in stacks:
        if d.id in busted_at:
            key = (d.tournament_id, busted_at[d.id], level_at[(d.tournament_id, busted_at[d.id])])
            blocks.setdefault(key, []).append(d.entry_id)
    for (tid, at, level), entry_ids in sorted(blocks.items()):
        bust_without_killer(session, tid, entry_ids, at, level)


def bust_without_killer(session: Session, tournament_id: int, entry_ids: list[int], at: datetime, level: int) -> None:
    """SP-6: dead stacks at 0 are out with no killer and a normal bust number: one knockout block
    per level start (busts at the same instant share a number, 3.2), through the knockout service. When
    the block is refused (it would leave nobody in), the entries are only marked out."""
    try:
        with session.begin_nested():
            record_knockouts(
                session,
                tournament_id,
                [Bust(e) for e in sorted(entry_ids)],
                now=at,
                actor="dead stack",
                level=level,
            )
    except DomainError:
        session.execute(
            text(
                "UPDATE poker_entries SET state = 'busted', busted_at = :at WHERE id = ANY(:ids) AND state = 'active'"
            ),
            {"at": at, "ids": entry_ids},
        )


def arrive(session: Session, tournament_id: int, player_id: int, now: datetime) -> dict:
    """The floor marks an absent player arrived: the dead stack stops paying and is theirs."""
    reg = session.execute(
        select(Registration)
        .where(Registration.tournament_id == tournament_id, Registration.player_id == player_id)
        .where(Registration.status == "active")
        .with_for_update()
    ).scalar_one_or_none()
    if reg is None:
        raise DomainError(
            "arrive-not-registered",
            "player %(player_id)s is not registered in tournament %(tournament_id)s",
            player_id=player_id,
            tournament_id=tournament_id,
        )
    stack = session.execute(
        select(DeadStack).where(DeadStack.registration_id == reg.id).with_for_update()
    ).scalar_one_or_none()
    if stack is None:
        raise DomainError(
            "arrive-no-dead-stack",
            "player %(player_id)s has no dead stack in tournament %(tournament_id)s: check them in at the counter",
            player_id=player_id,
            tournament_id=tournament_id,
        )
    if stack.busted_at is not None:
        raise DomainError(
            "arrive-busted",
            "player %(player_id)s's dead stack was blinded out at %(busted_at)s",
            player_id=player_id,
            busted_at=stack.busted_at,
        )
    if stack.arrived_at is not None:
        raise DomainError(
            "arrive-already-arrived",
            "player %(player_id)s arrived at %(arrived_at)s",
            player_id=player_id,
            arrived_at=stack.arrived_at,
        )
    stack.arrived_at = now
    if reg.checked_in_at is None:
        reg.checked_in_at = now
    session.add(
        AuditEvent(
            tournament_id=tournament_id,
            player_id=player_id,
            kind="dead-stack-arrived",
            at=now,
            data={"entry_id": stack.entry_id, "chips": stack.chips},
        )
    )
    return {
        "tournament_id": tournament_id,
        "player_id": player_id,
        "entry_id": stack.entry_id,
        "chips": stack.chips,
        "arrived_at": now,
    }
