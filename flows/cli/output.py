"""How every CLI command shows data: JSON with stable keys under `--json`, else a Rich table.

Safe for any text a user typed: names and handles are printed as text, never as Rich markup
(`[/b]` is shown as typed) and without control characters (ESC, BEL, ...), in tables, titles and
lines alike. Cells wrap; nothing is cut.

Output of a command that writes is printed only after its transaction commits: commands open
their transaction with `transaction()`, and whatever they emit inside it waits for the commit (a
refusal or a failed commit prints nothing but the one-line error).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from datetime import date, datetime
from typing import Any

from rich.console import Console
from rich.markup import escape
from rich.table import Table
from rich.text import Text

STATE: dict[str, Any] = {"json": False, "depth": 0, "pending": []}

# C0 and C1 control characters and DEL, but not tab and newline (a table cell may wrap on them).
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")


def clean(text: str) -> str:
    """User text made safe for a terminal: control characters dropped (no ESC sequences)."""
    return _CONTROL.sub("", text)


def safe(text: str) -> str:
    """User text as Rich markup that prints exactly as typed (minus control characters)."""
    return escape(clean(text))


@contextmanager
def transaction() -> Iterator[Any]:
    """`with transaction() as session:` a unit of work whose output prints after the commit."""
    from domain.store.db import unit_of_work

    STATE["depth"] += 1
    try:
        with unit_of_work() as session:
            yield session
    except BaseException:
        if STATE["depth"] == 1:
            STATE["pending"].clear()
        raise
    finally:
        STATE["depth"] -= 1
    if STATE["depth"] == 0:
        pending, STATE["pending"] = STATE["pending"], []
        for show in pending:
            show()


def _later(show) -> None:
    if STATE["depth"]:
        STATE["pending"].append(show)
    else:
        show()


def _default(value: Any) -> Any:
    if isinstance(value, (datetime, date)):
        return value.isoformat()
    if isinstance(value, (set, frozenset, tuple)):
        return list(value)
    return str(value)


def _console() -> Console:
    return Console(soft_wrap=False, emoji=False, highlight=False)


def emit(data: Mapping[str, Any] | Sequence[Mapping[str, Any]], title: str | None = None) -> None:
    """A mapping prints as a two-column table, a list of mappings as a table with one row each."""
    if STATE["json"]:
        text = json.dumps(data, default=_default, ensure_ascii=False, indent=2)
        _later(lambda: print(text))
        return
    _later(lambda: _print_table(data, title))


def _print_table(data: Mapping[str, Any] | Sequence[Mapping[str, Any]], title: str | None) -> None:
    console = _console()
    table = Table(title=Text(clean(title)) if title else None)
    if isinstance(data, Mapping):
        table.add_column("field", overflow="fold")
        table.add_column("value", overflow="fold")
        for key, value in data.items():
            table.add_row(Text(clean(str(key))), _text(value))
    else:
        rows = list(data)
        if not rows:
            console.print(Text(f"{clean(title or 'nothing')}: none"))
            return
        columns = list(rows[0].keys())
        for column in columns:
            table.add_column(clean(str(column)), overflow="fold")
        for row in rows:
            table.add_row(*(_text(row.get(c)) for c in columns))
    console.print(table)


def _text(value: Any) -> Text:
    if value is None:
        return Text("—")
    if isinstance(value, (list, tuple, dict)):
        return Text(clean(json.dumps(value, default=_default, ensure_ascii=False)))
    return Text(clean(str(value)))


def say(message: str) -> None:
    """A plain confirmation line (also under --json, as {"message": ...})."""
    if STATE["json"]:
        text = json.dumps({"message": message}, ensure_ascii=False)
        _later(lambda: print(text))
    else:
        _later(lambda: _console().print(Text(clean(message))))
