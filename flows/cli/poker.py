"""`tourney player ...` and `tourney poker ...`: players, blind structures, live tournaments,
registration, check-in, top-ups and fee settlement (Sport Poker 1.2, 1.6.1, 3.1, 3.4, 3.5, 3.9,
3.10). Every command calls the domain services inside one unit of work.

The floor's and the results' commands join `poker_app` from their own modules (flows/cli/poker_floor.py,
flows/cli/poker_results.py), which flows/cli/app.py imports.
"""

from __future__ import annotations

from datetime import date, datetime
from pathlib import Path
from typing import Annotated, Any

import typer

from domain.errors import DomainError, Problem, raise_problems
from domain.poker.rules.lifecycle import STATUSES
from domain.poker.rules.settings import TournamentSettings, setting_from_text
from domain.poker.rules.structures import parse_levels
from domain.poker.services import clock as clock_service
from domain.poker.services import entries as entries_service
from domain.poker.services import fees as fees_service
from domain.poker.services import players as players_service
from domain.poker.services import results as results_service
from domain.poker.services import seating as seating_service
from domain.poker.services import structures as structures_service
from domain.poker.services import tournaments as tournaments_service
from flows.cli.clock import now as _now
from flows.cli.output import emit, transaction
from flows.cli.params import confirm, name_problems, one_of, read_text_file

player_app = typer.Typer(no_args_is_help=True, help="Player profiles (adults only, 1.2.1; forgetting, 1.6.1).")
poker_app = typer.Typer(no_args_is_help=True, help="Live poker tournaments (Sport Poker rules, section 3).")
structure_app = typer.Typer(no_args_is_help=True, help="Blind structures (3.5).")
poker_app.add_typer(structure_app, name="structure")

PlayerRef = Annotated[str, typer.Argument(help="player id or handle")]
TournamentId = Annotated[int, typer.Argument(help="tournament id")]
SetOption = Annotated[list[str], typer.Option("--set", help="setting=value (repeatable); see README")]


def _parse_sets(pairs: list[str]) -> dict[str, Any]:
    values: dict[str, Any] = {}
    problems: list[Problem] = []
    for pair in pairs:
        key, sep, raw = pair.partition("=")
        if not sep:
            problems.append(Problem("bad-param", f"--set takes setting=value, got '{pair}'"))
            continue
        if key.strip() in values:
            problems.append(Problem("setting-twice", f"setting '{key.strip()}' is given twice"))
            continue
        value, found = setting_from_text(key.strip(), raw)
        problems += found
        values[key.strip()] = value
    raise_problems(problems)
    return values


# -- players ---------------------------------------------------------------------------------------


@player_app.command("add")
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


@player_app.command("show")
def player_show(player: PlayerRef) -> None:
    """Show a player (a forgotten one by id, under the pseudonym)."""
    with transaction() as session:
        emit(players_service.player_view(players_service.find_player(session, player)))


@player_app.command("block")
def player_block(player: PlayerRef, reason: Annotated[str, typer.Option(help="why (1.5.3)")]) -> None:
    """Block a player: no more registrations."""
    with transaction() as session:
        emit(players_service.player_view(players_service.block_player(session, player, reason, _now())))


@player_app.command("unblock")
def player_unblock(player: PlayerRef) -> None:
    """Lift a block."""
    with transaction() as session:
        emit(players_service.player_view(players_service.unblock_player(session, player, _now())))


@player_app.command("forget")
def player_forget(player: PlayerRef) -> None:
    """Erase name, handle and date of birth (1.6.1); results and fees stay under the pseudonym."""
    with transaction() as session:
        emit(players_service.player_view(players_service.forget_player(session, player, _now())))


# -- structures ------------------------------------------------------------------------------------


@structure_app.command("import")
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


@structure_app.command("show")
def structure_show(structure: Annotated[int, typer.Argument(help="structure id")]) -> None:
    """A structure and its levels."""
    with transaction() as session:
        emit(structures_service.structure_view(session, structure))


# -- tournaments -----------------------------------------------------------------------------------


@poker_app.command("create")
def poker_create(
    club: Annotated[int, typer.Option(help="club id")],
    structure: Annotated[int, typer.Option(help="blind structure id")],
    name: Annotated[str, typer.Option()],
    start: Annotated[str, typer.Option(help="scheduled start, ISO 8601 with offset")],
    stack: Annotated[str, typer.Option(help="starting stack (chips)")],
    currency: Annotated[str, typer.Option(help="ISO 4217 code, e.g. RUB")],
    buy_in: Annotated[str, typer.Option(help="buy-in in minor units (kopecks, cents)")],
    set_: SetOption = [],  # noqa: B006
) -> None:
    """Create a draft tournament; other settings by --set (e.g. --set seat_cap=8)."""
    name_problems("tournament name", name)
    core = _parse_sets([f"scheduled_start={start}", f"starting_stack={stack}", f"currency={currency}", f"buy_in={buy_in}"])
    extra = _parse_sets(set_)
    twice = sorted(set(extra) & (set(core) | {"name"}))
    if twice:
        raise DomainError("setting-twice", f"setting '{twice[0]}' is given twice (as an option and by --set)")
    settings = TournamentSettings(name=name, **core, **extra)
    with transaction() as session:
        t = tournaments_service.create_tournament(session, club, structure, settings, _now())
        emit(tournaments_service.tournament_view(session, t))


@poker_app.command("edit")
def poker_edit(
    tournament: TournamentId,
    set_: SetOption = [],  # noqa: B006
    structure: Annotated[int | None, typer.Option(help="another blind structure of the club")] = None,
) -> None:
    """Change settings (draft or registration open only, 3.9)."""
    changes = _parse_sets(set_)
    now = _now()
    with transaction() as session:
        t = tournaments_service.edit_tournament(session, tournament, changes, now, structure_id=structure)
        view = tournaments_service.tournament_view(session, t)
    emit(view)  # a moved deadline wakes the timekeeper (domain/poker/services/due.py)


Yes = Annotated[bool, typer.Option("--yes", help="do it without asking")]


def _status_command(action: str, doc: str) -> None:
    def command(tournament: TournamentId) -> None:
        with transaction() as session:
            t = tournaments_service.change_status(session, tournament, action, _now())
        emit({"id": t.id, "status": t.status})  # a start wakes the timekeeper: no-shows at the close (3.8)

    command.__doc__ = doc
    poker_app.command(action)(command)


def _final_command(action: str, doc: str) -> None:
    """finish and cancel: say what will happen and ask (unless --yes); finish only with one player in."""

    def command(tournament: TournamentId, yes: Yes = False) -> None:
        with transaction() as session:
            t = tournaments_service.get_tournament(session, tournament)
            remaining = entries_service.players_in(session, t.id)
        if action == "finish" and remaining > 1:
            raise DomainError("finish-players-in", f"tournament {t.id} '{t.name}' has {remaining} players still in: "
                              "record the knockouts until one is left (rule 3.7)")
        confirm(f"{action} tournament {t.id} '{t.name}' ({t.status.replace('_', ' ')}, {remaining} "
                f"player{'s' if remaining != 1 else ''} in)", yes)
        if action == "cancel":
            with transaction() as session:
                t = tournaments_service.change_status(session, tournament, action, _now())
                emit({"id": t.id, "status": t.status})
            return
        with transaction() as session:  # places and prizes at once (3.7), then the documents
            done = results_service.finish(session, tournament, _now())
        from flows.runs import run_now  # Prefect is imported only by the commands that talk to it
        from flows.tags import merged, of_poker

        documents = run_now("publish-results", f"publish-poker-{done.tournament_id}", merged(of_poker([done.tournament_id])))
        emit({"id": done.tournament_id, "status": "finished", "placed": len(done.places),
              "final_table": results_service.final_table(done), "documents": documents})

    command.__doc__ = doc
    poker_app.command(action)(command)


_status_command("open", "Open registration (draft -> registration open).")
_status_command("start", "Start the tournament; settings freeze (registration open -> running).")
_final_command("finish", "Finish the tournament with one player left: final places and prizes at once, "
               "without waiting for the last knockout's void window, and its documents started. Asks unless --yes.")
_final_command("cancel", "Cancel the tournament (from draft, registration open or running). Asks unless --yes.")


@poker_app.command("show")
def poker_show(tournament: TournamentId) -> None:
    """Every setting, the SP-2 window end and the counts."""
    with transaction() as session:
        emit(tournaments_service.tournament_view(session, tournaments_service.get_tournament(session, tournament)))


@poker_app.command("list")
def poker_list(
    club: Annotated[int | None, typer.Option(help="only this club")] = None,
    status: Annotated[str | None, typer.Option(help="only this status")] = None,
) -> None:
    """Tournaments by scheduled start."""
    one_of("status", status, STATUSES)
    with transaction() as session:
        emit(tournaments_service.list_tournaments(session, club, status), "tournaments")


# -- registration, check-in, top-ups ----------------------------------------------------------------


@poker_app.command("register")
def poker_register(tournament: TournamentId, player: PlayerRef) -> None:
    """Sign a player up (late registration while running, before its deadline)."""
    with transaction() as session:
        reg = entries_service.register(session, tournament, player, _now())
        emit({"registration_id": reg.id, "tournament_id": reg.tournament_id, "player_id": reg.player_id,
              "status": reg.status, "late": reg.late})


@poker_app.command("unregister")
def poker_unregister(tournament: TournamentId, player: PlayerRef) -> None:
    """Withdraw a registration (before check-in)."""
    with transaction() as session:
        reg = entries_service.unregister(session, tournament, player, _now())
        emit({"registration_id": reg.id, "status": reg.status})


@poker_app.command("checkin")
def poker_checkin(tournament: TournamentId, player: PlayerRef) -> None:
    """Mark in at the counter: the first entry opens, the buy-in is owed (3.4, 3.10)."""
    now = _now()
    with transaction() as session:
        entry = entries_service.check_in(session, tournament, player, now)
        emit(entries_service.entry_view(entry) | _seated(session, entry.id, now))


@poker_app.command("rebuy")
def poker_rebuy(tournament: TournamentId, player: PlayerRef) -> None:
    """Top the current entry up by the starting stack at the rebuy amount (3.1)."""
    now = _now()
    with transaction() as session:
        reading = clock_service.status(session, tournament, now)  # SP-12: rebuy_until_level
        level = {"running": reading.get("level"), "paused": reading.get("level"),
                 "structure exhausted": reading.get("levels", 0) + 1}.get(reading.get("status"))
        emit(entries_service.topup_view(entries_service.rebuy(session, tournament, player, now, level=level)))


@poker_app.command("reentry")
def poker_reentry(tournament: TournamentId, player: PlayerRef) -> None:
    """A new entry after a bust, within the re-entry window (3.1)."""
    now = _now()
    with transaction() as session:
        entry = entries_service.reenter(session, tournament, player, now)
        emit(entries_service.entry_view(entry) | _seated(session, entry.id, now))


@poker_app.command("addon")
def poker_addon(tournament: TournamentId, player: PlayerRef) -> None:
    """The add-on into the current entry, within its window (3.1)."""
    now = _now()
    with transaction() as session:
        breaks = clock_service.breaks_reached(session, tournament, now)
        emit(entries_service.topup_view(entries_service.add_on(session, tournament, player, now, breaks_reached=breaks)))


def _seated(session, entry_id: int, now: datetime) -> dict[str, Any]:
    """Seat a late entry or re-entry in its own transaction once seats are drawn (3.6)."""
    seat = seating_service.seat_if_drawn(session, entry_id, now)
    return {"table": seat["table"], "seat": seat["seat"]} if seat else {}


# -- fees ------------------------------------------------------------------------------------------


@poker_app.command("settle")
def poker_settle(
    tournament: TournamentId,
    player: Annotated[str | None, typer.Argument(help="player id or handle; omit with --all")] = None,
    all_: Annotated[bool, typer.Option("--all", help="settle every debtor of the tournament")] = False,
    method: Annotated[str, typer.Option(help="cash, card, transfer or other")] = "cash",
    by: Annotated[str, typer.Option(help="who takes the payment")] = "",
) -> None:
    """Close all of a player's unpaid fees with one settlement record (3.4)."""
    if (player is None) == (not all_):
        raise DomainError("bad-param", "name one player or pass --all")
    now = _now()
    with transaction() as session:
        if all_:
            made = fees_service.settle_all(session, tournament, method, by, now)
            emit([{"settlement_id": s, "player_id": p, "amount": a} for s, p, a in made], "settlements")
            return
        settlement = fees_service.settle(session, tournament, player, method, by, now)
        emit(fees_service.settlement_view(settlement) if settlement else {"settlement_id": None, "owed": 0})


@poker_app.command("void-settlement")
def poker_void_settlement(
    tournament: TournamentId,
    settlement: Annotated[int, typer.Argument(help="settlement id (of that tournament)")],
    by: Annotated[str, typer.Option(help="who voids it")],
    reason: Annotated[str, typer.Option(help="why")],
    yes: Yes = False,
) -> None:
    """Void a settlement: the record stays, marked voided; the fees are owed again (3.4). Asks unless --yes."""
    with transaction() as session:
        s = fees_service.get_settlement(session, settlement, tournament)
        who = players_service.find_player(session, s.player_id).display_name
        plan = (f"void settlement {s.id} of tournament {tournament}: {who}, {s.amount} {s.currency} minor units "
                f"by {s.method}{' (already voided)' if s.voided_at else ''}; the fees are owed again")
    confirm(plan, yes)
    with transaction() as session:
        emit(fees_service.settlement_view(fees_service.void_settlement(session, settlement, by, reason, _now(), tournament)))


@poker_app.command("debts")
def poker_debts(tournament: TournamentId) -> None:
    """Every player owing fees in the tournament."""
    with transaction() as session:
        emit(fees_service.debts(session, tournament), "debts")


# -- listings (the floor's and the counter's views; read only) ---------------------------------------


@poker_app.command("entries")
def poker_entries(tournament: TournamentId) -> None:
    """Every registration: checked in, entry, seat (table/seat), state, re-entries, what is owed."""
    from domain.poker.services import listings

    with transaction() as session:
        emit(listings.entries(session, tournament), f"entries of tournament {tournament}")


@poker_app.command("knockouts")
def poker_knockouts(tournament: TournamentId) -> None:
    """Every knockout in bust order: who busted whom, the level, voided or not."""
    from domain.poker.services import listings

    with transaction() as session:
        emit(listings.knockouts(session, tournament), f"knockouts of tournament {tournament}")


@poker_app.command("settlements")
def poker_settlements(tournament: TournamentId) -> None:
    """Every settlement of the tournament, voided ones too."""
    from domain.poker.services import listings

    with transaction() as session:
        emit(listings.settlements(session, tournament), f"settlements of tournament {tournament}")


@poker_app.command("structures")
def poker_structures(club: Annotated[int | None, typer.Option(help="only this club's")] = None) -> None:
    """Every blind structure, with its number of levels and total minutes."""
    from domain.poker.services import listings

    with transaction() as session:
        emit(listings.structures(session, club), "structures")


@player_app.command("search")
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
