"""The simulator's decisions, pure: who checks in, who busts whom and when, who re-enters, who takes
an add-on, how a Pusoy Dos table finishes. Everything comes from a seeded `random.Random` and the
times passed in, so one seed gives one script (the services then accept or refuse each step as they
would from the floor).

A live poker script is a list of `Step`s in time order, in handles (players' ids are the services'
business): check-ins from `opens` to just before `late_close`, then busts spread evenly from the
start to `finish_by` so that one player is left at `finish_by`, each killed by another player still
in; a busted player re-enters (`reentry_percent`) while `reentry_until` has not passed; at `addon_at`
some players still in take the add-on (`addon_percent`)."""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta

CHECKIN, BUST, REENTRY, ADDON = "checkin", "bust", "reentry", "addon"


@dataclass(frozen=True)
class Step:
    at: datetime
    kind: str  # checkin | bust | reentry | addon
    player: str
    killer: str | None = None


@dataclass(frozen=True)
class PokerTimes:
    opens: datetime  # check-ins begin
    start: datetime
    late_close: datetime  # check-ins stop strictly before it
    reentry_until: datetime | None  # re-entries strictly before it; None: no re-entries
    addon_at: datetime | None  # None: no add-ons
    finish_by: datetime  # the last bust
    tick: timedelta = timedelta(seconds=20)


def no_shows(rng: random.Random, registered: Sequence[str], count: int) -> tuple[str, ...]:
    """`count` registered players who never come (at most all but two), in registration order."""
    count = max(0, min(count, len(registered) - 2))
    chosen = set(rng.sample(sorted(registered), count))
    return tuple(p for p in registered if p in chosen)


def _spread(start: datetime, end: datetime, n: int) -> list[datetime]:
    """n instants from `start`, evenly before `end` (whole seconds)."""
    span = max(int((end - start).total_seconds()), 1)
    return [start + timedelta(seconds=span * i // max(n, 1)) for i in range(n)]


def poker_script(
    rng: random.Random,
    arriving: Sequence[str],
    times: PokerTimes,
    already_in: Sequence[str] = (),
    reentry_percent: int = 40,
    addon_percent: int = 50,
) -> tuple[Step, ...]:
    """The whole live tournament: `arriving` check in (in a shuffled order), `already_in` are in."""
    steps: list[Step] = []
    order = list(arriving)
    rng.shuffle(order)
    checkin_end = min(times.late_close - timedelta(seconds=1), max(times.start, times.opens + timedelta(seconds=1)))
    for at, player in zip(_spread(times.opens, checkin_end, len(order)), order):
        steps.append(Step(at, CHECKIN, player))

    alive = list(already_in) + order
    took_addon: set[str] = set()
    ticks: list[datetime] = []
    at = times.start + times.tick
    while at <= times.finish_by:
        ticks.append(at)
        at += times.tick
    if not ticks:
        ticks = [times.finish_by]
    addon_tick = next((t for t in ticks if times.addon_at is not None and t >= times.addon_at), None)
    for i, at in enumerate(ticks):
        if at == addon_tick:
            for player in sorted(alive):
                if player not in took_addon and rng.randrange(100) < addon_percent:
                    took_addon.add(player)
                    steps.append(Step(at, ADDON, player))
        left = len(ticks) - i
        for _ in range(-(-(len(alive) - 1) // left)):  # ceil: one player left at the last tick
            busted, killer = rng.sample(sorted(alive), 2)
            alive.remove(busted)
            steps.append(Step(at, BUST, busted, killer))
            # a tick's margin before the deadline: a late simulator still re-enters in time
            if (
                times.reentry_until is not None
                and at + times.tick < times.reentry_until
                and rng.randrange(100) < reentry_percent
            ):
                alive.append(busted)
                steps.append(Step(at, REENTRY, busted))
    return tuple(steps)


def started_late(steps: Sequence[Step], late: timedelta) -> tuple[Step, ...]:
    """The script after a start `late` past its plan: the add-ons move with the clock (its breaks
    come `late` later), the rest keeps its times (check-in and re-entry deadlines do not move)."""
    if late <= timedelta(0):
        return tuple(steps)
    moved = (Step(s.at + late, s.kind, s.player, s.killer) if s.kind == ADDON else s for s in steps)
    return tuple(sorted(moved, key=lambda s: s.at))


def game_finishes(
    rng: random.Random, seated: Sequence[str], two_of_diamonds_percent: int = 15
) -> tuple[tuple[tuple[str, int], ...], str | None]:
    """One Pusoy Dos game at one table: every seated player's finishing position, and the winner
    when they went out on the 2 of diamonds."""
    order = list(seated)
    rng.shuffle(order)
    finishes = tuple((player, position) for position, player in enumerate(order, start=1))
    return finishes, (order[0] if rng.randrange(100) < two_of_diamonds_percent else None)


def step_said(step: Step, seat: dict | None = None, left: int | None = None, final_table: bool = False) -> str:
    """What a floor action did, in words (the same line whichever way the simulator acted): a
    check-in with the seat it got, a bust with the players left and whether it made the final table."""
    if step.kind == CHECKIN:
        return f"{step.player} checks in" + (f" (table {seat['table']} seat {seat['seat']})" if seat else "")
    if step.kind == REENTRY:
        return f"{step.player} re-enters"
    if step.kind == ADDON:
        return f"{step.player} takes the add-on"
    return f"{step.player} busted by {step.killer} ({left} left)" + ("; final table assembled" if final_table else "")
