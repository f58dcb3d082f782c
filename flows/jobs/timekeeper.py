"""`timekeeper`: the long-lived deployment run that keeps time (docs/timekeeper.md).

One run is active (it holds the advisory lock, flows/jobs/timekeeper_loop.py), another waits as its
standby; the active one makes sure a standby run exists (`ensure_runs`), and `tourney serve` starts
the first two, only on a machine whose `tourney serve` serves and is not stopping (`Serving`). The
active one also starts the sweeps whose work is due (flows/jobs/sweeps.py) and requeues the runs
whose worker is gone (flows/ops.py). Cancel a run in the UI and the other takes over; start one with
the deployment's Run. Its log lines are named by its role when they are written (`RoleLog`).

Each moment it handles is recorded where it happened, in PostgreSQL (the rows it writes, its audit row,
a refusal's reason), and shown as a Prefect event (`Emitter`, `moment_event`): `tourney.moment.<job>.<outcome>`
about the tournament `tourney.tournament.poker-<id>`, related to the tournament's tags (kind:poker,
club:<id>, tournament:poker-<id>) and to this flow run, what it did in its payload. The events are
sent in batches by a thread, off the timekeeper's path: a slow or absent API never makes a moment late
(when the API stays away, the events are dropped with a log line, and counted). A finalize moment's
final table is the run's artifact `poker-final-table-<id>`. Its documents follow from the
`tournament.finished` event the finalize wrote (the event consumer, flows/jobs/events.py)."""

from __future__ import annotations

import json
import logging
import os
import queue
import signal
import threading
import time
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from uuid import NAMESPACE_URL, UUID, uuid5

from prefect import flow, get_run_logger
from prefect.client.orchestration import SyncPrefectClient, get_client
from prefect.client.schemas.actions import ArtifactCreate
from prefect.client.schemas.filters import (
    DeploymentFilter,
    DeploymentFilterId,
    FlowRunFilter,
    FlowRunFilterState,
    FlowRunFilterStateType,
)
from prefect.client.schemas.objects import StateType
from prefect.events import Event
from prefect.exceptions import ObjectNotFound
from prefect.logging.loggers import PrefectLogAdapter
from prefect.runtime import flow_run
from prefect.states import Cancelled, Crashed
from sqlalchemy import text

from flows import bootstrap
from flows.jobs.poker_finalize import final_table_key
from flows.jobs.timekeeper_loop import (
    Moment,
    Timekeeper,
    active_run,
    connected_runs,
    connection_name,
    first_line,
)
from flows.tags import of_poker

NAME = "timekeeper"
RUNS = 2  # one active, one standby
QUEUE = 10_000  # moments waiting for their event, at most
BATCH = 500  # events a request, at most
BATCH_WAIT = 0.5  # seconds the events of a batch are gathered for
EVENT = "tourney.moment"  # the moments' events: tourney.moment.<job>.<outcome>
LIVE = [StateType.SCHEDULED, StateType.PENDING, StateType.RUNNING]
GRACE = timedelta(minutes=2)  # a run this long Running is connected to the database, unless it died
POLLED = timedelta(seconds=60)  # a machine whose runner asked for runs this recently is alive
PLACING = (7411800, 1)  # the advisory lock `ensure_runs` decides under (the timekeeper's own is (7411800, 0))
GONE = "its process is gone: Running, but no connection of it to the database (killed, or its machine stopped)"
# a serving `tourney serve` holds a connection named `tourney-serve pid <pid> machine <name>` (`Serving`):
# which machines take timekeeper runs now, and which runner process serves each, on any machine
SERVING_SQL = """
SELECT DISTINCT substring(application_name FROM '^tourney-serve pid [0-9]+ machine (.+)$'),
       substring(application_name FROM '^tourney-serve pid ([0-9]+) machine ')::int
FROM pg_stat_activity WHERE datname = current_database() AND application_name LIKE 'tourney-serve pid % machine %'
"""


def event_name(m: Moment) -> str:
    """`tourney.moment.<job>.<outcome>`: `tourney.moment.*` matches every moment, `tourney.moment.advance-clocks.*`
    one job's; the outcome is also the resource's label `tourney.outcome` (an automation on refusals)."""
    return f"{EVENT}.{m.job}.{m.outcome}"


def run_name(m: Moment) -> str:
    return f"{m.job} poker-{m.tournament_id} {m.due_at:%H:%M:%S} UTC"


def message(m: Moment) -> str:
    late = f"started {(m.started - m.due_at).total_seconds():.3f} s after its instant"
    if m.outcome == "refused":
        return f"refused ({m.code}): {m.reason}"
    if m.outcome == "nothing":
        return f"nothing to do (already done by another run); {late}"
    s = m.summary or {}
    if m.job == "advance-clocks":
        levels = ", ".join(map(str, s.get("levels_started", []))) or "none"
        nxt = s.get("next_change_at")
        after = f"next change {nxt:%H:%M:%S} UTC" if nxt else "no next change"
        return f"{s.get('events', 0)} clock events, levels started: {levels}; {after}; {late}"
    if m.job == "finalize-tournaments":
        return f"finished: {s.get('placed', 0)} players placed, {s.get('prizes', 0)} prizes; {late}"
    return f"no-shows ({s.get('policy')}): {s.get('dropped', 0)} dropped, {s.get('dead_stacks', 0)} dead stacks; {late}"


def _plain(value: object) -> object:
    """A summary as JSON: instants in ISO 8601, the rest as it is."""
    if isinstance(value, datetime):
        return value.isoformat()
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, list | tuple | set):
        return [_plain(v) for v in value]
    return value


def moment_event(m: Moment, tags: tuple[str, ...], flow_run_id: UUID | None) -> Event:
    """A moment as a Prefect event: its tournament the resource (`tourney.tournament.poker-<id>`, named
    `poker-<id>`, labelled by job, outcome and instant), related to the tournament's tags (as Prefect relates
    a run's) and the timekeeper's flow run; what it did in the payload. Its id is the moment's own (a
    moment sent twice is one event)."""
    tid = m.tournament_id
    related = [{"prefect.resource.id": f"prefect.tag.{t}", "prefect.resource.role": "tag"} for t in tags]
    if flow_run_id is not None:
        related.append({"prefect.resource.id": f"prefect.flow-run.{flow_run_id}", "prefect.resource.role": "flow-run"})
    return Event(
        id=uuid5(NAMESPACE_URL, f"tourney:moment:{m.job}:{tid}:{m.due_at.isoformat()}"),
        event=event_name(m),
        occurred=m.finished,
        resource={
            "prefect.resource.id": f"tourney.tournament.poker-{tid}",
            "prefect.resource.name": f"poker-{tid}",
            "tourney.job": m.job,
            "tourney.outcome": m.outcome,
            "tourney.due-at": m.due_at.isoformat(),
        },
        related=related,
        payload={
            "name": run_name(m),
            "message": message(m),
            "due_at": m.due_at.isoformat(),
            "started": m.started.isoformat(),
            "finished": m.finished.isoformat(),
            "late_s": round((m.started - m.due_at).total_seconds(), 3),
            "summary": _plain(m.summary) if m.summary is not None else None,
            "code": m.code,
            "reason": m.reason,
        },
    )


class Emitter:
    """Moments to Prefect events, from a thread of their own: `put` never waits (a full queue drops the
    moment, counted); the thread gathers what came within `BATCH_WAIT` (at most `BATCH`) and records it in
    one request (`POST /api/events`, Prefect's batch of events); a batch the API refuses or cannot take (it
    is down) is dropped with a log line, counted. A finalize moment's final table is also the run's artifact
    `poker-final-table-<id>`, as the sweep's."""

    def __init__(
        self,
        flow_run_id: UUID | None,
        log: logging.Logger | logging.LoggerAdapter,
        client: Callable[[], SyncPrefectClient] = lambda: get_client(sync_client=True),
    ):
        self.flow_run_id, self.log, self._client = flow_run_id, log, client
        self.waiting: queue.Queue[Moment | None] = queue.Queue(QUEUE)
        self.emitted = self.dropped = 0
        self._tags: dict[int, tuple[str, ...]] = {}
        self._thread = threading.Thread(target=self._run, name="timekeeper-events-out", daemon=True)
        self._thread.start()

    def put(self, m: Moment) -> None:
        try:
            self.waiting.put_nowait(m)
        except queue.Full:
            self._drop(1, "the queue is full")

    def close(self, timeout: float = 30) -> None:
        """Send what waits (for `timeout` seconds at most), then end the thread."""
        self.waiting.put(None)
        self._thread.join(timeout)

    def _drop(self, n: int, why: str) -> None:
        before, self.dropped = self.dropped, self.dropped + n
        if before == 0 or before // 1000 != self.dropped // 1000:  # the first, then one line a thousand
            self.log.warning("%s moment events dropped (%s in all): %s", n, self.dropped, why)

    def _run(self) -> None:
        with self._client() as client:
            ended = False
            while not ended:
                batch = [self.waiting.get()]
                until = time.monotonic() + BATCH_WAIT
                while batch[-1] is not None and len(batch) < BATCH:
                    try:
                        batch.append(self.waiting.get(timeout=max(until - time.monotonic(), 0)))
                    except queue.Empty:
                        break
                ended = batch[-1] is None
                moments = [m for m in batch if m is not None]
                if moments:
                    self._send(client, moments)

    def _send(self, client: SyncPrefectClient, moments: list[Moment]) -> None:
        try:
            self._tags_of({m.tournament_id for m in moments} - set(self._tags))
            events = [
                moment_event(m, self._tags.get(m.tournament_id, _bare_tags(m.tournament_id)), self.flow_run_id)
                for m in moments
            ]
            client.request("POST", "/events", json=[e.model_dump(mode="json") for e in events]).raise_for_status()
            self.emitted += len(events)
            for m in moments:
                if m.job == "finalize-tournaments" and m.outcome == "done" and m.summary is not None:
                    self._final_table(client, m)
        except Exception as exc:  # the API is down or refused them: the moments are done, their events lost
            self._drop(len(moments), f"the Prefect API did not take them ({first_line(exc)})")

    def _tags_of(self, ids: set[int]) -> None:
        if not ids:
            return
        if len(self._tags) > QUEUE:
            self._tags.clear()
        try:
            self._tags.update(of_poker(ids))
        except Exception:  # the database went away: sent with the tags known without it
            pass

    def _final_table(self, client: SyncPrefectClient, m: Moment) -> None:
        client.create_artifact(
            ArtifactCreate(
                key=final_table_key(m.tournament_id),
                type="table",
                description=f"{run_name(m)}: {message(m)}",
                data=json.dumps(_plain(m.summary["final_table"])),
                flow_run_id=self.flow_run_id,
            )
        )


def _bare_tags(tournament_id: int) -> tuple[str, ...]:
    return ("kind:poker", f"tournament:poker-{tournament_id}")


def deployment_name(machine: str | None) -> str:
    """The timekeeper's deployment of one machine (`timekeeper-<machine>`: `tourney serve` serves its
    own machine's), or the one of `tourney deploy` (`timekeeper`)."""
    return f"{NAME}-{machine}" if machine else NAME


def machine_of(deployment: str) -> str | None:
    """The machine whose timekeeper deployment this is (`timekeeper-alpha`: alpha), None for `timekeeper`."""
    return deployment.removeprefix(f"{NAME}-") if deployment.startswith(f"{NAME}-") else None


def serving_processes(engine) -> set[tuple[str, int]]:
    """(machine, pid) of every `tourney serve` serving now and not stopping (`Serving`), on any machine."""
    with engine.connect() as conn:
        return {(name, pid) for name, pid in conn.execute(text(SERVING_SQL)) if name and pid}


def serving_machines(engine) -> set[str]:
    """The machines whose `tourney serve` serves now and is not stopping (`Serving`)."""
    return {name for name, _ in serving_processes(engine)}


class Serving:
    """`tourney serve`'s mark that its machine takes timekeeper runs: a connection of its own named
    `tourney-serve pid <pid> machine <name>`, held while it serves (made again when the database restarted),
    ended the moment the runner starts stopping. `ensure_runs` places a run only on a machine that
    holds its mark: a runner that is cancelling its runs (`tourney stop`) would never start a run
    made then, and it would stay Late until the next start. Ending the mark takes the placing lock
    first, so no placement is half-way; then the machine's runs not started yet (one made just before)
    are cancelled. The session ends with the process too (killed: at once; its machine gone: within
    about 10 s, by the keepalives)."""

    def __init__(self, machine: str, url: str | None = None):
        self.machine, self.url = machine, url or bootstrap.database_url()
        self._conn = None

    def hold(self) -> bool:
        """Hold the mark (connect when not connected, else check the connection); whether it is held."""
        import psycopg

        from domain.store.leader import KEEPALIVE, SERVER_KEEPALIVE, USER_TIMEOUT_MS, conninfo

        try:
            if self._conn is None or self._conn.closed:
                self._conn = psycopg.connect(
                    conninfo(self.url),
                    autocommit=True,
                    application_name=f"tourney-serve pid {os.getpid()} machine {self.machine}"[:63],
                    connect_timeout=5,
                    tcp_user_timeout=USER_TIMEOUT_MS,
                    options=SERVER_KEEPALIVE,
                    **KEEPALIVE,
                )
            else:
                self._conn.execute("SELECT 1")
            return True
        except psycopg.Error:
            self.release()
            return False

    def release(self) -> None:
        conn, self._conn = self._conn, None
        if conn is not None:
            try:
                conn.close()
            except Exception:
                pass

    def end(self, engine, own: str) -> int:
        """Stopping: end the mark under the placing lock, then cancel the runs of `own` (this machine's
        deployment) not started yet; returns how many were cancelled."""
        with engine.begin() as placing:
            placing.execute(text("SELECT pg_advisory_xact_lock(:k1, :k2)"), {"k1": PLACING[0], "k2": PLACING[1]})
            self.release()
        return cancel_waiting(own, f"stopped: machine {self.machine}'s `tourney serve` stopped before it started")

    def __enter__(self) -> Serving:
        self.hold()
        return self

    def __exit__(self, *exc) -> None:
        self.release()


def cancel_waiting(own: str, why: str) -> int:
    """Cancel the runs of the deployment `own` that were never started (Scheduled, Pending)."""
    with get_client(sync_client=True) as client:
        try:
            mine = client.read_deployment_by_name(f"{NAME}/{own}")
        except ObjectNotFound:
            return 0
        waiting = client.read_flow_runs(
            deployment_filter=DeploymentFilter(id=DeploymentFilterId(any_=[mine.id])),
            flow_run_filter=FlowRunFilter(
                state=FlowRunFilterState(type=FlowRunFilterStateType(any_=[StateType.SCHEDULED, StateType.PENDING]))
            ),
        )
        for run in waiting:
            client.set_flow_run_state(run.id, Cancelled(message=why), force=True)
    return len(waiting)


def ensure_runs(
    want: int = RUNS,
    grace: timedelta = GRACE,
    own: str = NAME,
    polled: timedelta = POLLED,
    stopping: Callable[[], bool] = lambda: False,
) -> int | None:
    """Keep exactly `want` runs of the timekeeper scheduled, pending or running across the machines
    (an active one and its standby): create the missing ones, cancel the extra ones; returns how many
    were created. No deployment `own` (this machine's) yet: nothing done, None; `stopping()` once the
    lock is ours, or no machine serving: nothing done, 0.

    Machines: every machine that serves the jobs serves a timekeeper deployment of its own
    (`deployment_name`); one whose `tourney serve` holds its mark (`Serving`: it serves and is not
    stopping) and whose runner asked the API for runs (or that was registered) within `polled` is
    alive, its live runs count; a machine whose `tourney serve` is stopping gets no run, this one
    neither (a run made there would never start). A new run goes to the alive machine with the fewest live
    runs (this machine's on a tie); an extra one is a standby (never the run holding the lock, one not
    started yet first) of the machine with the most; and when one alive machine has none while another
    has two, the standby of the crowded one is cancelled and a run is created on the empty one: the
    standby is on another machine than the active run whenever there are two, so a machine that dies
    takes only one run with it. The decision is taken under an advisory lock of its own (`PLACING`):
    two machines starting at once do not both see no run and both create the pair.

    A run Running for longer than `grace` without its connection to the database (`connected_runs`)
    is a process that died without telling the API (killed, or its machine stopped): it is marked
    Crashed and does not count, so a restarted `tourney serve` starts a timekeeper again."""
    from prefect.client.schemas.filters import FlowFilter, FlowFilterName

    engine = bootstrap.engine()
    with get_client(sync_client=True) as client:
        try:
            mine = client.read_deployment_by_name(f"{NAME}/{own}")
        except ObjectNotFound:
            return None
        with engine.begin() as placing:  # released at the end of the transaction, or with its connection
            placing.execute(text("SELECT pg_advisory_xact_lock(:k1, :k2)"), {"k1": PLACING[0], "k2": PLACING[1]})
            if stopping():
                return 0
            now = datetime.now(UTC)
            serving = serving_machines(engine)
            # `tourney deploy`'s `timekeeper` (workers) is always a place; a machine's, while it serves
            places = {mine.id: mine} if machine_of(own) is None or machine_of(own) in serving else {}
            for d in client.read_deployments(flow_filter=FlowFilter(name=FlowFilterName(any_=[NAME]))):
                seen = max(filter(None, (d.last_polled, d.updated)), default=None)
                if machine_of(d.name) in serving and seen is not None and now - seen < polled:
                    places.setdefault(d.id, d)
            if not places:
                return 0
            live = client.read_flow_runs(
                deployment_filter=DeploymentFilter(id=DeploymentFilterId(any_=list(places))),
                flow_run_filter=FlowRunFilter(state=FlowRunFilterState(type=FlowRunFilterStateType(any_=LIVE))),
            )
            connected = connected_runs(engine)
            since = now - grace
            for gone in [
                r
                for r in live
                if r.state_type == StateType.RUNNING
                and r.id not in connected
                and r.start_time is not None
                and r.start_time < since
            ]:
                client.set_flow_run_state(gone.id, Crashed(message=GONE), force=True)
                live.remove(gone)
            return _place(client, engine, want, mine.id, {p: [r for r in live if r.deployment_id == p] for p in places})


def _place(client, engine, want: int, mine: UUID, runs_on: dict[UUID, list]) -> int:
    """`ensure_runs`' placement, given each alive machine's live runs (`runs_on`, by deployment)."""
    created = 0
    for _ in range(want - sum(map(len, runs_on.values()))):
        place = min(runs_on, key=lambda p: (len(runs_on[p]), p != mine))
        runs_on[place].append(client.create_flow_run_from_deployment(place, name=role_name("standby")))
        created += 1
    holder = active_run(engine)  # never cancelled
    while sum(map(len, runs_on.values())) > want:
        crowded = max(runs_on, key=lambda p: len(runs_on[p]))
        if not _cancel_standby(
            client, runs_on[crowded], holder, "extra: the timekeeper keeps one active run and one standby"
        ):
            break
    empty = [p for p in runs_on if not runs_on[p]]
    crowded = [p for p in runs_on if len(runs_on[p]) >= 2]
    if (
        empty
        and crowded
        and _cancel_standby(
            client, runs_on[crowded[0]], holder, "moved: the standby goes to another machine than the active run"
        )
    ):
        runs_on[empty[0]].append(client.create_flow_run_from_deployment(empty[0], name=role_name("standby")))
        created += 1
    return created


def _cancel_standby(client, runs: list, holder: UUID | None, why: str) -> bool:
    """Cancel one of `runs` that is not `holder` (one not started yet first) and drop it from `runs`;
    False when there is none."""
    from prefect.states import Cancelling

    standbys = sorted((r for r in runs if r.id != holder), key=lambda r: r.state_type == StateType.RUNNING)
    if not standbys:
        return False
    running = standbys[0].state_type == StateType.RUNNING  # its runner ends its process
    client.set_flow_run_state(
        standbys[0].id, Cancelling(message=why) if running else Cancelled(message=why), force=True
    )
    runs.remove(standbys[0])
    return True


def start_when_served(
    want: int = RUNS,
    watch: float = GRACE.total_seconds() + 60,
    every: float = 10,
    own: str = NAME,
    stopping: Callable[[], bool] = lambda: False,
    first: float = 1,
) -> threading.Thread:
    """For `tourney serve`: make sure `want` runs exist, every `every` seconds for `watch` seconds:
    long enough for a run a dead process left Running to pass the grace, be marked Crashed and be
    replaced. Until the deployment `own` is registered (or while the API does not answer), every
    `first` seconds: the timekeeper starts as soon as its deployment exists. Never once `stopping()`
    (the runner shutting down cancels this machine's runs: a run made then would be left Scheduled).
    A machine's deployment (`timekeeper-<machine>`) also gets its mark (`Serving`) for as long as
    the runner serves: from `stopping()` on, no run anywhere places one on this machine, and its
    runs not started yet are cancelled."""

    def work() -> None:
        import time

        deadline = time.monotonic() + watch
        while time.monotonic() < deadline and not stopping():
            try:
                registered = ensure_runs(want, own=own, stopping=stopping) is not None
            except Exception:  # the API is still starting
                registered = False
            time.sleep(every if registered else first)

    def mark() -> None:  # the machine serves until its runner starts stopping
        import time

        checked = 0.0
        while not stopping():
            if time.monotonic() - checked >= 5:
                serving.hold()
                checked = time.monotonic()
            time.sleep(0.1)
        try:
            serving.end(bootstrap.engine(), own)
        except Exception:  # the database or the API is away: the mark ends with this process anyway
            serving.release()

    machine = machine_of(own)
    if machine is not None:
        serving = Serving(machine)
        serving.hold()  # before the first placement: this machine takes runs
        threading.Thread(target=mark, name="timekeeper-serving", daemon=True).start()
    thread = threading.Thread(target=work, name="timekeeper-start", daemon=True)
    thread.start()
    return thread


class RoleLog(PrefectLogAdapter):
    """The run's logger, each line named by the run's role when it is written: `Flow run 'timekeeper
    (active)' - ...` on the console once it holds the lock, `(standby)` while it waits. Prefect's own
    adapter keeps the name the run had when it started, which is `timekeeper (standby)` for every
    run `ensure_runs` makes, so an active run's lines said standby."""

    def __init__(self, base: logging.LoggerAdapter):
        super().__init__(base.logger, dict(base.extra or {}))
        self.keeper: Timekeeper | None = None

    def process(self, msg, kwargs):
        msg, kwargs = super().process(msg, kwargs)
        kwargs["extra"]["flow_run_name"] = role_name(self.keeper.state if self.keeper else "starting")
        return msg, kwargs


@flow(name=NAME, log_prints=True)
def timekeeper(run_for_seconds: float | None = None, poll_seconds: float = 1.0) -> dict:
    """Keep time until cancelled (or for `run_for_seconds`): active while holding the lock, else
    standby. Every moment handled is a Prefect event related to this flow run. While active it also keeps the
    standby, starts the sweeps whose work is due and requeues the runs whose worker is gone."""
    log = RoleLog(get_run_logger())
    emitter = Emitter(UUID(flow_run.id), log)
    keeper = Timekeeper(on_moment=emitter.put, poll=poll_seconds, log=log, name=connection_name(UUID(flow_run.id)))
    log.keeper = keeper
    stop = threading.Timer(run_for_seconds, keeper.stop) if run_for_seconds else None
    standby = threading.Thread(
        target=_keep_a_standby, args=(keeper, UUID(flow_run.id)), name="timekeeper-standby", daemon=True
    )
    sweeps = threading.Thread(target=_sweep_when_due, args=(keeper,), name="timekeeper-sweeps", daemon=True)
    requeue = threading.Thread(target=_requeue_when_dead, args=(keeper,), name="timekeeper-requeue", daemon=True)
    if stop:
        stop.start()
    standby.start()
    sweeps.start()
    requeue.start()
    prefects = _stop_at_sigterm(keeper)
    try:
        keeper.run()
    finally:
        keeper.stopping.set()
        if stop:
            stop.cancel()
        if prefects is not None:
            signal.signal(signal.SIGTERM, prefects)
        emitter.close()
    return {
        "flow_run_id": str(flow_run.id),
        "moments": keeper.moments,
        "emitted": emitter.emitted,
        "dropped": emitter.dropped,
    }


def _stop_at_sigterm(keeper: Timekeeper) -> Callable | None:
    """A SIGTERM (the runner cancelling this run) stops the keeper first, then goes to Prefect's own
    handler, which raises in the flow to end the run. Python drops an exception raised by a handler
    that runs inside a weakref callback or a finalizer, and the run would keep time after its runner
    asked it to stop; the keeper's flag is set whatever happens to that exception, so the loop ends at
    its next step (its wait is woken by a notification, sent from a thread of its own: the handler
    interrupts the main thread wherever it is, maybe inside the engine's pool). Returns the handler
    it replaced; None, and nothing set, off the main thread (where no handler can be set) or when the
    handler in place was not set from Python."""
    if threading.current_thread() is not threading.main_thread():
        return None
    prefects = signal.getsignal(signal.SIGTERM)
    if prefects is None:
        return None

    def on_sigterm(signum, frame) -> None:
        keeper.stopping.set()
        threading.Thread(target=keeper.stop, name="timekeeper-stop", daemon=True).start()
        if callable(prefects):
            prefects(signum, frame)

    signal.signal(signal.SIGTERM, on_sigterm)
    return prefects


def role_name(state: str) -> str:
    """The run's name in the UI by its role: `timekeeper (active)`, `timekeeper (standby)`."""
    return f"{NAME} ({state})"


def _keep_a_standby(keeper: Timekeeper, run_id: UUID, every: float = 60) -> None:
    """While active, see (at once, then every minute) that a standby run exists, when served; name
    the run by its role whenever that changes."""
    import time

    checked: float | None = None
    named: str | None = None
    while not keeper.stopping.wait(2):
        if keeper.state in ("active", "standby") and keeper.state != named:
            try:
                with get_client(sync_client=True) as client:
                    client.update_flow_run(run_id, name=role_name(keeper.state))
                named = keeper.state
            except Exception as exc:  # the API is away: named at the next look
                keeper.log.warning("could not name the timekeeper run by its role: %s", exc)
        if keeper.state == "active" and (checked is None or time.monotonic() - checked >= every):
            checked = time.monotonic()
            try:
                ensure_runs(own=_own_deployment(), stopping=keeper.stopping.is_set)
            except Exception as exc:
                keeper.log.warning("could not check the standby timekeeper run: %s", exc)


def _sweep_when_due(keeper: Timekeeper, every: float | None = None) -> None:
    """While active, every `EVERY` seconds: start the sweeps whose work is due (flows/jobs/sweeps.py)."""
    from flows.jobs import sweeps

    checker = sweeps.Sweeps(log=keeper.log)
    while not keeper.stopping.wait(every or sweeps.EVERY):
        if keeper.state != "active":
            continue
        try:
            checker.check()
        except Exception as exc:  # the database or the API is away: checked again next time
            keeper.log.warning("could not check the sweeps' pending work: %s", exc)


def _requeue_when_dead(keeper: Timekeeper, every: float | None = None) -> None:
    """While active, every `REQUEUE_EVERY` seconds: requeue the runs whose worker is gone (flows/ops.py)."""
    from flows import ops

    while not keeper.stopping.wait(every or ops.REQUEUE_EVERY):
        if keeper.state != "active":
            continue
        try:
            for row in ops.requeue_dead_runs():
                if row["requeued"]:
                    keeper.log.warning("%s: %s, its worker is gone: requeued", row["run"], row["why"])
        except Exception as exc:  # the database or the API is away: looked at again next time
            keeper.log.warning("could not look for runs whose worker is gone: %s", exc)


def _own_deployment() -> str:
    """The deployment this run belongs to (its machine's), `timekeeper` when run bare."""
    from prefect.runtime import deployment

    return deployment.name or NAME
