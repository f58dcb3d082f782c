"""`verify-clubs` and `reverify-clubs` (CL-2, CL-3, CL-4): thin orchestration over domain.clubs.

Each run handles every due row once with bounded concurrency under the provider's rate limit and
publishes a table artifact of the outcomes. Both are idempotent and safe to run twice or at once
(leases on the rows, compare-and-set decisions, one audit entry per decision).

One run (`run_checks`): claim a batch (one short transaction), look every candidate up with bounded
concurrency under the provider's rate limit (no transaction open), record the outcomes (one short
transaction); again until nothing is due. Each run walks the ids once, so a failed lookup is tried
again by the next run, not in a loop within this one."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, datetime, timedelta

from prefect import flow, task
from prefect.artifacts import create_table_artifact
from sqlalchemy import Engine

from domain.clubs.ports import RegistryProvider, RegistryUnavailable
from domain.clubs.rules.verification import Candidate, Check
from domain.clubs.services import clubs as service
from domain.store.db import unit_of_work
from flows import bootstrap
from flows.retrying import unless_refused
from flows.runs import run_now, scheduled_name
from flows.tags import inherited, tag_this_run
from infra.registry_rate import SharedRateLimiter


def _now() -> datetime:
    return datetime.now(UTC)


def _lookup(provider: RegistryProvider, candidate: Candidate) -> Check:
    try:
        return Check(candidate, provider.lookup(candidate.inn))
    except RegistryUnavailable as exc:
        return Check(candidate, None, str(exc))


def run_checks(
    engine: Engine,
    provider: RegistryProvider,
    clock: Callable[[], datetime],
    *,
    recheck: bool = False,
    concurrency: int = 8,
    batch_size: int = 100,
    max_attempts: int = 3,
    max_age: timedelta = timedelta(days=30),
) -> list[dict]:
    """Every due candidate once; one row per candidate: club, INN, outcome, reason."""
    rows: list[dict] = []
    after_id = 0
    with ThreadPoolExecutor(max_workers=concurrency, thread_name_prefix="registry") as pool:
        while True:
            with unit_of_work(engine) as session:
                batch = service.claim(
                    session, clock(), recheck=recheck, after_id=after_id, limit=batch_size, max_age=max_age
                )
            if not batch:
                return rows
            after_id = batch[-1].club_id
            checks = list(pool.map(lambda c: _lookup(provider, c), batch))
            with unit_of_work(engine) as session:
                outcomes = service.record(session, checks, clock(), provider.name, max_attempts)
            rows += [
                {"club": c.club_id, "inn": c.inn, "outcome": outcomes[c.club_id][0], "reason": outcomes[c.club_id][1]}
                for c in batch
            ]


def queue_without_provider(engine: Engine, now: datetime) -> list[dict]:
    """CL-3: no provider configured, so every pending application goes to the moderator queue."""
    with unit_of_work(engine) as session:
        count = service.queue_all_pending(session, now)
    return [{"outcome": "queue", "count": count, "reason": service.NO_PROVIDER}] if count else []


@task(name="check-clubs", retries=2, retry_delay_seconds=[5, 30], retry_condition_fn=unless_refused)
def check_clubs(recheck: bool, concurrency: int | None, max_age_days: int | None) -> list[dict]:
    settings = bootstrap.registry_settings()
    engine = bootstrap.engine()
    provider = bootstrap.registry(lambda name, rate: SharedRateLimiter(engine, name, rate))
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


@flow(name="verify-clubs", log_prints=True, flow_run_name=scheduled_name("verify-clubs"))
def verify_clubs(concurrency: int | None = None) -> dict:
    """Every pending application checked against the registry once (or queued for moderators when no
    provider is configured)."""
    with inherited():
        rows = check_clubs(False, concurrency, None)
        tag_this_run(f"club:{r['club']}" for r in rows if r.get("club") is not None)
        return _publish("verify-clubs", rows, "Club verification")


@flow(name="reverify-clubs", log_prints=True, flow_run_name=scheduled_name("reverify-clubs"))
def reverify_clubs(max_age_days: int | None = None, concurrency: int | None = None) -> dict:
    """Verified clubs whose last check is `max_age_days` old (default REGISTRY_RECHECK_DAYS, 30)
    checked again; those no longer active lose the status (CL-4)."""
    with inherited():
        rows = check_clubs(True, concurrency, max_age_days)
        tag_this_run(f"club:{r['club']}" for r in rows if r.get("club") is not None)
        return _publish("reverify-clubs", rows, "Club re-verification")


def trigger_verification(club_id: int, application_no: int) -> str:
    """Start a `verify-clubs` run at once (applying triggers it); else the 10-minute schedule checks it."""
    return run_now(
        "verify-clubs",
        f"club-{club_id}-application-{application_no}",
        tags=[f"club:{club_id}"],
        run_name=f"verify-clubs club-{club_id} application {application_no}",
    )
