"""How every CLI command shows data: JSON with stable keys under `--json`, else a Rich table."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from datetime import date, datetime
from typing import Any

from rich.console import Console
from rich.table import Table

STATE = {"json": False}


def _default(value: Any) -> Any:
    if isinstance(value, (datetime, date)):
        return value.isoformat()
    if isinstance(value, (set, frozenset, tuple)):
        return list(value)
    return str(value)


def emit(data: Mapping[str, Any] | Sequence[Mapping[str, Any]], title: str | None = None) -> None:
    """A mapping prints as a two-column table, a list of mappings as a table with one row each."""
    if STATE["json"]:
        print(json.dumps(data, default=_default, ensure_ascii=False, indent=2))
        return
    console = Console()
    table = Table(title=title)
    if isinstance(data, Mapping):
        table.add_column("field")
        table.add_column("value")
        for key, value in data.items():
            table.add_row(str(key), _text(value))
    else:
        rows = list(data)
        columns = list(rows[0].keys()) if rows else []
        for column in columns:
            table.add_column(column)
        for row in rows:
            table.add_row(*(_text(row.get(c)) for c in columns))
        if not rows:
            console.print(f"{title or 'nothing'}: none")
            return
    console.print(table)


def _text(value: Any) -> str:
    if value is None:
        return "—"
    if isinstance(value, (list, tuple, dict)):
        return json.dumps(value, default=_default, ensure_ascii=False)
    return str(value)


def say(message: str) -> None:
    """A plain confirmation line (also under --json, as {"message": ...})."""
    if STATE["json"]:
        print(json.dumps({"message": message}, ensure_ascii=False))
    else:
        Console().print(message)
