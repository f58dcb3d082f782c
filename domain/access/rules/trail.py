"""What an audit row may hold of a person (RULES AC-3, AC-5): the trail is append-only, so a player's
handle, name or date of birth is never written into it. Each is replaced by a mark naming the
player's id (`⟦handle 57⟧`), and a reader sees the mark resolved from the players' table, which
forgetting (1.6.1) clears: while the player is known the row reads as it was written; once forgotten,
as the player's pseudonym. Pure: no I/O."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from datetime import date
from typing import Any

KINDS = ("handle", "name", "born")
MARK = re.compile(r"⟦(handle|name|born) ([0-9]{1,19})⟧")


@dataclass(frozen=True)
class Person:
    """A player the change touched, as the trail must not keep them."""

    id: int
    handle: str | None
    name: str | None
    birth_date: date | None


@dataclass(frozen=True)
class Known:
    """A player as a reader may see them now: forgotten players have only their pseudonym."""

    handle: str | None
    name: str | None
    birth_date: date | None
    pseudonym: str


def _patterns(people: Iterable[Person]) -> list[tuple[re.Pattern[str], str]]:
    """Longest words first, so a name that contains a handle is marked whole; a handle before a name
    of the same length (`cid` and `Cid` read back as the handle)."""
    found: list[tuple[str, re.Pattern[str], str]] = []
    for p in people:
        if p.name and p.name.strip():
            words = r"\s+".join(re.escape(w) for w in p.name.split())
            found.append((p.name, re.compile(rf"(?<!\w){words}(?!\w)", re.IGNORECASE), f"⟦name {p.id}⟧"))
        if p.handle:
            handle = re.escape(p.handle)
            found.append((p.handle, re.compile(rf"(?<![\w@])@?{handle}(?!\w)", re.IGNORECASE), f"⟦handle {p.id}⟧"))
        if p.birth_date is not None:
            found.append(("", re.compile(rf"\b{p.birth_date.isoformat()}\b"), f"⟦born {p.id}⟧"))
    found.sort(key=lambda f: (-len(f[0]), not f[2].startswith("⟦handle")))
    return [(pattern, mark) for _, pattern, mark in found]


def mask(value: Any, people: Iterable[Person]) -> Any:
    """`value` (a text, or JSON: mappings, lists, texts) with every handle, name and date of birth of
    `people` replaced by its mark. Keys are kept; numbers and other values are left as they are."""
    patterns = _patterns(people)
    if not patterns:
        return value

    def text(s: str) -> str:
        for pattern, mark in patterns:
            s = pattern.sub(mark, s)
        return s

    return _walk(value, text)


def marked(value: Any) -> set[int]:
    """The ids of the players `value`'s marks name."""
    ids: set[int] = set()

    def text(s: str) -> str:
        ids.update(int(m.group(2)) for m in MARK.finditer(s))
        return s

    _walk(value, text)
    return ids


def unmask(value: Any, known: Mapping[int, Known]) -> Any:
    """`value` with each mark read as the player is now: their handle, name or date of birth, or the
    pseudonym once they are forgotten (or `player N` for an id the reader does not know)."""

    def one(m: re.Match[str]) -> str:
        kind, player_id = m.group(1), int(m.group(2))
        p = known.get(player_id)
        if p is None:
            return f"player {player_id}"
        shown = {"handle": p.handle, "name": p.name, "born": p.birth_date and p.birth_date.isoformat()}[kind]
        return shown if shown is not None else p.pseudonym

    return _walk(value, lambda s: MARK.sub(one, s) if "⟦" in s else s)


def _walk(value: Any, text: Callable[[str], str]) -> Any:
    if isinstance(value, str):
        return text(value)
    if isinstance(value, Mapping):
        return {k: _walk(v, text) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_walk(v, text) for v in value]
    return value
