"""The `tourney` command as an operator runs it: a real process, real exit codes."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

TOURNEY = str(Path(sys.executable).with_name("tourney"))


def run(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [TOURNEY, *args], capture_output=True, text=True, env={**os.environ, **(env or {})}, timeout=120
    )


def test_an_unknown_job_names_the_known_jobs_and_exits_2():
    result = run("jobs", "run", "nope")
    assert result.returncode == 2
    known = [row["name"] for row in json.loads(run("--json", "jobs", "list").stdout)]
    assert result.stderr.strip() == "error: unknown job 'nope'; known jobs: " + ", ".join(known)
    assert "Traceback" not in result.stderr


def test_jobs_list_as_json_has_stable_keys():
    rows = json.loads(run("--json", "jobs", "list").stdout)
    assert {"name", "schedule", "description"} == set(rows[0])
    assert "status-report" in [r["name"] for r in rows]


def test_a_bad_param_is_one_line_and_exit_2():
    result = run("jobs", "run", "status-report", "--param", "novalue")
    assert result.returncode == 2
    assert result.stderr.strip() == "error: --param takes key=value, got 'novalue'"


def test_an_unreachable_database_url_gives_one_line_naming_the_host_and_exit_2():
    result = run("db", "upgrade", env={"DATABASE_URL": "postgresql://someone@127.0.0.1:9/tourney"})
    assert result.returncode == 2
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1
    assert "cannot reach PostgreSQL at 127.0.0.1:9/tourney" in lines[0]
    assert "check DATABASE_URL" in lines[0]


def test_version_as_json():
    data = json.loads(run("--json", "version").stdout)
    assert set(data) == {"tourney", "python"}


def test_db_up_repairs_a_half_initialised_data_folder():
    # under the project folder: as root, the postgres user must be able to reach the data folder
    Path(".tourney").mkdir(exist_ok=True)
    home = Path(tempfile.mkdtemp(prefix="test-home-", dir=".tourney")).resolve()
    home.chmod(0o755)
    (home / "pg").mkdir()
    (home / "pg" / "PG_VERSION").write_text("15\n")  # what a killed initdb leaves behind
    env = {"TOURNEY_HOME": str(home)}
    clean = {k: v for k, v in os.environ.items() if k not in ("DATABASE_URL", "TOURNEY_PG_PORT")}
    try:
        result = subprocess.run(
            [TOURNEY, "db", "up"], capture_output=True, text=True, env={**clean, **env}, timeout=120
        )
        assert result.returncode == 0, result.stderr
        assert "half-initialised" in result.stdout
        again = subprocess.run(
            [TOURNEY, "db", "up"], capture_output=True, text=True, env={**clean, **env}, timeout=120
        )
        assert "reused the running cluster" in again.stdout
    finally:
        subprocess.run([TOURNEY, "db", "stop"], capture_output=True, env={**clean, **env}, timeout=120)
        shutil.rmtree(home, ignore_errors=True)


def test_two_db_up_at_once_start_one_cluster_and_reuse_it():
    Path(".tourney").mkdir(exist_ok=True)
    home = Path(tempfile.mkdtemp(prefix="test-home-", dir=".tourney")).resolve()
    home.chmod(0o755)
    env = {k: v for k, v in os.environ.items() if k not in ("DATABASE_URL", "TOURNEY_PG_PORT")}
    env["TOURNEY_HOME"] = str(home)
    try:
        both = [
            subprocess.Popen([TOURNEY, "db", "up"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
            for _ in range(2)
        ]
        outputs = [p.communicate(timeout=120) for p in both]
        assert [p.returncode for p in both] == [0, 0], outputs
        said = sorted(out.split(" on ")[0] for out, _ in outputs)
        assert said == ["reused the running cluster", "started the cluster"]
    finally:
        subprocess.run([TOURNEY, "db", "stop"], capture_output=True, env=env, timeout=120)
        shutil.rmtree(home, ignore_errors=True)


def test_series_commands_refuse_bad_input_with_one_line_and_exit_2():
    bad_json = run("series", "add", "--club", "1", "--name", "N", "--kind", "pusoy", "--cron", "0 19 * * *",
                   "--template", "{nope")
    assert bad_json.returncode == 2
    assert bad_json.stderr.startswith("error: the template is not valid JSON")
    bad_date = run("series", "skip", "1", "next friday")
    assert bad_date.returncode == 2
    assert bad_date.stderr.strip() == "error: 'next friday' is not a date (use YYYY-MM-DD)"


def test_a_bad_argument_is_one_line_naming_it_and_exit_2():
    result = run("jobs", "run")
    assert result.returncode == 2
    assert result.stderr.strip() == "error: Missing argument 'name'."
    assert "Traceback" not in result.stderr
