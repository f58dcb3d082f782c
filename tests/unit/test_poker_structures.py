"""Blind structures as data (Sport Poker 3.5)."""

from __future__ import annotations

import json
from datetime import timedelta

from domain.poker.rules.structures import (
    LevelSpec,
    ante_type_problems,
    level_problems,
    parse_levels,
    total_duration,
)

CSV = """small_blind,big_blind,ante,minutes,break
100,200,0,20,no
,,,10,yes
200,400,400,20,no
"""


def test_3_5_a_csv_grid_parses_with_its_break():
    levels, problems = parse_levels(CSV, "csv")
    assert problems == []
    assert levels == [
        LevelSpec(100, 200, 0, 1200, False),
        LevelSpec(0, 0, 0, 600, True),
        LevelSpec(200, 400, 400, 1200, False),
    ]
    assert total_duration(levels) == timedelta(minutes=50)


def test_3_5_the_same_grid_in_json_parses_the_same():
    doc = json.dumps(
        [
            {"small_blind": 100, "big_blind": 200, "ante": 0, "minutes": 20},
            {"break": True, "minutes": 10},
            {"small_blind": 200, "big_blind": 400, "ante": 400, "minutes": 20, "break": False},
        ]
    )
    assert parse_levels(doc, "json") == parse_levels(CSV, "csv")


def test_3_5_bad_levels_are_each_named_by_number():
    levels = [
        LevelSpec(0, 200, 0, 600),
        LevelSpec(200, 100, 0, 600),
        LevelSpec(100, 200, 0, 0),
        LevelSpec(100, 200, 0, 600, True),
        LevelSpec(100, 200, -1, 600),
    ]
    problems = level_problems(levels)
    assert [(p.code, p.message.split(":")[0]) for p in problems] == [
        ("blinds-invalid", "level 1"),
        ("blinds-invalid", "level 2"),
        ("level-duration-not-positive", "level 3"),
        ("break-with-blinds", "level 4"),
        ("ante-negative", "level 5"),
    ]


def test_3_5_big_blind_equal_to_small_is_a_valid_play_level():
    assert level_problems([LevelSpec(100, 100, 0, 60)]) == []


def test_3_5_an_empty_grid_and_a_broken_file_are_refused():
    assert [p.code for p in parse_levels("small_blind,big_blind,ante,minutes,break\n", "csv")[1]] == ["structure-empty"]
    assert [p.code for p in parse_levels("small,big\n1,2\n", "csv")[1]] == ["structure-file-invalid"]
    assert [p.code for p in parse_levels("{", "json")[1]] == ["structure-file-invalid"]
    assert [p.code for p in parse_levels('{"levels": []}', "json")[1]] == ["structure-file-invalid"]
    assert [p.code for p in parse_levels("small_blind,big_blind,ante,minutes,break\nx,2,0,10,no\n", "csv")[1]] == [
        "level-field-not-whole"
    ]


def test_3_5_ante_types_are_none_classic_and_bb_ante():
    assert all(ante_type_problems(t) == [] for t in ("none", "classic", "bb_ante"))
    assert [p.code for p in ante_type_problems("big")] == ["ante-type-unknown"]
