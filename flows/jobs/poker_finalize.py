"""`finalize-tournaments`, the sweep: every tournament down to one player whose last knockout's void
window has closed gets its final places and prizes and is marked finished, and its final table is
published as an artifact (Sport Poker 3.7, RULES SP-7). The timekeeper does this at the instant the
window closes (and `tourney poker finish` at once); the sweep is the safety net. Idempotent: a
finished tournament is never picked again, and a tournament another run holds is skipped. Its
documents follow from the `tournament.finished` event it writes (flows/jobs/events.py)."""

from __future__ import annotations

from datetime import UTC, datetime

from prefect import flow, task
from prefect.artifacts import create_table_artifact

from domain.access.services import audit
from domain.poker.services.results import Finalized, final_table, finalize_tournaments
from flows import bootstrap
from flows.retrying import unless_refused
from flows.runs import scheduled_name
from flows.tags import inherited, merged, of_poker, tag_this_run


def final_table_key(tournament_id: int) -> str:
    """The key of a tournament's final-table artifact, whichever run finished it (this sweep, or the
    timekeeper's moment): one artifact per tournament."""
    return f"poker-final-table-{tournament_id}"


@task(name="finalize-ready-tournaments", retries=2, retry_delay_seconds=[2, 10], retry_condition_fn=unless_refused)
def finalize_ready(now: datetime) -> list[Finalized]:
    with bootstrap.unit_of_work() as session:
        done = finalize_tournaments(session, now)
        audit.record_if_written(  # AC-3: in the change's transaction
            session, audit.system("job:finalize-tournaments"), "finalize", now, poker=[t.tournament_id for t in done]
        )
        return done


@flow(name="finalize-tournaments", log_prints=True, flow_run_name=scheduled_name("finalize-tournaments"))
def finalize_tournaments_flow(now: datetime | None = None) -> dict:
    now = now or datetime.now(UTC)
    with inherited():
        done = finalize_ready(now)
        for t in done:
            create_table_artifact(
                key=final_table_key(t.tournament_id),
                table=final_table(t),
                description=f"Final table of tournament {t.tournament_id} “{t.name}”",
            )
            print(f"tournament {t.tournament_id} finished: {len(t.places)} players placed")
        create_table_artifact(
            key="finalize-tournaments",
            table=[
                {
                    "tournament": t.tournament_id,
                    "name": t.name,
                    "placed": len(t.places),
                    "prizes": sum(1 for p in t.places if p.place.prize is not None),
                }
                for t in done
            ]
            or [{"result": "no tournament was down to one player"}],
            description=f"Tournaments finished at {now.isoformat()}",
        )
        tag_this_run(merged(of_poker(t.tournament_id for t in done)))
    return {"finished": [t.tournament_id for t in done]}
