"""`tourney webhook add | list | remove`: the operator's tool for webhook endpoints (Players online), for
a Pusoy Dos organizer without a club (`--organizer`, as the cups name them) or for a club (`--club`;
its owner can do the same through /api/v1). The secret is printed once, at `add` (docs/webhooks.md).
The operator may name a loopback or private host (a developer's machine); the API may not."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Annotated

import typer

from flows import bootstrap
from flows.cli.lazy import lazy
from flows.cli.output import emit, transaction

service = lazy("domain.webhooks.services.endpoints")

EVENTS = "round.completed, champion.crowned, tournament.finished, documents.ready"

app = typer.Typer(
    rich_markup_mode=None,
    no_args_is_help=True,
    help="Webhooks: HTTPS endpoints that hear a club's or an organizer's results (docs/webhooks.md).",
)

Organizer = Annotated[str | None, typer.Option(help="a Pusoy Dos organizer, as the cups name them")]
Club = Annotated[int | None, typer.Option(help="a club id", min=1, max=2**63 - 1)]


@app.command("add")
def add(
    url: Annotated[str, typer.Argument(help="https://… (plain http only to 127.0.0.1, localhost, [::1])")],
    organizer: Organizer = None,
    club: Club = None,
    event: Annotated[
        list[str] | None, typer.Option("--event", help=f"an event to hear (repeat; default every one): {EVENTS}")
    ] = None,
) -> None:
    """Register an endpoint; its secret is printed this once (keep it to verify every delivery)."""
    from domain.webhooks.rules.endpoints import KINDS

    with transaction() as session:
        made, secret = service.register(
            session,
            bootstrap.webhook_key(),
            datetime.now(UTC),
            url=url,
            events=event or list(KINDS),
            club_id=club,
            organizer=organizer,
            private_hosts=True,
        )
        emit(made | {"secret": secret}, "webhook endpoint (its secret is shown this once)")


@app.command("list")
def listing(organizer: Organizer = None, club: Club = None) -> None:
    """The endpoints (of an organizer, of a club, or every one), newest first, with their deliveries."""
    with transaction() as session:
        rows = service.listing(session, club_id=club, organizer=organizer)
        emit(
            [{k: v for k, v in row.items() if k != "deliveries"} | row["deliveries"] for row in rows],
            "webhook endpoints",
        )


@app.command("remove")
def remove(
    endpoint: Annotated[int, typer.Argument(help="the endpoint's id", min=1, max=2**63 - 1)],
    organizer: Organizer = None,
    club: Club = None,
) -> None:
    """Disable an endpoint: nothing more is sent to it; its pending deliveries are given up."""
    with transaction() as session:
        emit(service.disable(session, endpoint, datetime.now(UTC), club_id=club, organizer=organizer))
