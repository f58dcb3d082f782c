"""The `tourney` command as an operator runs it: a real process, real exit codes."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from tests.support.cli import TOURNEY, embedded_env, run, run_at


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
    assert "cannot reach PostgreSQL, postgresql+psycopg://someone@127.0.0.1:9/tourney" in lines[0]
    assert "check DATABASE_URL" in lines[0]


def test_version_as_json():
    data = json.loads(run("--json", "version").stdout)
    assert set(data) == {"tourney", "python"}


def test_a_command_line_builds_only_the_group_it_names_and_still_says_every_command():
    from flows.cli.app import _command, _group_of

    assert _group_of(["--as", "Anna Floor", "poker", "list"]) == "poker"
    assert _group_of(["--as=Anna", "club", "--help"]) == "club"
    assert _group_of(["--help"]) is None
    assert set(_command("club").commands) == set(_command(None).commands) - {
        name
        for name in _command(None).commands
        if name != "club" and hasattr(_command(None).commands[name], "commands")
    }
    result = run("--as", "Anna", "nope")
    assert (result.returncode, result.stderr.strip()) == (2, "error: No such command 'nope'.")
    listed = run("--help").stdout
    assert all(f"  {group} " in listed for group in ("poker", "pusoy", "club", "user", "token"))


def _reachable_home() -> Path:
    """A data folder the PostgreSQL user can reach wherever the checkout is (a clone under a 0700
    folder relocates its cluster: that case has its own test below)."""
    home = Path(tempfile.mkdtemp(prefix="tourney-test-home-")).resolve()
    home.chmod(0o755)
    return home


def test_db_up_repairs_a_half_initialised_data_folder():
    home = _reachable_home()
    (home / "pg").mkdir()
    (home / "pg" / "PG_VERSION").write_text("15\n")  # what a killed initdb leaves behind
    clean = embedded_env(home)
    try:
        result = subprocess.run([TOURNEY, "db", "up"], capture_output=True, text=True, env=clean, timeout=120)
        assert result.returncode == 0, result.stderr
        assert "half-initialised" in result.stdout
        again = subprocess.run([TOURNEY, "db", "up"], capture_output=True, text=True, env=clean, timeout=120)
        assert "reused the running cluster" in again.stdout
    finally:
        subprocess.run([TOURNEY, "db", "stop"], capture_output=True, env=clean, timeout=120)
        shutil.rmtree(home, ignore_errors=True)


def test_two_db_up_at_once_start_one_cluster_and_reuse_it():
    home = _reachable_home()
    env = embedded_env(home)
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
    bad_json = run(
        "series", "add", "--club", "1", "--name", "N", "--kind", "pusoy", "--cron", "0 19 * * *", "--template", "{nope"
    )
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


@pytest.mark.skipif(os.geteuid() != 0, reason="only root hands the cluster to another user")
def test_a_clone_in_a_folder_postgres_cannot_traverse_gets_its_cluster_in_a_folder_postgres_owns():
    parent = Path(tempfile.mkdtemp(prefix="tourney-0700-"))  # mkdtemp makes it 0700, like root's home
    assert parent.stat().st_mode & 0o777 == 0o700
    home = parent / "clone" / ".tourney"
    env = embedded_env(home)
    try:
        result = subprocess.run([TOURNEY, "db", "up"], capture_output=True, text=True, env=env, timeout=120)
        assert result.returncode == 0, result.stderr
        said = " ".join(result.stdout.split())
        assert f"the PostgreSQL user 'postgres' cannot reach {home}, so the cluster's files are in" in said
        assert "started the cluster" in said
        upgraded = subprocess.run([TOURNEY, "db", "upgrade"], capture_output=True, text=True, env=env, timeout=120)
        assert upgraded.returncode == 0, upgraded.stderr
    finally:
        subprocess.run([TOURNEY, "db", "stop"], capture_output=True, env=env, timeout=120)
        shutil.rmtree(parent, ignore_errors=True)
        from infra.cluster import Cluster

        shutil.rmtree(Cluster(home).base, ignore_errors=True)


def test_the_embedded_cluster_refuses_a_login_without_its_password(database_url):
    import psycopg
    from sqlalchemy.engine import make_url

    from infra.config import load_settings

    if not load_settings().embedded and "tourney_test_" not in database_url:
        pytest.skip("DATABASE_URL names another server")
    url = make_url(database_url)
    with pytest.raises(psycopg.OperationalError, match="no password supplied|password authentication failed"):
        psycopg.connect(
            host=url.host, port=url.port, user=url.username, dbname=url.database, password="", connect_timeout=5
        )
    with pytest.raises(psycopg.OperationalError, match="password authentication failed"):
        psycopg.connect(
            host=url.host, port=url.port, user=url.username, dbname=url.database, password="guess", connect_timeout=5
        )
    with psycopg.connect(
        host=url.host, port=url.port, user=url.username, dbname=url.database, password=url.password, connect_timeout=5
    ) as conn:
        assert conn.execute("SELECT 1").fetchone() == (1,)


def test_a_cluster_made_with_trust_is_switched_to_passwords_on_the_next_db_up():
    Path(".tourney").mkdir(exist_ok=True)
    home = Path(tempfile.mkdtemp(prefix="test-home-", dir=".tourney")).resolve()
    home.chmod(0o755)
    from infra.cluster import Cluster

    cluster = Cluster(home)
    try:
        assert run_at(home, "db", "up").returncode == 0
        hba = cluster.data_dir / "pg_hba.conf"
        hba.write_text(hba.read_text().replace("scram-sha-256", "trust"))  # what an older version made
        cluster.password_file.unlink()
        assert run_at(home, "db", "stop").returncode == 0
        again = run_at(home, "db", "up")
        assert again.returncode == 0, again.stderr
        assert "switched the cluster from trust to password authentication" in " ".join(again.stdout.split())
        assert cluster.password_file.stat().st_mode & 0o777 == 0o600
        import psycopg

        with pytest.raises(psycopg.OperationalError):
            psycopg.connect(
                host="127.0.0.1",
                port=int(embedded_env(home)["TOURNEY_PG_PORT"]),
                user="tourney",
                dbname="postgres",
                password="",
                connect_timeout=5,
            )
        assert run_at(home, "db", "upgrade").returncode == 0
    finally:
        run_at(home, "db", "stop")
        shutil.rmtree(home, ignore_errors=True)


def test_tourney_from_another_folder_with_the_database_down_says_one_line_naming_it():
    home = Path(tempfile.mkdtemp(prefix="tourney-nohome-")) / "data"
    result = subprocess.run(
        [TOURNEY, "poker", "show", "1"],
        capture_output=True,
        text=True,
        env=embedded_env(home),
        cwd=tempfile.gettempdir(),
        timeout=120,
    )
    assert result.returncode == 2
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    assert lines[0].startswith("error: cannot reach PostgreSQL, the embedded cluster at 127.0.0.1:")
    assert f"(data folder {home}/pg)" in lines[0] or "data folder /" in lines[0]
    assert "`tourney db up`" in lines[0] and "TOURNEY_HOME" in lines[0]


# a runner in small: at SIGTERM it asks its child to end, waits for it and records the end (Prefect's
# runner marks the run Cancelled), and a second SIGTERM makes it exit at once (as the runner does); the
# child misses its first SIGTERM (a run whose TerminationSignal was lost in a weakref callback)
_RUNNER = """
import os, signal, subprocess, sys, time
child = subprocess.Popen([sys.executable, "-c", "import signal, time; n = []\\n"
    "signal.signal(signal.SIGTERM, lambda *a: n.append(1) if not n else exit(0))\\n"
    "print('up', flush=True)\\nwhile True: time.sleep(0.05)"], stdout=subprocess.PIPE)
child.stdout.readline()
asked = []
def stop(*_):
    if asked:
        os._exit(1)
    asked.append(1)
signal.signal(signal.SIGTERM, stop)
print("ready", flush=True)
while not asked:
    time.sleep(0.05)
child.terminate()
child.wait()
open(sys.argv[1], "w").write("cancelled")
"""


def test_tourney_stop_asks_what_the_process_started_and_not_the_process_twice(tmp_path):
    """`tourney stop`: a runner still waiting for a run that missed its SIGTERM is not signalled again
    when the run's process is (it would exit before marking the run Cancelled: the run stayed Running,
    tests/flows/test_serve_machines.py a year ahead)."""
    from dataclasses import replace

    from infra import processes
    from infra.config import load_settings

    settings = replace(load_settings(), home=tmp_path)
    runner = subprocess.Popen([sys.executable, "-c", _RUNNER, str(tmp_path / "ended")], stdout=subprocess.PIPE)
    try:
        assert runner.stdout.readline() == b"ready\n"
        processes.record(settings, "serve", runner.pid)
        said = processes.stop(settings, "serve", grace=10.0, tree_grace=9.0)  # the tree asked after 1 s
        assert said == f"serve: stopped (pid {runner.pid})"
        assert runner.wait(timeout=5) == 0
        assert (tmp_path / "ended").read_text() == "cancelled"
    finally:
        runner.kill()


def test_tourney_stop_names_what_it_had_to_kill(tmp_path):
    """A process that ignores SIGTERM is killed at the grace's end, and the stop's line names it, its
    pid and command line, so whoever reads it knows what did not end by itself."""
    from dataclasses import replace

    from infra import processes
    from infra.config import load_settings

    settings = replace(load_settings(), home=tmp_path)
    deaf = "import signal, time; signal.signal(signal.SIGTERM, signal.SIG_IGN); print(1, flush=True); time.sleep(60)"
    process = subprocess.Popen([sys.executable, "-c", deaf], stdout=subprocess.PIPE)
    try:
        assert process.stdout.readline() == b"1\n"
        processes.record(settings, "serve", process.pid)
        said = processes.stop(settings, "serve", grace=1.0, tree_grace=0.5)
        line = f"{sys.executable} -c {deaf}"
        assert said == f"serve: stopped (pid {process.pid}, killed after 1 s: {process.pid} {line[:59]}…)"
        assert process.wait(timeout=5) == -9
    finally:
        process.kill()


def test_tourney_stop_ends_every_recorded_process_and_what_it_started():
    from infra import processes
    from infra.config import Settings, load_settings

    home = Path(tempfile.mkdtemp(prefix="tourney-stop-"))
    settings: Settings = load_settings()
    settings = Settings(**{**settings.__dict__, "home": home})
    serve = subprocess.Popen(["sh", "-c", "sleep 300 & sleep 300; wait"], start_new_session=False)
    simulator = subprocess.Popen(["sleep", "300"])
    try:
        processes.record(settings, "serve", serve.pid)
        processes.record(settings, "simulator", simulator.pid)
        import time

        time.sleep(0.3)  # the shell starts its children
        children = [
            int(p)
            for p in subprocess.run(["pgrep", "-P", str(serve.pid)], capture_output=True, text=True).stdout.split()
        ]
        assert len(children) == 2
        result = run_at(home, "stop")
        assert result.returncode == 0, result.stderr
        assert f"serve: stopped (pid {serve.pid})" in result.stdout
        assert f"simulator: stopped (pid {simulator.pid})" in result.stdout
        assert serve.wait(timeout=15) is not None and simulator.wait(timeout=15) is not None
        for child in children:
            assert not Path(f"/proc/{child}").exists() or "Z" in Path(f"/proc/{child}/stat").read_text().split()[2]
        assert run_at(home, "stop").stdout.count("not running") >= 2
    finally:
        for proc in (serve, simulator):
            proc.kill()
        shutil.rmtree(home, ignore_errors=True)
