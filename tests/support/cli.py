"""The one way tests run the `tourney` command, on the test session's database (DATABASE_URL), and a
fingerprint of every table to prove a refusal wrote nothing.

`run` calls the console script's `main()` in this process, with its own standard streams, a copy of
the environment and the same exit codes: what a command prints, writes and refuses is the same as in
a process, at a hundredth of the cost (a process spends most of its start importing). `run_process`
starts the real `tourney`, for what only a process shows: start-up, signals, `stop`, a command that
execs or detaches, and commands run at once from several threads (the standard streams of this
process are one)."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
import threading
import traceback
from contextlib import (
    AbstractContextManager,
    nullcontext,
    redirect_stderr,
    redirect_stdout,
)
from pathlib import Path
from typing import Any

from sqlalchemy import Engine, text

from tests.support.net import free_port

TOURNEY = str(Path(sys.executable).with_name("tourney"))


_IN_PROCESS = threading.Lock()


def run(*args: str, env: dict[str, str] | None = None, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    """`tourney ARGS` as an operator runs it, in this process: the test session's environment (its
    database) plus `env`, for this command only; stdin is not a terminal, so nothing is asked. An
    exception `main()` lets through is a traceback on stderr and exit 1, as in a process."""
    from flows.cli.app import main

    out, err = io.StringIO(), io.StringIO()
    with _IN_PROCESS:
        saved_env, saved_stdin = dict(os.environ), sys.stdin
        os.environ.update(env or {})
        sys.stdin = io.StringIO(stdin or "")
        try:
            with _prefect_settings(env or {}), redirect_stdout(out), redirect_stderr(err):
                try:
                    main(list(args))
                    code = 0
                except SystemExit as exc:
                    code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
                    if not isinstance(exc.code, int | None):
                        print(exc.code, file=sys.stderr)
                except Exception:  # noqa: BLE001 - what a process would print before exiting 1
                    traceback.print_exc()
                    code = 1
        finally:
            sys.stdin = saved_stdin
            for key in set(os.environ) - set(saved_env):
                del os.environ[key]
            os.environ.update({k: v for k, v in saved_env.items() if os.environ.get(k) != v})
    return subprocess.CompletedProcess(["tourney", *args], code, out.getvalue(), err.getvalue())


def _prefect_settings(env: dict[str, str]) -> AbstractContextManager[Any]:
    """Prefect reads its settings from the environment once, at import: a `PREFECT_*` variable given
    to one command applies to it through Prefect's `temporary_settings`, as a process would read it."""
    given = {k: v for k, v in env.items() if k.startswith("PREFECT_")}
    if not given:
        return nullcontext()
    import prefect.settings

    return prefect.settings.temporary_settings({getattr(prefect.settings, k): v for k, v in given.items()})


def run_process(
    *args: str, env: dict[str, str] | None = None, stdin: str | None = None, timeout: float = 120
) -> subprocess.CompletedProcess[str]:
    """`tourney ARGS` as a real process, with the test session's environment plus `env`."""
    return subprocess.run(
        [TOURNEY, *args],
        capture_output=True,
        text=True,
        env={**os.environ, **(env or {})},
        timeout=timeout,
        input=stdin if stdin is not None else "",
    )


def j(*args: str) -> Any:
    """`tourney --json ARGS`, which must succeed: its JSON."""
    result = run("--json", *args)
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout)


def fingerprint(engine: Engine) -> dict[str, tuple[int, str | None]]:
    """Every table's row count and a digest of its rows: equal before and after = nothing written."""
    from domain.tables import metadata

    with engine.connect() as conn:
        return {
            t.name: tuple(
                conn.execute(
                    text(f"SELECT count(*), md5(string_agg(x::text, ',' ORDER BY x::text)) FROM \"{t.name}\" x")
                ).one()
            )
            for t in metadata.sorted_tables
        }


def refused(engine: Engine, *args: str, process: bool = False) -> str:
    """`tourney ARGS` must be refused: exit 2, one line `error: ...` on stderr, nothing on stdout,
    no traceback, nothing written. Returns the line. `process`: through a real process."""
    before = fingerprint(engine)
    result = (run_process if process else run)(*args)
    assert result.returncode == 2, (args, result.returncode, result.stdout, result.stderr)
    assert result.stdout == "", (args, result.stdout)
    assert result.stderr.startswith("error: ") and result.stderr.count("\n") == 1, (args, result.stderr)
    assert "Traceback" not in result.stderr
    assert fingerprint(engine) == before, args
    return result.stderr.strip()


_PORTS: dict[Path, str] = {}


def embedded_env(home: Path) -> dict[str, str]:
    """The environment of a `tourney` on the embedded cluster of data folder `home`, on a port free
    when first asked for (the port derived from the path may be another checkout's on a busy machine)."""
    env = {k: v for k, v in os.environ.items() if k != "DATABASE_URL"}
    env["TOURNEY_HOME"] = str(home)
    env["TOURNEY_PG_PORT"] = _PORTS.setdefault(home, str(free_port()))
    return env


def run_at(home: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """`tourney ARGS` on the embedded cluster of data folder `home` (whatever DATABASE_URL says)."""
    return subprocess.run([TOURNEY, *args], capture_output=True, text=True, env=embedded_env(home), timeout=120)
