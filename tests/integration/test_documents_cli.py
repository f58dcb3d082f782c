"""`tourney documents` as an operator runs it: a real process, real exit codes (DOC-2)."""

from __future__ import annotations

import json
from pathlib import Path

from domain.store.db import unit_of_work
from tests.support.cli import run
from tests.support.world import finished_poker


def test_documents_render_then_verify_says_valid_and_names_what_an_altered_file_breaks(committed, tmp_path):
    """DOC-2"""
    with unit_of_work(committed) as s:
        tid = finished_poker(s).id
    env = {"TOURNEY_HOME": str(tmp_path)}
    rendered = run("--json", "documents", "render", "poker", str(tid), "--out", str(tmp_path / "out"), env=env)
    assert rendered.returncode == 0, rendered.stderr
    files = json.loads(rendered.stdout)
    assert [(Path(f["file"]).name, f["kind"]) for f in files] == [
        ("results.pdf", "results"),
        (f"certificate-SP-{tid:06d}-01.pdf", "certificate"),
        (f"certificate-SP-{tid:06d}-02.pdf", "certificate"),
    ]
    cert = Path(files[1]["file"])
    altered = tmp_path / "altered.pdf"
    altered.write_bytes(cert.read_bytes().replace(b"/Producer (Tourney)", b"/Producer (Tourneu)"))
    checked = run("--json", "documents", "verify", str(cert), str(altered), env=env)
    assert checked.returncode == 1
    valid, bad = json.loads(checked.stdout)
    assert (valid["valid"], valid["serial"], valid["player"], valid["problems"]) == (
        True,
        f"SP-{tid:06d}-01",
        "Кирилл",
        [],
    )
    assert (bad["valid"], bad["problems"]) == (False, ["the file was changed after it was signed"])


def test_documents_render_of_an_unknown_tournament_is_one_line_and_exit_2(engine, tmp_path):
    result = run("documents", "render", "poker", "999999", env={"TOURNEY_HOME": str(tmp_path)})
    assert result.returncode == 2
    assert result.stderr.strip() == "error: no poker tournament 999999"


def test_documents_list_and_send_without_smtp(committed, tmp_path):
    env = {"TOURNEY_HOME": str(tmp_path), "SMTP_URL": ""}
    listed = run("--json", "documents", "list", env=env)
    assert listed.returncode == 0 and json.loads(listed.stdout) == []
    sent = run("documents", "send", env=env)
    assert sent.returncode == 2
    assert sent.stderr.strip() == "error: SMTP_URL is not set: documents stay in the outbox until it is"


def test_lg3_documents_list_names_a_seasons_standings_and_verify_says_valid(committed, tmp_path):
    """LG-3, DOC-2: `documents list --source season` shows the standings after the tournament."""
    from datetime import date

    from domain.documents.services import sources
    from domain.documents.services.publish import outbox_root, publish
    from domain.leagues.services import leagues
    from infra.render import Renderer
    from tests.support.world import SP7_FINISHED_AT

    with unit_of_work(committed) as s, Renderer(b"test-secret-key-of-at-least-32-bytes") as renderer:
        t = finished_poker(s)
        season = leagues.create_season(
            s,
            club_id=t.club_id,
            name="Зима",
            date_from=date(2026, 11, 1),
            date_to=date(2026, 12, 1),
            formula="sqrt",
            now=SP7_FINISHED_AT,
        )
        leagues.add_to_season(s, season.id, tournament_ids=[t.id])
        for due in (sources.due, sources.season_bundles):  # the results sheet, then the season's standings
            for b in due(s):
                publish(s, renderer, outbox_root(tmp_path), b, SP7_FINISHED_AT)
    env = {"TOURNEY_HOME": str(tmp_path), "SMTP_URL": ""}
    listed = run("--json", "documents", "list", "--source", "season", env=env)
    assert listed.returncode == 0, listed.stderr
    (row,) = json.loads(listed.stdout)
    folder = tmp_path / "outbox" / f"{t.club_id}-Pik" / f"season-{season.id}-Зима"
    assert (
        row["source"],
        row["season_id"],
        row["season"],
        row["tournament_id"],
        row["state"],
        row["files"],
        row["folder"],
    ) == ("season", season.id, "Зима", t.id, "pending", [f"standings-after-{t.id}.pdf"], str(folder))
    checked = run("--json", "documents", "verify", str(folder / f"standings-after-{t.id}.pdf"), env=env)
    (verdict,) = json.loads(checked.stdout)
    assert (checked.returncode, verdict["valid"], verdict["type"], verdict["problems"]) == (0, True, "SeasonSheet", [])


def test_doc_1_a_source_filter_that_does_not_exist_is_refused_with_the_values_allowed(committed):
    """DOC-1: `documents list --source` and `documents send --source` take poker, pusoy or season, as
    every other filter takes its known values: anything else is one line, exit 2, nothing written."""
    from tests.support.cli import refused

    expected = "error: source 'chess' is not one of poker, pusoy, season"
    assert refused(committed, "--json", "documents", "list", "--source", "chess") == expected
    assert refused(committed, "documents", "send", "--source", "chess", "--tournament", "1") == expected
    assert run("--json", "documents", "list", "--source", "season").stdout.strip() == "[]"
