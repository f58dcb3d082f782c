"""`tourney pusoy ...`: Pusoy Dos bracket tournaments (RULES PD-1..PD-13)."""

from __future__ import annotations

from typing import Annotated

import typer

from domain.errors import DomainError
from flows.cli.clock import now as _now
from flows.cli.lazy import lazy
from flows.cli.output import emit, transaction
from flows.cli.params import INT_MAX

pusoy_reports = lazy("domain.pusoy.services.reports")
pusoy_setup = lazy("domain.pusoy.services.setup")
pusoy_views = lazy("domain.pusoy.services.views")

app = typer.Typer(rich_markup_mode=None, no_args_is_help=True, help="Pusoy Dos bracket tournaments of 4-player tables.")

Code = Annotated[str, typer.Argument(help="The tournament's join code (any case).")]


def _finishes(pairs: list[str]) -> list[tuple[str, int]]:
    out = []
    for pair in pairs:
        player, sep, position = pair.partition("=")
        if not sep or not player or not (position.strip().isascii() and position.strip().isdigit()):
            raise DomainError("bad-finish", f"a finish is player=position (e.g. ann=1), not '{pair}'")
        out.append((player, int(position)))
    return out


def _advancing(text: str | None) -> list[int] | None:
    if text is None:
        return None
    try:
        return [int(x) for x in text.split(",") if x.strip()]
    except ValueError:
        raise DomainError(
            "bad-bracket", f"--advance takes numbers separated by commas (e.g. 12,4), not '{text}'"
        ) from None


@app.command("create")
def create(
    name: str,
    organizer: Annotated[str, typer.Option(help="The organizer's handle (the one who may cancel).")],
    capacity: Annotated[int, typer.Option(help="8, 16 or 32 players.", max=INT_MAX)] = 8,
    games: Annotated[int, typer.Option(help="Games per round, 1 to 10.", max=INT_MAX)] = 1,
    private: Annotated[bool, typer.Option("--private", help="Hidden from the browser; join by code only.")] = False,
    advance: Annotated[
        str | None, typer.Option(help="Custom bracket: players advancing from each round, e.g. 12,4.")
    ] = None,
    email: Annotated[str | None, typer.Option(help="The organizer's e-mail for results.")] = None,
    club_id: Annotated[int | None, typer.Option(help="The club the results go to.")] = None,
) -> None:
    """Create a tournament (status Setup) and print its join code."""
    with transaction() as session:
        t = pusoy_setup.create(
            session,
            name=name,
            organizer=organizer,
            capacity=capacity,
            games_per_round=games,
            private=private,
            advancing=_advancing(advance),
            organizer_email=email,
            club_id=club_id,
            now=_now(),
        )
        emit(pusoy_views.summary(t), f"created {t.code}")


@app.command("browse")
def browse(limit: Annotated[int, typer.Option(help="most tournaments listed", min=1, max=1000)] = 50) -> None:
    """Open tournaments that are filling, newest first."""
    with transaction() as session:
        rows = pusoy_setup.browse(session, limit)
        emit(
            [
                {
                    k: pusoy_views.summary(t)[k]
                    for k in (
                        "code",
                        "name",
                        "capacity",
                        "entrants",
                        "seats_left",
                        "games_per_round",
                        "bracket",
                        "created_at",
                    )
                }
                for t in rows
            ],
            "open tournaments",
        )


@app.command("join")
def join(code: Code, player: str) -> None:
    """Take a seat; the last seat starts the tournament and draws round 1."""
    with transaction() as session:
        joined = pusoy_setup.join(session, code, player, _now())
        t = joined.tournament
        emit(
            {
                "code": t.code,
                "player": player,
                "entrants": t.entrants,
                "capacity": t.capacity,
                "started": joined.started,
                "status": t.status,
            }
        )


@app.command("withdraw")
def withdraw(code: Code, player: str) -> None:
    """Give up a seat while the tournament is filling."""
    with transaction() as session:
        t = pusoy_setup.withdraw(session, code, player, _now())
        emit({"code": t.code, "player": player, "entrants": t.entrants, "status": t.status})


@app.command("cancel")
def cancel(code: Code, by: Annotated[str, typer.Option(help="The organizer's handle.")]) -> None:
    """Cancel a tournament that is still filling (organizer only)."""
    with transaction() as session:
        t = pusoy_setup.cancel(session, code, by, _now())
        emit({"code": t.code, "status": t.status})


RoundOpt = Annotated[int, typer.Option("--round", help="Round number.", min=1, max=INT_MAX)]
TableOpt = Annotated[
    int, typer.Option(help="Table number (within the round, or within the playoff).", min=1, max=INT_MAX)
]
GameOpt = Annotated[int, typer.Option(help="Game number within the round (1 for a playoff).", min=1, max=INT_MAX)]
PlayoffOpt = Annotated[
    int, typer.Option(help="Playoff number of the round (0: the regular games).", min=0, max=INT_MAX)
]
DiamondOpt = Annotated[str | None, typer.Option("--two-of-diamonds", help="The winner, when the last card was the 2♦.")]
Finishes = Annotated[list[str], typer.Argument(help="player=position for every player at the table.")]


@app.command("report")
def report(
    code: Code,
    finishes: Finishes,
    round_no: RoundOpt,
    table: TableOpt,
    game: GameOpt = 1,
    playoff: PlayoffOpt = 0,
    two_of_diamonds: DiamondOpt = None,
    by: Annotated[str | None, typer.Option(help="Who reports.")] = None,
) -> None:
    """Report one table's game; after the last game of a round the event consumer of `tourney serve`
    completes the round."""
    with transaction() as session:
        done = pusoy_reports.report(
            session,
            code,
            round_no=round_no,
            table=table,
            game=game,
            finishes=_finishes(finishes),
            two_of_diamonds=two_of_diamonds,
            now=_now(),
            by=by,
            playoff=playoff,
        )
    emit(
        {
            "code": code.strip().upper(),
            "round": round_no,
            "playoff": playoff,
            "table": table,
            "game": game,
            "round_ready": done.round_ready,
        }
    )


@app.command("amend")
def amend(
    code: Code,
    finishes: Finishes,
    round_no: RoundOpt,
    table: TableOpt,
    reason: Annotated[str, typer.Option(help="Why the result changes (kept in the audit).")],
    game: GameOpt = 1,
    playoff: PlayoffOpt = 0,
    two_of_diamonds: DiamondOpt = None,
    by: Annotated[str | None, typer.Option(help="Who corrects.")] = None,
) -> None:
    """Correct a reported game until its round locks (audited)."""
    with transaction() as session:
        pusoy_reports.amend(
            session,
            code,
            round_no=round_no,
            table=table,
            game=game,
            finishes=_finishes(finishes),
            two_of_diamonds=two_of_diamonds,
            now=_now(),
            by=by,
            reason=reason,
            playoff=playoff,
        )
    emit(
        {
            "code": code.strip().upper(),
            "round": round_no,
            "playoff": playoff,
            "table": table,
            "game": game,
            "amended": True,
        }
    )


@app.command("standings")
def standings(
    code: Code,
    round_no: Annotated[int | None, typer.Option("--round", min=1, max=INT_MAX)] = None,
    final: Annotated[bool, typer.Option("--final", help="Every entrant's final position instead.")] = False,
) -> None:
    """A round's standings (the current round by default): locked, or live; or the final positions."""
    with transaction() as session:
        if final:
            emit(pusoy_views.final_standings_view(session, code), "final standings")
        else:
            emit(pusoy_views.standings_view(session, code, round_no), "standings")


@app.command("show")
def show(code: Code) -> None:
    """The tournament, its rounds and the current tables."""
    with transaction() as session:
        emit(pusoy_views.show(session, code))


@app.command("draw-proof")
def draw_proof(code: Code) -> None:
    """Every draw: commitment, and once revealed the seed and whether it re-runs to the same outcome."""
    with transaction() as session:
        emit(pusoy_views.draw_proof(session, code), "draws")
