"""`tourney poker knockout | void-knockout | void-window | mystery-draw | prizes ... | itm | places`:
knockouts, bounties, mystery draws, prizes, ITM and final places (Sport Poker 3.2, 3.3, 3.4, 3.7;
SP-3, SP-4, SP-5, SP-7), in the `poker` group. Every command calls the domain services inside one
unit of work."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from domain.poker.rules.bounties import units_text
from domain.poker.rules.knockouts import Bust, credit_text
from domain.poker.rules.prizes import PRESETS
from flows.cli.arguments import TournamentId, Yes
from flows.cli.clock import now as _now
from flows.cli.lazy import lazy
from flows.cli.output import emit, transaction
from flows.cli.params import INT_MAX, confirm, read_text_file

if TYPE_CHECKING:
    from domain.poker.tables.knockouts_places import Knockout, MysteryDraw

entries_service = lazy("domain.poker.services.entries")
knockout_service = lazy("domain.poker.services.knockouts")
desk = lazy("domain.poker.services.desk")
locales_service = lazy("domain.documents.services.locales")
listings = lazy("domain.poker.services.listings")
mystery_service = lazy("domain.poker.services.mystery")
results_service = lazy("domain.poker.services.results")

app = typer.Typer(
    rich_markup_mode=None,
)  # the results' commands of the `poker` group (flows/cli/app.py adds them)
prizes_app = typer.Typer(
    rich_markup_mode=None, no_args_is_help=True, help="Prize lines by place (3.4; non-monetary only, SP-4)."
)
app.add_typer(prizes_app, name="prizes")
mystery_app = typer.Typer(
    rich_markup_mode=None, no_args_is_help=True, help="The mystery prize table (SP-11; non-monetary only, SP-4)."
)
app.add_typer(mystery_app, name="mystery-table")

KnockoutId = Annotated[int, typer.Argument(help="knockout id")]
By = Annotated[str, typer.Option("--by", help="who records it (the audit keeps it)")]


def knockout_view(k: Knockout) -> dict:
    return {
        "id": k.id,
        "tournament_id": k.tournament_id,
        "busted_entry_id": k.busted_entry_id,
        "killer_entry_id": k.killer_entry_id,
        "bust_number": k.bust_number,
        "group": k.bust_group,
        "level": k.level,
        "credit": credit_text(k.credit_halves),
        "recorded_at": k.recorded_at,
        "voided_at": k.voided_at,
    }


def draw_view(d: MysteryDraw) -> dict:
    return {
        "id": d.id,
        "tournament_id": d.tournament_id,
        "knockout_id": d.knockout_id,
        "killer_entry_id": d.killer_entry_id,
        "draw_number": d.draw_number,
        "description": d.description,
        "prize_position": d.prize_position,
        "drawn_at": d.drawn_at,
    }


EntryRef = "entry id, table/seat (3/7), or the player's handle or name"


@app.command("knockout")
def knockout(
    tournament: TournamentId,
    busted: Annotated[
        list[str], typer.Argument(help=f"who busted ({EntryRef}); several = busted together, one number")
    ],
    killer: Annotated[
        str | None, typer.Option(help=f"the killer ({EntryRef}; none: no killer, e.g. a dead stack)")
    ] = None,
    second_killer: Annotated[
        str | None, typer.Option(help="a second killer of the same player: 0.5 credit to --killer, audit only")
    ] = None,
    also_killer: Annotated[
        list[str] | None,
        typer.Option(help="a third, fourth, ... killer (repeat; needs shared_knockouts=true, SP-10)"),
    ] = None,
    level: Annotated[
        int | None,
        typer.Option(help="the level it happened at (default: the level the clock shows now)", min=1, max=INT_MAX),
    ] = None,
    group: Annotated[str | None, typer.Option(help="multi-bust label: busts with one label share one number")] = None,
    by: By = "floor",
) -> None:
    """Record a bust: the entries go out with the next bust number (3.2). With shared_knockouts on,
    every killer named shares the credit equally (SP-10). Prints who busted whom, the bust number,
    how many remain and the money (ITM, bubble)."""
    with transaction() as session:
        killer_id = entries_service.entry_named(session, tournament, killer) if killer is not None else None
        second_id = (
            entries_service.entry_named(session, tournament, second_killer) if second_killer is not None else None
        )
        others = tuple(entries_service.entry_named(session, tournament, k) for k in also_killer or ())
        busts = [
            Bust(entries_service.entry_named(session, tournament, b), killer_id, second_id, others) for b in busted
        ]
        records = desk.knock_out(session, tournament, busts, now=_now(), actor=by, level=level, group=group)
        names = listings.entry_names(session, [k.busted_entry_id for k in records] + [killer_id])
        status = results_service.itm_status(session, tournament)
        money = (
            "in the money"
            if status.in_money
            else "on the bubble"
            if status.on_bubble
            else f"{status.remaining_to_money} to the money"
        )
        out = [
            knockout_view(k) | {"busted": names.get(k.busted_entry_id), "killer": names.get(k.killer_entry_id)}
            for k in records
        ]
        busted_names = ", ".join(names.get(k.busted_entry_id) or str(k.busted_entry_id) for k in records)
        title = (
            f"bust {records[0].bust_number}: {busted_names}"
            f"{' by ' + (names.get(killer_id) or str(killer_id)) if killer_id else ''} · "
            f"{status.remaining} remain · {money} ({status.paid_places} paid)"
        )
        emit(out, title)


@app.command("void-knockout")
def void_knockout(
    tournament: TournamentId,
    bust: Annotated[int, typer.Argument(help="the bust number the floor sees (poker knockouts)", min=1, max=INT_MAX)],
    player: Annotated[
        str | None, typer.Option(help="of a shared bust: the busted entry (id, table/seat, handle or name)")
    ] = None,
    by: By = "floor",
    yes: Yes = False,
) -> None:
    """Void a knockout by its bust number within the window (SP-5): kept, marked voided; the player is
    back in and seated. Says who comes back first, and asks unless --yes."""
    with transaction() as session:
        entry = None if player is None else entries_service.entry_named(session, tournament, player)
        k = knockout_service.knockout_by_bust_number(session, tournament, bust, entry)
        names = listings.entry_names(session, [k.busted_entry_id, k.killer_entry_id])
        knockout_id = k.id
        killer = f" (knocked out by {names[k.killer_entry_id]})" if k.killer_entry_id else ""
        plan = (
            f"void bust {k.bust_number} of tournament {tournament}: {names[k.busted_entry_id]}{killer} comes back "
            f"into play and is seated again; the bust stays on record, marked voided"
        )
    confirm(plan, yes)
    with transaction() as session:
        listings.knockout_of(session, tournament, knockout_id)
        voided = knockout_service.void_knockout(session, knockout_id, now=_now(), actor=by)
        emit(knockout_view(voided) | {"busted": names[voided.busted_entry_id]}, f"bust {bust} voided")


@app.command("void-window")
def void_window(
    tournament: TournamentId,
    minutes: Annotated[int, typer.Argument(help="minutes after recording", min=0, max=INT_MAX // 60)],
) -> None:
    """Set the tournament's knockout void window (SP-5; default 5 minutes; before the start)."""
    with transaction() as session:
        window = knockout_service.set_void_window(session, tournament, minutes)
        emit({"tournament_id": tournament, "void_window_minutes": int(window.total_seconds()) // 60})


@app.command("mystery-draw")
def mystery_draw(
    tournament: TournamentId,
    knockout_id: KnockoutId,
    prize: Annotated[str | None, typer.Option(help="what was drawn (text; no money, SP-4)")] = None,
    by: By = "floor",
) -> None:
    """The killer entry of a knockout draws its mystery bounty, once per tournament (3.3)."""
    with transaction() as session:
        listings.knockout_of(session, tournament, knockout_id)
        emit(draw_view(mystery_service.mystery_draw(session, knockout_id, now=_now(), actor=by, description=prize)))


@mystery_app.command("set")
def mystery_table_set(
    tournament: TournamentId,
    lines: Annotated[list[str] | None, typer.Argument(help="the prizes (none: back to free-text draws)")] = None,
) -> None:
    """Declare the mystery prizes (SP-11); refused once the phase has started."""
    with transaction() as session:
        cleaned = mystery_service.set_mystery_prizes(session, tournament, list(lines or []))
        emit(_prize_rows(cleaned), "mystery prizes")


@mystery_app.command("show")
def mystery_table_show(tournament: TournamentId) -> None:
    """The table: each prize drawn, remaining or (once finished) undrawn; the seed's commitment, and
    the seed once the tournament is finished (SP-11, PD-12)."""
    with transaction() as session:
        emit(mystery_service.mystery_table(session, tournament))


def _prize_rows(lines: tuple[str, ...]) -> list[dict]:
    return [{"place": n, "prize": line} for n, line in enumerate(lines, start=1)]


@prizes_app.command("set")
def prizes_set(
    tournament: TournamentId,
    lines: Annotated[list[str] | None, typer.Argument(help="prize of place 1, place 2, ... (none: no prizes)")] = None,
    file: Annotated[Path | None, typer.Option(help="a UTF-8 text file, one prize line per line")] = None,
) -> None:
    """Replace the prize list; line n is the prize of place n (at most 200 lines, 500 characters)."""
    given = list(lines or [])
    if file is not None:
        given += [line for line in read_text_file(file, "prizes").splitlines() if line.strip()]
    with transaction() as session:
        emit(_prize_rows(results_service.set_prizes(session, tournament, given)), "prizes")


@prizes_app.command("preset")
def prizes_preset(
    tournament: TournamentId,
    name: Annotated[str, typer.Argument(help="one of: " + ", ".join(PRESETS))],
) -> None:
    """Replace the prize list with a preset in the club's language, trimmed to the field (3.4)."""
    with transaction() as session:
        locale = locales_service.tournament_locale(session, tournament)
        emit(_prize_rows(results_service.apply_preset(session, tournament, name, locale)), "prizes")


@prizes_app.command("show")
def prizes_show(tournament: TournamentId) -> None:
    """The prize list by place."""
    with transaction() as session:
        emit(_prize_rows(results_service.prizes(session, tournament)), "prizes")


@app.command("itm")
def itm(tournament: TournamentId) -> None:
    """Paid places, remaining to the money, on the bubble, in the money (SP-3)."""
    with transaction() as session:
        status = results_service.itm_status(session, tournament)
        emit(
            {
                "tournament_id": tournament,
                "paid_places": status.paid_places,
                "remaining": status.remaining,
                "remaining_to_money": status.remaining_to_money,
                "on_bubble": status.on_bubble,
                "in_money": status.in_money,
            }
        )


@app.command("places")
def places(tournament: TournamentId) -> None:
    """Final places (3.7, SP-7): stored once finished, else computed when one player is left."""
    with transaction() as session:
        emit(
            [
                {
                    "place": p.place.place,
                    "player_id": p.place.player_id,
                    "player": p.name,
                    "entry_id": p.place.entry_id,
                    "bust_number": p.place.bust_number,
                    "knockouts": p.place.knockouts,
                    "credit": credit_text(p.place.credit_halves)
                    if p.place.credit_units is None
                    else units_text(p.place.credit_units),
                    "prize": p.place.prize,
                    **({"pko_points": p.place.pko_points} if p.place.pko_points is not None else {}),
                }
                for p in results_service.places(session, tournament)
            ],
            "places",
        )
