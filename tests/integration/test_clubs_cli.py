"""`tourney club ...` as an operator runs it: a real process on the test database (CL-1, CL-3, CL-4)."""

from __future__ import annotations

import json

from tests.support.cli import run

SBER = [
    "--inn",
    "7707083893",
    "--ogrn",
    "1027700132195",
    "--email",
    "results@sber.example",
    "--timezone",
    "Europe/Moscow",
]


def _json(*args: str, env: dict[str, str] | None = None):
    result = run("--json", "club", *args, env=env)
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout)


def test_cl_3_add_apply_queue_approve_and_show_without_a_provider(committed):
    no_provider = {"REGISTRY_URL": ""}
    club = _json("add", "Sber Poker", *SBER)
    assert (club["verification_status"], club["listing_status"]) == ("unverified", "listed")
    applied = _json("apply", str(club["id"]), env=no_provider)
    assert (applied["verification_status"], applied["in_moderation_queue"]) == ("pending", True)
    assert "verification_run" not in applied
    assert [row["id"] for row in _json("queue")] == [club["id"]]
    approved = _json("approve", str(club["id"]), "--by", "anna", "--reason", "EGRUL extract checked")
    assert (approved["verification_status"], approved["verification_reason"]) == ("verified", "EGRUL extract checked")
    shown = _json("show", str(club["id"]))
    assert [(h["action"], h["source"], h["actor"]) for h in shown["history"]] == [
        ("create", "operator", "operator"),
        ("apply", "club", "club"),
        ("queue", "registry", "none configured"),
        ("verify", "moderator", "anna"),
    ]


def test_cl_4_suspend_and_terminate_need_a_reason_and_say_so_in_one_line(committed):
    club = _json("add", "Sber Poker", *SBER)
    result = run("club", "suspend", str(club["id"]))
    assert (result.returncode, result.stderr) == (2, "error: a reason is required to suspend a club\n")
    terminated = _json("terminate", str(club["id"]), "--reason", "confirmed", "--by", "oleg")
    assert (terminated["listing_status"], terminated["listing_reason"]) == ("terminated", "confirmed")


def test_cl_1_a_bad_club_is_refused_with_every_reason_in_one_line(committed):
    result = run(
        "club",
        "add",
        "Bad",
        "--inn",
        "7707083894",
        "--ogrn",
        "1027700132195",
        "--email",
        "x@y.example",
        "--timezone",
        "Mars/Base",
    )
    assert result.returncode == 2
    assert result.stderr == (
        "error: INN 7707083894: the check digit (10th) should be 3, not 4; "
        "unknown timezone 'Mars/Base'; use an IANA name like Europe/Moscow\n"
    )
