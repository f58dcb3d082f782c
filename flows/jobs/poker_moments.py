"""`process-no-shows` and `advance-clocks` (Sport Poker 3.5, 3.8; SP-6, SP-8): the sweeps.

The timekeeper (flows/timekeeper.py) runs every moment at its instant; these sweeps are the rarer
safety net behind it (every 5 minutes): each handles every tournament that is due (no parameters),
or one (`tournament_id`). Both are idempotent and safe to run twice, late or concurrently with the
timekeeper (the services record everything by natural keys and skip rows another run holds); both
publish a table artifact of what they did, and add the tags of the tournaments they handled to
their own run (flows/tags.py).
"""

from __future__ import annotations

from datetime import UTC, datetime

from prefect import flow
from prefect.artifacts import create_table_artifact

from domain.access.services import audit
from domain.poker.services import clock as clock_service
from domain.poker.services import noshow as noshow_service
from flows import bootstrap
from flows.runs import scheduled_name
from flows.tags import inherited, merged, of_poker, tag_this_run

NO_SHOWS = "process-no-shows"
ADVANCE = "advance-clocks"


def _artifact(key: str, rows: list[dict], description: str) -> None:
    table = [{k: (v.isoformat() if isinstance(v, datetime) else v) for k, v in r.items()} for r in rows]
    create_table_artifact(key=key, table=table or [{"result": "nothing was due"}], description=description)


@flow(name=NO_SHOWS, log_prints=True, flow_run_name=scheduled_name(NO_SHOWS))
def process_no_shows(tournament_id: int | None = None, now: datetime | None = None) -> dict:
    """Apply the no-show policy of every tournament whose late registration has closed (or one)."""
    now = now or datetime.now(UTC)
    with inherited():
        with bootstrap.unit_of_work() as session:
            done = noshow_service.process_no_shows(session, now, tournament_id)
            audit.record_if_written(
                session, audit.system(f"job:{NO_SHOWS}"), "no-shows", now, poker=[r["tournament_id"] for r in done]
            )
        _artifact(NO_SHOWS, done, f"No-shows processed at {now.isoformat()}")
        tag_this_run(merged(of_poker(r["tournament_id"] for r in done)))
    return {"processed": done}


@flow(name=ADVANCE, log_prints=True, flow_run_name=scheduled_name(ADVANCE))
def advance_clocks(tournament_id: int | None = None, now: datetime | None = None) -> dict:
    """Record the due level changes and break events of every running tournament (or one) and
    charge dead stacks."""
    now = now or datetime.now(UTC)
    with inherited():
        with bootstrap.unit_of_work() as session:
            done = clock_service.advance_clocks(session, now, tournament_id)
            audit.record_if_written(
                session, audit.system(f"job:{ADVANCE}"), "clock-advanced", now, poker=[r["tournament_id"] for r in done]
            )
        _artifact(ADVANCE, done, f"Level changes recorded at {now.isoformat()}")
        tag_this_run(merged(of_poker(r["tournament_id"] for r in done)))
    return {"advanced": done}
