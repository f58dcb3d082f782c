"""`publish-results`: for every poker tournament newly finished and every Pusoy Dos tournament
newly complete, render the results sheet and the certificates, store them (database and
TOURNEY_HOME/outbox/<club>/<tournament>/); then, for every season one of those poker tournaments
counts for, the season's standings after it (LG-3, TOURNEY_HOME/outbox/<club>/season-<id>-<name>/);
then e-mail every due delivery through SMTP_URL (RULES DOC-1..DOC-4). A table artifact lists what
was produced and what was sent.

Idempotent and safe to run concurrently: a tournament (a season's standings after a tournament) is
claimed once (a unique publication row),
a delivery is sent by the one run holding its row lock; a refused or unreachable SMTP server leaves
a recorded, retryable state that a later run picks up.
"""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

from prefect import flow, task
from prefect.artifacts import create_table_artifact
from sqlalchemy import Engine

from domain.documents.ports import Mailer
from domain.documents.services import sources
from domain.documents.services.publish import outbox_root, publish, send_next
from domain.store.db import unit_of_work
from flows import bootstrap
from flows.retrying import unless_refused
from flows.runs import scheduled_name
from flows.tags import inherited, merged, of_poker, of_pusoy, tag_this_run


@task(name="publish-documents", retries=2, retry_delay_seconds=[5, 30], retry_condition_fn=unless_refused)
def publish_documents(now: datetime) -> tuple[list[dict], list[dict]]:
    """(published, skipped): every due tournament, then every due season's standings (they follow
    the results sheets published just before), each published in its own transaction."""
    settings = bootstrap.settings()
    # a missing font fails here, before anything is claimed
    with bootstrap.renderer() as renderer:
        published, skipped = [], []
        for due in (sources.due, sources.season_bundles):
            with bootstrap.unit_of_work() as session:
                found = due(session)
            for item in found:
                if isinstance(item, sources.Skipped):
                    skipped.append({"source": item.source, "tournament_id": item.tournament_id, "reason": item.reason})
                    continue
                with bootstrap.unit_of_work() as session:
                    outcome = publish(session, renderer, outbox_root(settings.home), item, now)
                if outcome is not None:  # None: a concurrent run published it first
                    published.append(outcome)
    return published, skipped


def _label(row: dict, sep: str = "-") -> str:
    """poker-7, pusoy-3, or season-2-7 (season 2's standings after poker tournament 7); with
    sep=" " as the artifact shows them: poker 7, season 2 after 7."""
    if row["source"] == "season":
        return f"season{sep}{row['season_id']}{sep}{'after ' if sep == ' ' else ''}{row['tournament_id']}"
    return f"{row['source']}{sep}{row['tournament_id']}"


def send_due(engine: Engine, outbox: Path, mailer: Mailer | None, now: datetime) -> list[dict]:
    """Attempt every delivery that is due, each in its own transaction (its row locked while it is
    sent); the outcome of each. No mailer (SMTP_URL unset): nothing is attempted."""
    outcomes: list[dict] = []
    while mailer is not None:
        with unit_of_work(engine) as session:
            outcome = send_next(session, outbox, mailer, now)
        if outcome is None:
            break
        outcomes.append(outcome)
    return outcomes


@task(name="send-documents", retries=2, retry_delay_seconds=[5, 30], retry_condition_fn=unless_refused)
def send_documents(now: datetime) -> list[dict]:
    return send_due(bootstrap.engine(), outbox_root(bootstrap.settings().home), bootstrap.mailer(), now)


@flow(name="publish-results", log_prints=True, flow_run_name=scheduled_name("publish-results"))
def publish_results(now: datetime | None = None) -> dict:
    now = now or datetime.now(UTC)
    with inherited():
        published, skipped = publish_documents(now)  # each publication emits `documents.ready`
        sent = send_documents(now)
        touched = [(x["source"], x["tournament_id"]) for x in (*published, *sent)]
        tag_this_run(
            merged(of_poker(t for s, t in touched if s == "poker"))
            + merged(of_pusoy(t for s, t in touched if s == "pusoy"))
        )
    rows = (
        [
            {
                "tournament": f"{_label(p, ' ')}: {p['tournament']}",
                "produced": len(p["files"]),
                "delivery": p["state"],
                "recipient": p["recipient"] or "—",
                "note": p["folder"],
            }
            for p in published
        ]
        + [
            {
                "tournament": _label(s, " "),
                "produced": 0,
                "delivery": s["state"],
                "recipient": s["recipient"],
                "note": f"attempt {s['attempts']}" + (f": {s['error']}" if s["error"] else ""),
            }
            for s in sent
        ]
        + [
            {
                "tournament": f"{s['source']} {s['tournament_id']}",
                "produced": 0,
                "delivery": "skipped",
                "recipient": "—",
                "note": s["reason"],
            }
            for s in skipped
        ]
    )
    create_table_artifact(
        key="publish-results",
        table=rows or [{"tournament": "—", "produced": 0, "delivery": "—", "recipient": "—", "note": "nothing due"}],
        description="Results sheets, certificates and season standings produced, and deliveries attempted",
    )
    if not bootstrap.settings().smtp_url:
        print("SMTP_URL is not set: documents stay in the outbox until it is")
    return {
        "published": [_label(p) for p in published],
        "documents": sum(len(p["files"]) for p in published),
        "sent": [_label(s) for s in sent if s["state"] == "sent"],
        "failed": [_label(s) for s in sent if s["state"] == "failed"],
        "skipped": [f"{s['source']}-{s['tournament_id']}" for s in skipped],
    }
