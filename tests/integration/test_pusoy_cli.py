"""`tourney pusoy ...` as an operator runs it: a real process, JSON out, exit code 2 on refusal."""

from __future__ import annotations

import json
from datetime import UTC, datetime

from domain.pusoy.services import reports as pusoy_reports
from domain.pusoy.services import setup as pusoy_setup
from domain.store.db import unit_of_work
from tests.support.cli import run
from tests.support.world import created

# No Prefect API in these tests: a report that completes a round leaves it to the sweep.
NO_API = {"PREFECT_API_URL": "http://127.0.0.1:9/api"}


def tourney(*args: str) -> dict | list:
    result = run("--json", "pusoy", *args, env=NO_API)
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout)


def test_a_tournament_from_the_command_line(committed):
    """PD-3, PD-4, PD-6, PD-12: private tournaments stay out of the browser; refusals are one line
    and exit 2."""
    code = tourney("create", "CLI Cup", "--organizer", "maria", "--capacity", "8", "--private")["code"]
    now = datetime.now(UTC)  # the `tourney` processes create the cup and play it at the real now
    with unit_of_work(committed) as s:
        listed = created(s, 16, name="Open Cup").code
        for player in ("ann", "bob", "cyd", "dee", "eve", "fay", "gus"):
            pusoy_setup.join(s, code, player, now)
    (row,) = tourney("browse")
    assert row["code"] == listed and row["seats_left"] == 16 and row["bracket"] == [16, 8, 4]
    unknown = run("pusoy", "join", "ZZZZZZ", "ann", env=NO_API)
    assert unknown.returncode == 2 and unknown.stderr.strip() == "error: no tournament has the join code ZZZZZZ"
    joined = tourney("join", code.lower(), "hal")
    assert joined["started"] is True and joined["status"] == "active"
    shown = tourney("show", code)
    assert shown["private"] is True and set(shown["tables"]) == {"table 1", "table 2"}
    one = shown["tables"]["table 1"]
    repeated = run(
        "pusoy",
        "report",
        code,
        "--round",
        "1",
        "--table",
        "1",
        f"{one[0]}=1",
        f"{one[1]}=1",
        f"{one[2]}=3",
        f"{one[3]}=4",
        env=NO_API,
    )
    assert repeated.returncode == 2 and repeated.stderr.strip() == "error: position 1 is given more than once"
    superscript = run("pusoy", "report", code, "--round", "1", "--table", "1", f"{one[0]}=³", env=NO_API)
    assert (superscript.returncode, superscript.stderr.strip()) == (
        2,
        f"error: a finish is player=position (e.g. ann=1), not '{one[0]}=³'",
    )  # a digit int() does not read: one line, not a traceback
    with unit_of_work(committed) as s:
        pusoy_reports.report(
            s,
            code,
            round_no=1,
            table=1,
            game=1,
            finishes=[(p, i) for i, p in enumerate(one, 1)],
            two_of_diamonds=None,
            now=datetime.now(UTC),
        )
    two = shown["tables"]["table 2"]
    last = tourney("report", code, "--round", "1", "--table", "2", *[f"{p}={i}" for i, p in enumerate(two, 1)])
    assert last["round_ready"] is True and "completed" not in last  # its round.ready: the event consumer's
    rows = tourney("standings", code)
    assert [r["rank"] for r in rows] == [1, 1, 3, 3, 5, 5, 7, 7] and {r["points"] for r in rows} == {3, 2, 1, 0}
    proof = tourney("draw-proof", code)
    assert proof[0]["verified"] is True and proof[1]["seed"] is None
