"""Every bad input to `tourney` is one line `error: ...`, exit 2, and writes nothing: a generated
table of commands × kinds of bad value, each run through `tourney`'s `main()` in this process against
a running tournament, one case of each kind also through the real process, with every table's rows
fingerprinted before and after."""

from __future__ import annotations

import json
from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, datetime, timedelta

import pytest

from domain.poker.services import tournaments as poker_tournaments
from domain.store.db import unit_of_work
from tests.support.cli import fingerprint, run, run_process
from tests.support.world import (
    checked_in,
    club,
    player,
    tournament_through_services,
)

# kinds of bad value, by the slot they go into
BAD = {
    "id": ["99999999999999999999", "9223372036854775808", "abc"],
    "int": ["99999999999999999999", "-5", "ten"],
    "small": ["2147483648", "-1", "x"],  # INTEGER columns: levels, tables, seats, minutes
    "text": ["x" * 10_000, "n" * 2001],
    "name": ["N" * 201, "x" * 10_000],
    "date": ["0001-01-01", "9999-12-31", "2026-02-30", "yesterday"],
    "time": ["0001-01-01T00:00+05:00", "9999-12-31T23:59-05:00", "2026-12-04T19:00", "soon"],
    "file": ["/nonexistent/levels.csv", "{binary}", "{folder}", "{latin1}"],
    "status": ["bogus", "RUNNING"],
    "listing": ["bogus"],
    "verification": ["bogus"],
    "amount": ["99999999999999999999", "-1", "1,555"],
    "chips": ["99999999999999999999", "1180591620717411303424", "0"],
}

# (command, slot kind): {T} the running tournament, {P} a checked-in player, {C} the club, {S} a
# structure, {V} a file that does not matter, {} the bad value
TABLE = [
    ("poker show {}", "id"),
    ("poker edit {} --set seat_cap=8", "id"),
    ("poker open {}", "id"),
    ("poker start {}", "id"),
    ("poker finish {}", "id"),
    ("poker cancel {}", "id"),
    ("poker register {} {P}", "id"),
    ("poker register {T} {}", "id"),
    ("poker checkin {T} {}", "id"),
    ("poker rebuy {T} {}", "id"),
    ("poker settle {} {P} --by Olga", "id"),
    ("poker settle {T} {} --by Olga", "id"),
    ("poker void-settlement {} 1 --by Olga --reason typo", "id"),
    ("poker void-settlement {T} {} --by Olga --reason typo", "id"),
    ("poker debts {}", "id"),
    ("poker list --club {}", "id"),
    ("poker list --status {}", "status"),
    ("poker structure show {}", "id"),
    ("poker structure import {} --club {C} --name Grid", "file"),
    ("poker structure import {V} --club {} --name Grid", "id"),
    ("poker structure import {V} --club {C} --name {}", "name"),
    ("poker create --club {} --structure {S} --name F --start {START} --stack 20000 --currency RUB --buy-in 0", "id"),
    ("poker create --club {C} --structure {} --name F --start {START} --stack 20000 --currency RUB --buy-in 0", "id"),
    (
        "poker create --club {C} --structure {S} --name {} --start {START} --stack 20000 --currency RUB --buy-in 0",
        "name",
    ),
    ("poker create --club {C} --structure {S} --name F --start {} --stack 20000 --currency RUB --buy-in 0", "time"),
    ("poker create --club {C} --structure {S} --name F --start {START} --stack {} --currency RUB --buy-in 0", "chips"),
    (
        "poker create --club {C} --structure {S} --name F --start {START} --stack 20000 --currency RUB --buy-in {}",
        "amount",
    ),
    (
        "poker create --club {C} --structure {S} --name F --start {START} --stack 20000 --currency RUB --buy-in 0 --set rebuy_amount={}",
        "amount",
    ),
    (
        "poker create --club {C} --structure {S} --name F --start {START} --stack 20000 --currency RUB --buy-in 0 --set late_reg_deadline={}",
        "time",
    ),
    (
        "poker create --club {C} --structure {S} --name F --start {START} --stack 20000 --currency RUB --buy-in 0 --set addon_chips={}",
        "chips",
    ),
    (
        "poker create --club {C} --structure {S} --name F --start {START} --stack 20000 --currency RUB --buy-in 0 --set itm_min={}",
        "chips",
    ),
    ("poker edit {T} --set reentry_deadline={}", "time"),
    ("poker clock status {}", "id"),
    ("poker clock start {}", "id"),
    ("poker clock start {T} --hands-per-hour {}", "small"),
    ("poker clock override {T} --small 100 --big {}", "chips"),
    ("poker clock override {T} --small {} --big 200", "chips"),
    ("poker clock override {T} --small 100 --big 200 --ante {}", "int"),
    ("poker seat show {}", "id"),
    ("poker seat draw {}", "id"),
    ("poker seat draw {T} --seed {}", "text"),
    ("poker draw-proof {}", "id"),
    ("poker seat move {T} {} 1 1", "id"),
    ("poker seat move {T} 1 {} 1", "small"),
    ("poker seat move {T} 1 1 {}", "small"),
    ("poker seat break-table {T} {}", "small"),
    ("poker seat final-table {}", "id"),
    ("poker knockout {T} {}", "id"),
    ("poker knockout {T} 1 --killer {}", "id"),
    ("poker knockout {T} 1 --level {}", "small"),
    ("poker void-knockout {T} {}", "id"),
    ("poker void-window {T} {}", "small"),
    ("poker mystery-draw {T} {}", "id"),
    ("poker prizes show {}", "id"),
    ("poker prizes set {T} --file {}", "file"),
    ("poker prizes set {T} {}", "text"),
    ("poker itm {}", "id"),
    ("poker places {}", "id"),
    ("poker arrive {T} {}", "id"),
    ("player add {} anna2 --born 1990-01-01", "name"),
    ("player add Anna anna2 --born {}", "date"),
    ("player show {}", "id"),
    ("player block {} --reason spam", "id"),
    ("club show {}", "id"),
    ("club apply {}", "id"),
    ("club add {} --inn 7707083893 --ogrn 1027700132195 --email a@b.org --timezone Europe/Moscow", "name"),
    ("club list --listing {}", "listing"),
    ("club list --verification {}", "verification"),
    ("series show {}", "id"),
    ("series skip {} 2026-12-31", "id"),
    ("series add --club {C} --name S --kind poker --cron '0 19 * * fri' --template @{}", "file"),
    ("series add --club {C} --name S --kind poker --cron '0 19 * * fri' --horizon-days {}", "small"),
    ("pusoy create {} --organizer ann", "text"),
    ("pusoy browse --limit {}", "small"),
    ("club logo {} {V}", "id"),
    ("club logo {C} {}", "file"),
    ("serve --limit {}", "small"),
    ("worker --limit {}", "small"),
]


@pytest.fixture
def world(committed, tmp_path):
    now = datetime.now(UTC)
    with unit_of_work(committed) as session:
        club_id = club(session, fresh=True, at=now).id
        tid = tournament_through_services(
            session,
            club_id,
            start=now - timedelta(minutes=10),
            status="registration_open",
            late_reg_deadline=now + timedelta(hours=1),
        )
        pid = player(session, handle="anna").id
        checked_in(session, tid, pid, now - timedelta(minutes=20))
        structure = poker_tournaments.get_tournament(session, tid).structure_id
    binary, folder, latin1 = tmp_path / "levels.csv", tmp_path / "grids.csv", tmp_path / "latin.csv"
    binary.write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR")
    folder.mkdir()
    latin1.write_bytes("small_blind,big_blind,ante,minutes,break\n100,200,0,20,nein \xe9\n".encode("latin-1"))
    valid = tmp_path / "valid.json"
    valid.write_text(json.dumps([{"small_blind": 100, "big_blind": 200, "ante": 0, "minutes": 20}]))
    return {
        "T": str(tid),
        "P": "anna",
        "C": str(club_id),
        "S": str(structure),
        "V": str(valid),
        "START": (now + timedelta(days=2)).isoformat(),
        "{binary}": str(binary),
        "{folder}": str(folder),
        "{latin1}": str(latin1),
    }


def _cases():
    for command, kind in TABLE:
        for value in BAD[kind]:
            yield command, kind, value


def _argv(command: str, value: str, world: dict[str, str]) -> list[str]:
    import shlex

    value = world.get(value, value)
    out = []
    for token in shlex.split(command):
        if token == "{}":
            out.append(value)
            continue
        for key, replacement in world.items():
            if not key.startswith("{"):
                token = token.replace("{" + key + "}", replacement)
        out.append(token.replace("{}", value))
    return out


def _wrong(results) -> list[str]:
    wrong = []
    for (command, kind, value), result in results:
        shown = value if len(value) < 40 else f"{value[:10]}…({len(value)})"
        lines = result.stderr.splitlines()
        if (
            result.returncode != 2
            or result.stdout
            or len(lines) != 1
            or not lines[0].startswith("error: ")
            or "Traceback" in result.stderr
        ):
            wrong.append(
                f"{command} [{kind}={shown!r}] -> {result.returncode}: {result.stdout[:200]!r} {result.stderr[-300:]!r}"
            )
    return wrong


def test_hundreds_of_malformed_inputs_each_exit_2_with_one_line_and_write_nothing(committed, world):
    cases = list(_cases())
    assert len(cases) >= 200
    before = fingerprint(committed)
    wrong = _wrong([(c, run(*_argv(c[0], c[2], world))) for c in cases])
    assert not wrong, f"{len(wrong)} of {len(cases)}:\n" + "\n".join(wrong)
    assert fingerprint(committed) == before


@pytest.mark.parametrize("whole", [False, pytest.param(True, marks=[pytest.mark.soak, pytest.mark.timeout(1800)])])
def test_malformed_inputs_through_the_real_process_exit_2_with_one_line_and_write_nothing(committed, world, whole):
    """The same table through `tourney` processes: the process's exit code and streams, not only
    `main()`'s. `make test`: one case per kind of bad value (the first of its kind); `make soak`: all."""
    cases = list(_cases())
    sample = cases if whole else list({kind: (c, kind, v) for c, kind, v in reversed(cases)}.values())
    assert len(sample) == (len(cases) if whole else len(BAD))
    before = fingerprint(committed)
    with ThreadPoolExecutor(max_workers=4) as pool:
        results = list(pool.map(lambda c: (c, run_process(*_argv(c[0], c[2], world))), sample))
    wrong = _wrong(results)
    assert not wrong, f"{len(wrong)} of {len(sample)}:\n" + "\n".join(wrong)
    assert fingerprint(committed) == before
