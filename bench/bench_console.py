"""The owner's console (issue 39; docs/console.md): its pages served as `tourney web` serves them, to
50 owners of 50 clubs browsing at a person's pace (a page every 1 to 3 s, each of its own club: the
console's home, the tournaments, the structures, the staff, a tournament's settings, the series and
one of them, the seasons, the documents, the audit trail (300 rows a club), the profile, the
webhooks), beside one owner alone asking the same pages back to back; p50 and p95 of each (the
target: p95 ≤ 50 ms at 50 owners)."""

from __future__ import annotations

import random
import statistics
import threading
import time
from datetime import UTC, datetime, timedelta

import httpx

from bench.harness import Report
from domain.access.services import accounts, audit, signin
from domain.series.services import series
from domain.store.db import unit_of_work
from flows import bootstrap
from flows.web.api import owner_series
from tests.support.net import free_port
from tests.support.web_server import Server
from tests.support.world import club, structure, tournament, web_auth

OWNERS = 50
SECONDS = 40.0
PAGES = (
    "/club/{c}", "/club/{c}/tournaments", "/club/{c}/structures", "/club/{c}/staff", "/club/{c}/tournaments/{t}",
    "/club/{c}/series", "/club/{c}/series/{s}", "/club/{c}/seasons", "/club/{c}/documents", "/club/{c}/audit",
    "/club/{c}/profile", "/club/{c}/webhooks",
)  # fmt: skip
TRAIL = 300  # audit rows a club: the trail's first page is a page of them


def _p95(values: list[float]) -> float:
    return statistics.quantiles(values, n=20)[18]


def _owners(engine) -> list[tuple[dict[str, int], dict[str, str]]]:
    """50 clubs, each with an owner signed in (a session cookie), a structure, 10 tournaments, a weekly
    series made of the first and `TRAIL` rows of its audit trail."""
    now, auth, made = datetime.now(UTC), web_auth(), []
    with unit_of_work(engine) as session:
        for n in range(OWNERS):
            c = club(session, fresh=True)
            structure(session, club_id=c.id)
            ts = [
                tournament(session, club_id=c.id, status="registration_open", start=now + timedelta(days=d + 1))
                for d in range(10)
            ]
            account = accounts.add(session, f"owner{n}@bench.example", now)
            accounts.grant(session, account, "owner", c.id, now)
            secret = signin.start_session(session, account.id, now, address="127.0.0.1", agent="bench")
            template = owner_series.template_of(session, c.id, ts[0].id)
            spec = series.SeriesSpec(c.id, "Пятничный турбо", "poker", "0 19 * * 5", None, template)
            series_id = series.add_series(session, spec, now)
            actor = signin.session_actor(session, secret, now)
            for k in range(TRAIL):
                audit.record(session, actor, "club.edit-tournament", now - timedelta(minutes=k),
                             target=f"tournament {ts[k % 10].id}", club_id=c.id)  # fmt: skip
            ids = {"c": c.id, "t": ts[0].id, "s": series_id}
            made.append((ids, {"cookie": f"tourney_session={auth.cookie(secret)}"}))
    return made


def run(report: Report) -> None:
    from flows.web.app import create_app

    engine = bootstrap.engine()
    owners = _owners(engine)
    with Server(create_app(engine), free_port()) as server:
        alone: list[float] = []
        ids, cookie = owners[0]
        with httpx.Client(base_url=server.url) as client:
            for path in PAGES * 4:  # warm
                answer = client.get(path.format(**ids), headers=cookie)
                assert answer.status_code == 200, (path, answer.status_code)
            for _ in range(20):
                for path in PAGES:
                    start = time.perf_counter()
                    client.get(path.format(**ids), headers=cookie)
                    alone.append(time.perf_counter() - start)

        paced: list[float] = []
        failures: list[int] = []
        until = time.monotonic() + SECONDS

        def browse(n: int) -> None:
            rng = random.Random(n)
            ids, cookie = owners[n]
            with httpx.Client(base_url=server.url, timeout=30) as client:
                time.sleep(rng.uniform(0, 2))
                while time.monotonic() < until:
                    path = rng.choice(PAGES).format(**ids)
                    start = time.perf_counter()
                    status = client.get(path, headers=cookie).status_code
                    paced.append(time.perf_counter() - start)
                    if status != 200:
                        failures.append(status)
                    time.sleep(rng.uniform(1, 3))

        threads = [threading.Thread(target=browse, args=(n,)) for n in range(OWNERS)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
    name = f"console: pages, one owner alone beside {OWNERS} owners at a person's pace"
    report.compared(name, ("one owner, back to back", alone), (f"{OWNERS} owners, paced", paced))
    report.note(name, "one owner p95 ms", round(_p95(alone) * 1e3, 1))
    report.note(name, f"{OWNERS} owners p50 ms", round(statistics.median(paced) * 1e3, 1))
    report.note(name, f"{OWNERS} owners p95 ms (target 50)", round(_p95(paced) * 1e3, 1))
    report.note(name, "pages asked / not 200", f"{len(paced)} / {len(failures)}")
