"""Tags on flow and task runs (the scheme: domain/ops/services/run_tags.py).

- A run created for one tournament carries its tags from creation: exact runs and `run_now` runs
  get them as run tags, in-process flow calls run inside `prefect.tags(...)`.
- Prefect gives a task run the tags of the `prefect.tags` context only, which a deployment's run does
  not enter: every flow runs its body inside `inherited()`, so its task runs carry the run's tags.
- A sweep learns which tournaments it touched only by doing the work: it then adds their tags to its
  own flow run (`tag_this_run`)."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from contextlib import contextmanager

from prefect import tags, task
from prefect.client.orchestration import get_client
from prefect.runtime import flow_run

from domain.ops.services.run_tags import poker_tags, pusoy_tags
from flows import bootstrap
from flows.retrying import unless_refused


def of_poker(ids: Iterable[int]) -> dict[int, tuple[str, ...]]:
    with bootstrap.unit_of_work() as session:
        return poker_tags(session, ids)


def of_pusoy(ids: Iterable[int]) -> dict[int, tuple[str, ...]]:
    with bootstrap.unit_of_work() as session:
        return pusoy_tags(session, ids)


def merged(by_tournament: dict[int, tuple[str, ...]]) -> list[str]:
    return sorted({t for found in by_tournament.values() for t in found})


@contextmanager
def inherited() -> Iterator[None]:
    """This flow run's own tags (its deployment's and the ones it was created with) on its task runs."""
    with tags(*flow_run.tags):
        yield


@task(name="tag-flow-run", retries=2, retry_delay_seconds=[2, 10], retry_condition_fn=unless_refused)
def add_to_this_run(found: list[str]) -> list[str]:
    """Add tags to this task's flow run (the tags it has are kept); returns the run's tags."""
    with get_client(sync_client=True) as client:
        run = client.read_flow_run(flow_run.id)
        now = sorted(set(run.tags) | set(found))
        client.update_flow_run(run.id, tags=now)
    return now


def tag_this_run(found: Iterable[str]) -> None:
    """Tag the current flow run with the tags of the tournaments (or clubs) it touched, when it lacks
    any of them (nothing touched: no call, no task run)."""
    found = sorted(set(found))
    if not set(found) <= set(flow_run.tags):
        add_to_this_run(found)
