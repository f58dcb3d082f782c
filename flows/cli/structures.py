"""`tourney poker structure ...`: blind structures (Sport Poker 3.5), imported from a CSV or JSON
level grid."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from domain.errors import DomainError, raise_problems
from domain.poker.rules.structures import parse_levels
from flows.cli.clock import now as _now
from flows.cli.lazy import lazy
from flows.cli.output import emit, transaction
from flows.cli.params import name_problems, read_text_file

structures_service = lazy("domain.poker.services.structures")

app = typer.Typer(rich_markup_mode=None, no_args_is_help=True, help="Blind structures (3.5).")


@app.command("import")
def structure_import(
    file: Annotated[Path, typer.Argument(help="a .csv or .json level grid")],
    club: Annotated[int, typer.Option(help="club id")],
    name: Annotated[str, typer.Option(help="structure name, unique in the club")],
    ante_type: Annotated[str, typer.Option(help="none, classic or bb_ante")] = "none",
) -> None:
    """Import a blind structure from CSV (small_blind,big_blind,ante,minutes,break) or JSON."""
    kind = file.suffix.lower().lstrip(".")
    if kind not in ("csv", "json"):
        raise DomainError("structure-file-invalid", f"'{file}' must end in .csv or .json")
    name_problems("structure name", name)
    content = read_text_file(file, "structure")
    levels, problems = parse_levels(content, kind)
    raise_problems(problems)
    with transaction() as session:
        structure = structures_service.import_structure(session, club, name, ante_type, levels, _now())
        emit(structures_service.structure_view(session, structure.id))


@app.command("show")
def structure_show(structure: Annotated[int, typer.Argument(help="structure id")]) -> None:
    """A structure and its levels."""
    with transaction() as session:
        emit(structures_service.structure_view(session, structure))
