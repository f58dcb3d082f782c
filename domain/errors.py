"""Domain errors: a stable code and a message a club's floor manager understands.

Validators return every problem they find as `Problem`s; `raise_problems` is the one thin wrapper
that turns a non-empty list into a `DomainError`.

A message is written in English as a template with named values (`"%(name)s owes nothing now"`,
`name=...`): `message` is the template filled in (what the CLI prints), and `template` and `values`
stay with the refusal so a door that speaks another language says it by its code and template
through the gettext catalogs, each value in that language's formats (flows/web/refusals.py). A value
is a name or a number as it is, an instant (written in ISO 8601 here), an amount (`Amount`), or a
`Word` of English that the door translates (a tournament's status, a kind of top-up).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import datetime


class Word(str):
    """An English word a refusal is filled in with (a status, a kind of top-up), translated where it
    is shown (flows/web/refusals.WORDS)."""


@dataclass(frozen=True)
class Amount:
    """An amount of money in a refusal: minor units and the currency (SP-1); written here as
    "1500.00 RUB", by a door in its language ("1 500,00 ₽")."""

    minor: int
    currency: str

    def __str__(self) -> str:
        from babel.numbers import get_currency_precision

        precision = get_currency_precision(self.currency)
        whole, rest = divmod(self.minor, 10**precision)
        return f"{whole}.{rest:0{precision}d} {self.currency}" if precision else f"{whole} {self.currency}"


def english(value: object) -> str:
    """A value as the English message writes it: an instant in ISO 8601, anything else as `str`."""
    return value.isoformat() if isinstance(value, datetime) else str(value)


def filled(template: str, values: Mapping[str, object]) -> str:
    return template % {k: english(v) for k, v in values.items()} if values else template


class Problem:
    """One problem: its stable code, its English message, and the template and values it was filled
    in from. Equal when code and message are."""

    __slots__ = ("code", "message", "template", "values")

    def __init__(self, code: str, message: str, /, **values: object):
        self.code, self.template, self.values = code, message, values
        self.message = filled(message, values)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Problem) and (self.code, self.message) == (other.code, other.message)

    def __hash__(self) -> int:
        return hash((self.code, self.message))

    def __repr__(self) -> str:
        return f"Problem({self.code!r}, {self.message!r})"


class DomainError(Exception):
    """A refused request. `code` is stable (for scripts and tests); `str()` is the plain message;
    `message` is a template filled in with `values`, as for a `Problem`."""

    def __init__(self, code: str, message: str, problems: tuple[Problem, ...] = (), /, **values: object):
        text = filled(message, values)
        super().__init__(text)
        self.code = code
        self.message = text
        self.problems = problems or (Problem(code, message, **values),)


class NotFound(DomainError):
    pass


class ConfigurationError(DomainError):
    """The environment is not usable (database unreachable, data folder broken, ...)."""


def raise_problems(problems: Iterable[Problem]) -> None:
    found = tuple(problems)
    if found:
        raise DomainError(found[0].code, "; ".join(p.message for p in found), found)
