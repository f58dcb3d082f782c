"""The `timekeeper` deployment's flow on a real Prefect API and the real database: each moment it
handles is recorded in PostgreSQL by what it writes and shown as one Prefect event about its
tournament (`tourney.moment.<job>.<outcome>`), related to the tournament's tags and the flow run,
what it did in its payload; with the API away the moments go on and their events are dropped. The
deployment is in the one list and has no schedule (`tourney serve` starts it)."""

from __future__ import annotations

import json
import threading
from datetime import timedelta

from prefect.client.orchestration import get_client
from prefect.client.schemas.filters import (
    ArtifactFilter,
    ArtifactFilterFlowRunId,
    ArtifactFilterKey,
    FlowRunFilter,
    FlowRunFilterId,
)
from sqlalchemy import text
from sqlalchemy.orm import Session

from flows import bootstrap
from flows.deployments import deployments, job
from flows.jobs.timekeeper import timekeeper
from tests.support.events import consuming, wait_for
from tests.support.timekeeper import now, quick_structure, running


def _events(about: list[str], run: str, want: int, within: float = 60) -> list:
    """The events of the Prefect API about one of `about` and related to the flow run `run`, once there
    are `want` (the server stores what it received every few seconds), oldest first."""
    import time

    from prefect.events.filters import EventFilter, EventOccurredFilter, EventRelatedFilter, EventResourceFilter

    deadline = time.monotonic() + within
    while True:
        with get_client(sync_client=True) as client:
            page = client.read_events(
                filter=EventFilter(
                    occurred=EventOccurredFilter(since=now() - timedelta(hours=1), until=now() + timedelta(hours=1)),
                    resource=EventResourceFilter(id=about),
                    related=EventRelatedFilter(id=[f"prefect.flow-run.{run}"]),
                ),
                limit=50,
            )
        if len(page.events) >= want or time.monotonic() > deadline:
            return sorted(page.events, key=lambda e: e.occurred)
        time.sleep(0.5)


def _tags(event) -> set[str]:
    return {r.id.removeprefix("prefect.tag.") for r in event.related if r.role == "tag"}


def test_each_moment_is_recorded_once_in_postgresql_and_is_one_prefect_event_named_and_tagged(prefect_api, committed):
    """Issue 41 (the timekeeper's moment cheaper), SP-8: each moment is recorded once where it happened
    (its level start, its no-show run, its audit row as the timekeeper's deployment) and shown once as a
    Prefect event read back from the API: `tourney.moment.<job>.<outcome>` about the tournament, related
    to its tags and to the timekeeper's flow run, what it did in its payload; no task run a moment."""
    with Session(committed) as s, s.begin():
        start = now() + timedelta(seconds=1)
        changing = running(s, quick_structure(s, seconds=[3, 600]), start)  # level 2 at +4 s, then none
        closing = running(s, quick_structure(s, seconds=600), start, late_reg=timedelta(seconds=2), absent=1)
        stale = running(s, quick_structure(s, seconds=600), start)
        club = s.execute(text("SELECT club_id FROM poker_tournaments WHERE id = :id"), {"id": changing}).scalar_one()
        # a next change written too early (as a run woken before its instant used to see): nothing to do
        s.execute(
            text("UPDATE poker_clock SET next_change_at = :at WHERE tournament_id = :id"),
            {"at": start + timedelta(seconds=1), "id": stale},
        )

    result = timekeeper(run_for_seconds=8, poll_seconds=0.2)

    assert result["moments"] >= 3 and result["emitted"] == result["moments"] and result["dropped"] == 0
    level_2, closed = start + timedelta(seconds=3), start + timedelta(seconds=2)
    with committed.connect() as conn:
        starts = conn.execute(
            text("SELECT at FROM poker_clock_events WHERE tournament_id = :t AND kind = 'level-started' AND level = 2"),
            {"t": changing},
        ).scalars()
        assert list(starts) == [level_2]
        audited = conn.execute(
            text(
                "SELECT action, target, at FROM audit_trail WHERE actor_label = 'job:timekeeper' "
                "AND target IN (:a, :b) ORDER BY at, action"
            ),
            {"a": f"tournament {changing}", "b": f"tournament {closing}"},
        ).all()
    assert [tuple(r) for r in audited] == [
        ("process-no-shows", f"tournament {closing}", closed),
        ("advance-clocks", f"tournament {changing}", level_2),
    ]
    ids = {t: f"tourney.tournament.poker-{t}" for t in (changing, closing, stale)}
    events = _events(list(ids.values()), result["flow_run_id"], want=3)
    by = {(e.resource.id, e.event): e for e in events}
    assert len(events) == len(by) == 3  # one event a moment
    clock = by[(ids[changing], "tourney.moment.advance-clocks.done")]
    no_shows = by[(ids[closing], "tourney.moment.process-no-shows.done")]
    nothing = by[(ids[stale], "tourney.moment.advance-clocks.nothing")]
    assert clock.resource.name == f"poker-{changing}" and clock.resource["tourney.outcome"] == "done"
    assert clock.payload["name"] == f"advance-clocks poker-{changing} {level_2:%H:%M:%S} UTC"
    assert clock.payload["due_at"] == level_2.isoformat() and clock.resource["tourney.due-at"] == level_2.isoformat()
    assert _tags(clock) == {"kind:poker", f"club:{club}", f"tournament:poker-{changing}"}
    assert {r.id for r in clock.related if r.role == "flow-run"} == {f"prefect.flow-run.{result['flow_run_id']}"}
    assert "levels started: 2" in clock.payload["message"] and clock.payload["summary"]["levels_started"] == [2]
    assert no_shows.payload["message"].startswith("no-shows (drop): 1 dropped")
    assert nothing.payload["message"].startswith("nothing to do") and nothing.payload["summary"]["events"] == 0
    with get_client(sync_client=True) as client:
        mine = FlowRunFilter(id=FlowRunFilterId(any_=[result["flow_run_id"]]))
        assert client.read_task_runs(flow_run_filter=mine) == []
        assert (
            client.read_flow_run(result["flow_run_id"]).name == "timekeeper (active)"
        )  # its role, once it held the lock


def test_with_the_prefect_api_away_the_moments_still_run_at_their_instants_and_their_events_are_dropped_with_a_line(
    committed, caplog
):
    """Issue 41: the Prefect API down (nothing listens at its address) changes nothing for the moments:
    each level change is written at its instant, given the instant; their events are dropped, counted,
    with a log line, and the loop never waited for them."""
    import logging

    from prefect.client.orchestration import SyncPrefectClient

    from flows.jobs.timekeeper import Emitter
    from flows.jobs.timekeeper_loop import Timekeeper
    from tests.support.net import free_port
    from tests.support.timekeeper import level_starts

    with Session(committed) as s, s.begin():
        start = now() + timedelta(seconds=1)
        tids = [running(s, quick_structure(s, seconds=1), start) for _ in range(2)]  # a change a second
    log = logging.getLogger("tests.timekeeper.away")
    away = Emitter(None, log, client=lambda: SyncPrefectClient(f"http://127.0.0.1:{free_port()}/api"))
    keeper = Timekeeper(on_moment=away.put, poll=0.2, log=log)
    stop = threading.Timer(5, keeper.stop)
    with caplog.at_level(logging.WARNING, logger=log.name):
        stop.start()
        keeper.run()
        away.close()
    for tid in tids:
        starts = [(level, at) for _, level, at, _ in level_starts(committed, tid)]
        assert starts[:4] == [(n, start + timedelta(seconds=n - 1)) for n in range(1, 5)]  # each at its instant
    assert keeper.moments >= 6 and away.emitted == 0 and away.dropped == keeper.moments
    [line] = [r.getMessage() for r in caplog.records if "moment events dropped" in r.getMessage()]
    assert "the Prefect API did not take them" in line


def test_the_timekeeper_is_in_the_one_list_unscheduled_with_no_prefect_limit_and_its_sweeps_an_hourly_safety_net():
    """The timekeeper's two runs are kept by its active run (`ensure_runs`), not by a Prefect limit, whose
    lease would end a live run Crashed when the server loses it."""
    served = {d.name: d for d in deployments()}
    assert served["timekeeper"].schedules == [] and served["timekeeper"].concurrency_limit is None
    assert job("timekeeper").concurrency is None
    for sweep in ("advance-clocks", "process-no-shows", "finalize-tournaments"):
        [net] = served[sweep].schedules
        assert (net.schedule.interval, net.slug, job(sweep).when_due) == (timedelta(hours=1), "safety-net", None)


def test_a_finalize_moment_publishes_the_final_table_and_starts_the_documents_run_of_that_tournament(
    prefect_api, committed
):
    """SP-7 at its instant: the moment's artifact is the final table, and the finalize's event has the
    event consumer create a run of the publish-results deployment at once, tagged by the tournament (a
    worker or `tourney serve` runs it)."""
    from domain.poker.rules.knockouts import Bust
    from domain.poker.services.knockouts import record_knockouts
    from flows.deployments import deployment

    deployment_id = deployment(job("publish-results")).apply()
    with Session(committed) as s, s.begin():
        tid = running(s, quick_structure(s, seconds=3600), now() - timedelta(minutes=1))
        loser, winner = s.scalars(
            text("SELECT id FROM poker_entries WHERE tournament_id = :t ORDER BY id"), {"t": tid}
        ).all()
        record_knockouts(s, tid, [Bust(loser, winner)], now=now() - timedelta(minutes=5), actor="floor")

    with get_client(sync_client=True) as client:  # the session's server keeps earlier tests' runs
        earlier = {r.id for r in client.read_flow_runs()}
    with consuming():
        result = timekeeper(run_for_seconds=3, poll_seconds=0.2)
        assert wait_for(lambda: _events_reacted(committed))

    with get_client(sync_client=True) as client:
        [artifact] = client.read_artifacts(
            artifact_filter=ArtifactFilter(
                key=ArtifactFilterKey(any_=[f"poker-final-table-{tid}"]),
                flow_run_id=ArtifactFilterFlowRunId(any_=[result["flow_run_id"]]),
            )
        )
        publishing = [
            r
            for r in client.read_flow_runs()
            if r.deployment_id == deployment_id and r.name == f"publish-results poker-{tid}" and r.id not in earlier
        ]
    [moment] = _events([f"tourney.tournament.poker-{tid}"], result["flow_run_id"], want=1)
    assert moment.event == "tourney.moment.finalize-tournaments.done"
    assert moment.payload["message"].startswith("finished: 2 players placed")
    assert artifact.key == f"poker-final-table-{tid}"
    assert [row["place"] for row in json.loads(artifact.data)] == [1, 2]
    [run] = publishing  # created at once, one; whatever serves the deployment in this session may take it
    assert f"tournament:poker-{tid}" in run.tags


def _events_reacted(engine) -> bool:
    with engine.connect() as conn:
        return conn.execute(
            text("SELECT count(*) > 0 AND bool_and(reacted_at IS NOT NULL) FROM webhook_events")
        ).scalar()


def test_a_timekeeper_run_left_running_by_a_dead_process_is_marked_crashed_and_replaced(prefect_api, committed):
    """A restarted `tourney serve` starts a timekeeper again: a run the API still shows Running but
    with no connection of its process to the database is marked Crashed once `grace` has passed (not
    before) and another run is created; a Running run whose process is connected counts as alive."""
    from prefect.client.schemas.objects import StateType
    from prefect.states import Cancelled
    from prefect.states import Running as RunningState
    from sqlalchemy import create_engine

    from flows.deployments import deployment
    from flows.jobs.timekeeper import GONE, LIVE, ensure_runs
    from flows.jobs.timekeeper_loop import connection_name

    deployment_id = deployment(job("timekeeper")).apply()
    with get_client(sync_client=True) as client:
        dead, alive = (client.create_flow_run_from_deployment(deployment_id) for _ in range(2))
        for run in (dead, alive):
            client.set_flow_run_state(run.id, RunningState(), force=True)
    process = create_engine(bootstrap.engine().url, connect_args={"application_name": connection_name(alive.id)})
    try:
        with process.connect(), get_client(sync_client=True) as client:
            ensure_runs(2)  # both Running for less than the grace of 2 minutes: both count
            assert client.read_flow_run(dead.id).state_type == StateType.RUNNING
            ensure_runs(2, grace=timedelta(0))
            gone, kept = client.read_flow_run(dead.id), client.read_flow_run(alive.id)
            assert (gone.state_type, gone.state.message) == (StateType.CRASHED, GONE)
            assert kept.state_type == StateType.RUNNING
            live = [r for r in client.read_flow_runs() if r.deployment_id == deployment_id and r.state_type in LIVE]
            assert alive.id in {r.id for r in live} and len(live) >= 2
    finally:
        process.dispose()
        with get_client(sync_client=True) as client:
            for run in client.read_flow_runs():
                if run.deployment_id == deployment_id and run.state_type in LIVE:
                    client.set_flow_run_state(run.id, Cancelled(), force=True)


def test_two_machines_placing_at_once_make_exactly_two_runs_one_on_each_and_extra_ones_are_cancelled(
    prefect_api, committed
):
    """`ensure_runs` decides under an advisory lock: two machines (just registered, so alive, and
    serving) asking at the same instant make two runs in all, one on each machine's deployment, not a
    pair each; runs beyond the two (here three more on one machine) are cancelled, leaving one on each."""
    import threading
    from contextlib import ExitStack

    from prefect.client.schemas.objects import StateType

    from flows.deployments import deployment
    from flows.jobs.timekeeper import LIVE, Serving, deployment_name, ensure_runs

    machines = ("placing-a", "placing-b")
    ids = {m: deployment(job("timekeeper"), machine=m).apply() for m in machines}
    marks = ExitStack()
    for m in machines:  # each machine's `tourney serve` holds its mark while it serves
        marks.enter_context(Serving(m))
    gate = threading.Barrier(len(machines))
    made: dict[str, int] = {}

    def serve(m: str) -> None:
        gate.wait()
        made[m] = ensure_runs(2, own=deployment_name(m))

    def live() -> dict[str, list]:
        with get_client(sync_client=True) as client:
            runs = [r for r in client.read_flow_runs() if r.state_type in LIVE]
        return {m: [r for r in runs if r.deployment_id == d] for m, d in ids.items()}

    try:
        threads = [threading.Thread(target=serve, args=(m,)) for m in machines]
        for t in threads:
            t.start()
        for t in threads:
            t.join(60)
        assert sorted(made.values()) == [0, 2]
        assert {m: len(rs) for m, rs in live().items()} == {"placing-a": 1, "placing-b": 1}

        with get_client(sync_client=True) as client:
            extra = [client.create_flow_run_from_deployment(ids["placing-a"]) for _ in range(3)]
        assert ensure_runs(2, own=deployment_name("placing-b")) == 0
        after = live()
        assert {m: len(rs) for m, rs in after.items()} == {"placing-a": 1, "placing-b": 1}
        with get_client(sync_client=True) as client:
            ended = [
                r for r in client.read_flow_runs() if r.deployment_id == ids["placing-a"] and r.state_type not in LIVE
            ]
        assert (
            len(extra) == 3
            and [(r.state_type, r.state.message.split(":")[0]) for r in ended] == [(StateType.CANCELLED, "extra")] * 3
        )
    finally:
        marks.close()
        with get_client(sync_client=True) as client:
            for d in ids.values():
                client.delete_deployment(d)


def test_the_active_runs_log_lines_say_active_and_the_standbys_say_standby(prefect_api, committed):
    """Two runs at once, as `tourney serve` keeps them: each of their lines (on the console `Flow run
    'timekeeper (active)' - ...`) names the role the run has when it writes it, not the name it had
    when it started: the active run's say active from the line that says it took the lock."""
    import logging
    import threading

    from prefect.logging.formatters import PrefectFormatter

    console = PrefectFormatter(format="%(message)s", flow_run_fmt="Flow run %(flow_run_name)r - %(message)s")
    lines: list[logging.LogRecord] = []

    class Keep(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            if record.filename in ("timekeeper.py", "timekeeper_loop.py", "leading.py", "sweeps.py"):
                lines.append(record)

    handler, logger = Keep(), logging.getLogger("prefect.flow_runs")
    logger.addHandler(handler)
    try:
        runs = [threading.Thread(target=timekeeper, kwargs={"run_for_seconds": 5, "poll_seconds": 0.2}) for _ in "ab"]
        for run in runs:
            run.start()
        for run in runs:
            run.join(60)
    finally:
        logger.removeHandler(handler)
    by_run: dict[str, list[str]] = {}
    for record in lines:
        by_run.setdefault(record.flow_run_id, []).append(console.format(record))
    assert len(by_run) == 2, by_run
    took = [said for said in by_run.values() if any(line.endswith(": active") for line in said)]
    assert took, by_run  # one took the lock (the other too, when it outlived the first by a poll)
    for said in by_run.values():  # each line under the role the run had when it wrote it
        role = "standby"  # both start so: the run is named before its loop's first line
        for line in said:
            for word in ("standby", "active", "stopped"):
                if " tourney-timekeeper pid " in line and line.endswith(f": {word}"):
                    role = word
            assert line.startswith(f"Flow run 'timekeeper ({role})' - "), said
        assert said[0].endswith(": standby") and said[-1].endswith(": stopped"), said


def test_a_machine_whose_serve_is_stopping_gets_no_timekeeper_run_and_its_waiting_runs_are_cancelled(
    prefect_api, committed
):
    """`tourney stop`: the runner cancels the machine's two runs one after the other; when the active
    one goes first, the standby takes the lock and, as the active run, sees one run missing. The
    runner would never start a run made now (it stays Late until the next start), so from the moment
    the runner starts stopping its machine takes none: the mark ends (`Serving.end`), the runs not
    started yet are cancelled, and a placement (the new active run's, or another machine's) makes
    none there."""
    from prefect.client.schemas.objects import StateType

    from flows.deployments import deployment
    from flows.jobs.timekeeper import LIVE, Serving, deployment_name, ensure_runs

    own = deployment_name("stopping-a")
    deployment_id = deployment(job("timekeeper"), machine="stopping-a").apply()

    def runs():
        with get_client(sync_client=True) as client:
            return [r for r in client.read_flow_runs() if r.deployment_id == deployment_id]

    serving = Serving("stopping-a")
    try:
        assert serving.hold()
        assert ensure_runs(2, own=own) == 2  # serving: the pair is made there
        assert serving.end(bootstrap.engine(), own) == 2  # stopping: neither was started, both cancelled
        assert ensure_runs(2, own=own) == 0  # the new active run's look: no run on a stopping machine
        assert [r for r in runs() if r.state_type in LIVE] == []
        assert {(r.state_type, r.state.message.split(":")[0]) for r in runs()} == {(StateType.CANCELLED, "stopped")}
    finally:
        serving.release()
        with get_client(sync_client=True) as client:
            client.delete_deployment(deployment_id)
