"""The clock's services: the floor's transitions, the status read, the add-on gate's break count,
and `advance_clocks` — the batch that records due level changes and break events and charges dead
stacks, for one tournament or every running one in a constant number of statements.

Every path records events through `record_events`: insert on the event's natural key, ON CONFLICT
DO NOTHING, and only the rows actually inserted go on to charge dead stacks — so running anything
twice, late or concurrently records each event and makes each charge once (SP-8).
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from datetime import datetime

from sqlalchemy import Select, func, select, text
from sqlalchemy.orm import Session

from domain.errors import DomainError, Word
from domain.poker.rules import clock as pure
from domain.poker.rules.clock_model import (
    Clock,
    ClockEvent,
    Level,
    Loaded,
    Override,
    Pause,
    Reading,
    Segment,
)
from domain.poker.rules.noshow import DEFAULT_HANDS_PER_HOUR
from domain.poker.services.due import CLOCKS, notify
from domain.poker.services.noshow import charge_dead_stacks
from domain.poker.services.tournaments import get_tournament
from domain.poker.tables.clock_seating import Clock as ClockRow
from domain.poker.tables.tournaments import Level as LevelRow
from domain.poker.tables.tournaments import Structure, Tournament
from domain.store import live
from domain.store.db import hold

# The floor's transitions of one tournament queue on this lock, then lock the clock row; the batch
# job locks clock rows (skipping held ones) and then, for a dead stack's bust, the tournament row.
CLOCK_LOCK = 7411401

ACTIONS = {
    "pause": pure.pause,
    "resume": pure.resume,
    "next": pure.next_level,
    "prev": pure.prev_level,
    "reset": pure.reset_level,
}


# -- (de)serialising the stored state --------------------------------------------------------------


def _ts(value: str) -> datetime:
    return datetime.fromisoformat(value)


def decode(segments: list, pauses: list, overrides: list) -> Clock:
    return Clock(
        segments=tuple(Segment(level, _ts(at)) for level, at in segments),
        pauses=tuple(Pause(_ts(s), None if e is None else _ts(e)) for s, e in pauses),
        overrides=tuple(Override(level, _ts(at), s, b, a) for level, at, s, b, a in overrides),
    )


def encode(clock: Clock) -> dict:
    return {
        "segments": [[s.level, s.start.isoformat()] for s in clock.segments],
        "pauses": [[p.start.isoformat(), None if p.end is None else p.end.isoformat()] for p in clock.pauses],
        "overrides": [[o.level, o.at.isoformat(), o.small, o.big, o.ante] for o in clock.overrides],
    }


def levels_by_structure(session: Session, structure_ids: Iterable[int]) -> dict[int, tuple[Level, ...]]:
    rows = session.execute(  # columns, not entities: the batch job reads levels at every level change
        select(
            LevelRow.structure_id,
            LevelRow.small_blind,
            LevelRow.big_blind,
            LevelRow.ante,
            LevelRow.duration_seconds,
            LevelRow.is_break,
        )
        .where(LevelRow.structure_id.in_(set(structure_ids)))
        .order_by(LevelRow.structure_id, LevelRow.position)
    )
    out: dict[int, list[Level]] = {}
    for r in rows:
        out.setdefault(r.structure_id, []).append(
            Level(r.small_blind, r.big_blind, r.ante, r.duration_seconds, r.is_break)
        )
    return {k: tuple(v) for k, v in out.items()}


def _load(session: Session, t: Tournament, lock: bool) -> tuple[ClockRow | None, Loaded]:
    stmt = select(ClockRow).where(ClockRow.tournament_id == t.id)
    row = session.execute(stmt.with_for_update() if lock else stmt).scalar_one_or_none()
    ante_type = hold(session, session.get_one(Structure, t.structure_id)).ante_type
    levels = levels_by_structure(session, [t.structure_id]).get(t.structure_id, ())
    clock = decode(row.segments, row.pauses, row.overrides) if row else Clock()
    hands = row.hands_per_hour if row else DEFAULT_HANDS_PER_HOUR
    return row, Loaded(t.id, clock, levels, ante_type, hands)


# -- reading ---------------------------------------------------------------------------------------


def stopped_at(t: Tournament) -> datetime | None:
    """The instant the clock stopped with the tournament: its finish (or cancellation); None while it
    has not ended."""
    return {"finished": t.finished_at, "cancelled": t.cancelled_at}.get(t.status)


def status(session: Session, tournament_id: int, now: datetime) -> dict:
    """The clock at `now`; a finished or cancelled tournament's clock as it stood at that instant,
    stopped (`stopped_at`): it never advances after the end."""
    t = get_tournament(session, tournament_id)
    _, loaded = _load(session, t, lock=False)
    return _status(t, loaded, now)


def _status(t: Tournament, loaded: Loaded, now: datetime) -> dict:
    at = min(now, stopped_at(t) or now)  # the clock stops with the tournament
    reading = reading_dict(t.id, pure.read(loaded.clock, loaded.levels, at), len(loaded.levels))
    if t.status in ("finished", "cancelled"):  # stopped: say so, not "running", and no level ends
        reading |= {"status": t.status, "level_ends_at": None, "next_break_at": None}
    return reading


def status_and_upcoming(session: Session, tournament_id: int, now: datetime) -> tuple[dict, dict | None]:
    """The clock's status at `now` and the next level to be played (`_upcoming`), from one read of the
    clock (the club's screen shows both); stopped at the tournament's end, as `status`."""
    t = get_tournament(session, tournament_id)
    _, loaded = _load(session, t, lock=False)
    return _status(t, loaded, now), _upcoming(loaded, min(now, stopped_at(t) or now))


def furthest_level(session: Session, tournament_id: int, now: datetime) -> int | None:
    """The furthest level the clock has reached by `now` (its count + 1 once exhausted; None before
    the start), for the `rebuy_until_level` window (SP-12): stepping the clock back does not lower it."""
    t = get_tournament(session, tournament_id)
    _, loaded = _load(session, t, lock=False)
    return pure.furthest_level(loaded.clock, loaded.levels, now)


def _upcoming(loaded: Loaded, now: datetime) -> dict | None:
    """The next level to be played after the one the clock shows at `now` (before the start: the
    first), with its blinds and ante as they stand; None when no level to play is left."""
    reading = pure.read(loaded.clock, loaded.levels, now)
    index = pure.next_play_level(loaded.levels, reading.level)
    if index is None:
        return None
    small, big, ante = pure.blinds_at(loaded.clock, loaded.levels, index, now)
    return {"level": index + 1, "small_blind": small, "big_blind": big, "ante": ante}


def topup_gates(session: Session, tournament_id: int, now: datetime) -> tuple[int | None, int]:
    """The furthest level reached and the breaks passed at `now`, from one read of the clock: what the
    rebuy window (SP-12) and the add-on gate (3.1) are judged by, as `desk.rebuy` and `desk.add_on` do."""
    t = get_tournament(session, tournament_id)
    _, loaded = _load(session, t, lock=False)
    return pure.furthest_level(loaded.clock, loaded.levels, now), pure.read(
        loaded.clock, loaded.levels, now
    ).breaks_passed


def breaks_reached(session: Session, tournament_id: int, now: datetime) -> int:
    """The add-on gate's "at the N-th break" count (3.1, 3.5): breaks passed at `now`."""
    t = get_tournament(session, tournament_id)
    _, loaded = _load(session, t, lock=False)
    return pure.read(loaded.clock, loaded.levels, now).breaks_passed


def reading_dict(tournament_id: int, r: Reading, level_count: int) -> dict:
    def seconds(value) -> int | None:
        return None if value is None else int(value.total_seconds())

    return {
        "tournament_id": tournament_id,
        "status": r.status,
        "level": r.level_number,
        "levels": level_count,
        "is_break": r.is_break,
        "small_blind": r.small,
        "big_blind": r.big,
        "ante": r.ante,
        "time_left_s": seconds(r.time_left),
        "level_ends_at": r.level_ends_at,
        "next_break_in_s": seconds(r.next_break_in),
        "next_break_at": r.next_break_at,
        "breaks_passed": r.breaks_passed,
        "at": r.at,
    }


# -- the floor's transitions -----------------------------------------------------------------------


def act(
    session: Session,
    tournament_id: int,
    action: str,
    now: datetime,
    *,
    small: int | None = None,
    big: int | None = None,
    ante: int | None = None,
    hands_per_hour: int | None = None,
) -> dict:
    """start | pause | resume | next | prev | reset | override, recorded with its events."""
    session.execute(select(func.pg_advisory_xact_lock(CLOCK_LOCK, tournament_id)))
    t = get_tournament(session, tournament_id)
    if t.status != "running":
        raise DomainError(
            "clock-tournament-not-running",
            "tournament %(tournament_id)s is %(status)s, not running",
            tournament_id=t.id,
            status=Word(t.status.replace("_", " ")),
        )
    row, loaded = _load(session, t, lock=True)
    if action == "start":
        if hands_per_hour is not None and hands_per_hour <= 0:
            raise DomainError(
                "clock-bad-hands-per-hour",
                "hands per hour must be above 0, not %(hands_per_hour)s",
                hands_per_hour=hands_per_hour,
            )
        step = pure.start(loaded.clock, loaded.levels, now)
        row = ClockRow(tournament_id=t.id, hands_per_hour=hands_per_hour or DEFAULT_HANDS_PER_HOUR)
        session.add(row)
    elif action == "override":
        if None in (small, big, ante):
            raise DomainError("clock-bad-blinds", "an override names the small blind, the big blind and the ante")
        step = pure.override(loaded.clock, loaded.levels, now, small, big, ante)  # type: ignore[arg-type]
    elif action in ACTIONS:
        step = ACTIONS[action](loaded.clock, loaded.levels, now)
    else:
        raise DomainError("clock-unknown-action", "unknown clock action '%(action)s'", action=action)
    assert row is not None
    for key, value in encode(step.clock).items():
        setattr(row, key, value)
    row.next_change_at = pure.next_change_at(step.clock, loaded.levels, now)
    row.updated_at = now
    session.flush()
    notify(session, "clock", t.id)  # the timekeeper reads the next change again when this commits
    updated = Loaded(t.id, step.clock, loaded.levels, loaded.ante_type, row.hands_per_hour)
    record_events(session, [(updated, pure.events_until(step.clock, loaded.levels, now))], now)
    out = reading_dict(t.id, pure.read(step.clock, loaded.levels, now), len(loaded.levels))
    out["events"] = [event_dict(e) for e in step.events]
    return out


def event_dict(e: ClockEvent) -> dict:
    return {"kind": e.kind, "level": e.level + 1, "break_number": e.break_number, "at": e.at}


# -- recording events and the batch job ------------------------------------------------------------


INSERT_EVENTS_SQL = """
INSERT INTO poker_clock_events (tournament_id, segment, kind, level, break_number, at, recorded_at)
SELECT * FROM jsonb_to_recordset(CAST(:rows AS jsonb)) AS v(tournament_id bigint, segment integer,
  kind text, level integer, break_number integer, at timestamptz, recorded_at timestamptz)
ON CONFLICT ON CONSTRAINT uq_poker_clock_events_tournament_id_segment_kind_level_at DO NOTHING
RETURNING id, tournament_id, kind, level, at
"""


def record_events(session: Session, batch: Sequence[tuple[Loaded, Sequence[ClockEvent]]], now: datetime) -> list[dict]:
    """Insert every event once (by its natural key); charge dead stacks for the level starts that
    were new. Returns the rows inserted."""
    rows = [
        {
            "tournament_id": loaded.tournament_id,
            "segment": e.segment,
            "kind": e.kind,
            "level": e.level + 1,
            "break_number": e.break_number,
            "at": e.at,
            "recorded_at": now,
        }
        for loaded, events in batch
        for e in events
    ]
    if not rows:
        return []
    # one statement however many rows (a single JSON parameter, not a VALUES list per row)
    inserted = [
        dict(r._mapping)
        for r in session.execute(
            text(INSERT_EVENTS_SQL),
            {
                "rows": json.dumps(
                    [r | {"at": r["at"].isoformat(), "recorded_at": r["recorded_at"].isoformat()} for r in rows]
                )
            },
        )
    ]
    by_id = {loaded.tournament_id: loaded for loaded, _ in batch}
    starts = [r for r in inserted if r["kind"] == "level-started"]
    if starts:
        charge_dead_stacks(session, by_id, starts, now)
    return inserted


def _due(now: datetime, tids: Sequence[int] | None) -> Select:
    """The clocks due at `now` (CLOCKS), of `tids` when given, with their structure's ante type."""
    return CLOCKS.batch(
        ClockRow.tournament_id,
        ClockRow.segments,
        ClockRow.pauses,
        ClockRow.overrides,
        ClockRow.hands_per_hour,
        Tournament.structure_id,
        Structure.ante_type,
        where=CLOCKS.due(now),
        ids=tids,
        source=CLOCKS.source.join(Structure.__table__, Structure.id == Tournament.structure_id),
    )


def advance_clocks(session: Session, now: datetime, tournament_id: int | Sequence[int] | None = None) -> list[dict]:
    """Record the due level changes and break events of every running tournament (or of one, or of
    some), charge dead stacks, and set each clock's next change. Clocks another run holds are
    skipped (that run does them). Returns one summary per tournament handled."""
    tids = [tournament_id] if isinstance(tournament_id, int) else tournament_id
    due = session.execute(_due(now, tids)).all()
    if not due:
        return []
    levels = levels_by_structure(session, {r.structure_id for r in due})
    batch = []
    for r in due:
        clock = decode(r.segments, r.pauses, r.overrides)
        loaded = Loaded(r.tournament_id, clock, levels.get(r.structure_id, ()), r.ante_type, r.hands_per_hour)
        batch.append((loaded, pure.events_until(clock, loaded.levels, now)))
    inserted = record_events(session, batch, now)
    nexts = {loaded.tournament_id: pure.next_change_at(loaded.clock, loaded.levels, now) for loaded, _ in batch}
    session.execute(
        text(
            "UPDATE poker_clock c SET next_change_at = v.next, updated_at = :now "
            "FROM jsonb_to_recordset(CAST(:rows AS jsonb)) AS v(tid bigint, next timestamptz) "
            "WHERE c.tournament_id = v.tid"
        ),
        {
            "now": now,
            "rows": json.dumps([{"tid": k, "next": v.isoformat() if v else None} for k, v in nexts.items()]),
        },
    )
    counts: dict[int, list[dict]] = {}
    for row in inserted:
        counts.setdefault(row["tournament_id"], []).append(row)
    live.changed(session, *(live.poker(tid) for tid in sorted(counts)))  # a level's start: the desks' clocks
    return [
        {
            "tournament_id": loaded.tournament_id,
            "events": len(counts.get(loaded.tournament_id, [])),
            "levels_started": [
                r["level"]
                for r in sorted(counts.get(loaded.tournament_id, []), key=lambda r: (r["at"], r["id"]))
                if r["kind"] == "level-started"
            ],
            "next_change_at": nexts[loaded.tournament_id],
        }
        for loaded, _ in batch
    ]
