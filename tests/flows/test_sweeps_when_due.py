"""A console where every run means something: a sweep runs when its work is due (the timekeeper
counts it, flows/jobs/sweeps.py), not on a clock; its schedule is a rare safety net, named as one."""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime, timedelta

from prefect.client.orchestration import get_client
from prefect.client.schemas.filters import DeploymentFilter, DeploymentFilterId
from prefect.flow_engine import run_flow
from prefect.states import Completed, Pending, Scheduled
from sqlalchemy import text
from sqlalchemy.orm import Session

from flows.deployments import JOBS, deployment, job
from flows.jobs.clubs import verify_clubs
from flows.jobs.sweeps import Sweeps
from tests.support.world import club


def _runs(client, deployment_id, scheduled: bool = False):
    """The deployment's runs: those started at an event or when due, or (`scheduled`) its schedule's."""
    runs = client.read_flow_runs(deployment_filter=DeploymentFilter(id=DeploymentFilterId(any_=[deployment_id])))
    return [r for r in runs if r.auto_scheduled == scheduled]


def _remove_waiting(client, deployment_id) -> None:
    """Delete the deployment's runs still waiting that this test did not make: what earlier tests of the
    session left, and what Prefect's scheduler made from a schedule they applied (nothing serves them).
    Deleted, not cancelled: a cancelled safety-net run of the hour's minute (verify-clubs' :05) would
    be the sweep's latest run, and its spacing would be counted from it."""
    for r in _runs(client, deployment_id) + _runs(client, deployment_id, scheduled=True):
        if not r.state.is_final():
            client.delete_flow_run(r.id)


def _check_alone(sweeps: Sweeps, client, deployment_id) -> tuple[dict[str, str], set]:
    """`sweeps.check()` with no run waiting that this test did not make, and the runs before it. A
    scheduler pass that read a safety net before the test removed it can add a run at any moment
    (seen in CI under load: "its run rainbow-raptor is Scheduled" after the removal); the sweep
    rightly waits for such a run, so the test removes it and asks again (a pass adds its runs once)."""
    for _ in range(5):
        _remove_waiting(client, deployment_id)
        before = {r.id for r in _runs(client, deployment_id)}
        said = sweeps.check()
        if not said.get("verify-clubs", "").startswith("its run "):
            break
    return said, before


def test_a_sweep_makes_no_run_when_nothing_is_due_and_one_run_named_by_what_is_due(prefect_api, committed):
    verify = job("verify-clubs")
    # served without their safety nets here: this test moves its clock past their next scheduled run
    ids = {j.name: deployment(replace(j, interval=None, cron=None)).apply() for j in JOBS if j.when_due}
    with get_client(sync_client=True) as client:
        for d in ids.values():
            _remove_waiting(client, d)
        before = {name: {r.id for r in _runs(client, d)} for name, d in ids.items()}
    # past every job's spacing after the runs earlier tests of this session made (the counts are the
    # database's, at its own now(); only the spacing reads this clock)
    at = datetime.now(UTC) + max(j.when_due for j in JOBS if j.when_due)
    clock = [at]
    sweeps = Sweeps(now=lambda: clock[0])

    assert set(sweeps.due().values()) == {0}, sweeps.due()
    assert sweeps.check() == {}  # nothing due: no run, and not one question to the Prefect API
    with get_client(sync_client=True) as client:
        assert {name: {r.id for r in _runs(client, d)} for name, d in ids.items()} == before

    with Session(committed) as s, s.begin():
        pending = club(s, fresh=True).id
        s.execute(
            text("UPDATE clubs SET verification_status = 'pending', queued_at = NULL WHERE id = :id"), {"id": pending}
        )
    with get_client(sync_client=True) as client:
        # a pass of Prefect's scheduler that read a safety net before this test removed it may have
        # added its runs since (seen in CI: "its run bronze-kestrel is Scheduled"; a cancelled one of
        # the hour's :05 counted as the last run), as this one does, every time
        client.create_flow_run_from_deployment(
            ids["verify-clubs"], state=Scheduled(scheduled_time=datetime.now(UTC) + timedelta(minutes=2))
        )
        said, before["verify-clubs"] = _check_alone(sweeps, client, ids["verify-clubs"])
    assert set(said) == {"verify-clubs"} and said["verify-clubs"].startswith("verify-clubs run verify-clubs (1 due)")
    with get_client(sync_client=True) as client:
        [started] = [r for r in _runs(client, ids["verify-clubs"]) if r.id not in before["verify-clubs"]]
        assert started.name == "verify-clubs (1 due)" and started.state.is_scheduled()
        clock[0] = datetime.now(UTC)
        assert sweeps.check()["verify-clubs"] == "its run verify-clubs (1 due) is Scheduled"  # one at a time

        client.set_flow_run_state(started.id, Completed(), force=True)  # the runner ran it; still due
        _remove_waiting(client, ids["verify-clubs"])
        clock[0] = started.expected_start_time + verify.when_due - timedelta(seconds=1)
        assert sweeps.check()["verify-clubs"].startswith("its last run verify-clubs (1 due) was due")
        clock[0] = started.expected_start_time + verify.when_due
        assert sweeps.check()["verify-clubs"].startswith("verify-clubs run verify-clubs (1 due) started")
        assert len(_runs(client, ids["verify-clubs"])) == len(before["verify-clubs"]) + 2


def test_the_schedules_are_rare_safety_nets_never_more_than_2_runs_in_8_minutes():
    """An idle system (nothing due) runs only the schedules: hourly, each job at its own minute, so no
    8-minute window holds more than 2 scheduled runs (the timekeeper's pair aside: it has none)."""
    assert job("timekeeper").interval is None and job("timekeeper").cron is None
    day = datetime(2026, 12, 2, tzinfo=UTC)
    firings = []
    for j in JOBS:
        if j.interval:
            assert j.interval >= timedelta(hours=1), j.name
            t = j.anchor
            while t < day:
                t += j.interval
            while t < day + timedelta(days=1):
                firings.append(t)
                t += j.interval
        elif j.cron:
            minute, hour = (int(x) for x in j.cron.split()[:2])
            assert j.cron.split()[2:] == ["*", "*", "*"], j.name
            firings.append(day.replace(hour=hour, minute=minute))
    firings.sort()
    for start in firings:
        assert len([f for f in firings if start <= f < start + timedelta(minutes=8)]) <= 2, start


def test_a_run_the_schedule_made_is_named_the_safety_net(prefect_api, committed):
    """The scheduler's runs draw names ("imported-dingo"); a sweep's is `verify-clubs safety net`."""
    deployment_id = deployment(job("verify-clubs")).apply()
    with get_client(sync_client=True) as client:
        client._client.post(
            f"/deployments/{deployment_id}/schedule",
            json={"start_time": datetime.now(UTC).isoformat(), "max_runs": 1},
        )
        run = _runs(client, deployment_id, scheduled=True)[0]
        client.set_flow_run_state(run.id, Pending(), force=True)  # due now, not at its minute
    run_flow(verify_clubs, flow_run=run, parameters={})
    with get_client(sync_client=True) as client:
        assert client.read_flow_run(run.id).name == "verify-clubs safety net"


def test_mail_that_cannot_be_sent_is_not_due_and_an_idle_platform_makes_no_run_for_it(
    prefect_api, committed, monkeypatch
):
    """With SMTP_URL unset a pending delivery stays in the outbox until one is set
    (docs/documents.md#delivery): nothing can be done for it, so it is not due, and 8 minutes of
    the timekeeper's counts (every 10 s) start no `publish-results` run, where each minute started
    one ("publish-results (2 due)") forever. Once SMTP_URL is set, the same mail is due."""
    publish = job("publish-results")
    deployment_id = deployment(replace(publish, interval=None)).apply()  # its safety net aside
    with Session(committed) as s, s.begin():
        for n, (state, attempt) in enumerate((("pending", None), ("failed", "now() - interval '1 minute'"))):
            s.execute(
                text(
                    "INSERT INTO document_publications (source, tournament_id, tournament, club, folder, recipient,"
                    f" state, attempts, next_attempt_at, created_at) VALUES ('poker', {9100 + n}, 'Friday', 'Pik',"
                    f" 'pik/friday-{n}', 'floor@example.org', :state, :attempts, {attempt or 'NULL'}, now())"
                ),
                {"state": state, "attempts": int(attempt is not None)},
            )
    monkeypatch.delenv("SMTP_URL", raising=False)
    with get_client(sync_client=True) as client:
        _remove_waiting(client, deployment_id)
        before = {r.id for r in _runs(client, deployment_id)}
    start = datetime.now(UTC) + publish.when_due  # past the spacing after any earlier run of the session
    clock = [start]
    sweeps = Sweeps(jobs=[publish], now=lambda: clock[0])

    assert sweeps.due() == {"publish-results": 0}
    for second in range(0, 8 * 60, 10):
        clock[0] = start + timedelta(seconds=second)
        assert sweeps.check() == {}
    with get_client(sync_client=True) as client:
        assert {r.id for r in _runs(client, deployment_id)} == before

    monkeypatch.setenv("SMTP_URL", "smtp://127.0.0.1:2")
    assert sweeps.due() == {"publish-results": 2}
