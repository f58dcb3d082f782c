"""`tourney player ...`: player profiles (Sport Poker 1.2.1 adults only, 1.5.3 blocks, 1.6.1
forgetting) and the search by name or handle."""

from __future__ import annotations

from datetime import date
from typing import Annotated

import typer

from domain.errors import DomainError
from flows.cli.arguments import PlayerRef
from flows.cli.clock import now as _now
from flows.cli.lazy import lazy
from flows.cli.output import emit, transaction
from flows.cli.params import name_problems

players_service = lazy("domain.poker.services.players")

app = typer.Typer(
    rich_markup_mode=None, no_args_is_help=True, help="Player profiles (adults only, 1.2.1; forgetting, 1.6.1)."
)


@app.command("add")
def player_add(
    name: str,
    handle: str,
    born: Annotated[str, typer.Option(help="date of birth, YYYY-MM-DD")],
) -> None:
    """Add a player profile (refused under 18)."""
    try:
        birth = date.fromisoformat(born)
    except ValueError:
        raise DomainError("birth-date-invalid", f"date of birth '{born}' is not YYYY-MM-DD") from None
    with transaction() as session:
        emit(players_service.player_view(players_service.add_player(session, name, handle, birth, _now())))


@app.command("show")
def player_show(player: PlayerRef) -> None:
    """Show a player (a forgotten one by id, under the pseudonym)."""
    with transaction() as session:
        emit(players_service.player_view(players_service.find_player(session, player)))


@app.command("block")
def player_block(player: PlayerRef, reason: Annotated[str, typer.Option(help="why (1.5.3)")]) -> None:
    """Block a player: no more registrations."""
    with transaction() as session:
        emit(players_service.player_view(players_service.block_player(session, player, reason, _now())))


@app.command("unblock")
def player_unblock(player: PlayerRef) -> None:
    """Lift a block."""
    with transaction() as session:
        emit(players_service.player_view(players_service.unblock_player(session, player, _now())))


@app.command("forget")
def player_forget(player: PlayerRef) -> None:
    """Erase name, handle and date of birth (1.6.1); results and fees stay under the pseudonym."""
    with transaction() as session:
        emit(players_service.player_view(players_service.forget_player(session, player, _now())))


@app.command("search")
def player_search(
    text: Annotated[str, typer.Argument(help="part of a name or handle (any case)")],
    limit: Annotated[int, typer.Option(help="most players listed", min=1, max=1000)] = 50,
) -> None:
    """Players whose name or handle contains the text: exact handle first."""
    from domain.poker.services import listings

    if not text.strip():
        raise DomainError("search-blank", "say what to look for: part of a name or handle")
    name_problems("search text", text)
    with transaction() as session:
        emit(listings.search_players(session, text, limit), f"players matching '{text}'")
