"""Checks every command line gets before any command runs: numbers within the range of the column
they reach, no argument longer than any field takes, `--json` anywhere on the line, filters and
choices among their known values. A value outside them is one line `error: ...` and exit 2, before
a transaction opens, so nothing is written and PostgreSQL never sees an out-of-range number.
"""

from __future__ import annotations

from collections.abc import Iterable

from domain.errors import DomainError

BIGINT_MAX = 2**63 - 1  # ids, chips and amounts are BIGINT
INT_MAX = 2**31 - 1  # levels, tables, seats, minutes, counts are INTEGER
MAX_ARGUMENT = 2000  # the longest text any field takes (prize lines 500, names 200, a template more)
NAME_MAX = 200  # player names and handles, tournament, structure, club and series names


def json_flag(argv: list[str]) -> tuple[list[str], bool]:
    """`--json` anywhere on the line (before a `--`), taken out: (the rest, whether it was there)."""
    out: list[str] = []
    found = False
    for n, arg in enumerate(argv):
        if arg == "--":
            out += argv[n:]
            break
        if arg == "--json":
            found = True
            continue
        out.append(arg)
    return out, found


def argument_problems(argv: Iterable[str]) -> None:
    """No argument longer than any field takes, none with control characters or NUL."""
    for arg in argv:
        if len(arg) > MAX_ARGUMENT:
            raise DomainError(
                "argument-too-long", f"an argument of {len(arg)} characters is too long: at most {MAX_ARGUMENT}"
            )
        if "\x00" in arg:
            raise DomainError("argument-nul", "an argument contains a NUL character")


def bound_integers(command) -> None:
    """Every integer option and argument of every command, bounded: 0 to the BIGINT maximum unless
    the command declared its own range (typer `min`/`max`). Checked right after parsing, before the
    command runs."""
    for param in getattr(command, "params", ()):
        if _is_int(param) and getattr(param, "min", None) is None and getattr(param, "max", None) is None:
            param.callback = _bounded(param.callback)
    for sub in getattr(command, "commands", {}).values():
        bound_integers(sub)


def _is_int(param) -> bool:
    return getattr(getattr(param, "type", None), "name", "") == "int"  # an IntRange is "int range"


def _bounded(callback):
    def check(ctx, param, value):
        for number in value if isinstance(value, (list, tuple)) else (value,):
            if isinstance(number, int) and not 0 <= number <= BIGINT_MAX:
                label = (
                    param.opts[0]
                    if getattr(param, "param_type_name", "") == "option" and param.opts
                    else (param.name or "value").upper()
                )
                raise DomainError("number-out-of-range", f"{label} {number} is outside 0 to {BIGINT_MAX}")
        return callback(ctx, param, value) if callback is not None else value

    return check


def one_of(label: str, value: str | None, allowed: Iterable[str]) -> str | None:
    """A filter or choice among its known values (None passes: no filter)."""
    allowed = tuple(allowed)
    if value is None or value in allowed:
        return value
    raise DomainError(f"{label.replace(' ', '-')}-unknown", f"{label} '{value}' is not one of {', '.join(allowed)}")


def name_problems(label: str, value: str, limit: int = NAME_MAX) -> None:
    """A name or handle a person typed: not blank, at most `limit` characters, no control characters."""
    if len(value) > limit:
        raise DomainError(
            f"{label.replace(' ', '-')}-too-long", f"the {label} is {len(value)} characters long: at most {limit}"
        )
    if any(ord(c) < 32 or 127 <= ord(c) < 160 for c in value):
        raise DomainError(f"{label.replace(' ', '-')}-control", f"the {label} contains a control character")


def read_text_file(path, what: str) -> str:
    """A UTF-8 text file: missing, unreadable or binary is one plain line."""
    try:
        data = path.read_bytes()
    except IsADirectoryError:
        raise DomainError(f"{what}-file-invalid", f"'{path}' is a folder, not a file") from None
    except OSError as exc:
        raise DomainError(f"{what}-file-invalid", f"cannot read '{path}': {exc.strerror}") from None
    if b"\x00" in data:
        raise DomainError(f"{what}-file-invalid", f"'{path}' is a binary file, not UTF-8 text")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        raise DomainError(f"{what}-file-invalid", f"'{path}' is not UTF-8 text") from None


def confirm(plan: str, yes: bool) -> None:
    """A destructive command says what it will do and asks, unless `--yes`. Without a terminal to
    ask on, it is refused (one line, exit 2, nothing changed) and names `--yes`."""
    import sys

    import typer

    from flows.cli.output import clean

    if yes:
        return
    if not sys.stdin.isatty():
        raise DomainError("confirmation-needed", f"{plan}: pass --yes to go ahead (no terminal to ask on)")
    print(clean(plan), file=sys.stderr)
    if not typer.confirm("go ahead?", default=False, err=True):
        print("nothing changed", file=sys.stderr)
        raise typer.Abort()
