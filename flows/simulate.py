"""`tourney simulate`: drives a live poker tournament and/or a Pusoy Dos tournament to their end
through the real services and jobs, with a seeded RNG (domain/simulate/rules/script.py decides).

Every write of the script goes through one small port, `Hands` (start, a floor step, a join, a
game's report), with two adapters:
- **over the API** (`flows/simulate_api.py`, on the wall clock): real HTTP to the running web app
  (`tourney web`, at TOURNEY_PUBLIC_URL), as the desk, the players and a game server do: the live
  tournament's start, check-ins, busts, re-entries, add-ons and final table with a floor manager's
  token of the tournament's club, each cup player's join with their own player token, and the
  games with a game server's token bound to the cup. The tokens are made when the simulator starts
  (`simulator_tokens`, the service of `tourney token create`), held only in its memory and revoked
  when it stops. The API acts at the server's now; its refusals (`{"error", "message"}`) are tallied
  like the services'; a call is retried on connection errors only.
- **in process** (`InProcess`, in virtual time): the same use cases the API's operations call,
  each in its own transaction at the simulator's `now` (the API cannot act at another instant).

Time, two ways:
- **wall clock** (`--speed 1`, the default; `make run`'s demo): actions happen at their real
  instants, over the API; the served deployments (`tourney serve`) record level changes, process no-shows,
  finalize and publish on their schedules, and the simulator also starts a run of
  `process-no-shows`, `finalize-tournaments` and `publish-results` at the moment each is due (a
  deployment run when served, else the flow in this process), so nothing waits for a sweep.
  Compression comes from the tournament itself (one-minute levels).
- **virtual time** (any other `--speed`: S simulated seconds a real second; `0` = no waiting at all,
  for tests and load tests): the simulator keeps its own `now`, passes it to every service, and runs
  the timed jobs itself in this process with that `now` (`advance-clocks` at each level change,
  `process-no-shows` at the late-registration close, `finalize-tournaments` after the void window,
  `publish-results` at the end), each a real flow run reporting to the Prefect API.
`complete-rounds` runs at a round's last report in both modes: in the web app, as the report
operation does, over the API; in this process, as `tourney pusoy report` does, in virtual time.
On the wall clock the cup's players and game server act in a thread of their own (`Cup`), so the
floor's script keeps its instants while a round's last report waits for its completion.
A demo cup that is filling is joined by its players (`cup_joiners`) at the first Pusoy Dos tick."""

from __future__ import annotations

import random
import threading
import time
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import TYPE_CHECKING, Protocol

from domain.access.services import audit
from domain.errors import DomainError
from domain.ops.services import run_tags
from domain.poker.services import clock as clock_service
from domain.pusoy.services import setup as pusoy_setup
from domain.pusoy.services.rows import find
from domain.simulate.rules.script import (
    ADDON,
    BUST,
    CHECKIN,
    REENTRY,
    game_finishes,
    no_shows,
    poker_script,
    started_late,
)
from domain.simulate.services.demo import (
    TICK,
    Game,
    Tokens,
    cup_joiners,
    poker_facts,
    poker_status,
    poker_step,
    pusoy_next_games,
    pusoy_report,
    pusoy_status,
    revoke_simulator_tokens,
    simulator_tokens,
    start_poker,
)
from domain.webhooks.rules.endpoints import ROUND_READY
from flows import bootstrap

if TYPE_CHECKING:
    from flows.simulate_api import OverApi


class Hands(Protocol):
    """The simulator's writes (the port): each acts once, returns what it did, and raises the
    `DomainError` of a refusal (its code and message), whichever way it acts."""

    def start(self, tournament_id: int, now: datetime, seed: str) -> int:
        """Start the live tournament (seats by lot, the clock): how many were seated."""

    def poker_step(self, tournament_id: int, step, now: datetime, seed: str, final_table_from: datetime | None) -> str:
        """One scripted floor action (and the final table it makes due): what happened, in words."""

    def join(self, code: str, player: str, now: datetime) -> bool:
        """A player joins a filling cup: whether it started."""

    def report(self, code: str, game: Game, finishes, two_of_diamonds: str | None, now: datetime) -> bool:
        """One table's game: whether it was its round's (or playoff's) last."""


class InProcess:
    """The port over the use cases themselves, each in its own transaction at the simulator's `now`,
    audited as the simulator (AC-3) in that transaction (over the API, the API audits its callers)."""

    def start(self, tournament_id, now, seed):
        return len(
            _audited("start", now, lambda s: start_poker(s, tournament_id, now, seed), poker=tournament_id)["seats"]
        )

    def poker_step(self, tournament_id, step, now, seed, final_table_from):
        return _audited(
            f"{step.kind} {step.player}",
            now,
            lambda s: poker_step(s, tournament_id, step, now, seed, final_table_from),
            poker=tournament_id,
        )

    def join(self, code, player, now):
        return _audited(f"join {player}", now, lambda s: pusoy_setup.join(s, code, player, now).started, cup=code)

    def report(self, code, game, finishes, two_of_diamonds, now):
        what = f"report {code} r{game.round_no} t{game.table}"
        return _audited(what, now, lambda s: pusoy_report(s, code, game, finishes, two_of_diamonds, now), cup=code)


def _rounds_completed(now: datetime) -> list[str]:
    """The round a last report made ready, completed at the simulator's `now` by the event consumer's
    own reaction (its `round.ready`; in virtual time no other consumer would complete it at that
    instant, and one that is running finds it done): what it did."""
    from flows.jobs.events import Consumer

    consumer = Consumer(now=lambda: now)
    try:
        return consumer.drain([ROUND_READY])
    finally:
        consumer.engine.dispose()


def _audited(what: str, now: datetime, action, *, poker: int | None = None, cup: str | None = None):
    """`action(session)` in one transaction with its audit row as `system:simulator` (AC-3): the poker
    tournament's, or the cup's."""
    with bootstrap.unit_of_work() as session:
        done = action(session)
        audit.record_if_written(
            session,
            audit.system("system:simulator"),
            f"simulate {what.split()[0]}",
            now,
            poker=[poker] if poker is not None else [],
            pusoy=[find(session, cup).id] if cup else [],
            data={"step": what},
        )
        return done


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
    done: Counter = field(default_factory=Counter)  # checkin, bust, reentry, addon, join, game, no-show
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
    tick: timedelta = TICK,
    api: str | None = None,
) -> dict:
    """Drive both tournaments to their end and publish their documents; returns a summary.
    `start`: where virtual time begins (default: now); `tick`: the script's beat (busts, a Pusoy Dos
    game a table); `api`: the web app's address on the wall clock (default TOURNEY_PUBLIC_URL)."""
    clock = WallClock() if speed == 1 else VirtualClock(start or datetime.now(UTC).replace(microsecond=0), speed)
    joiners = _read(lambda s: cup_joiners(s, pusoy_code)) if pusoy_code is not None else ()
    tokens = (
        _audited(
            "tokens",
            clock.now(),
            lambda s: simulator_tokens(s, poker_id, pusoy_code, joiners, clock.now()),
            poker=poker_id,
            cup=pusoy_code,
        )
        if clock.live
        else None
    )
    over = _over_api(api, tokens) if tokens is not None else None
    hands = over or InProcess()
    run = Simulation(poker_id, pusoy_code, seed, clock, random.Random(seed), clock.now() + timeout, say, hands, tick)
    run.joiners = list(joiners)
    if over is not None and tokens.owner is not None:  # the demo: its owner sets up next week first
        made = run.attempt("next week set up", lambda: over.owner_sets_up(tokens.club_id, tokens.next_week))
        if made is not None:
            run.log(
                f"the owner set up next week's tournament {made['tournament']} ({tokens.next_week.start:%Y-%m-%d %H:%M})"
            )
    # on the wall clock the cup's players and game server act in a thread of their own: the floor
    # does not wait while a round's last report completes the round (a flow run: seconds)
    cup_hands = _over_api(api, tokens) if tokens is not None and poker_id is not None and pusoy_code else None
    try:
        if poker_id is not None:
            run.plan_poker(play, absent)
        if pusoy_code is not None:
            run.plan_pusoy()
        cup = run.cup_alone(cup_hands) if cup_hands is not None else None
        while clock.now() < run.give_up:
            run.step(clock.now())
            if run.poker_done and (cup is not None or run.pusoy_done):
                break
            clock.wait_until(run.next_moment())
        if cup is not None:
            cup.join()
        if not (run.poker_done and run.pusoy_done):
            run.log("gave up: the time limit passed before both tournaments finished")
    finally:
        if tokens is not None:
            now = datetime.now(UTC)
            revoke = lambda s: revoke_simulator_tokens(s, list(tokens.names), now)  # noqa: E731
            _audited("tokens-revoked", now, revoke, poker=poker_id, cup=pusoy_code)
            for held in (hands, cup_hands):
                getattr(held, "close", lambda: None)()
    published = _publish(poker_id, pusoy_code, clock, run.log, run.give_up) if run.poker_done and run.pusoy_done else []
    return run.summary(speed, published)


def _over_api(api: str | None, tokens: Tokens) -> OverApi:
    from flows.simulate_api import OverApi

    return OverApi(f"{(api or bootstrap.settings().public_url()).rstrip('/')}/api/v1", tokens)


@dataclass
class Simulation:
    """One simulation's plan and progress: the poker script still to play, the moments still to come
    (the start, the no-shows, the next level, finalizing, the next Pusoy Dos tick) and the tally."""

    poker_id: int | None
    pusoy_code: str | None
    seed: int
    clock: WallClock | VirtualClock
    rng: random.Random
    give_up: datetime
    say: Callable[[str], None]
    hands: Hands = field(default_factory=InProcess)
    tick: timedelta = TICK
    tally: Tally = field(default_factory=Tally)
    joiners: list[str] = field(default_factory=list)  # who joins the cup while it fills
    script: list = field(default_factory=list)
    moments: dict[str, datetime] = field(default_factory=dict)
    poker_tags: tuple[str, ...] = ()
    final_table_from: datetime | None = None
    planned_start: datetime | None = None
    poker_done: bool = True
    pusoy_done: bool = True
    finalize_next: datetime | None = None

    def log(self, what: str) -> None:
        self.say(f"{self.clock.now():%H:%M:%S} {what}")

    def attempt(self, what: str, action: Callable[[], object]) -> object:
        """`action()`, one write by the hands; a refusal is tallied and logged, and the run goes on."""
        try:
            return action()
        except DomainError as exc:
            self.tally.refused.append(f"{what}: {exc.message}")
            self.log(f"refused ({what}): {exc.message}")
            return None

    # -- the plan ---------------------------------------------------------------------------------

    def plan_poker(self, play: timedelta, absent: int) -> None:
        pid, now = self.poker_id, self.clock.now()
        self.poker_tags = _read(lambda s: run_tags.poker_tags(s, [pid]))[pid]
        with bootstrap.unit_of_work() as session:
            facts = poker_facts(session, pid, now, play, self.tick)
        absent_ones = no_shows(self.rng, facts.arriving, absent) if facts.status == "registration_open" else ()
        self.tally.done["no-show"] = len(absent_ones)
        arriving = [p for p in facts.arriving if p not in absent_ones]
        self.script = list(poker_script(self.rng, arriving, facts.times, facts.in_play))
        if facts.status == "registration_open":
            self.moments["start"] = self.planned_start = facts.times.start
        if facts.status in ("registration_open", "running"):
            self.moments["no-shows"] = max(facts.times.late_close, facts.times.start)
        self.final_table_from = max(x for x in (facts.times.late_close, facts.times.reentry_until) if x is not None)
        last_bust = max((s.at for s in self.script if s.kind == BUST), default=facts.times.start)
        self.moments["finalize"] = last_bust + facts.void_window + timedelta(seconds=1)
        self.finalize_next = now
        self.log(
            f"poker {pid}: {len(arriving)} to check in, no-shows {', '.join(absent_ones) or 'none'}; "
            f"start {facts.times.start:%H:%M:%S}, last bust {last_bust:%H:%M:%S}"
        )
        self.poker_done = facts.status in ("finished", "cancelled")

    def plan_pusoy(self) -> None:
        self.moments["pusoy"] = self.clock.now()
        self.pusoy_done = _read(lambda s: pusoy_status(s, self.pusoy_code)) in ("complete", "cancelled")

    def cup_alone(self, hands: Hands) -> Cup:
        """The cup's ticks in a thread of their own, with their own `hands` (the poker script drew
        all its randomness when planned, so the seeded draws stay the cup's, in order)."""
        del self.moments["pusoy"]
        cup = Cup(self, hands)
        cup.start()
        return cup

    # -- one pass of the loop ---------------------------------------------------------------------

    def step(self, now: datetime) -> None:
        """Everything due at `now`, in order: the start, the script's actions, the timed jobs, Pusoy Dos."""
        if self._due("start", now):
            self._start(now)
        while (
            self.script and self.script[0].at <= now and (self.script[0].kind == CHECKIN or "start" not in self.moments)
        ):
            self._play(self.script.pop(0), now)
        if self._due("no-shows", now):
            self.log(run_job("process-no-shows", self.clock, self.poker_tags, tournament_id=self.poker_id))
        if "advance" in self.moments and now >= self.moments["advance"]:
            self._advance(now)
        if not self.poker_done and "finalize" in self.moments and now >= self.moments["finalize"]:
            self._finalize(now)
        if not self.pusoy_done and "pusoy" in self.moments and now >= self.moments["pusoy"]:
            self.pusoy_done = self._pusoy(now)
            self.moments["pusoy"] = now + self.tick

    def _due(self, moment: str, now: datetime) -> bool:
        """A one-off moment that has come: taken off the plan."""
        if moment in self.moments and now >= self.moments[moment]:
            del self.moments[moment]
            return True
        return False

    def _start(self, now: datetime) -> None:
        seated = self.attempt("start", lambda: self.hands.start(self.poker_id, now, f"simulate-{self.seed}"))
        if seated is not None:
            self.log(f"poker {self.poker_id}: started, {seated} seated by lot, clock running")
            self.script = list(started_late(self.script, now - self.planned_start))
        if not self.clock.live:
            self.moments["advance"] = now

    def _play(self, step, now: datetime) -> None:
        said = self.attempt(
            f"{step.kind} {step.player}",
            lambda: self.hands.poker_step(self.poker_id, step, now, f"simulate-{self.seed}", self.final_table_from),
        )
        if said is not None:
            self.tally.done[step.kind] += 1
            self.log(f"poker {self.poker_id}: {said}")

    def _advance(self, now: datetime) -> None:
        self.log(run_job("advance-clocks", self.clock, self.poker_tags, tournament_id=self.poker_id))
        ends = _read(lambda s: clock_service.status(s, self.poker_id, now).get("level_ends_at"))
        self.moments["advance"] = ends if ends and ends > now else now + timedelta(days=1)

    def _finalize(self, now: datetime) -> None:
        live = self.clock.live
        if now >= self.finalize_next:  # on the wall clock a run a minute, checked every 5 s
            self.log(run_job("finalize-tournaments", self.clock, self.poker_tags))
            self.finalize_next = now + (timedelta(minutes=1) if live else self.tick)
        self.poker_done = _read(lambda s: poker_status(s, self.poker_id)) == "finished"
        self.moments["finalize"] = now + (timedelta(seconds=5) if live else self.tick)
        if self.poker_done:
            self.log(f"poker {self.poker_id}: finished")

    def _pusoy(self, now: datetime, hands: Hands | None = None) -> bool:
        """Join the players of a filling cup; else report the next game of every table, the round
        completed at its last report."""
        code, log, hands = self.pusoy_code, self.log, hands or self.hands
        if self.joiners:
            joined = [
                p
                for p in self.joiners
                if self.attempt(f"join {code} {p}", lambda: hands.join(code, p, now)) is not None
            ]
            self.tally.done["join"] += len(joined)
            self.joiners = []
            log(f"pusoy {code}: {len(joined)} joined")
        games = _read(lambda s: pusoy_next_games(s, code))
        for game in games:
            finishes, diamond = game_finishes(self.rng, game.seated)
            done = self.attempt(
                f"report {code} r{game.round_no} t{game.table}",
                lambda: hands.report(code, game, finishes, diamond, now),
            )
            if done is not None:
                self.tally.done["game"] += 1
            for said in _rounds_completed(now) if done else ():
                log(f"pusoy {code}: {said}")
        if games:
            what = f"round {games[0].round_no}" + (f" playoff {games[0].playoff}" if games[0].playoff else "")
            log(f"pusoy {code}: {what}, {len(games)} game(s) reported")
        status = _read(lambda s: pusoy_status(s, code))
        if status == "complete":
            log(f"pusoy {code}: complete")
        return status in ("complete", "cancelled")

    def next_moment(self) -> datetime:
        upcoming = [
            m
            for k, m in self.moments.items()
            if not (k == "pusoy" and self.pusoy_done) and not (k in ("finalize", "advance") and self.poker_done)
        ]
        upcoming += [self.script[0].at] if self.script else []
        return min([*upcoming, self.give_up])

    def summary(self, speed: float, published: list[dict]) -> dict:
        done, pid, code = self.tally.done, self.poker_id, self.pusoy_code
        return {
            "seed": self.seed,
            "time": "wall clock" if self.clock.live else f"virtual (speed {speed:g})",
            "poker": None
            if pid is None
            else {
                "tournament_id": pid,
                "status": _read(lambda s: poker_status(s, pid)),
                "checked_in": done[CHECKIN],
                "no_shows": done["no-show"],
                "busts": done[BUST],
                "reentries": done[REENTRY],
                "addons": done[ADDON],
            },
            "pusoy": None
            if code is None
            else {
                "code": code,
                "status": _read(lambda s: pusoy_status(s, code)),
                "joined": done["join"],
                "games": done["game"],
            },
            "documents": published,
            "refused": self.tally.refused,
        }


class Cup(threading.Thread):
    """The cup on the wall clock, beside the floor: a tick every `tick` until it is complete or the
    run gives up. What goes wrong in it is raised again where the simulator waits for it (`join`)."""

    def __init__(self, run: Simulation, hands: Hands):
        super().__init__(name=f"simulate-cup-{run.pusoy_code}", daemon=True)
        self.sim, self.hands, self.failed = run, hands, None

    def run(self) -> None:
        sim, clock = self.sim, self.sim.clock
        try:
            while not sim.pusoy_done and clock.now() < sim.give_up:
                sim.pusoy_done = sim._pusoy(clock.now(), self.hands)
                clock.wait_until(min(clock.now() + sim.tick, sim.give_up))
        except BaseException as exc:  # noqa: BLE001 - handed to the waiting thread
            self.failed = exc

    def join(self, timeout: float | None = None) -> None:
        super().join(timeout)
        if self.failed is not None:
            raise self.failed


def _read(fn):
    with bootstrap.unit_of_work() as session:
        return fn(session)


def _publish(poker_id, pusoy_code, clock, log, give_up) -> list[dict]:
    """Run publish-results and wait (wall clock) until both tournaments' documents are stored."""
    from domain.documents.services.records import documents_of, publications

    wanted, tags = set(), set()
    with bootstrap.unit_of_work() as session:
        if poker_id is not None:
            wanted.add(("poker", poker_id))
            tags.update(run_tags.poker_tags(session, [poker_id])[poker_id])
        if pusoy_code is not None:
            pusoy_id = find(session, pusoy_code).id
            wanted.add(("pusoy", pusoy_id))
            tags.update(run_tags.pusoy_tags(session, [pusoy_id])[pusoy_id])
    log(run_job("publish-results", clock, sorted(tags)))
    while True:
        with bootstrap.unit_of_work() as session:
            found = [p for p in publications(session) if (p.source, p.tournament_id) in wanted]
            rows = [
                {
                    "source": p.source,
                    "tournament_id": p.tournament_id,
                    "folder": p.folder,
                    "files": [d.filename for d in documents_of(session, p.id)],
                    "delivery": p.state,
                }
                for p in found
            ]
        if len(rows) == len(wanted) or not clock.live or datetime.now(UTC) >= give_up:
            break
        time.sleep(5)
    for row in rows:
        log(f"documents of {row['source']} {row['tournament_id']}: {', '.join(row['files'])} in outbox/{row['folder']}")
    return rows
