"""`status-report`: proves the wiring end to end — database reachable, schema at the migration head,
and how much work each job will pick up next, published as a table artifact."""

from __future__ import annotations

from prefect import flow, task
from prefect.artifacts import create_table_artifact

from domain.ops.services.status import Status, read_status
from flows import bootstrap
from flows.retrying import unless_refused
from flows.runs import scheduled_name
from flows.tags import inherited


@task(name="read-status", retries=2, retry_delay_seconds=[2, 10], retry_condition_fn=unless_refused)
def read_status_task() -> Status:
    engine = bootstrap.check_reachable()
    return read_status(engine)


@flow(name="status-report", log_prints=True, flow_run_name=scheduled_name("status-report", "hourly"))
def status_report() -> dict:
    with inherited():
        status = read_status_task()
    rows = [
        {"item": "server", "value": status.server_version},
        {"item": "database", "value": status.database},
        {"item": "migrations applied", "value": ", ".join(status.migrations_applied) or "none"},
        {"item": "migrations expected", "value": ", ".join(status.migrations_expected)},
        {"item": "schema at head", "value": "yes" if status.at_head else "NO: run `tourney db upgrade`"},
    ] + [{"item": f"pending for {job}", "value": str(count)} for job, count in status.pending]
    create_table_artifact(key="status-report", table=rows, description="Database and pending work")
    if not status.at_head:
        raise RuntimeError("the schema is behind the migrations: run `tourney db upgrade`")
    return {
        "database": status.database,
        "at_head": status.at_head,
        "pending": dict(status.pending),
    }
