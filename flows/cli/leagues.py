"""`tourney league create | add | standings`: a club's seasons and their standings (RULES LG-1..LG-3)."""

from __future__ import annotations

from typing import Annotated

import typer

from flows.cli import clock
from flows.cli.lazy import lazy
from flows.cli.output import emit, transaction

service = lazy("domain.leagues.services.leagues")

app = typer.Typer(
    rich_markup_mode=None, no_args_is_help=True, help="Leagues: a club's seasons of poker tournaments (LG-1..LG-3)."
)

SeasonId = Annotated[int, typer.Argument(help="season id")]


def season_view(s) -> dict:
    return {
        "id": s.id,
        "club_id": s.club_id,
        "name": s.name,
        "from": s.date_from,
        "to": s.date_to,
        "formula": s.formula,
        "table": [str(v) for v in s.points_table],
        "knockout_bonus": None if s.knockout_bonus is None else str(s.knockout_bonus),
        "shared": s.shared,
        "best_k": s.best_k,
    }


@app.command("create")
def create(
    name: Annotated[str, typer.Argument(help="the season's name, unique in the club")],
    club: Annotated[int, typer.Option(help="club id")],
    date_from: Annotated[str, typer.Option("--from", help="first day, in the club's timezone (included)")],
    date_to: Annotated[str, typer.Option("--to", help="end day, in the club's timezone (excluded)")],
    formula: Annotated[str, typer.Option(help="table | sqrt (LG-2)")] = "sqrt",
    table: Annotated[str | None, typer.Option(help="points by place for the table formula, e.g. 25,18,15")] = None,
    shared: Annotated[str, typer.Option(help="shared places score best | average (LG-2)")] = "best",
    bonus: Annotated[str | None, typer.Option(help="points per knockout credit (LG-2)")] = None,
    best: Annotated[int | None, typer.Option(help="count each player's best K results (LG-3)")] = None,
) -> None:
    """Create a season: [from, to) in the club's timezone, one points formula."""
    points = [service.decimal_from_text("table", v) for v in table.split(",")] if table else []
    with transaction() as session:
        season = service.create_season(
            session,
            club_id=club,
            name=name,
            date_from=service.date_from_text("--from", date_from),
            date_to=service.date_from_text("--to", date_to),
            formula=formula,
            table=points,
            shared=shared,
            bonus=service.decimal_from_text("bonus", bonus) if bonus is not None else None,
            best_k=best,
            now=clock.now(),
        )
        emit(season_view(season))


@app.command("add")
def add(
    season: SeasonId,
    series: Annotated[list[int] | None, typer.Option("--series", help="a series of the club (repeat)")] = None,
    tournament: Annotated[list[int] | None, typer.Option("--tournament", help="a poker tournament (repeat)")] = None,
) -> None:
    """Add chosen series and picked tournaments; only finished ones whose start is in range count."""
    with transaction() as session:
        emit(
            season_view(
                service.add_to_season(session, season, series_ids=series or [], tournament_ids=tournament or [])
            )
        )


@app.command("standings")
def standings(season: SeasonId) -> None:
    """The standings, derived now from the finished tournaments' places (LG-2, LG-3)."""
    with transaction() as session:
        _, _, rows = service.season_standings(session, season)
        emit(
            [
                {
                    "rank": r.standing.rank,
                    "player_id": r.standing.player_id,
                    "player": r.name,
                    "total": str(r.standing.total),
                    "counted": r.standing.counted,
                    "played": r.standing.played,
                    "firsts": r.standing.firsts,
                    "best": str(r.standing.best),
                }
                for r in rows
            ],
            "standings",
        )
