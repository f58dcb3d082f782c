"""One run of `verify-clubs` or `reverify-clubs`: claim a batch (one short transaction), look every
candidate up with bounded concurrency under the provider's rate limit (no transaction open), record
the outcomes (one short transaction); again until nothing is due. Each run walks the ids once, so a
failed lookup is tried again by the next run, not in a loop within this one."""

from __future__ import annotations

from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from datetime import datetime, timedelta

from sqlalchemy import Engine

from domain.clubs.services import clubs as service
from infra.registry_http import RegistryProvider, RegistryUnavailable
from domain.clubs.rules.verification import Candidate, Check
from domain.store.db import unit_of_work


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
