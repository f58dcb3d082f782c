"""`complete-rounds`: completes every Pusoy Dos round (or playoff) whose tables have reported all
their games — locks the standings, advances or opens a playoff, reseats, crowns the champion — and
publishes each round's standings as a table artifact. The sweep: a round's last report emits
`round.ready` and the event consumer completes the round at once (flows/jobs/events.py); this run
completes what is still ready when its count finds one. Two runs at once complete a round once; what
a completion starts (the champion's documents, the webhooks' deliveries) follows from its events."""

from __future__ import annotations

from datetime import UTC, datetime

from prefect import flow, task
from prefect.artifacts import create_table_artifact
from sqlalchemy import Engine

from domain.access.services import audit
from domain.pusoy.services import rounds as pusoy_rounds
from domain.store.db import unit_of_work
from flows import bootstrap
from flows.retrying import unless_refused
from flows.runs import scheduled_name
from flows.tags import inherited, merged, of_pusoy, tag_this_run


def complete_ready(engine: Engine, now: datetime, tournament_id: int | None = None) -> list[pusoy_rounds.Completion]:
    """Every ready round, each completed in its own transaction. A round that opens a playoff waits
    for the playoff's reports, so one pass is enough."""
    with unit_of_work(engine) as session:
        ready = pusoy_rounds.ready_rounds(session, tournament_id)
    done = []
    for tid, number in ready:
        with unit_of_work(engine) as session:
            completion = pusoy_rounds.complete_round(session, tid, number, now)
            audit.record_if_written(
                session,
                audit.system("job:complete-rounds"),
                "round-completed",
                now,
                pusoy=[tid],
                data={"round": number},
            )
        if completion is not None:
            done.append(completion)
    return done


@task(name="complete-ready-rounds", retries=2, retry_delay_seconds=[2, 10], retry_condition_fn=unless_refused)
def complete_ready_rounds(tournament_id: int | None, now: datetime) -> list[pusoy_rounds.Completion]:
    return complete_ready(bootstrap.engine(), now, tournament_id)


def _result(completion: pusoy_rounds.Completion, player: str) -> str:
    if completion.outcome == "playoff":
        return "playoff" if any(player in table for table in completion.playoff_tables) else "waiting"
    if player == completion.champion:
        return "champion"
    return "advanced" if player in completion.advanced else "eliminated"


def _artifact(completion: pusoy_rounds.Completion) -> None:
    rows = [
        {
            "rank": s.rank,
            "player": s.player,
            "points": s.points,
            "decided_by": s.decided_by or "",
            "result": _result(completion, s.player),
        }
        for s in completion.standings
    ]
    what = {
        "advanced": f"locked; {len(completion.advanced)} advance",
        "champion": f"final locked; champion {completion.champion}",
        "playoff": "playoff opened: " + " | ".join(", ".join(t) for t in completion.playoff_tables),
    }[completion.outcome]
    create_table_artifact(
        key=f"pusoy-{completion.tournament_id}-round-{completion.round_no}",
        table=rows,
        description=f"Pusoy Dos tournament {completion.tournament_id}, round {completion.round_no}: {what}",
    )


@flow(name="complete-rounds", log_prints=True, flow_run_name=scheduled_name("complete-rounds"))
def complete_rounds(tournament_id: int | None = None) -> dict:
    with inherited():
        completions = complete_ready_rounds(tournament_id, datetime.now(UTC))
        for completion in completions:
            _artifact(completion)
            print(f"tournament {completion.tournament_id} round {completion.round_no}: {completion.outcome}")
        create_table_artifact(
            key="complete-rounds",
            table=[
                {"tournament": c.tournament_id, "round": c.round_no, "outcome": c.outcome, "champion": c.champion or ""}
                for c in completions
            ]
            or [{"result": "no round had all its games reported"}],
            description="Pusoy Dos rounds completed by this run",
        )
        tag_this_run(merged(of_pusoy(c.tournament_id for c in completions)))
    return {
        "completed": [
            {"code": c.code, "round": c.round_no, "outcome": c.outcome, "champion": c.champion} for c in completions
        ]
    }
