"""How every CLI command shows data: JSON with stable keys under `--json`, else a Rich table.

Safe for any text a user typed: names and handles are printed as text, never as Rich markup
(`[/b]` is shown as typed) and without control characters (ESC, BEL, ...), in tables, titles and
lines alike. Cells wrap; nothing is cut.

What one invocation shows and records (`--json`, `--as`, the tournament or club it named, the output
waiting for its commit) is its `Invocation`, the object of its Typer context (`ctx.obj`): `main()` makes
it, the root callback fills it, and `current()` reads it where output is written. Nothing global holds
it, so commands run one after another in one process (the tests' in-process runner) start clean.

Output of a command that writes is printed only after its transaction commits: commands open
their transaction with `transaction()`, and whatever they emit inside it waits for the commit (a
refusal or a failed commit prints nothing but the one-line error). A transaction that wrote anything
(PostgreSQL assigned it a transaction id) records, just before its commit, one row of the audit
trail (AC-3): the operator (`--as NAME`, else the OS user), the command's path, its arguments and
parameters, and the club of the tournament or club it named. A read records nothing.

For people, a poker command shows values as its tournament's club does (`--json` keeps minor units
and UTC): every argument named `tournament` of the `poker` group records the tournament, and an
option `--club` the club (`follow_tournaments`), and at printing that club's language (the
documents' locale, DOC-4; Russian by default), timezone and the tournament's currency apply (a
listing by club: each row's own currency). Money is every value under a key of
`MONEY_KEYS` (the fee amounts of the settings, `amount`, `owed`), in minor units of the row's own
`currency`, else the tournament's, formatted by Babel ("2 500,00 ₽"); times are shown in the club's
timezone, by Babel, with the zone's abbreviation ("04.12.2026, 21:48 MSK"); a number of seconds
(a key ending in `_s`) as a duration ("1:37", "1:02:05"). Lists and mappings inside a row print as
sub-tables.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import date, datetime
from typing import TYPE_CHECKING, Any

from domain.poker.rules.settings import AMOUNT_FIELDS
from flows import bootstrap

if TYPE_CHECKING:  # Rich and Babel are loaded by the first table or amount shown, not by `--json`
    from zoneinfo import ZoneInfo

    from rich.console import Console
    from rich.table import Table


@dataclass
class Invocation:
    """One invocation's output state, its Typer context's object (`ctx.obj`, inherited by every
    subcommand's context): JSON or tables, the operator (`--as`), the tournament and club it named
    (`follow_tournaments`), and the output waiting for the commit of its transactions."""

    json: bool = False
    actor: str | None = None
    tournament: Any = None
    club: Any = None
    depth: int = 0  # transactions open
    pending: list[Callable[[], None]] = field(default_factory=list)


def _context() -> Any:
    """The Typer context of the command running, None outside one. The one reading of it: Typer 0.28
    vendors click as `typer._click` and exports no accessor besides a `typer.Context` parameter (the
    root callback takes one); the output functions, called from every command, read it here."""
    from typer._click.globals import get_current_context

    return get_current_context(silent=True)


def current() -> Invocation:
    """The output state of the command running (its context's `Invocation`); outside a command (a
    function of the CLI called directly), a new one: plain output, printed at once."""
    ctx = _context()
    return Invocation() if ctx is None else ctx.ensure_object(Invocation)


MONEY_KEYS = frozenset((*AMOUNT_FIELDS, "amount", "owed"))

# C0 and C1 control characters and DEL, but not tab and newline (a table cell may wrap on them).
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")


def clean(text: str) -> str:
    """User text made safe for a terminal: control characters dropped (no ESC sequences)."""
    return _CONTROL.sub("", text)


@contextmanager
def transaction() -> Iterator[Any]:
    """`with transaction() as session:` a unit of work whose output prints after the commit."""
    state = current()
    state.depth += 1
    try:
        with bootstrap.unit_of_work() as session:
            yield session
            _audit(session, state)
    except BaseException:
        if state.depth == 1:
            state.pending.clear()
        raise
    finally:
        state.depth -= 1
    if state.depth == 0:
        pending, state.pending = state.pending, []
        for show in pending:
            show()


# a parameter whose name says it holds a secret is never recorded (none should be a CLI parameter)
_SECRET_NAMES = ("password", "secret")
# nor a person's name or date of birth (1.6.1); a handle left in is marked by the audit trail (AC-5)
_PERSONAL = {"player add": ("name", "born")}
TARGET_MAX = 200


def operator_label(state: Invocation | None = None) -> str:
    """Who runs the command, for the audit trail: `--as NAME`, else the OS user."""
    actor = (state or current()).actor
    if actor:
        return actor
    import getpass

    try:
        return getpass.getuser()
    except (KeyError, OSError):  # no name for this uid (a container)
        import os

        return f"uid {os.getuid()}"


def _audit(session: Any, state: Invocation) -> None:
    """AC-3: a unit of work that wrote anything records one audit row, as the operator, in the same
    transaction (before the commit): the command's path as the action, its arguments as the target,
    its parameters (never a secret) as the data, and the club of the tournament or club it named; a write
    naming a tournament wakes its event streams on every web process when it commits (`domain.store.live`)."""
    from sqlalchemy import text

    session.flush()
    if session.scalar(text("SELECT txid_current_if_assigned()")) is None:
        return  # a read: nothing to record (and no need to read the command's facts)
    from domain.access.rules.policy import Actor
    from domain.access.services import audit
    from flows.cli.clock import now

    action, target, data = _command_facts()
    if isinstance(state.tournament, int) and not isinstance(state.tournament, bool):
        from domain.store import live

        live.changed(session, live.poker(state.tournament))  # its desks and screens follow at the commit
    audit.record_if_written(
        session,
        Actor("operator", operator_label(state)),
        action,
        now(),
        target=target,
        club_id=_club_named(session, state, data),
        data=data,
    )


def _command_facts() -> tuple[str, str, dict[str, Any]]:
    """(the command's path without `tourney`, its arguments as one short line, its parameters)."""
    ctx = _context()
    if ctx is None:
        return "cli", "", {}
    path = ctx.command_path.split(" ", 1)[1] if " " in ctx.command_path else ctx.command_path
    declared = [p.name for p in ctx.command.params if p.name in ctx.params]
    personal = _PERSONAL.get(path, ())
    data = {
        name: _plain(ctx.params[name])
        for name in declared + [n for n in ctx.params if n not in declared]
        if name not in personal
        and not any(word in name.lower() for word in _SECRET_NAMES)
        and not _looks_secret(ctx.params[name])
    }
    arguments = [p.name for p in ctx.command.params if getattr(p, "param_type_name", "") == "argument"]
    shown = [_short(data[name]) for name in arguments if data.get(name) not in (None, [], ())]
    if not shown:  # no arguments: the options given
        shown = [f"--{k.replace('_', '-')} {_short(v)}" for k, v in data.items() if v not in (None, False, [], ())]
    target = clean(" ".join(shown))
    return path, target if len(target) <= TARGET_MAX else target[: TARGET_MAX - 1] + "…", data


def _looks_secret(value: Any) -> bool:
    from domain.access.services.secrets import TOKEN_PREFIX

    values = value if isinstance(value, (list, tuple)) else [value]
    return any(isinstance(v, str) and v.startswith(TOKEN_PREFIX) for v in values)


def _plain(value: Any) -> Any:
    """A parameter's value as JSON stores it."""
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    if isinstance(value, (list, tuple, set, frozenset)):
        return [_plain(v) for v in value]
    return str(value)


def _short(value: Any) -> str:
    return ",".join(map(str, value)) if isinstance(value, list) else str(value)


def _club_named(session: Any, state: Invocation, data: dict[str, Any]) -> int | None:
    """The club of the tournament the command named (a `poker` command's), else of the club it named
    (`--club`, a club's id): None when it named none or it is not there."""
    from domain.access.services import targets

    if isinstance(state.tournament, int):
        found = targets.tournament(session, state.tournament)
        if found is not None:
            return found.club_id
    club = state.club if state.club is not None else data.get("club", data.get("club_id"))
    if isinstance(club, int) and not isinstance(club, bool) and 0 < club < 2**63:
        found = targets.club(session, club)
        return None if found is None else found.club_id
    return None


def _later(state: Invocation, show: Callable[[], None]) -> None:
    if state.depth:
        state.pending.append(show)
    else:
        show()


def _default(value: Any) -> Any:
    if isinstance(value, (datetime, date)):
        return value.isoformat()
    if isinstance(value, (set, frozenset, tuple)):
        return list(value)
    return str(value)


def _console() -> Console:
    from rich.console import Console

    return Console(soft_wrap=False, emoji=False, highlight=False)


def emit(data: Mapping[str, Any] | Sequence[Mapping[str, Any]], title: str | None = None) -> None:
    """A mapping prints as a two-column table, a list of mappings as a table with one row each."""
    state = current()
    if state.json:
        text = json.dumps(data, default=_default, ensure_ascii=False, indent=2)
        _later(state, lambda: print(text))
        return
    _later(state, lambda: _print_table(data, title, state))


@dataclass(frozen=True)
class Display:
    """How a club shows money and times: its language (a Babel locale), its timezone and, for
    rows without their own, the tournament's currency."""

    locale: str
    zone: ZoneInfo
    currency: str | None


def follow_tournaments(command) -> None:
    """Every argument named `tournament` (or option named `club`) of the command's subcommands (any
    depth) records the tournament (the club) it names, for `display`."""
    for param in getattr(command, "params", ()):
        if param.name in ("tournament", "club"):
            param.callback = _recording(param.name, param.callback)
    for sub in getattr(command, "commands", {}).values():
        follow_tournaments(sub)


def _recording(name: str, callback):
    def record(ctx, param, value):
        value = callback(ctx, param, value) if callback is not None else value
        setattr(ctx.ensure_object(Invocation), name, value)
        return value

    return record


def display(state: Invocation | None = None) -> Display | None:
    """The display of the tournament the command named, else of the club it named (each row in its
    own currency); neither: values as stored."""
    state = state or current()
    if state.tournament is None and state.club is None:
        return None
    from zoneinfo import ZoneInfo

    from domain.documents.services.locales import locales, poker_locale
    from domain.poker.services.listings import club_of

    with bootstrap.unit_of_work() as session:
        row = club_of(session, state.tournament, state.club)
        if row is None:
            return None
        locale = poker_locale(locales(session, "club", [row.id]).get(row.id))
    return Display(locale, ZoneInfo(row.timezone), row.currency)


def money(minor: int, currency: str, locale: str) -> str:
    """An amount in minor units, in the currency's major units as the locale writes them."""
    from infra import i18n

    return i18n.money(minor, currency, locale)


def amount_text(minor: int, currency: str | None = None) -> str:
    """An amount for a line or a question of the command (not a table): as the club of the tournament
    (or club) the command named writes it ("1 500,00 ₽", the desk's formatter), else "1500.00 RUB"."""
    shown = display()
    currency = currency or (shown.currency if shown else None) or "RUB"
    if shown is None:
        from domain.poker.rules.money import major

        return major(minor, currency)
    return money(minor, currency, shown.locale)


def duration(seconds: int) -> str:
    """Seconds as a clock shows them: M:SS under an hour, else H:MM:SS."""
    hours, rest = divmod(abs(seconds), 3600)
    sign = "-" if seconds < 0 else ""
    return f"{sign}{hours}:{rest // 60:02d}:{rest % 60:02d}" if hours else f"{sign}{rest // 60}:{rest % 60:02d}"


def moment(at: datetime, shown: Display) -> str:
    from babel.dates import format_datetime

    local = at.astimezone(shown.zone)
    return f"{format_datetime(local, 'short', tzinfo=shown.zone, locale=shown.locale)} {local.tzname()}"


def _print_table(data: Mapping[str, Any] | Sequence[Mapping[str, Any]], title: str | None, state: Invocation) -> None:
    from rich.text import Text

    console = _console()
    shown = display(state)
    if not isinstance(data, Mapping) and not list(data):
        console.print(Text(f"{clean(title or 'nothing')}: none"))
        return
    table = _table(data, shown, shown.currency if shown else None, nested=False)
    table.title = Text(clean(title)) if title else None
    console.print(table)


def _table(data: Any, shown: Display | None, currency: str | None, nested: bool = True) -> Table:
    """A mapping as field/value rows, a list of mappings as one row each (columns: every key, in
    order of appearance), any other list as one row per item. Sub-tables have rounded corners, and
    a mapping inside a row no header."""
    from rich import box
    from rich.table import Table
    from rich.text import Text

    style = {"box": box.ROUNDED} if nested else {}
    if isinstance(data, Mapping):
        table = Table(show_header=not nested, **style)
        table.add_column("field", overflow="fold")
        table.add_column("value", overflow="fold")
        currency = data.get("currency") or currency
        for key, value in data.items():
            table.add_row(Text(clean(str(key))), _cell(key, value, shown, currency))
        return table
    rows = list(data)
    if all(isinstance(r, Mapping) for r in rows):
        columns = list(dict.fromkeys(k for r in rows for k in r))
        table = Table(**style)
        for column in columns:
            table.add_column(clean(str(column)), overflow="fold")
        for row in rows:
            own = row.get("currency") or currency
            table.add_row(*(_cell(c, row.get(c), shown, own) for c in columns))
        return table
    table = Table(show_header=False, **style)
    width = max(len(r) if isinstance(r, (list, tuple)) else 1 for r in rows)
    for _ in range(width):
        table.add_column(overflow="fold")
    for row in rows:
        items = row if isinstance(row, (list, tuple)) else [row]
        table.add_row(*(_cell(None, v, shown, currency) for v in items))
    return table


def _cell(key: Any, value: Any, shown: Display | None, currency: str | None) -> Any:
    from rich.text import Text

    if value is None or (isinstance(value, (list, tuple, dict)) and not value):
        return Text("—")
    if isinstance(value, (list, tuple, dict)):
        if isinstance(value, (list, tuple)) and not any(isinstance(v, (list, tuple, dict)) for v in value):
            return Text(", ".join(clean(str(_cell(None, v, shown, currency))) for v in value))
        return _table(value, shown, currency)
    if shown is not None:
        if key in MONEY_KEYS and currency and isinstance(value, int) and not isinstance(value, bool):
            return Text(money(value, currency, shown.locale))
        if isinstance(value, datetime) and value.tzinfo is not None:
            return Text(moment(value, shown))
        if isinstance(key, str) and key.endswith("_s") and isinstance(value, int) and not isinstance(value, bool):
            return Text(duration(value))
    return Text(clean(str(value)))


def say(message: str) -> None:
    """A plain confirmation line (also under --json, as {"message": ...})."""
    state = current()
    if state.json:
        text = json.dumps({"message": message}, ensure_ascii=False)
        _later(state, lambda: print(text))
    else:
        from rich.text import Text

        _later(state, lambda: _console().print(Text(clean(message))))
