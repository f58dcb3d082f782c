"""`tourney poker clock ...`, `tourney poker seat ...` and `tourney poker arrive`: the floor's
clock, seating and arrivals (Sport Poker 3.5, 3.6, 3.8). Each command calls the services the jobs
call, inside one unit of work."""

from __future__ import annotations

from typing import Annotated

import typer

from domain.errors import DomainError
from flows.cli.arguments import EntryRef, PlayerRef, TournamentId, Yes
from flows.cli.clock import now as _now
from flows.cli.lazy import lazy
from flows.cli.output import emit, say, transaction
from flows.cli.params import INT_MAX, confirm

clock_service = lazy("domain.poker.services.clock")
draws_service = lazy("domain.poker.services.draws")
entries_service = lazy("domain.poker.services.entries")
noshow_service = lazy("domain.poker.services.noshow")
players_service = lazy("domain.poker.services.players")
seating_service = lazy("domain.poker.services.seating")
tournaments_service = lazy("domain.poker.services.tournaments")
listings = lazy("domain.poker.services.listings")


def _by_name(session, rows: list[dict]) -> list[dict]:
    """Moves (or suggestions) with the player's name beside each entry id, as the floor reads them."""
    names = listings.entry_names(session, [r.get("entry_id") for r in rows])
    return [({"player": names.get(r["entry_id"])} | r if r.get("entry_id") is not None else r) for r in rows]


app = typer.Typer(
    rich_markup_mode=None,
)  # the floor's commands of the `poker` group (flows/cli/app.py adds them)
clock_app = typer.Typer(
    rich_markup_mode=None, no_args_is_help=True, help="The server clock: levels, pauses, breaks (3.5)."
)
seat_app = typer.Typer(
    rich_markup_mode=None, no_args_is_help=True, help="Seating, moves, table breaking, the final table (3.6)."
)
app.add_typer(clock_app, name="clock")
app.add_typer(seat_app, name="seat")

Seed = Annotated[
    str | None,
    typer.Option(help="the floor's seed, combined with the platform's seed committed before it (SP-13)"),
]


def _clock(tournament: int, action: str, **kwargs) -> None:
    with transaction() as session:
        emit(clock_service.act(session, tournament, action, _now(), **kwargs), f"clock: {action}")


@clock_app.command("start")
def clock_start(
    tournament: TournamentId,
    hands_per_hour: Annotated[
        int | None, typer.Option(help="hands an hour for dead stacks (SP-6)", min=1, max=1000)
    ] = None,
) -> None:
    """Start the clock at level 1; the timekeeper records each level change at its instant."""
    with transaction() as session:
        view = clock_service.act(session, tournament, "start", _now(), hands_per_hour=hands_per_hour)
    emit(view, "clock: start")


@clock_app.command("pause")
def clock_pause(tournament: TournamentId) -> None:
    """Pause the clock."""
    _clock(tournament, "pause")


@clock_app.command("resume")
def clock_resume(tournament: TournamentId) -> None:
    """Resume a paused clock."""
    _clock(tournament, "resume")


@clock_app.command("next")
def clock_next(tournament: TournamentId) -> None:
    """Go to the next level now (refused on the last level)."""
    _clock(tournament, "next")


@clock_app.command("prev")
def clock_prev(tournament: TournamentId) -> None:
    """Go back to the previous level, at its full time."""
    _clock(tournament, "prev")


@clock_app.command("reset")
def clock_reset(tournament: TournamentId) -> None:
    """Restart the current level at its full time."""
    _clock(tournament, "reset")


@clock_app.command("override")
def clock_override(
    tournament: TournamentId,
    small: Annotated[int, typer.Option(help="small blind")],
    big: Annotated[int, typer.Option(help="big blind")],
    ante: Annotated[int, typer.Option(help="ante")] = 0,
) -> None:
    """Override the current level's blinds and ante (a play level needs small > 0, big >= small)."""
    _clock(tournament, "override", small=small, big=big, ante=ante)


@clock_app.command("status")
def clock_status(tournament: TournamentId) -> None:
    """Level, blinds, time left, next break and breaks passed, now."""
    with transaction() as session:
        emit(clock_service.status(session, tournament, _now()), "clock")


@seat_app.command("draw")
def seat_draw(tournament: TournamentId, seed: Seed = None) -> None:
    """Draw the initial seating of every checked-in entry by lot (SP-13: the platform's committed
    seed and the floor's; `draw-proof` re-checks it)."""
    with transaction() as session:
        out = seating_service.draw_initial(session, tournament, _now(), seed)
    _emit_drawn(out, out["seats"], "seated by lot")


@seat_app.command("show")
def seat_show(tournament: TournamentId) -> None:
    """Who sits where, the stage (play, final table, heads-up), the next draw's commitment (SP-13)."""
    with transaction() as session:
        out = seating_service.show(session, tournament)
    if _json():
        emit(out)
    else:
        tables = ", ".join(f"table {t['table']}: {t['players']}" for t in out["tables"])
        broken = ", ".join(map(str, out["broken"])) or "none"
        emit(out["seats"], f"tournament {tournament}: {out['stage']} · {tables} · broken: {broken}")
        say(f"next draw commits to {out['next_draw_commitment'] or 'nothing yet (its first draw commits)'}")


@seat_app.command("move")
def seat_move(
    tournament: TournamentId,
    entry: EntryRef,
    table: Annotated[int, typer.Argument(help="target table", min=1, max=INT_MAX)],
    seat: Annotated[int, typer.Argument(help="target seat", min=1, max=INT_MAX)],
    by: Annotated[str | None, typer.Option(help="who moves the player")] = None,
) -> None:
    """Move a player to a free seat of an active table."""
    with transaction() as session:
        emit(
            seating_service.move(
                session, tournament, entries_service.entry_named(session, tournament, entry), table, seat, _now(), by
            ),
            "moved",
        )


@seat_app.command("undo")
def seat_undo(tournament: TournamentId) -> None:
    """Undo the last move."""
    with transaction() as session:
        emit(seating_service.undo(session, tournament, _now()), "undone")


@seat_app.command("break-table")
def seat_break_table(
    tournament: TournamentId,
    table: Annotated[int, typer.Argument(help="the table to break", min=1, max=INT_MAX)],
    seed: Seed = None,
    yes: Yes = False,
) -> None:
    """Break a table: its players go to free seats of the other tables by lot. Asks unless --yes."""
    with transaction() as session:
        seated = [s for s in seating_service.show(session, tournament)["seats"] if s.get("table") == table]
    who = ", ".join(f"{s['player']} ({s['table']}/{s['seat']})" for s in seated)
    confirm(
        f"break table {table} of tournament {tournament}: its {len(seated)} player"
        f"{'s' if len(seated) != 1 else ''}{': ' + who if who else ''} go to free seats of the other tables by lot",
        yes,
    )
    with transaction() as session:
        out = seating_service.break_table(session, tournament, table, _now(), seed)
        out["moves"] = _by_name(session, out["moves"])
    _emit_drawn(out, out["moves"], f"table {table} broken")


@seat_app.command("suggest")
def seat_suggest(tournament: TournamentId) -> None:
    """Balancing the floor may apply (nothing is moved)."""
    with transaction() as session:
        emit(_by_name(session, seating_service.suggest(session, tournament)), "suggestions")


@seat_app.command("final-table")
def seat_final_table(
    tournament: TournamentId,
    confirm: Annotated[bool, typer.Option("--confirm", help="assemble it (seats by lot)")] = False,
    seed: Seed = None,
) -> None:
    """Show the final-table proposal; --confirm assembles it (refused while late registration or
    re-entry is open: a new entry could still come)."""
    now = _now()
    with transaction() as session:
        if confirm:
            t = tournaments_service.get_tournament(session, tournament)
            for label, deadline in (("late registration", t.late_reg_deadline), ("re-entry", t.reentry_deadline)):
                if deadline is not None and deadline > now:
                    raise DomainError(
                        "final-table-entries-open",
                        f"{label} is open until {_local(session, t, deadline)}: the final table waits for it "
                        f"to close (a new entry could still come)",
                    )
        out = seating_service.final_table(session, tournament, _now(), confirm, seed)
        if "entries" in out:  # the proposal: who would sit at it, by name
            names = listings.entry_names(session, out["entries"])
            out["players"] = [names.get(e) for e in out["entries"]]
        if "moves" in out:
            out["moves"] = _by_name(session, out["moves"])
        emit(out, "final table")


@app.command("no-shows")
def poker_no_shows(tournament: TournamentId) -> None:
    """Process the tournament's no-shows now, by its policy (3.8: the floor may, before the close)."""
    with transaction() as session:
        done = noshow_service.process_no_shows(session, _now(), tournament, at_close_only=False)
    if not done:
        raise DomainError(
            "no-shows-not-due", f"tournament {tournament} is not running or its no-shows were processed already"
        )
    emit(done[0], "no-shows")


@app.command("arrive")
def poker_arrive(tournament: TournamentId, player: PlayerRef) -> None:
    """An absent player (dead stack) has arrived: the stack stops paying blinds (3.8)."""
    with transaction() as session:
        player_id = players_service.find_player(session, player).id
        emit(noshow_service.arrive(session, tournament, player_id, _now()), "arrived")


@app.command("draw-proof")
def poker_draw_proof(tournament: TournamentId) -> None:
    """Every draw by lot of the tournament (SP-13): purpose, commitment, the platform's and the
    floor's seeds, items, outcome and the re-check; the last row is the next draw's commitment."""
    with transaction() as session:
        tournaments_service.get_tournament(session, tournament)
        emit(draws_service.proof(session, tournament), "draws")


def _local(session, t, at) -> str:
    """An instant in a refusal: in the club's timezone and language ("04.12.2026, 21:00 MSK")."""
    from zoneinfo import ZoneInfo

    from domain.documents.services import locales
    from flows.cli.output import Display, moment

    club = listings.club_of(session, t.id)
    return moment(at, Display(locales.tournament_locale(session, t.id), ZoneInfo(club.timezone), club.currency))


def _emit_drawn(out: dict, rows: list[dict], title: str) -> None:
    """A draw's result: JSON whole; for people the rows, then the draw's seeds on their own line."""
    if _json():
        emit(out)
        return
    emit(rows, title)
    d = out["draw"]
    floor = f"floor seed {d['floor_seed']}" if d["floor_seed"] is not None else "no floor seed"
    say(
        f"draw {d['seq']} ({d['purpose']}): platform seed {d['platform_seed']}, committed as {d['commitment']}; "
        f"{floor}; the next draw commits to {d['next_commitment']}"
    )


def _json() -> bool:
    from flows.cli.output import current

    return current().json
