"""Tags on flow and task runs (flows/tags.py, domain/ops/services/run_tags.py): an admin finds every run that
worked on a tournament by filtering on `tournament:<kind>-<id>`, on a club by `club:<id>`, on a kind
by `kind:poker` / `kind:pusoy` — exact runs, sweeps and in-process runs alike, with their task runs."""

from __future__ import annotations

from datetime import UTC, timedelta

from prefect.client.orchestration import get_client
from prefect.client.schemas.filters import FlowRunFilter, FlowRunFilterId, FlowRunFilterTags
from prefect.flow_engine import run_flow
from prefect.settings import PREFECT_API_URL
from prefect.states import Scheduled
from sqlalchemy.orm import Session

from domain.poker.services import clock as clock_service
from domain.store.db import unit_of_work
from flows.cli.pusoy import _complete_now
from flows.deployments import job
from flows.jobs.poker_floor import advance_clocks
from tests.integration.poker_floor_world import T0, enter, tournament
from tests.integration.pusoy_helpers import filled, play
from tests.unit.pusoy_cases import WORKED_EXAMPLE


def runs_tagged(*tags: str, besides: tuple = ()) -> list:
    """Flow runs carrying every one of `tags`, except the `besides` ones (the tests' databases reuse
    ids, the session's Prefect API keeps the runs of earlier tests)."""
    with get_client(sync_client=True) as client:
        found = client.read_flow_runs(flow_run_filter=FlowRunFilter(tags=FlowRunFilterTags(all_=list(tags))))
    return [r for r in found if r.id not in {b.id for b in besides}]


def task_runs_of(run_id) -> list:
    with get_client(sync_client=True) as client:
        return client.read_task_runs(flow_run_filter=FlowRunFilter(id=FlowRunFilterId(any_=[run_id])))


def test_the_sweep_the_exact_run_and_its_task_runs_of_a_poker_tournament_are_found_by_its_tags(
    prefect_api, committed
):
    start = T0 - timedelta(days=7)  # exact runs are keyed by tournament and instant: not other tests' T0
    with Session(committed) as s, s.begin():
        t = tournament(s)
        enter(s, t)
        clock_service.act(s, t.id, "start", start)
        tid, club = t.id, t.club_id
    chosen = job("advance-clocks")
    chosen.flow.to_deployment(name=chosen.name, tags=["tourney", *chosen.tags]).apply()
    mine = (f"tournament:poker-{tid}", f"club:{club}", "kind:poker")
    earlier = tuple(runs_tagged(*mine))

    sweep = advance_clocks(now=start + timedelta(minutes=21))  # level 2 started; schedules the exact run

    assert [r["tournament_id"] for r in sweep["advanced"]] == [tid]
    found = runs_tagged(*mine, besides=earlier)
    [swept] = [r for r in found if r.parameters.get("tournament_id") is None]
    [exact] = [r for r in found if r.parameters.get("tournament_id") == tid]  # created with the tags
    assert exact.state.is_scheduled()
    at = exact.expected_start_time.astimezone(UTC)
    assert exact.name == f"advance-clocks poker-{tid} {at:%H:%M} UTC"  # the admin reads what and when
    assert set(exact.tags) == {"tourney", "poker", *mine}
    assert set(swept.tags) == set(mine)  # added by the sweep after its work

    # the exact run comes due (T0 is a made-up instant) and executes as a runner executes it
    with get_client(sync_client=True) as client:
        client.set_flow_run_state(exact.id, Scheduled(), force=True)
        run = client.read_flow_run(exact.id)
    run_flow(advance_clocks, flow_run=run, parameters={"tournament_id": tid, "now": start + timedelta(minutes=40)})
    tasks = task_runs_of(exact.id)
    assert {r.name.rsplit("-", 1)[0] for r in tasks} == {"schedule-exact-runs"}
    assert all(set(r.tags) >= {"tourney", "poker", *mine} for r in tasks)  # the run's tags, inherited
    _delete_scheduled(runs_tagged(*mine, besides=earlier))  # the next change's run: not other tests' business


def _delete_scheduled(runs: list) -> None:
    with get_client(sync_client=True) as client:
        for run in runs:
            if run.state and run.state.is_scheduled():
                client.delete_flow_run(run.id)


def test_the_complete_rounds_run_of_a_pusoy_report_carries_the_tournaments_tags(
    prefect_api, committed, monkeypatch
):
    """`tourney pusoy report` of a round's last game runs complete-rounds in its process, tagged."""
    monkeypatch.setenv("PREFECT_API_URL", PREFECT_API_URL.value())
    with unit_of_work(committed) as s:
        cup = filled(s, 8, games=2)
        play(s, cup, 1, WORKED_EXAMPLE)
        tid, code = cup.id, cup.code
    mine = (f"tournament:pusoy-{code}", "kind:pusoy")

    assert [c["round"] for c in _complete_now(tid)] == [1]

    [run] = runs_tagged(*mine)
    assert set(run.tags) == set(mine)  # no club: the cup belongs to none
    [completing] = task_runs_of(run.id)
    assert completing.name.startswith("complete-ready-rounds") and set(completing.tags) == set(mine)
