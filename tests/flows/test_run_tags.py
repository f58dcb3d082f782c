"""Tags on flow and task runs (flows/tags.py, domain/ops/services/run_tags.py): an admin finds every run that
worked on a tournament by filtering on `tournament:<kind>-<id>`, on a club by `club:<id>`, on a kind
by `kind:poker` / `kind:pusoy` — sweeps, in-process runs and the timekeeper's moments alike."""

from __future__ import annotations

import re
from datetime import timedelta

from prefect.client.orchestration import get_client
from prefect.client.schemas.filters import (
    FlowRunFilter,
    FlowRunFilterId,
    FlowRunFilterTags,
)
from prefect.settings import PREFECT_API_URL
from sqlalchemy.orm import Session

from domain.poker.services import clock as clock_service
from domain.store.db import unit_of_work
from flows.jobs.poker_moments import advance_clocks
from flows.jobs.pusoy import complete_rounds
from tests.support.events import consuming, wait_for
from tests.support.world import T0, complete_pusoy, enter, filled, play, tournament
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


def test_the_sweep_that_worked_on_a_poker_tournament_is_found_by_its_tags(prefect_api, committed):
    """(The timekeeper's task runs: tests/flows/test_timekeeper_flow.py.)"""
    with Session(committed) as s, s.begin():
        t = tournament(s)
        enter(s, t)
        clock_service.act(s, t.id, "start", T0)
        tid, club = t.id, t.club_id
    mine = (f"tournament:poker-{tid}", f"club:{club}", "kind:poker")
    earlier = tuple(runs_tagged(*mine))

    sweep = advance_clocks(now=T0 + timedelta(minutes=21))  # level 2 started

    assert [r["tournament_id"] for r in sweep["advanced"]] == [tid]
    [swept] = runs_tagged(*mine, besides=earlier)
    assert set(swept.tags) == set(mine)  # added by the sweep after its work
    assert {r.name.rsplit("-", 1)[0] for r in task_runs_of(swept.id)} == {"tag-flow-run"}


def test_the_complete_rounds_sweep_that_completed_a_cup_s_round_carries_the_tournaments_tags(prefect_api, committed):
    """The `complete-rounds` sweep (what the event consumer left, or `tourney jobs run complete-rounds`)
    tags its run with the cups it completed, by id: never the (private) join code."""
    with unit_of_work(committed) as s:
        cup = filled(s, 8, games=2)
        play(s, cup, 1, WORKED_EXAMPLE)
        tid, code = cup.id, cup.code
    mine = (f"tournament:pusoy-{tid}", "kind:pusoy")
    earlier = tuple(runs_tagged(*mine))

    assert [c["round"] for c in complete_rounds(tournament_id=tid)["completed"]] == [1]

    [run] = runs_tagged(*mine, besides=earlier)
    assert set(run.tags) == set(mine)  # added by the sweep after its work; no club: the cup belongs to none
    assert not any(code in tag for tag in run.tags)


def test_every_run_created_for_a_tournament_is_named_by_it(prefect_api, committed, monkeypatch):
    """No run a tournament's tags find has a name Prefect drew ("obedient-carp"): each way one is
    made for a tournament names it — a run of a deployment started at once with or without a name
    (the simulator's on the wall clock), the documents of a cup's champion (the event consumer's), a
    job called in this process under its tags (the simulator in virtual time)."""
    from prefect import tags

    from flows.deployments import deployment, job
    from flows.runs import run_now
    from flows.tags import of_poker

    def names_them(name: str, whom: list[str]) -> bool:  # `poker-1` as a word: not in `poker-12`
        return all(re.search(rf"(?<![\w-]){re.escape(w)}(?![\w])", name) for w in whom)

    monkeypatch.setenv("PREFECT_API_URL", PREFECT_API_URL.value())
    with unit_of_work(committed) as s:
        poker = tournament(s)
        enter(s, poker)
        clock_service.act(s, poker.id, "start", T0)
        pid = poker.id
        cup = complete_pusoy(s, crown=False)[0].id
    poker_tags = of_poker([pid])[pid]
    whose = {f"poker-{pid}": f"tournament:poker-{pid}", f"pusoy-{cup}": f"tournament:pusoy-{cup}"}
    earlier = {label: tuple(runs_tagged(tag)) for label, tag in whose.items()}

    for name in ("advance-clocks", "publish-results"):
        deployment(job(name)).apply()
    with consuming():  # the final's completion crowns the champion; its event, the documents' run
        assert wait_for(lambda: runs_tagged(whose[f"pusoy-{cup}"], besides=earlier[f"pusoy-{cup}"]))
    assert run_now("advance-clocks", f"test-names-{pid}", poker_tags).endswith("started")  # no name given
    with tags(*poker_tags):
        advance_clocks(now=T0 + timedelta(minutes=21))

    for label, tag in whose.items():
        made = runs_tagged(tag, besides=earlier[label])
        assert made, label
        assert [r.name for r in made if not names_them(r.name, [label])] == [], label
    assert {r.name for r in runs_tagged(whose[f"poker-{pid}"], besides=earlier[f"poker-{pid}"])} == {
        f"advance-clocks poker-{pid}"
    }
    assert [r.name for r in runs_tagged(whose[f"pusoy-{cup}"], besides=earlier[f"pusoy-{cup}"])] == [
        f"publish-results pusoy-{cup}"
    ]
