"""Blind structures as data (Sport Poker 3.5): a club's reusable level grid with an ante type.

A play level needs small blind > 0 and big blind >= small blind, ante >= 0; a break has no blinds
or ante; every duration is positive. Files give durations in whole minutes:

CSV  `small_blind,big_blind,ante,minutes,break` (header required; `break` is yes/no, true/false or
     1/0; a break row may leave the blinds empty)
JSON a list of objects with the same keys (`break` a boolean, blinds omitted on a break)
"""

from __future__ import annotations

import csv
import io
import json
from dataclasses import dataclass
from datetime import timedelta

from domain.errors import Problem

ANTE_TYPES = ("none", "classic", "bb_ante")
COLUMNS = ("small_blind", "big_blind", "ante", "minutes", "break")
_TRUE = {"yes", "true", "1", "y"}
_FALSE = {"no", "false", "0", "n", ""}


@dataclass(frozen=True)
class LevelSpec:
    small_blind: int
    big_blind: int
    ante: int
    duration_seconds: int
    is_break: bool = False


MAX_CHIPS = 2**63 - 1  # blinds and antes are BIGINT
MAX_LEVEL_SECONDS = 24 * 3600  # a level (or a break) lasts at most a day


def level_problems(levels: list[LevelSpec]) -> list[Problem]:
    """Every problem of a level grid, each naming its level number (1-based)."""
    if not levels:
        return [Problem("structure-empty", "a blind structure needs at least one level (rule 3.5)")]
    out: list[Problem] = []
    for n, lv in enumerate(levels, start=1):
        if lv.duration_seconds <= 0:
            out.append(
                Problem("level-duration-not-positive", "level %(n)s: the duration must be positive (rule 3.5)", n=n)
            )
        elif lv.duration_seconds > MAX_LEVEL_SECONDS:
            out.append(
                Problem(
                    "level-duration-too-long",
                    "level %(n)s: %(n2)s minutes is longer than a day (rule 3.5)",
                    n=n,
                    n2=lv.duration_seconds // 60,
                )
            )
        if max(lv.small_blind, lv.big_blind, lv.ante) > MAX_CHIPS:
            out.append(
                Problem(
                    "level-chips-too-large",
                    "level %(n)s: a blind or ante is beyond %(max_chips)s chips",
                    n=n,
                    max_chips=MAX_CHIPS,
                )
            )
            continue
        if lv.is_break:
            if lv.small_blind or lv.big_blind or lv.ante:
                out.append(Problem("break-with-blinds", "level %(n)s: a break has no blinds or ante (rule 3.5)", n=n))
        elif lv.small_blind <= 0 or lv.big_blind < lv.small_blind:
            out.append(
                Problem(
                    "blinds-invalid",
                    "level %(n)s: blinds %(small_blind)s/%(big_blind)s need small > 0 and big >= small (rule 3.5)",
                    n=n,
                    small_blind=lv.small_blind,
                    big_blind=lv.big_blind,
                )
            )
        elif lv.ante < 0:
            out.append(
                Problem("ante-negative", "level %(n)s: the ante %(ante)s is negative (rule 3.5)", n=n, ante=lv.ante)
            )
    return out


def ante_type_problems(ante_type: str) -> list[Problem]:
    if ante_type in ANTE_TYPES:
        return []
    return [
        Problem(
            "ante-type-unknown",
            "ante type '%(ante_type)s' is not one of %(value)s (rule 3.5)",
            ante_type=ante_type,
            value=", ".join(ANTE_TYPES),
        )
    ]


def total_duration(levels: list[LevelSpec]) -> timedelta:
    return timedelta(seconds=sum(lv.duration_seconds for lv in levels))


def levels_csv(levels: list[LevelSpec]) -> str:
    """The level grid as the CSV `parse_levels` reads back (the columns of `COLUMNS`, whole minutes; a
    break's blinds left empty): what a structure is exported as."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(COLUMNS)
    for lv in levels:
        if lv.is_break:
            writer.writerow(("", "", "", lv.duration_seconds // 60, "yes"))
        else:
            writer.writerow((lv.small_blind, lv.big_blind, lv.ante, lv.duration_seconds // 60, "no"))
    return out.getvalue()


def _whole(n: int, key: str, raw: object, out: list[Problem], *, blank_is_zero: bool) -> int:
    if raw is None or (isinstance(raw, str) and not raw.strip()):
        if blank_is_zero:
            return 0
        out.append(Problem("level-field-missing", "level %(n)s: %(key)s is missing", n=n, key=key))
        return 0
    if isinstance(raw, bool):
        out.append(
            Problem(
                "level-field-not-whole", "level %(n)s: %(key)s '%(raw)s' is not a whole number", n=n, key=key, raw=raw
            )
        )
        return 0
    if isinstance(raw, int):
        return raw
    try:
        return int(str(raw).strip())
    except ValueError:
        out.append(
            Problem(
                "level-field-not-whole", "level %(n)s: %(key)s '%(raw)s' is not a whole number", n=n, key=key, raw=raw
            )
        )
        return 0


def _flag(n: int, raw: object, out: list[Problem]) -> bool:
    if isinstance(raw, bool):
        return raw
    text = "" if raw is None else str(raw).strip().lower()
    if text in _TRUE:
        return True
    if text in _FALSE:
        return False
    out.append(Problem("level-field-not-whole", "level %(n)s: break '%(raw)s' is not yes or no", n=n, raw=raw))
    return False


def _level(n: int, row: dict, out: list[Problem]) -> LevelSpec:
    is_break = _flag(n, row.get("break"), out)
    return LevelSpec(
        small_blind=_whole(n, "small_blind", row.get("small_blind"), out, blank_is_zero=is_break),
        big_blind=_whole(n, "big_blind", row.get("big_blind"), out, blank_is_zero=is_break),
        ante=_whole(n, "ante", row.get("ante"), out, blank_is_zero=True),
        duration_seconds=60 * _whole(n, "minutes", row.get("minutes"), out, blank_is_zero=False),
        is_break=is_break,
    )


def parse_levels(text: str, kind: str) -> tuple[list[LevelSpec], list[Problem]]:
    """Levels from a CSV or JSON document (`kind` is 'csv' or 'json'), with every problem found."""
    out: list[Problem] = []
    if kind == "csv":
        reader = csv.DictReader(io.StringIO(text))
        missing = [c for c in COLUMNS if c not in (reader.fieldnames or [])]
        if missing:
            return [], [
                Problem(
                    "structure-file-invalid",
                    "the CSV header lacks %(value)s; expected %(value2)s",
                    value=", ".join(missing),
                    value2=",".join(COLUMNS),
                )
            ]
        rows: list = list(reader)
    else:
        try:
            rows = json.loads(text)
        except json.JSONDecodeError as exc:
            return [], [
                Problem(
                    "structure-file-invalid",
                    "the JSON does not parse: %(exc_msg)s at line %(exc_lineno)s",
                    exc_msg=exc.msg,
                    exc_lineno=exc.lineno,
                )
            ]
        except (ValueError, RecursionError):  # a number of thousands of digits, or nesting too deep
            return [], [Problem("structure-file-invalid", "the JSON holds a number or nesting too large to read")]
        if not isinstance(rows, list) or not all(isinstance(r, dict) for r in rows):
            return [], [Problem("structure-file-invalid", "the JSON must be a list of level objects")]
    levels = [_level(n, row, out) for n, row in enumerate(rows, start=1)]
    return levels, out or level_problems(levels)
