"""Failed tasks retry with backoff when the failure can pass, and fail at once when it cannot (a
DomainError: bad data or a broken configuration), on a real Prefect API."""

from __future__ import annotations

import pytest
from prefect import flow, task
from prefect.client.orchestration import get_client
from prefect.client.schemas.filters import FlowRunFilter, FlowRunFilterId

from domain.errors import ConfigurationError, DomainError
from flows.jobs.documents import publish_results
from flows.retrying import unless_refused

attempts: list[str] = []


@task(name="flaky", retries=2, retry_delay_seconds=0, retry_condition_fn=unless_refused)
def flaky(error: type[Exception]) -> None:
    attempts.append(error.__name__)
    if error is DomainError:
        raise DomainError("refused", "the rules refuse this")
    raise error("the connection dropped")


@flow(name="retrying-probe")
def probe(error: type[Exception]) -> None:
    flaky(error)


def _task_run_counts(flow_run_id) -> dict[str, int]:
    with get_client(sync_client=True) as client:
        runs = client.read_task_runs(flow_run_filter=FlowRunFilter(id=FlowRunFilterId(any_=[flow_run_id])))
    return {r.name.rsplit("-", 1)[0]: r.run_count for r in runs}


def test_a_failure_that_can_pass_is_retried_with_the_tasks_retries(prefect_api):
    attempts.clear()
    state = probe(ConnectionError, return_state=True)
    assert state.is_failed()
    assert attempts == ["ConnectionError"] * 3
    assert _task_run_counts(state.state_details.flow_run_id) == {"flaky": 3}


def test_a_domain_error_fails_the_task_at_once_without_retrying(prefect_api):
    attempts.clear()
    state = probe(DomainError, return_state=True)
    assert state.is_failed()
    assert attempts == ["DomainError"]
    assert _task_run_counts(state.state_details.flow_run_id) == {"flaky": 1}


def test_a_broken_configuration_fails_publish_results_loudly_on_its_first_attempt(prefect_api, monkeypatch):
    monkeypatch.setenv("TOURNEY_RENDER_WORKERS", "none")
    state = publish_results(return_state=True)
    assert state.is_failed()
    with pytest.raises(ConfigurationError, match="TOURNEY_RENDER_WORKERS must be a whole number"):
        state.result()
    assert _task_run_counts(state.state_details.flow_run_id) == {"publish-documents": 1}
