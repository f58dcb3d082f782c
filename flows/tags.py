"""Tags on flow and task runs (the scheme: domain/ops/services/run_tags.py).

- A run created for one tournament carries its tags from creation: exact runs and `run_now` runs
  get them as run tags, in-process flow calls run inside `prefect.tags(...)`.
- Prefect gives a task run the tags of the `prefect.tags` context only, which a deployment's run does
  not enter: every flow runs its body inside `inherited()`, so its task runs carry the run's tags.
- Every job's run also records where its process runs, as labels (`inherited`, flows/ops.py).
- A sweep learns which tournaments it touched only by doing the work: it then adds their tags to its
  own flow run (`tag_this_run`).
- A run created for a tournament is named by it too (`named_for`: `complete-rounds pusoy-3`), so the
  UI never lists one of its runs under a name Prefect drew ("obedient-carp"); flows/runs.py."""

from __future__ import annotations

import re
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


TOURNAMENT = "tournament:"
CLUB = "club:"


def subjects(run_tags: Iterable[str]) -> list[str]:
    """Whom a run's tags say it is for: its tournaments (`poker-42`, `pusoy-3`), else its club
    (`club-7`), else nobody."""
    found = sorted({t.removeprefix(TOURNAMENT) for t in run_tags if t.startswith(TOURNAMENT)})
    if not found:
        found = sorted({"club-" + t.removeprefix(CLUB) for t in run_tags if t.startswith(CLUB)})
    return found


def names_them(name: str | None, whom: Iterable[str]) -> bool:
    """Whether a run name names each of `whom` (as a word: `poker-1` is not named by `poker-12`)."""
    return bool(name) and all(re.search(rf"(?<![\w-]){re.escape(w)}(?![\w])", name) for w in whom)


def named_for(job: str, run_tags: Iterable[str], name: str | None = None) -> str | None:
    """The readable name of a run of `job` created for what its tags name: `name` when it names it
    already, else `<job> poker-42` (`<job> pusoy-3 pusoy-4`); `name` when the tags name nothing."""
    whom = subjects(run_tags)
    if not whom or names_them(name, whom):
        return name
    return f"{job} {' '.join(whom)}"


def merged(by_tournament: dict[int, tuple[str, ...]]) -> list[str]:
    return sorted({t for found in by_tournament.values() for t in found})


@contextmanager
def inherited() -> Iterator[None]:
    """This flow run's own tags (its deployment's and the ones it was created with) on its task runs;
    and, first, where the run's process is, on the run (`label_process`: its worker is known alive
    while it lives, and the run is never requeued meanwhile, flows/ops.py)."""
    from flows.ops import label_process

    label_process()
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
