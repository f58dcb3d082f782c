"""The arguments the poker and player commands share."""

from __future__ import annotations

from typing import Annotated

import typer

TournamentId = Annotated[int, typer.Argument(help="tournament id")]
PlayerRef = Annotated[str, typer.Argument(help="player id or handle")]
EntryRef = Annotated[str, typer.Argument(help="entry id, table/seat (3/7), or the player's handle or name")]
Yes = Annotated[bool, typer.Option("--yes", help="do it without asking")]
