"""`tourney player ...` and `tourney poker ...`: players, blind structures, live tournaments,
registration, check-in, top-ups and fee settlement (Sport Poker 1.2, 1.6.1, 3.1, 3.4, 3.5, 3.9,
3.10). Every command calls the domain services inside one unit of work.

Other poker areas add their commands to `poker_app` in their own modules `flows/cli_poker_<x>.py`
(`from flows.cli_poker import poker_app`); the loop at the end of this file imports them.
"""

from __future__ import annotations

import importlib
import pkgutil
from datetime import UTC, date, datetime
from pathlib import Path
from typing import Annotated, Any

import typer

import flows
from domain.errors import DomainError, Problem, raise_problems
from domain.poker import clock_service, seating_service, service
from domain.poker.settings import TournamentSettings, setting_from_text
from domain.poker.structures import parse_levels
from domain.store.db import unit_of_work
from flows.output import emit

player_app = typer.Typer(no_args_is_help=True, help="Player profiles (adults only, 1.2.1; forgetting, 1.6.1).")
poker_app = typer.Typer(no_args_is_help=True, help="Live poker tournaments (Sport Poker rules, section 3).")
structure_app = typer.Typer(no_args_is_help=True, help="Blind structures (3.5).")
poker_app.add_typer(structure_app, name="structure")

PlayerRef = Annotated[str, typer.Argument(help="player id or handle")]
TournamentId = Annotated[int, typer.Argument(help="tournament id")]
SetOption = Annotated[list[str], typer.Option("--set", help="setting=value (repeatable); see README")]


def _now() -> datetime:
    return datetime.now(UTC)


def _parse_sets(pairs: list[str]) -> dict[str, Any]:
    values: dict[str, Any] = {}
    problems: list[Problem] = []
    for pair in pairs:
        key, sep, raw = pair.partition("=")
        if not sep:
            problems.append(Problem("bad-param", f"--set takes setting=value, got '{pair}'"))
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
    with unit_of_work() as session:
        emit(service.player_view(service.add_player(session, name, handle, birth, _now())))


@player_app.command("show")
def player_show(player: PlayerRef) -> None:
    """Show a player (a forgotten one by id, under the pseudonym)."""
    with unit_of_work() as session:
        emit(service.player_view(service.find_player(session, player)))


@player_app.command("block")
def player_block(player: PlayerRef, reason: Annotated[str, typer.Option(help="why (1.5.3)")]) -> None:
    """Block a player: no more registrations."""
    with unit_of_work() as session:
        emit(service.player_view(service.block_player(session, player, reason, _now())))


@player_app.command("unblock")
def player_unblock(player: PlayerRef) -> None:
    """Lift a block."""
    with unit_of_work() as session:
        emit(service.player_view(service.unblock_player(session, player, _now())))


@player_app.command("forget")
def player_forget(player: PlayerRef) -> None:
    """Erase name, handle and date of birth (1.6.1); results and fees stay under the pseudonym."""
    with unit_of_work() as session:
        emit(service.player_view(service.forget_player(session, player, _now())))


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
    try:
        content = file.read_text(encoding="utf-8")
    except OSError as exc:
        raise DomainError("structure-file-invalid", f"cannot read '{file}': {exc.strerror}") from None
    levels, problems = parse_levels(content, kind)
    raise_problems(problems)
    with unit_of_work() as session:
        structure = service.import_structure(session, club, name, ante_type, levels, _now())
        emit(service.structure_view(session, structure.id))


@structure_app.command("show")
def structure_show(structure: Annotated[int, typer.Argument(help="structure id")]) -> None:
    """A structure and its levels."""
    with unit_of_work() as session:
        emit(service.structure_view(session, structure))


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
    core = _parse_sets([f"scheduled_start={start}", f"starting_stack={stack}", f"currency={currency}", f"buy_in={buy_in}"])
    settings = TournamentSettings(name=name, **core, **_parse_sets(set_))
    with unit_of_work() as session:
        t = service.create_tournament(session, club, structure, settings, _now())
        emit(service.tournament_view(session, t))


@poker_app.command("edit")
def poker_edit(
    tournament: TournamentId,
    set_: SetOption = [],  # noqa: B006
    structure: Annotated[int | None, typer.Option(help="another blind structure of the club")] = None,
) -> None:
    """Change settings (draft or registration open only, 3.9)."""
    changes = _parse_sets(set_)
    now = _now()
    with unit_of_work() as session:
        t = service.edit_tournament(session, tournament, changes, now, structure_id=structure)
        view = service.tournament_view(session, t)
    emit(view)  # a moved deadline wakes the timekeeper (domain/poker/due.py)


def _status_command(action: str, doc: str) -> None:
    def command(tournament: TournamentId) -> None:
        with unit_of_work() as session:
            t = service.change_status(session, tournament, action, _now())
        emit({"id": t.id, "status": t.status})  # a start wakes the timekeeper: no-shows at the close (3.8)

    command.__doc__ = doc
    poker_app.command(action)(command)


_status_command("open", "Open registration (draft -> registration open).")
_status_command("start", "Start the tournament; settings freeze (registration open -> running).")
_status_command("finish", "Finish the tournament (running -> finished).")
_status_command("cancel", "Cancel the tournament (from draft, registration open or running).")


@poker_app.command("show")
def poker_show(tournament: TournamentId) -> None:
    """Every setting, the SP-2 window end and the counts."""
    with unit_of_work() as session:
        emit(service.tournament_view(session, service.get_tournament(session, tournament)))


@poker_app.command("list")
def poker_list(
    club: Annotated[int | None, typer.Option(help="only this club")] = None,
    status: Annotated[str | None, typer.Option(help="only this status")] = None,
) -> None:
    """Tournaments by scheduled start."""
    with unit_of_work() as session:
        emit(service.list_tournaments(session, club, status), "tournaments")


# -- registration, check-in, top-ups ----------------------------------------------------------------


@poker_app.command("register")
def poker_register(tournament: TournamentId, player: PlayerRef) -> None:
    """Sign a player up (late registration while running, before its deadline)."""
    with unit_of_work() as session:
        reg = service.register(session, tournament, player, _now())
        emit({"registration_id": reg.id, "tournament_id": reg.tournament_id, "player_id": reg.player_id,
              "status": reg.status, "late": reg.late})


@poker_app.command("unregister")
def poker_unregister(tournament: TournamentId, player: PlayerRef) -> None:
    """Withdraw a registration (before check-in)."""
    with unit_of_work() as session:
        reg = service.unregister(session, tournament, player, _now())
        emit({"registration_id": reg.id, "status": reg.status})


@poker_app.command("checkin")
def poker_checkin(tournament: TournamentId, player: PlayerRef) -> None:
    """Mark in at the counter: the first entry opens, the buy-in is owed (3.4, 3.10)."""
    now = _now()
    with unit_of_work() as session:
        entry = service.check_in(session, tournament, player, now)
        emit(service.entry_view(entry) | _seated(session, entry.id, now))


@poker_app.command("rebuy")
def poker_rebuy(tournament: TournamentId, player: PlayerRef) -> None:
    """Top the current entry up by the starting stack at the rebuy amount (3.1)."""
    with unit_of_work() as session:
        emit(service.topup_view(service.rebuy(session, tournament, player, _now())))


@poker_app.command("reentry")
def poker_reentry(tournament: TournamentId, player: PlayerRef) -> None:
    """A new entry after a bust, within the re-entry window (3.1)."""
    now = _now()
    with unit_of_work() as session:
        entry = service.reenter(session, tournament, player, now)
        emit(service.entry_view(entry) | _seated(session, entry.id, now))


@poker_app.command("addon")
def poker_addon(tournament: TournamentId, player: PlayerRef) -> None:
    """The add-on into the current entry, within its window (3.1)."""
    now = _now()
    with unit_of_work() as session:
        breaks = clock_service.breaks_reached(session, tournament, now)
        emit(service.topup_view(service.add_on(session, tournament, player, now, breaks_reached=breaks)))


def _seated(session, entry_id: int, now: datetime) -> dict[str, Any]:
    """Seat a late entry or re-entry in its own transaction once seats are drawn (3.6; area poker2)."""
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
    with unit_of_work() as session:
        if all_:
            made = service.settle_all(session, tournament, method, by, now)
            emit([{"settlement_id": s, "player_id": p, "amount": a} for s, p, a in made], "settlements")
            return
        settlement = service.settle(session, tournament, player, method, by, now)
        emit(service.settlement_view(settlement) if settlement else {"settlement_id": None, "owed": 0})


@poker_app.command("void-settlement")
def poker_void_settlement(
    settlement: Annotated[int, typer.Argument(help="settlement id")],
    by: Annotated[str, typer.Option(help="who voids it")],
    reason: Annotated[str, typer.Option(help="why")],
) -> None:
    """Void a settlement: the record stays, marked voided; the fees are owed again (3.4)."""
    with unit_of_work() as session:
        emit(service.settlement_view(service.void_settlement(session, settlement, by, reason, _now())))


@poker_app.command("debts")
def poker_debts(tournament: TournamentId) -> None:
    """Every player owing fees in the tournament."""
    with unit_of_work() as session:
        emit(service.debts(session, tournament), "debts")


# Commands of the other poker areas (flows/cli_poker_<x>.py), registered onto `poker_app`.
for _module in pkgutil.iter_modules(flows.__path__):
    if _module.name.startswith("cli_poker_"):
        importlib.import_module(f"flows.{_module.name}")
