"""`publish-results`: for every poker tournament newly finished and every Pusoy Dos tournament
newly complete, render the results sheet and the certificates, store them (database and
TOURNEY_HOME/outbox/<club>/<tournament>/), then e-mail every due delivery through SMTP_URL
(RULES DOC-1..DOC-3). A table artifact lists what was produced and what was sent.

Idempotent and safe to run concurrently: a tournament is claimed once (a unique publication row),
a delivery is sent by the one run holding its row lock; a refused or unreachable SMTP server leaves
a recorded, retryable state that a later run picks up.
"""

from __future__ import annotations

from datetime import UTC, datetime

from prefect import flow, task
from prefect.artifacts import create_table_artifact

from domain.documents.services import sources
from domain.documents.services.publish import outbox_root, publish, send_due
from domain.store.db import get_engine, unit_of_work
from flows.retrying import unless_refused
from flows.tags import inherited, merged, of_poker, of_pusoy, tag_this_run
from infra.config import load_settings
from infra.mail import parse_url
from infra.render import Renderer


@task(name="publish-documents", retries=2, retry_delay_seconds=[5, 30], retry_condition_fn=unless_refused)
def publish_documents(now: datetime) -> tuple[list[dict], list[dict]]:
    """(published, skipped): every due tournament, each published in its own transaction."""
    settings = load_settings()
    # a missing font fails here, before anything is claimed
    with Renderer(settings.secret_key(), workers=settings.render_workers, public_url=settings.public_url()) as renderer:
        with unit_of_work() as session:
            found = sources.due(session)
        published, skipped = [], []
        for item in found:
            if isinstance(item, sources.Skipped):
                skipped.append({"source": item.source, "tournament_id": item.tournament_id, "reason": item.reason})
                continue
            with unit_of_work() as session:
                outcome = publish(session, renderer, outbox_root(settings.home), item, now)
            if outcome is not None:  # None: a concurrent run published it first
                published.append(outcome)
    return published, skipped


@task(name="send-documents", retries=2, retry_delay_seconds=[5, 30], retry_condition_fn=unless_refused)
def send_documents(now: datetime) -> list[dict]:
    settings = load_settings()
    target = parse_url(settings.smtp_url) if settings.smtp_url else None
    return send_due(get_engine(), outbox_root(settings.home), target, now)


@flow(name="publish-results", log_prints=True)
def publish_results(now: datetime | None = None) -> dict:
    now = now or datetime.now(UTC)
    with inherited():
        published, skipped = publish_documents(now)
        sent = send_documents(now)
        touched = [(x["source"], x["tournament_id"]) for x in (*published, *sent)]
        tag_this_run(merged(of_poker(t for s, t in touched if s == "poker"))
                     + merged(of_pusoy(t for s, t in touched if s == "pusoy")))
    rows = [
        {
            "tournament": f"{p['source']} {p['tournament_id']}: {p['tournament']}",
            "produced": len(p["files"]),
            "delivery": p["state"],
            "recipient": p["recipient"] or "—",
            "note": p["folder"],
        }
        for p in published
    ] + [
        {
            "tournament": f"{s['source']} {s['tournament_id']}",
            "produced": 0,
            "delivery": s["state"],
            "recipient": s["recipient"],
            "note": f"attempt {s['attempts']}" + (f": {s['error']}" if s["error"] else ""),
        }
        for s in sent
    ] + [
        {"tournament": f"{s['source']} {s['tournament_id']}", "produced": 0, "delivery": "skipped",
         "recipient": "—", "note": s["reason"]}
        for s in skipped
    ]
    create_table_artifact(
        key="publish-results",
        table=rows or [{"tournament": "—", "produced": 0, "delivery": "—", "recipient": "—", "note": "nothing due"}],
        description="Results sheets and certificates produced, and deliveries attempted",
    )
    if not load_settings().smtp_url:
        print("SMTP_URL is not set: documents stay in the outbox until it is")
    return {
        "published": [f"{p['source']}-{p['tournament_id']}" for p in published],
        "documents": sum(len(p["files"]) for p in published),
        "sent": [f"{s['source']}-{s['tournament_id']}" for s in sent if s["state"] == "sent"],
        "failed": [f"{s['source']}-{s['tournament_id']}" for s in sent if s["state"] == "failed"],
        "skipped": [f"{s['source']}-{s['tournament_id']}" for s in skipped],
    }
