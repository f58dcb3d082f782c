"""`tourney simulate`: drives a live poker tournament and/or a Pusoy Dos tournament to their end
through the real services and jobs, with a seeded RNG (domain/simulate/rules/script.py decides, every action goes
through domain/simulate/services/demo.py, i.e. the services the CLI calls).

Time, two ways:
- **wall clock** (`--speed 1`, the default; `make run`'s demo): actions happen at their real
  instants; the served deployments (`tourney serve`) record level changes, process no-shows,
  finalize and publish on their schedules, and the simulator also starts a run of
  `process-no-shows`, `finalize-tournaments` and `publish-results` at the moment each is due (a
  deployment run when served, else the flow in this process), so nothing waits for a sweep.
  Compression comes from the tournament itself (one-minute levels).
- **virtual time** (any other `--speed`: S simulated seconds a real second; `0` = no waiting at all,
  for tests and load tests): the simulator keeps its own `now`, passes it to every service, and runs
  the timed jobs itself in this process with that `now` (`advance-clocks` at each level change,
  `process-no-shows` at the late-registration close, `finalize-tournaments` after the void window,
  `publish-results` at the end), each a real flow run reporting to the Prefect API.
`complete-rounds` runs in this process after the last report of a round, as `tourney pusoy report`
does, in both modes."""

from __future__ import annotations

import random
import time
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta

from domain.errors import DomainError
from domain.ops.services import run_tags
from domain.poker.services import clock as clock_service
from domain.pusoy.services.rows import find
from domain.simulate.rules.script import (
    ADDON,
    BUST,
    CHECKIN,
    REENTRY,
    game_finishes,
    no_shows,
    poker_script,
)
from domain.simulate.services.demo import (
    poker_facts,
    poker_status,
    poker_step,
    pusoy_next_games,
    pusoy_report,
    pusoy_status,
    start_poker,
)
from domain.store.db import unit_of_work

TICK = timedelta(seconds=20)


class WallClock:
    live = True

    def now(self) -> datetime:
        return datetime.now(UTC)

    def wait_until(self, at: datetime) -> None:
        time.sleep(max(0.0, (at - self.now()).total_seconds()))


class VirtualClock:
    live = False

    def __init__(self, start: datetime, speed: float):
        self._now, self.speed = start, speed

    def now(self) -> datetime:
        return self._now

    def wait_until(self, at: datetime) -> None:
        if at > self._now:
            if self.speed > 0:
                time.sleep((at - self._now).total_seconds() / self.speed)
            self._now = at


def run_job(name: str, clock, tags: Iterable[str] = (), **params) -> str:
    """One job run, tagged with `tags` (the tournament's it is for; flows/tags.py): in virtual time
    the flow in this process with the simulator's `now`; on the wall clock a run of the served
    deployment at once (`flows.runs.run_now`, one per job and minute; the jobs' sweeps need no
    parameters), else the flow in this process."""
    from prefect import tags as prefect_tags

    from flows.deployments import job
    from flows.runs import run_now

    j = job(name)
    if clock.live:
        said = run_now(name, f"simulate-{name}-{clock.now():%Y%m%d%H%M}", tags)
        if said.endswith("started"):
            return said
        try:
            with prefect_tags(*tags):
                return f"{name} ran in this process: {_brief(j.flow())}"
        except Exception as exc:  # no API either: the served schedule covers it
            return f"{said} ({exc.__class__.__name__} running it here)"
    with prefect_tags(*tags):
        return f"{name}: {_brief(j.flow(**params, now=clock.now()))}"


def _brief(result: object) -> str:
    """A job's result in one short line: each list by its length."""
    if not isinstance(result, dict):
        return str(result)
    return ", ".join(f"{k} {len(v) if isinstance(v, (list, tuple)) else v}" for k, v in result.items())


@dataclass
class Tally:
    done: Counter = field(default_factory=Counter)  # checkin, bust, reentry, addon, game, no-show
    refused: list[str] = field(default_factory=list)


def simulate(
    *,
    poker_id: int | None,
    pusoy_code: str | None,
    seed: int,
    speed: float = 1.0,
    play: timedelta = timedelta(minutes=4),
    absent: int = 3,
    timeout: timedelta = timedelta(minutes=30),
    say: Callable[[str], None] = print,
    start: datetime | None = None,
) -> dict:
    """Drive both tournaments to their end and publish their documents; returns a summary.
    `start`: where virtual time begins (default: now)."""
    clock = WallClock() if speed == 1 else VirtualClock(start or datetime.now(UTC).replace(microsecond=0), speed)
    rng = random.Random(seed)
    tally = Tally()
    give_up = clock.now() + timeout

    def log(what: str) -> None:
        say(f"{clock.now():%H:%M:%S} {what}")

    def attempt(what: str, action: Callable[..., object]) -> object:
        try:
            with unit_of_work() as session:
                return action(session)
        except DomainError as exc:
            tally.refused.append(f"{what}: {exc.message}")
            log(f"refused ({what}): {exc.message}")
            return None

    # -- the plan ---------------------------------------------------------------------------------
    script: list = []
    moments: dict[str, datetime] = {}
    poker_done = poker_id is None
    poker_tags = () if poker_id is None else _read(lambda s: run_tags.poker_tags(s, [poker_id]))[poker_id]
    final_table_from = None
    if poker_id is not None:
        with unit_of_work() as session:
            facts = poker_facts(session, poker_id, clock.now(), play)
        absent_ones = no_shows(rng, facts.arriving, absent) if facts.status == "registration_open" else ()
        tally.done["no-show"] = len(absent_ones)
        arriving = [p for p in facts.arriving if p not in absent_ones]
        script = list(poker_script(rng, arriving, facts.times, facts.in_play))
        if facts.status == "registration_open":
            moments["start"] = facts.times.start
        if facts.status in ("registration_open", "running"):
            moments["no-shows"] = max(facts.times.late_close, facts.times.start)
        final_table_from = max(x for x in (facts.times.late_close, facts.times.reentry_until) if x is not None)
        last_bust = max((s.at for s in script if s.kind == BUST), default=facts.times.start)
        moments["finalize"] = last_bust + facts.void_window + timedelta(seconds=1)
        log(f"poker {poker_id}: {len(arriving)} to check in, no-shows {', '.join(absent_ones) or 'none'}; "
            f"start {facts.times.start:%H:%M:%S}, last bust {last_bust:%H:%M:%S}")
        poker_done = facts.status in ("finished", "cancelled")
    pusoy_done = pusoy_code is None
    if pusoy_code is not None:
        moments["pusoy"] = clock.now()
        with unit_of_work() as session:
            pusoy_done = pusoy_status(session, pusoy_code) in ("complete", "cancelled")

    # -- the loop ---------------------------------------------------------------------------------
    finalize_next = clock.now()
    while clock.now() < give_up:
        now = clock.now()
        if "start" in moments and now >= moments["start"]:
            del moments["start"]
            drawn = attempt("start", lambda s: start_poker(s, poker_id, now, f"simulate-{seed}"))
            if drawn is not None:
                log(f"poker {poker_id}: started, {len(drawn['seats'])} seated by lot, clock running")
            if not clock.live:
                moments["advance"] = now
        while script and script[0].at <= now and (script[0].kind == CHECKIN or "start" not in moments):
            step = script.pop(0)
            said = attempt(f"{step.kind} {step.player}", lambda s: poker_step(s, poker_id, step, now, f"simulate-{seed}",
                                                                  final_table_from))
            if said is not None:
                tally.done[step.kind] += 1
                log(f"poker {poker_id}: {said}")
        if "no-shows" in moments and now >= moments["no-shows"]:
            del moments["no-shows"]
            log(run_job("process-no-shows", clock, poker_tags, tournament_id=poker_id))
        if "advance" in moments and now >= moments["advance"]:
            log(run_job("advance-clocks", clock, poker_tags, tournament_id=poker_id))
            ends = _read(lambda s: clock_service.status(s, poker_id, now).get("level_ends_at"))
            moments["advance"] = ends if ends and ends > now else now + timedelta(days=1)
        if not poker_done and "finalize" in moments and now >= moments["finalize"]:
            if now >= finalize_next:  # on the wall clock a run a minute, checked every 5 s
                log(run_job("finalize-tournaments", clock, poker_tags))
                finalize_next = now + (timedelta(minutes=1) if clock.live else TICK)
            poker_done = _read(lambda s: poker_status(s, poker_id)) == "finished"
            moments["finalize"] = now + (timedelta(seconds=5) if clock.live else TICK)
            if poker_done:
                log(f"poker {poker_id}: finished")
        if not pusoy_done and now >= moments["pusoy"]:
            pusoy_done = _pusoy_tick(pusoy_code, rng, now, tally, log, attempt)
            moments["pusoy"] = now + TICK
        if poker_done and pusoy_done:
            break
        upcoming = [m for k, m in moments.items() if not (k == "pusoy" and pusoy_done)
                    and not (k in ("finalize", "advance") and poker_done)]
        upcoming += [script[0].at] if script else []
        clock.wait_until(min([*upcoming, give_up]))
    else:
        log("gave up: the time limit passed before both tournaments finished")

    published = _publish(poker_id, pusoy_code, clock, log, give_up) if poker_done and pusoy_done else []
    return {
        "seed": seed,
        "time": "wall clock" if clock.live else f"virtual (speed {speed:g})",
        "poker": None if poker_id is None else {
            "tournament_id": poker_id, "status": _read(lambda s: poker_status(s, poker_id)),
            "checked_in": tally.done[CHECKIN], "no_shows": tally.done["no-show"], "busts": tally.done[BUST],
            "reentries": tally.done[REENTRY], "addons": tally.done[ADDON],
        },
        "pusoy": None if pusoy_code is None else {
            "code": pusoy_code, "status": _read(lambda s: pusoy_status(s, pusoy_code)), "games": tally.done["game"],
        },
        "documents": published,
        "refused": tally.refused,
    }


def _read(fn):
    with unit_of_work() as session:
        return fn(session)


def _pusoy_tick(code, rng, now, tally, log, attempt) -> bool:
    """Report the next game of every table; complete the round at once when it is ready."""
    games = _read(lambda s: pusoy_next_games(s, code))
    ready = False
    for game in games:
        finishes, diamond = game_finishes(rng, game.seated)
        done = attempt(f"report {code} r{game.round_no} t{game.table}",
                       lambda s: pusoy_report(s, code, game, finishes, diamond, now))
        if done is not None:
            tally.done["game"] += 1
            ready = ready or bool(done)
    if games:
        what = f"round {games[0].round_no}" + (f" playoff {games[0].playoff}" if games[0].playoff else "")
        log(f"pusoy {code}: {what}, {len(games)} game(s) reported")
    if ready:
        from flows.jobs.pusoy import complete_now

        tid = _read(lambda s: find(s, code).id)
        try:
            for c in complete_now(tid):
                log(f"pusoy {code}: complete-rounds: round {c['round']} {c['outcome']}"
                    + (f", champion {c['champion']}" if c.get("champion") else ""))
        except Exception as exc:  # no API: the every-minute sweep completes the round
            log(f"pusoy {code}: complete-rounds not run here ({exc.__class__.__name__}); the sweep completes it")
    status = _read(lambda s: pusoy_status(s, code))
    if status == "complete":
        log(f"pusoy {code}: complete")
    return status in ("complete", "cancelled")


def _publish(poker_id, pusoy_code, clock, log, give_up) -> list[dict]:
    """Run publish-results and wait (wall clock) until both tournaments' documents are stored."""
    from domain.documents.services.records import documents_of, publications

    wanted, tags = set(), set()
    with unit_of_work() as session:
        if poker_id is not None:
            wanted.add(("poker", poker_id))
            tags.update(run_tags.poker_tags(session, [poker_id])[poker_id])
        if pusoy_code is not None:
            pusoy_id = find(session, pusoy_code).id
            wanted.add(("pusoy", pusoy_id))
            tags.update(run_tags.pusoy_tags(session, [pusoy_id])[pusoy_id])
    log(run_job("publish-results", clock, sorted(tags)))
    while True:
        with unit_of_work() as session:
            found = [p for p in publications(session) if (p.source, p.tournament_id) in wanted]
            rows = [
                {"source": p.source, "tournament_id": p.tournament_id, "folder": p.folder,
                 "files": [d.filename for d in documents_of(session, p.id)], "delivery": p.state}
                for p in found
            ]
        if len(rows) == len(wanted) or not clock.live or datetime.now(UTC) >= give_up:
            break
        time.sleep(5)
    for row in rows:
        log(f"documents of {row['source']} {row['tournament_id']}: {', '.join(row['files'])} in outbox/{row['folder']}")
    return rows
