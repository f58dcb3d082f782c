"""`tourney poker ...`: live tournaments, registration, check-in, top-ups and fee settlement
(Sport Poker 3.1, 3.4, 3.9, 3.10). Every command calls the domain services inside one unit of work.

The `poker` group also holds the floor's commands (flows/cli/poker_clock_seating.py), the results'
(flows/cli/poker_knockouts_places.py) and `structure` (flows/cli/structures.py): flows/cli/app.py adds them.
"""

from __future__ import annotations

from contextlib import contextmanager
from typing import Annotated, Any

import typer

from domain.errors import DomainError, Problem, raise_problems
from domain.poker.rules.lifecycle import STATUSES
from domain.poker.rules.settings import AMOUNT_FIELDS, TournamentSettings, setting_from_text
from flows.cli import output
from flows.cli.arguments import PlayerRef, TournamentId, Yes
from flows.cli.clock import now as _now
from flows.cli.lazy import lazy
from flows.cli.output import emit, transaction
from flows.cli.params import confirm, name_problems, one_of

desk = lazy("domain.poker.services.desk")
money_rules = lazy("domain.poker.rules.money")  # Babel: loaded by a command that reads an amount
listings = lazy("domain.poker.services.listings")
entries_service = lazy("domain.poker.services.entries")
fees_service = lazy("domain.poker.services.fees")
players_service = lazy("domain.poker.services.players")
results_service = lazy("domain.poker.services.results")
tournaments_service = lazy("domain.poker.services.tournaments")

app = typer.Typer(
    rich_markup_mode=None, no_args_is_help=True, help="Live poker tournaments (Sport Poker rules, section 3)."
)
SetOption = Annotated[list[str], typer.Option("--set", help="setting=value (repeatable); see README")]


def _parse_sets(pairs: list[str], currency: str | None = None, refused: list[Problem] | None = None) -> dict[str, Any]:
    """`--set setting=value` pairs. A fee amount is typed in the currency's major units ("1 500",
    "1500,50"), read by the desk's parser (domain/poker/rules/money.parse_amount) in `currency`; one it
    refuses goes to `refused` (standing in as 0, so the other settings are still checked) when given."""
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
        if key.strip() in AMOUNT_FIELDS and raw.strip().lower() not in ("none", ""):
            try:
                raw = str(money_rules.parse_amount(raw, currency or "RUB"))
            except DomainError as bad:
                (problems if refused is None else refused).append(Problem(bad.code, f"{key.strip()}: {bad.message}"))
                if refused is None:
                    continue
                raw = "0"
        value, found = setting_from_text(key.strip(), raw)
        problems += found
        values[key.strip()] = value
    raise_problems(problems)
    return values


# -- tournaments -----------------------------------------------------------------------------------


@app.command("create")
def poker_create(
    club: Annotated[int, typer.Option(help="club id")],
    structure: Annotated[int, typer.Option(help="blind structure id")],
    name: Annotated[str, typer.Option()],
    start: Annotated[str, typer.Option(help="scheduled start, ISO 8601 with offset")],
    stack: Annotated[str, typer.Option(help="starting stack (chips)")],
    currency: Annotated[str, typer.Option(help="ISO 4217 code, e.g. RUB")],
    buy_in: Annotated[str, typer.Option(help='buy-in in roubles (major units) as typed: "1 500", "1500,50"')],
    set_: SetOption = [],  # noqa: B006
) -> None:
    """Create a draft tournament; other settings by --set (e.g. --set seat_cap=8, --set rebuy_amount=1000).
    Amounts are in major units (roubles), as the desk types them."""
    name_problems("tournament name", name)
    refused: list[Problem] = []
    core = _parse_sets(
        [f"scheduled_start={start}", f"starting_stack={stack}", f"currency={currency}", f"buy_in={buy_in}"],
        currency.strip().upper(),
        refused,
    )
    extra = _parse_sets(set_, currency.strip().upper(), refused)
    twice = sorted(set(extra) & (set(core) | {"name"}))
    if twice:
        raise DomainError("setting-twice", f"setting '{twice[0]}' is given twice (as an option and by --set)")
    settings = TournamentSettings(name=name, **core, **extra)
    with transaction() as session, _with_refused(refused):
        t = tournaments_service.create_tournament(session, club, structure, settings, _now())
        emit(tournaments_service.tournament_view(session, t))


@app.command("edit")
def poker_edit(
    tournament: TournamentId,
    set_: SetOption = [],  # noqa: B006
    structure: Annotated[int | None, typer.Option(help="another blind structure of the club")] = None,
) -> None:
    """Change settings (draft or registration open only, 3.9); amounts in major units (roubles)."""
    currency = next(
        (p.partition("=")[2].strip().upper() for p in set_ if p.partition("=")[0].strip() == "currency"), None
    )
    if currency is None and any(p.partition("=")[0].strip() in AMOUNT_FIELDS for p in set_):
        with transaction() as session:
            currency = tournaments_service.get_tournament(session, tournament).currency
    refused: list[Problem] = []
    changes = _parse_sets(set_, currency, refused)
    now = _now()
    with transaction() as session, _with_refused(refused):
        t = tournaments_service.edit_tournament(session, tournament, changes, now, structure_id=structure)
        view = tournaments_service.tournament_view(session, t)
    emit(view)  # a moved deadline wakes the timekeeper (domain/poker/services/due.py)


@contextmanager
def _with_refused(refused: list[Problem]):
    """The amounts refused as typed, said on one line with whatever else the service refuses; when it
    refuses nothing else, refused still (inside the transaction: nothing is written)."""
    try:
        yield
    except DomainError as other:
        if refused:
            raise_problems([*refused, *other.problems])
        raise
    raise_problems(refused)


def _status_command(action: str, doc: str) -> None:
    def command(tournament: TournamentId) -> None:
        with transaction() as session:
            t = tournaments_service.change_status(session, tournament, action, _now())
        emit({"id": t.id, "status": t.status})  # a start wakes the timekeeper: no-shows at the close (3.8)

    command.__doc__ = doc
    app.command(action)(command)


def _final_command(action: str, doc: str) -> None:
    """finish and cancel: say what will happen and ask (unless --yes); finish only with one player in."""

    def command(tournament: TournamentId, yes: Yes = False) -> None:
        with transaction() as session:
            t = tournaments_service.get_tournament(session, tournament)
            remaining = entries_service.players_in(session, t.id)
            if action == "finish":  # refused before asking, as finishing would refuse it
                results_service.refuse_unfinished(session, t)
        confirm(
            f"{action} tournament {t.id} '{t.name}' ({t.status.replace('_', ' ')}, {remaining} "
            f"player{'s' if remaining != 1 else ''} in)",
            yes,
        )
        if action == "cancel":
            with transaction() as session:
                t = tournaments_service.change_status(session, tournament, action, _now())
                emit({"id": t.id, "status": t.status})
            return
        with transaction() as session:  # places and prizes at once (3.7); its event starts the documents
            done = results_service.finish(session, tournament, _now())
        emit(
            {
                "id": done.tournament_id,
                "status": "finished",
                "placed": len(done.places),
                "final_table": results_service.final_table(done),
            }
        )

    command.__doc__ = doc
    app.command(action)(command)


_status_command("open", "Open registration (draft -> registration open).")
_status_command("start", "Start the tournament; settings freeze (registration open -> running).")
_final_command(
    "finish",
    "Finish the tournament with one player left: final places and prizes at once, "
    "without waiting for the last knockout's void window, and its documents started. Asks unless --yes.",
)
_final_command("cancel", "Cancel the tournament (from draft, registration open or running). Asks unless --yes.")


@app.command("show")
def poker_show(tournament: TournamentId) -> None:
    """Every setting, the SP-2 window end and the counts."""
    with transaction() as session:
        emit(tournaments_service.tournament_view(session, tournaments_service.get_tournament(session, tournament)))


@app.command("list")
def poker_list(
    club: Annotated[int | None, typer.Option(help="only this club")] = None,
    status: Annotated[str | None, typer.Option(help="only this status")] = None,
) -> None:
    """Tournaments by scheduled start."""
    one_of("status", status, STATUSES)
    with transaction() as session:
        emit(tournaments_service.list_tournaments(session, club, status), "tournaments")


# -- registration, check-in, top-ups ----------------------------------------------------------------


@app.command("register")
def poker_register(tournament: TournamentId, player: PlayerRef) -> None:
    """Sign a player up (late registration while running, before its deadline)."""
    with transaction() as session:
        reg = entries_service.register(session, tournament, player, _now())
        emit(
            {
                "registration_id": reg.id,
                "tournament_id": reg.tournament_id,
                "player_id": reg.player_id,
                "status": reg.status,
                "late": reg.late,
            }
            | _named(session, reg.tournament_id, reg.player_id)
        )


@app.command("unregister")
def poker_unregister(tournament: TournamentId, player: PlayerRef) -> None:
    """Withdraw a registration (before check-in)."""
    with transaction() as session:
        reg = entries_service.unregister(session, tournament, player, _now())
        emit({"registration_id": reg.id, "status": reg.status} | _named(session, reg.tournament_id, reg.player_id))


@app.command("checkin")
def poker_checkin(tournament: TournamentId, player: PlayerRef) -> None:
    """Mark in at the counter: the first entry opens, the buy-in is owed (3.4, 3.10)."""
    now = _now()
    with transaction() as session:
        entry, seat = desk.check_in(session, tournament, player, now)
        emit(entries_service.entry_view(entry) | _seat_of(seat) | _named(session, entry.tournament_id, entry.player_id))


@app.command("rebuy")
def poker_rebuy(tournament: TournamentId, player: PlayerRef) -> None:
    """Top the current entry up by the starting stack at the rebuy amount (3.1)."""
    with transaction() as session:
        top = desk.rebuy(session, tournament, player, _now())
        emit(entries_service.topup_view(top) | _named(session, top.tournament_id, top.player_id))


@app.command("reentry")
def poker_reentry(tournament: TournamentId, player: PlayerRef) -> None:
    """A new entry after a bust, within the re-entry window (3.1)."""
    now = _now()
    with transaction() as session:
        entry, seat = desk.reenter(session, tournament, player, now)
        emit(entries_service.entry_view(entry) | _seat_of(seat) | _named(session, entry.tournament_id, entry.player_id))


@app.command("addon")
def poker_addon(tournament: TournamentId, player: PlayerRef) -> None:
    """The add-on into the current entry, within its window (3.1)."""
    with transaction() as session:
        top = desk.add_on(session, tournament, player, _now())
        emit(entries_service.topup_view(top) | _named(session, top.tournament_id, top.player_id))


def _named(session, tournament_id: int, player_id: int) -> dict[str, Any]:
    """Beside the ids: the player's name and what they owe now (shown in roubles, as the desk does)."""
    return listings.owed_by(session, tournament_id, player_id)


def _seat_of(seat: dict[str, Any] | None) -> dict[str, Any]:
    """The seat a late entry or re-entry was given once seats are drawn (3.6), if any."""
    return {"table": seat["table"], "seat": seat["seat"]} if seat else {}


# -- fees ------------------------------------------------------------------------------------------


@app.command("settle")
def poker_settle(
    tournament: TournamentId,
    player: Annotated[str | None, typer.Argument(help="player id, handle or name; omit with --all")] = None,
    all_: Annotated[bool, typer.Option("--all", help="settle every debtor of the tournament")] = False,
    amount: Annotated[
        str | None,
        typer.Option(help='what is taken, in roubles as typed ("1 500", "1500,50"): refused unless it is what is owed'),
    ] = None,
    method: Annotated[str, typer.Option(help="cash, card, transfer or other")] = "cash",
    by: Annotated[str, typer.Option(help="who takes the payment")] = "",
) -> None:
    """Close all of a player's unpaid fees with one settlement record (3.4); says who and what is owed now."""
    if (player is None) == (not all_):
        raise DomainError("bad-param", "name one player or pass --all")
    if all_ and amount is not None:
        raise DomainError("bad-param", "--amount is for one player; --all settles what each owes")
    now = _now()
    with transaction() as session:
        t = tournaments_service.get_tournament(session, tournament)
        if all_:
            made = fees_service.settle_all(session, tournament, method, by, now)
            names = listings.player_names(session, [p for _, p, _ in made])
            emit(
                [{"settlement_id": s, "player_id": p, "player": names[p], "amount": a} for s, p, a in made],
                "settlements",
            )
            total, count = sum(a for _, _, a in made), len(made)
        else:
            expected = None if amount is None else money_rules.parse_amount(amount, t.currency)
            settlement = fees_service.settle(session, tournament, player, method, by, now, expected=expected)
            found = players_service.find_player(session, player)
            named = listings.owed_by(session, t.id, found.id)
            emit(
                (fees_service.settlement_view(settlement) if settlement else {"settlement_id": None})
                | {"player": named["player"], "owed": named["owed"]}
            )
    if all_ and not output.current().json:
        noun = "player" if count == 1 else "players"
        output.say(f"{count} {noun} settled: {output.amount_text(total, t.currency)}; nobody owes anything now.")


@app.command("void-settlement")
def poker_void_settlement(
    tournament: TournamentId,
    settlement: Annotated[int, typer.Argument(help="settlement id (of that tournament)")],
    by: Annotated[str, typer.Option(help="who voids it")],
    reason: Annotated[str, typer.Option(help="why")],
    yes: Yes = False,
) -> None:
    """Void a settlement: the record stays, marked voided; the fees are owed again (3.4). Asks unless --yes,
    naming the player and the amount."""
    with transaction() as session:
        s = fees_service.get_settlement(session, settlement, tournament)
        who = players_service.find_player(session, s.player_id).display_name
        amount, currency, method, already = s.amount, s.currency, s.method, s.voided_at is not None
    plan = (
        f"void settlement {settlement} of tournament {tournament}: {who}, {output.amount_text(amount, currency)} "
        f"by {method}{' (already voided)' if already else ''}; the fees are owed again"
    )
    confirm(plan, yes)
    with transaction() as session:
        voided = fees_service.void_settlement(session, settlement, by, reason, _now(), tournament)
        emit(fees_service.settlement_view(voided) | listings.owed_by(session, voided.tournament_id, voided.player_id))


@app.command("debts")
def poker_debts(tournament: TournamentId) -> None:
    """Every player owing fees in the tournament."""
    with transaction() as session:
        emit(fees_service.debts(session, tournament), "debts")


# -- listings (the floor's and the counter's views; read only) ---------------------------------------


@app.command("entries")
def poker_entries(tournament: TournamentId) -> None:
    """Every registration: checked in, entry, seat (table/seat), state, re-entries, what is owed."""
    from domain.poker.services import listings

    with transaction() as session:
        rows = listings.entries(session, tournament)
    if output.current().json:
        emit(rows, f"entries of tournament {tournament}")
        return
    emit([_entry_line(r) for r in rows], f"entries of tournament {tournament}")


def _entry_line(r: dict[str, Any]) -> dict[str, Any]:
    """An entry as the floor reads it at 120 columns: seven columns (the desk's words), no timestamps;
    `--json` keeps every field."""
    if r["registration"] != "active" and r["entry_id"] is None:
        state = r["registration"]  # withdrawn, no-show
    else:
        state = {"active": "in play", None: "registered"}.get(r["state"], r["state"])
    return {
        "entry": r["entry_id"],
        "player": r["player"],
        "handle": r["handle"],
        "state": state + (" (late)" if r["late"] else ""),
        "seat": r["seat"],
        "re-entries": r["reentries"] or None,
        "owed": r["owed"],  # shown in the tournament's currency
    }


@app.command("knockouts")
def poker_knockouts(tournament: TournamentId) -> None:
    """Every knockout in bust order: who busted whom, the level, voided or not."""
    from domain.poker.services import listings

    with transaction() as session:
        emit(listings.knockouts(session, tournament), f"knockouts of tournament {tournament}")


@app.command("settlements")
def poker_settlements(tournament: TournamentId) -> None:
    """Every settlement of the tournament, voided ones too."""
    from domain.poker.services import listings

    with transaction() as session:
        emit(listings.settlements(session, tournament), f"settlements of tournament {tournament}")


@app.command("structures")
def poker_structures(club: Annotated[int | None, typer.Option(help="only this club's")] = None) -> None:
    """Every blind structure, with its number of levels and total minutes."""
    from domain.poker.services import listings

    with transaction() as session:
        emit(listings.structures(session, club), "structures")
