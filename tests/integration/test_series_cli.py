"""`tourney series ...` as an operator runs it: a real process on the test database."""

from __future__ import annotations

import json

from domain.store.db import unit_of_work
from tests.support.cli import run
from tests.support.world import club as world_club


def test_add_skip_pause_resume_edit_end_as_json(committed):
    with unit_of_work(committed) as session:
        club = world_club(session, fresh=True).id
    added = run(
        "--json",
        "series",
        "add",
        "--club",
        str(club),
        "--name",
        "Friday Turbo",
        "--kind",
        "pusoy",
        "--cron",
        "0 19 * * 5",
        "--template",
        '{"organizer": "royal", "capacity": 16}',
        "--horizon-days",
        "28",
        "--opens-before-minutes",
        "1",  # none opens at once, whatever the day and hour the test runs (but the minute before a start)
    )
    assert added.returncode == 0, added.stderr
    series = json.loads(added.stdout)
    assert (series["timezone"], series["planned"], series["status"]) == ("Europe/Moscow", 4, "active")
    assert series["next_start"].endswith("T16:00:00+00:00")  # 19:00 MSK on a Friday
    sid = str(series["id"])
    first_day = series["next_start"][:10]

    skipped = json.loads(run("--json", "series", "skip", sid, first_day).stdout)
    assert skipped["occurrences_dropped"] == 1
    assert json.loads(run("--json", "series", "pause", sid).stdout) == {"id": series["id"], "status": "paused"}
    [listed] = json.loads(run("--json", "series", "list").stdout)
    assert (listed["status"], listed["planned"]) == ("paused", 0)
    assert json.loads(run("--json", "series", "resume", sid).stdout)["status"] == "active"
    edited = json.loads(
        run("--json", "series", "edit", sid, "--template", '{"organizer": "royal", "capacity": 32}').stdout
    )
    assert edited["template"] == {"organizer": "royal", "capacity": 32}
    shown = json.loads(run("--json", "series", "show", sid).stdout)
    assert len(shown["occurrences"]) == 3  # four Fridays, one skipped
    assert shown["skipped"] == [first_day]
    assert json.loads(run("--json", "series", "end", sid).stdout)["status"] == "ended"
    again = run("series", "resume", sid)
    assert (again.returncode, again.stderr.strip()) == (2, "error: the series has ended; it cannot resume")
