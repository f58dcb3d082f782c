"""The event consumer: the outbox (domain/webhooks/services/outbox.py) is the platform's bus, and this warm
process reacts to each event once (docs/jobs.md#the-event-consumer):

    round.ready          a Pusoy Dos round's (or playoff's) last report: the round completed here, at
                         once (advanced, a playoff opened, the champion crowned), no flow run; the
                         cup's followers in every web process woken by its commit (`pusoy:CODE`)
    tournament.finished  a poker tournament finalized, a cup's final locked: a `publish-results` run,
                         one per event (the event's id its idempotency key), named and tagged by
                         the tournament
    any event a delivery of which is due: a `deliver-webhooks` run (one per event)

    standby: hold a connection, poll the advisory lock until it is ours (one consumer across machines)
    active:  take the oldest event still to do, locked (`FOR UPDATE SKIP LOCKED`), react, record the
             reaction on the event in the same transaction, commit; next; then sleep until `emit`'s
             NOTIFY (sent in the change's transaction) or the catch-up read, whichever comes first
    lost the database: back to standby, reconnecting every second

Once by construction: a reaction in the database (a round completed) commits with its record or not at
all; a reaction that starts a run records it after Prefect made the run, under a key that is the same
when the reaction is tried again, so a crash between the two makes no second run. When the Prefect API
does not answer, the events whose reaction needs a run stay to do, retried with back-off, while rounds
are still completed; the consumer never holds up a request, a desk or a join.

`tourney serve` runs it in a thread (`start`); tests and `python -m flows.jobs.events` run it bare."""

from __future__ import annotations

import logging
import os
import signal
import socket
import threading
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime

from sqlalchemy import Engine
from sqlalchemy.orm import Session, sessionmaker

from domain.access.services import audit
from domain.errors import DomainError
from domain.ops.services.run_tags import poker_tags, pusoy_tags
from domain.pusoy.services import rounds
from domain.store.leader import Leader
from domain.webhooks.rules.endpoints import ROUND_READY, TOURNAMENT_FINISHED
from domain.webhooks.services import outbox
from flows import bootstrap
from flows.jobs.leading import LeaderLoop, connection_trouble

LOCK = (7411800, 2)  # the consumer's session advisory lock (the timekeeper's are (7411800, 0) and (7411800, 1))
CATCH_UP = 5.0  # seconds: the slow read under the notifications
RETRY_HELD = 0.05  # seconds before taking again a round another transaction held
BACKOFF = (1.0, 2.0, 5.0, 10.0, 30.0)  # seconds before asking an absent Prefect API again

Start = Callable[[str, str, Sequence[str], str], str]  # (deployment, idempotency key, tags, run name) -> said


class Held(Exception):
    """The event's round is held by another transaction (a report, a sweep): again shortly."""


class PrefectAway(Exception):
    """The run a reaction needs could not be made now: the event stays to do."""


def react(session: Session, event: outbox.ToReact, now: datetime, start: Start) -> str:
    """The reaction to one event, in `session`'s transaction (the event locked by it); what it did, in
    one line. `start` makes a run (raising when it cannot: then nothing of the reaction is kept)."""
    if event.kind == ROUND_READY:
        return complete(session, event.payload, now)
    said = []
    data, label = event.payload, _label(event.payload)
    tags = _tags(session, data) if event.kind == TOURNAMENT_FINISHED or event.delivering else ()
    if event.kind == TOURNAMENT_FINISHED:
        said.append(start("publish-results", f"publish-results {event.id}", tags, f"publish-results {label}"))
    if event.delivering:
        said.append(start("deliver-webhooks", f"deliver-webhooks {event.id}", tags, f"deliver-webhooks {label}"))
    return "; ".join(said) or "nothing to do"


def complete(session: Session, data: dict, now: datetime) -> str:
    """`round.ready`: the round completed (PD-5, PD-8..PD-10, PD-13) with its audit row (AC-3) and the
    cup's word to the web processes (rounds.complete_round), in this transaction."""
    tid, number = data["tournament_id"], data["round"]
    done = rounds.complete_round(session, tid, number, now)
    if done is None:
        if (tid, number) in rounds.ready_rounds(session, tid):
            raise Held(f"pusoy-{tid} round {number}")
        return f"round {number}: completed already"
    audit.record_if_written(
        session, audit.system("job:events"), "round-completed", now, pusoy=[tid], data={"round": number}
    )
    what = {
        "advanced": f"locked, {len(done.advanced)} advance",
        "champion": f"final locked, champion {done.champion}",
        "playoff": f"playoff opened at {len(done.playoff_tables)} table(s)",
    }[done.outcome]
    return f"round {number}: {what}"


def _label(data: dict) -> str:
    """Whom an event is for, as runs are named: poker-7, pusoy-3, season-2."""
    if data.get("source") == "season":
        return f"season-{data['season_id']}"
    return f"{data.get('source')}-{data.get('tournament_id')}"


def _tags(session: Session, data: dict) -> tuple[str, ...]:
    tid = data.get("tournament_id")
    if tid is None:
        return ()
    of = pusoy_tags if data.get("source") == "pusoy" else poker_tags  # a season's: its poker tournament's
    return of(session, [tid]).get(tid, ())


def wall_now() -> datetime:
    return datetime.now(UTC)


@dataclass
class Consumer(LeaderLoop):
    ROLE, LOCK, CHANNEL = "event consumer", LOCK, outbox.CHANNEL
    now: Callable[[], datetime] = wall_now
    prefect_api: str | None = None  # the Prefect API runs are made on; None: the configured one
    catch_up: float = CATCH_UP
    backoff: tuple[float, ...] = BACKOFF
    poll: float = 1.0  # a standby asks for the lock this often
    name: str = field(default_factory=lambda: f"tourney-events pid {os.getpid()} {socket.gethostname()}")
    log: logging.Logger = field(default_factory=lambda: logging.getLogger("tourney.events"))
    url: str = field(default_factory=bootstrap.database_url)
    stopping: threading.Event = field(default_factory=threading.Event)
    state: str = "starting"
    reacted: int = 0

    def __post_init__(self) -> None:
        self.engine: Engine = bootstrap.own_engine(self.url, pool_size=1, max_overflow=1, pool_pre_ping=False)
        self._sessions = sessionmaker(bind=self.engine, expire_on_commit=False)
        self._away_until, self._failures = 0.0, 0
        self.next_read = self.catch_up

    # -- the loop --------------------------------------------------------------------------------

    def _lead(self, leader: Leader) -> None:
        while not self.stopping.is_set():
            leader.check()
            self.drain()
            leader.wait(self.next_read)

    # -- the events ------------------------------------------------------------------------------

    def drain(self, kinds: Iterable[str] | None = None) -> list[str]:
        """React to every event still to do (of `kinds`, when given); what each reaction did. Sets
        `next_read`, the seconds until the next read is due: the catch-up, sooner when a round was
        held or the Prefect API is to be asked again."""
        passed: list[str] = []  # held, or failed by a fault: not again in this pass
        said: list[str] = []
        wait = self.catch_up
        while not self.stopping.is_set():
            away = time.monotonic() < self._away_until
            only = list(kinds) if kinds is not None else ([ROUND_READY] if away else None)
            try:
                done = self.react_next(only, passed)
            except Held as held:
                passed.append(held.args[1])
                wait = min(wait, RETRY_HELD)
                continue
            if done is None:
                break
            if done:
                said.append(done)
        if time.monotonic() < self._away_until:
            wait = min(wait, self._away_until - time.monotonic())
        self.next_read = max(wait, 0.0)
        return said

    def react_next(self, kinds: Sequence[str] | None = None, passed: list[str] | None = None) -> str | None:
        """React to the oldest event still to do (of `kinds`; none of `passed`) in one transaction with
        its record: what it did ("" when it stays to do); None when there is none."""
        passed = [] if passed is None else passed
        event = None
        try:
            with self._sessions.begin() as session:
                event = outbox.next_to_react(session, kinds, passed)
                if event is None:
                    return None
                now = self.now()
                try:
                    said = react(session, event, now, self._start)
                except Held as held:
                    raise Held(str(held), event.id) from None
                except PrefectAway as away:
                    passed.append(event.id)
                    self._away(str(away))
                    raise
                outbox.reacted(session, event.id, now, said)
                self.log.info("%s %s: %s", event.kind, _label(event.payload), said)
        except PrefectAway:
            return ""  # rolled back: the event stays to do
        except Exception as exc:
            if connection_trouble(exc) or isinstance(exc, Held):
                raise
            return self._refused(event, exc, passed)
        self.reacted += 1
        return said

    def _refused(self, event: outbox.ToReact | None, exc: Exception, passed: list[str]) -> str:
        """A refusal is the event's outcome (it would refuse again): recorded; a fault is logged and the
        event tried again at the next read."""
        if event is None:
            raise exc
        if not isinstance(exc, DomainError):
            self.log.exception("%s %s failed", event.kind, _label(event.payload))
            passed.append(event.id)
            return ""
        said = f"refused: {exc.code}: {exc.message}"
        with self._sessions.begin() as session:
            outbox.reacted(session, event.id, self.now(), said)
        self.log.warning("%s %s %s", event.kind, _label(event.payload), said)
        return said

    def _start(self, name: str, key: str, tags: Sequence[str], run_name: str) -> str:
        from prefect.settings import PREFECT_API_URL, temporary_settings

        from flows.runs import api_answers, start_run

        try:
            with temporary_settings({PREFECT_API_URL: self.prefect_api} if self.prefect_api else {}):
                if not api_answers():
                    raise PrefectAway("the Prefect API does not answer")
                said = start_run(name, key, tags, run_name)
        except PrefectAway:
            raise
        except Exception as exc:  # the API went away meanwhile, the deployment is not there
            raise PrefectAway(f"{name} not started: {exc.__class__.__name__}: {exc}") from exc
        if self._failures:
            self.log.info("event consumer %s: the Prefect API answers again", self.name)
        self._failures, self._away_until = 0, 0.0
        return said

    def _away(self, why: str) -> None:
        delay = self.backoff[min(self._failures, len(self.backoff) - 1)]
        if not self._failures:
            self.log.warning("event consumer %s: %s; its runs wait (asked again in %s s)", self.name, why, delay)
        self._failures += 1
        self._away_until = time.monotonic() + delay


def start() -> Consumer:
    """For `tourney serve`: the consumer in a thread of this process (`stop()` it, or it ends with
    the process: its lock goes with its connection)."""
    consumer = Consumer()
    threading.Thread(target=consumer.run, name="event-consumer", daemon=True).start()
    return consumer


def main() -> None:
    """`python -m flows.jobs.events`: the bare consumer (DATABASE_URL, PREFECT_API_URL), until SIGTERM or SIGINT."""
    logging.basicConfig(
        level=os.environ.get("TOURNEY_EVENTS_LOG", "INFO"), format="%(asctime)s %(levelname)s %(message)s"
    )
    consumer = Consumer(poll=float(os.environ.get("TOURNEY_EVENTS_POLL", "1")))
    for sig in (signal.SIGTERM, signal.SIGINT):
        signal.signal(sig, lambda *_: consumer.stop())
    consumer.run()


if __name__ == "__main__":
    main()
