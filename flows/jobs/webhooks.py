"""`deliver-webhooks` (Players online: webhooks): POSTs every webhook delivery that is due, signed
(HMAC-SHA256 with a timestamp), each in its own transaction with its row taken `FOR UPDATE SKIP
LOCKED` (domain/webhooks/services/delivery.py): two runs at once split the work and never send one
delivery twice at once; an endpoint that does not answer 2xx is tried again by the back-off (10 s,
30 s, 2 min, 10 min, 1 h, ... for 24 h, then given up). At once for an event with a delivery due
(the event consumer starts a run per event, flows/jobs/events.py), and when the timekeeper's count
finds one due (a retry's back-off). A table artifact lists the attempts.

The task's retries are for the database (a dropped connection); an endpoint's failure is not the
task's: it is recorded on its delivery and retried by the schedule."""

from __future__ import annotations

from datetime import UTC, datetime

from prefect import flow, task
from prefect.artifacts import create_table_artifact
from sqlalchemy import Engine

from domain.store.db import unit_of_work
from domain.webhooks.ports import Sender
from domain.webhooks.services import delivery
from flows import bootstrap
from flows.retrying import unless_refused
from flows.runs import scheduled_name
from flows.tags import inherited

BATCH = 1000  # most attempts in one run; the next run goes on


def deliver_due(engine: Engine, sender: Sender, key: bytes, now: datetime, limit: int = BATCH) -> list[dict]:
    """Attempt every delivery due at `now`, each in its own transaction; the outcome of each."""
    outcomes: list[dict] = []
    while len(outcomes) < limit:
        with unit_of_work(engine) as session:
            outcome = delivery.attempt_next(session, sender, key, now)
        if outcome is None:
            break
        outcomes.append(outcome)
    return outcomes


@task(name="deliver-due-webhooks", retries=2, retry_delay_seconds=[2, 10], retry_condition_fn=unless_refused)
def deliver_due_webhooks(now: datetime) -> list[dict]:
    with bootstrap.webhook_sender() as sender:
        return deliver_due(bootstrap.engine(), sender, bootstrap.webhook_key(), now)


@flow(name="deliver-webhooks", log_prints=True, flow_run_name=scheduled_name("deliver-webhooks"))
def deliver_webhooks(now: datetime | None = None) -> dict:
    now = now or datetime.now(UTC)
    with inherited():
        outcomes = deliver_due_webhooks(now)
    create_table_artifact(
        key="deliver-webhooks",
        table=[
            {
                "event": o["event"],
                "kind": o["kind"],
                "endpoint": o["endpoint"],
                "state": o["state"],
                "status": o["status"] or "—",
                "attempts": o["attempts"],
            }
            for o in outcomes
        ]
        or [{"event": "—", "kind": "—", "endpoint": "—", "state": "nothing due", "status": "—", "attempts": 0}],
        description="Webhook deliveries attempted by this run",
    )
    counts = {state: sum(1 for o in outcomes if o["state"] == state) for state in ("delivered", "retrying", "failed")}
    print(", ".join(f"{n} {state}" for state, n in counts.items()))
    return counts
