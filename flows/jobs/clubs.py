"""`verify-clubs` and `reverify-clubs` (CL-2, CL-3, CL-4): thin orchestration over domain.clubs.

Each run handles every due row once with bounded concurrency under the provider's rate limit and
publishes a table artifact of the outcomes. Both are idempotent and safe to run twice or at once
(leases on the rows, compare-and-set decisions, one audit entry per decision)."""

from __future__ import annotations

from collections import Counter
from datetime import UTC, datetime, timedelta

from prefect import flow, task
from prefect.artifacts import create_table_artifact

from domain.clubs.services.rate import SharedRateLimiter
from domain.clubs.services.runs import queue_without_provider, run_checks
from domain.store.db import get_engine
from flows.retrying import unless_refused
from flows.runs import run_now
from flows.tags import inherited, tag_this_run
from infra.config import load_registry_settings
from infra.registry_http import provider_from_settings


def _now() -> datetime:
    return datetime.now(UTC)


@task(name="check-clubs", retries=2, retry_delay_seconds=[5, 30], retry_condition_fn=unless_refused)
def check_clubs(recheck: bool, concurrency: int | None, max_age_days: int | None) -> list[dict]:
    settings = load_registry_settings()
    engine = get_engine()
    provider = provider_from_settings(settings, lambda name, rate: SharedRateLimiter(engine, name, rate))
    if provider is None:
        return [] if recheck else queue_without_provider(engine, _now())
    with provider:
        return run_checks(
            engine,
            provider,
            _now,
            recheck=recheck,
            concurrency=concurrency or settings.concurrency,
            max_attempts=settings.max_attempts,
            max_age=timedelta(days=max_age_days or settings.recheck_days),
        )


def _publish(key: str, rows: list[dict], what: str) -> dict:
    create_table_artifact(key=key, table=rows, description=f"{what}: {len(rows)} outcome rows")
    counts = Counter()
    for row in rows:
        counts[row["outcome"]] += row.get("count", 1)
    return dict(sorted(counts.items()))


@flow(name="verify-clubs", log_prints=True)
def verify_clubs(concurrency: int | None = None) -> dict:
    """Every pending application checked against the registry once (or queued for moderators when no
    provider is configured)."""
    with inherited():
        rows = check_clubs(False, concurrency, None)
        tag_this_run(f"club:{r['club']}" for r in rows if r.get("club") is not None)
        return _publish("verify-clubs", rows, "Club verification")


@flow(name="reverify-clubs", log_prints=True)
def reverify_clubs(max_age_days: int | None = None, concurrency: int | None = None) -> dict:
    """Verified clubs whose last check is `max_age_days` old (default REGISTRY_RECHECK_DAYS, 30)
    checked again; those no longer active lose the status (CL-4)."""
    with inherited():
        rows = check_clubs(True, concurrency, max_age_days)
        tag_this_run(f"club:{r['club']}" for r in rows if r.get("club") is not None)
        return _publish("reverify-clubs", rows, "Club re-verification")


def trigger_verification(club_id: int, application_no: int) -> str:
    """Start a `verify-clubs` run at once (applying triggers it); else the 10-minute schedule checks it."""
    return run_now("verify-clubs", f"club-{club_id}-application-{application_no}", tags=[f"club:{club_id}"])
