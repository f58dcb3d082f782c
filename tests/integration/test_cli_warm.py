"""The warm start (flows/cli/warm.py, flows/cli/warm_server.py) through real `tourney` processes on the
real PostgreSQL: a command handed to the warm server answers as the same command run in its own
process (TOURNEY_WARM=0) — stdout, stderr, exit code, signals, stdin, its own environment — and
what must never go warm does not. Each test has warm servers of its own (TOURNEY_WARM_TAG is in the
key), stopped at its end with no process and no socket file left; `status()` asks a server over its
socket how many commands it forked, so a test knows which way each call went. The socket is a file
in a 0700 folder under TOURNEY_HOME/run, never an abstract name, and the server runs nothing of a
sys.path outside the installation nor of another start-up environment (AC-4: a secret within reach
only of the installation's code)."""

from __future__ import annotations

import json
import os
import platform
import pty
import select
import shutil
import signal
import socket
import stat
import subprocess
import sys
import tempfile
import time
import uuid
from collections.abc import Callable, Iterator
from datetime import UTC, datetime
from pathlib import Path

import pytest

from domain.store.db import unit_of_work
from flows.cli import warm
from tests.support.cli import TOURNEY, run_process
from tests.support.world import club, tournament

ROOT = Path(__file__).resolve().parents[2]
UNREACHABLE = "postgresql://someone@127.0.0.1:9/tourney"


def _in(env: dict[str, str], call: str):
    """`warm.key`, `warm.status` or `warm.stop` in this environment, as a `tourney` there sees it: in
    this process, or in a process of its own when the environment imports another copy of the code."""
    full = {**os.environ, **env}
    if "PYTHONPATH" not in env:
        return getattr(warm, call)(full)
    code = f"import json, os; from flows.cli import warm; print(json.dumps(warm.{call}(os.environ)))"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=full, cwd="/")
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def _servers(env: dict[str, str]) -> list[int]:
    """The pids of the processes of the warm server of `env` (its key is on its command line)."""
    of_key = _in(env, "key").encode()
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                words = (entry / "cmdline").read_bytes().split(b"\0")
            except OSError:
                continue
            if of_key in words and _alive(int(entry.name)):
                found.append(int(entry.name))
    return found


def _status(env: dict[str, str]) -> dict | None:
    return _in(env, "status")


def _up(env: dict[str, str], timeout: float = 90) -> dict:
    """The server of `env` once it listens (it imports for a second or more on a busy machine)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        answer = _status(env)
        if answer and answer["listening"]:
            return answer
        time.sleep(0.1)
    raise AssertionError(f"no warm server after {timeout} s")


def _alive(pid: int) -> bool:
    """Whether the process runs (a zombie has ended: its reaping is its parent's, init's, business)."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()[0] != "Z"
    except OSError:
        return False


def _gone(pids: list[int], timeout: float = 30) -> bool:
    deadline = time.monotonic() + timeout
    while any(_alive(pid) for pid in pids):
        if time.monotonic() > deadline:
            return False
        time.sleep(0.05)
    return True


@pytest.fixture
def short_home() -> Iterator[Path]:
    """A TOURNEY_HOME of its own, short enough that its socket's path fits a socket address."""
    home = Path(tempfile.mkdtemp(prefix="tw-", dir="/tmp"))
    yield home
    shutil.rmtree(home, ignore_errors=True)


@pytest.fixture
def tag(short_home: Path) -> Iterator[Callable[..., dict[str, str]]]:
    """`tag(**more)`: the environment of a new warm server of this test's own (short idle time, and
    `more`); every server made so is stopped at the end (before `short_home` is removed), and none of
    their processes nor their socket files is left."""
    made: list[dict[str, str]] = []

    def new(**more: str) -> dict[str, str]:
        env = {"TOURNEY_WARM_TAG": f"test-{uuid.uuid4().hex[:12]}", "TOURNEY_WARM_IDLE": "30", **more}
        made.append(env)
        return env

    yield new
    for env in made:
        pids = _servers(env)
        sock = Path(_in(env, "socket_file"))
        running = _in(env, "stop") == "warm start: stopped"
        assert _gone(pids), f"warm server processes left: {pids}"
        assert _servers(env) == []
        if running:
            assert not sock.exists() and not sock.with_suffix(".lock").exists()  # removed as it stopped
        else:  # a server the test killed leaves them (the next one of the folder removes them)
            sock.unlink(missing_ok=True)
            sock.with_suffix(".lock").unlink(missing_ok=True)


def _started(env: dict[str, str]) -> dict:
    """A server for `env`, up: the first call runs in its process and starts it."""
    first = run_process("--json", "poker", "list", "--status", "draft", env=env)
    assert first.returncode == 0, first.stderr
    return _up(env)


def _same(warm_call: subprocess.CompletedProcess[str], direct: subprocess.CompletedProcess[str]) -> None:
    assert (warm_call.returncode, warm_call.stdout, warm_call.stderr) == (
        direct.returncode,
        direct.stdout,
        direct.stderr,
    )


def _tournament(engine, **columns) -> int:
    with unit_of_work(engine) as session:
        c = club(session, fresh=True, at=datetime.now(UTC))
        return tournament(session, club_id=c.id, name="Warm Friday", **columns).id


def test_a_command_answers_warm_as_in_its_own_process(committed, tag):
    t = _tournament(committed)
    env = tag()
    calls = [
        ("--json", "poker", "list"),
        ("--as", "Anna Floor", "--json", "poker", "list"),
        ("poker", "show", "999999999"),  # refused: exit 2, one line
        ("poker", "list", "--bogus"),  # a bad option: exit 2
        ("poker", "--help"),
    ]
    direct = [run_process(*args, env={**env, "TOURNEY_WARM": "0"}) for args in calls]
    assert [row["id"] for row in json.loads(direct[0].stdout)] == [t]
    assert (direct[2].returncode, direct[2].stdout, direct[2].stderr) == (2, "", "error: no tournament 999999999\n")
    assert (direct[3].returncode, direct[3].stdout, direct[3].stderr) == (2, "", "error: No such option: --bogus\n")
    assert direct[4].returncode == 0 and "Usage: tourney poker" in direct[4].stdout
    served = _started(env)["served"]
    for args, alone in zip(calls, direct):
        _same(run_process(*args, env=env), alone)
    answer = _status(env)
    assert answer["served"] == served + len(calls)  # each went warm: one child forked for each
    assert answer["running"] == 0 and answer["threads"] == 1 and answer["prefect"] is False


AT_PROMPT_S = 30  # a prompt comes within seconds on a loaded machine: a hang fails in 30 s, not 120


def _at_prompt(args: tuple[str, ...], env: dict[str, str], then: Callable[[subprocess.Popen, int, str], None]):
    """`tourney ARGS` with a terminal on its stdin (stdout and stderr are pipes): once it asks "go
    ahead?", `then(process, the terminal's other side, the terminal's name)`; returns its exit code,
    stdout and stderr."""
    terminal, its_side = pty.openpty()
    name = os.ttyname(its_side)
    try:
        proc = subprocess.Popen(
            [TOURNEY, *args], stdin=its_side, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env={**os.environ, **env}
        )
        os.close(its_side)
        stdout, stderr = proc.stdout.fileno(), proc.stderr.fileno()
        said = {stdout: b"", stderr: b""}
        deadline = time.monotonic() + AT_PROMPT_S
        # asking: the question on stderr, then the prompt's last character on stdout, then it reads
        while b"go ahead?" not in said[stderr] or not said[stdout]:
            assert time.monotonic() < deadline, said
            for fd in select.select(list(said), [], [], 1)[0]:
                chunk = os.read(fd, 4096)
                assert chunk, said
                said[fd] += chunk
        while not any(_reading(pid) for pid in _readers_of(name)):  # a signal before read() is not seen
            assert time.monotonic() < deadline, said
            time.sleep(0.01)
        then(proc, terminal, name)
        out, err = proc.communicate(timeout=AT_PROMPT_S)
        return proc.returncode, (said[stdout] + out).decode(), (said[stderr] + err).decode()
    finally:
        os.close(terminal)


def _readers_of(name: str) -> list[int]:
    """The processes whose stdin is the terminal `name`."""
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                if os.readlink(entry / "fd" / "0") == name:
                    found.append(int(entry.name))
            except OSError:
                continue
    return found


_READ = {"x86_64": "0", "aarch64": "63"}[platform.machine()]  # read(2)'s number


def _reading(pid: int) -> bool:
    """Whether the process is blocked in read(2) on its fd 0 (Python checks for a signal before it
    reads, so a signal sent before the read starts would wait for the next input)."""
    try:
        return Path(f"/proc/{pid}/syscall").read_text().split()[:2] == [_READ, "0x0"]
    except OSError:
        return False


def _parent(pid: int) -> int:
    stat = Path(f"/proc/{pid}/stat").read_text()
    return int(stat.rpartition(")")[2].split()[1])


def test_the_command_runs_in_a_child_of_the_server_on_the_clients_terminal(committed, tag):
    env = tag()
    server = _started(env)
    seen: dict[str, list[int]] = {}

    def answer(proc: subprocess.Popen, terminal: int, name: str) -> None:
        seen["readers"] = sorted(_readers_of(name))
        seen["parents"] = [_parent(pid) for pid in seen["readers"] if pid != proc.pid]
        seen["client"] = [proc.pid]
        os.write(terminal, b"y\n")

    t = _tournament(committed, status="registration_open")
    code, out, err = _at_prompt(("--json", "poker", "cancel", str(t)), env, answer)
    assert seen["client"][0] in seen["readers"] and len(seen["readers"]) == 2  # the client, and the child...
    assert seen["parents"] == [server["pid"]]  # ...forked by the warm server, reading the same terminal
    assert code == 0, err
    assert json.loads(out) == {"id": t, "status": "cancelled"}
    plan = f"cancel tournament {t} 'Warm Friday' (registration open, 0 players in)\n"
    assert err == plan + "go ahead? [y/N]:"  # asked, as on a terminal (isatty), answered through it
    assert out.startswith(" {")  # the prompt's last character, on stdout (click's way)

    other = _tournament(committed, status="registration_open")
    direct = _at_prompt(("--json", "poker", "cancel", str(other)), {**env, "TOURNEY_WARM": "0"}, answer)
    assert direct == (0, out.replace(str(t), str(other)), err.replace(str(t), str(other)))
    assert _status(env)["served"] == server["served"] + 1


@pytest.mark.xfail(
    reason="issue 41, open: since the change's NOTIFYs and the event consumer, the SIGTERM case's `poker cancel` "
    "hung in the full suite (the SIGINT case once too, 2026-12-07); not diagnosed",
    strict=False,
)
@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM])
def test_a_signal_to_the_client_reaches_the_command(committed, tag, signum):
    env = tag()
    server = _started(env)

    def interrupt(proc: subprocess.Popen, _terminal: int, _name: str) -> None:
        proc.send_signal(signum)

    t = _tournament(committed, status="registration_open")
    went_warm = _at_prompt(("--json", "poker", "cancel", str(t)), env, interrupt)
    direct = _at_prompt(("--json", "poker", "cancel", str(t)), {**env, "TOURNEY_WARM": "0"}, interrupt)
    assert went_warm == direct
    # Ctrl-C at the prompt is click's Abort: exit 1; SIGTERM ends the process, as it ends its own
    assert direct[0] == (1 if signum == signal.SIGINT else -signal.SIGTERM)
    assert _status(env) == {**server, "served": server["served"] + 1}
    with unit_of_work(committed) as session:
        from domain.poker.tables.tournaments import Tournament

        assert session.get(Tournament, t).status == "registration_open"  # nothing changed, either way


def test_a_command_killed_or_orphaned_ends_its_client_as_its_process_would_end(committed, tag):
    env = tag()
    first = _started(env)
    t = _tournament(committed, status="registration_open")
    args = ("--json", "poker", "cancel", str(t))

    def kill_the_command(proc: subprocess.Popen, _terminal: int, name: str) -> None:
        (child,) = [pid for pid in _readers_of(name) if pid != proc.pid]
        os.kill(child, signal.SIGKILL)

    code, out, err = _at_prompt(args, env, kill_the_command)
    assert code == -signal.SIGKILL  # the server saw its child killed; the client died of the same signal
    assert (out, err) == (
        " ",
        f"cancel tournament {t} 'Warm Friday' (registration open, 0 players in)\ngo ahead? [y/N]:",
    )

    server = _status(env)  # still up: only its child was killed
    assert server["running"] == 0 and server["pid"] == first["pid"]

    def kill_the_server(proc: subprocess.Popen, terminal: int, _name: str) -> None:
        os.kill(server["pid"], signal.SIGKILL)
        assert _gone([server["pid"]])
        os.write(terminal, b"n\n")  # the orphaned command still answers; nobody is left to report its end

    code, out, err = _at_prompt(args, env, kill_the_server)
    assert code == 1
    assert err.endswith("go ahead? [y/N]:nothing changed\n" + warm.STATUS_LOST + "\n")


def test_piped_stdin_reaches_the_command(committed, tag):
    t = _tournament(committed)
    env = tag()
    server = _started(env)
    args = ("--json", "poker", "prizes", "set", str(t), "--file", "/dev/stdin")
    lines = "Кубок чемпиона\nМедаль\n"
    went_warm = run_process(*args, env=env, stdin=lines)
    assert went_warm.returncode == 0, went_warm.stderr
    assert json.loads(went_warm.stdout) == [
        {"place": 1, "prize": "Кубок чемпиона"},
        {"place": 2, "prize": "Медаль"},
    ]
    _same(went_warm, run_process(*args, env={**env, "TOURNEY_WARM": "0"}, stdin=lines))
    assert _status(env)["served"] == server["served"] + 1


def test_each_command_has_its_own_environment(committed, tag):
    t = _tournament(committed)
    env = tag()
    server = _started(env)
    listed = run_process("--json", "poker", "list", env=env)
    unreachable = run_process("--json", "poker", "list", env={**env, "DATABASE_URL": UNREACHABLE})
    again = run_process("--json", "poker", "list", env=env)
    assert [row["id"] for row in json.loads(listed.stdout)] == [t]
    assert unreachable.returncode == 2 and unreachable.stdout == ""
    assert "cannot reach PostgreSQL, postgresql+psycopg://someone@127.0.0.1:9/tourney" in unreachable.stderr
    _same(again, listed)
    alone = run_process("--json", "poker", "list", env={**env, "DATABASE_URL": UNREACHABLE, "TOURNEY_WARM": "0"})
    _same(unreachable, alone)
    # a variable a command reads itself: the operator the audit trail names is the command's
    for name in ("Olga", "Boris"):
        add = ("--json", "player", "add", f"Player {name}", f"warm-{name}", "--born", "1990-01-01")
        done = run_process(*add, env={**env, "LOGNAME": name, "USER": name})
        assert done.returncode == 0, done.stderr
    trail = json.loads(run_process("--json", "audit", env=env).stdout)
    actors = {row["actor"] for row in trail if row["action"] == "player add"}
    assert actors == {"Olga", "Boris"}
    assert _status(env)["served"] == server["served"] + 6


def _copy_of_the_packages(into: Path) -> dict[str, str]:
    """A copy of domain, flows and infra (with their bytecode) imported first: its own key (another
    folder), so touching its files makes no other warm server stale."""
    for package in ("domain", "flows", "infra"):
        shutil.copytree(ROOT / package, into / package, symlinks=True)
    (into / "templates").symlink_to(ROOT / "templates")
    return {"PYTHONPATH": str(into), "TOURNEY_HOME": str(into / "home")}


def test_a_changed_source_file_is_never_run_by_the_old_server(committed, tag, tmp_path):
    t = _tournament(committed)
    env = tag()
    env.update(_copy_of_the_packages(tmp_path))
    assert _in(env, "key") != warm.key({**os.environ, **env})  # another folder: another server
    old = _started(env)
    warm_call = run_process("--json", "poker", "list", env=env)
    assert [row["id"] for row in json.loads(warm_call.stdout)] == [t]
    assert _status(env)["served"] == old["served"] + 1

    source = tmp_path / "flows" / "cli" / "poker.py"
    later = source.stat().st_mtime + 5
    os.utime(source, (later, later))
    refused = run_process("--json", "poker", "list", env=env)  # refused by the old server: run in its process
    _same(refused, warm_call)
    assert _gone([old["pid"]])  # the old server exited
    new = _up(env)
    assert new["pid"] != old["pid"] and new["served"] == 0  # the refused call was not served warm
    _same(run_process("--json", "poker", "list", env=env), warm_call)
    assert _status(env)["served"] == 1  # the new server runs the code as it is now


def test_tourney_warm_0_never_starts_a_server(committed, tag):
    env = {**tag(), "TOURNEY_WARM": "0"}
    for _ in range(2):
        assert run_process("--json", "poker", "list", env=env).returncode == 0
    time.sleep(2)  # a server would have been bound and importing by now
    assert _servers(env) == [] and _status(env) is None


def test_commands_outside_the_groups_never_go_warm(engine, tag):
    env = tag()
    for args in (("--json", "db", "url"), ("--help",), ("--json", "version"), ()):
        assert run_process(*args, env=env).returncode in (0, 2)
    time.sleep(2)
    assert _servers(env) == []  # none started one either
    server = _started(env)
    for args in (("--json", "db", "url"), ("--help",), ("--as", "poker", "--json", "version")):
        assert run_process(*args, env=env).returncode == 0
    assert _status(env)["served"] == server["served"]


def test_the_client_imports_only_the_standard_library(engine, tag):
    env = tag()
    server = _started(env)
    traced = subprocess.run(
        [sys.executable, "-X", "importtime", TOURNEY, "--json", "poker", "list"],
        capture_output=True,
        text=True,
        env={**os.environ, **env},
        timeout=120,
    )
    assert traced.returncode == 0, traced.stderr
    assert _status(env)["served"] == server["served"] + 1
    ours = _not_stdlib(traced.stderr)
    start = subprocess.run([sys.executable, "-X", "importtime", "-c", "pass"], capture_output=True, text=True)
    at_start = _not_stdlib(start.stderr)  # what the interpreter's start imports (site, the editable finder)
    assert ours - at_start == {"flows", "flows.cli", "flows.cli.warm"}  # no Typer, SQLAlchemy, psycopg, ...


def _not_stdlib(importtime: str) -> set[str]:
    """The modules outside the standard library in the output of `python -X importtime`."""
    names = {line.rpartition("|")[2].strip() for line in importtime.splitlines() if line.startswith("import time:")}
    return {name for name in names if name.split(".")[0] not in sys.stdlib_module_names}


def _unix_sockets() -> list[str]:
    """The paths of every Unix socket of this network namespace (/proc/net/unix; an abstract name
    starts with `@`)."""
    lines = Path("/proc/net/unix").read_text().splitlines()[1:]
    return [fields[7] for fields in (line.split(maxsplit=7) for line in lines) if len(fields) == 8]


def test_the_socket_is_a_file_in_a_0700_folder_under_tourney_home_run_never_an_abstract_name(
    committed, tag, short_home
):
    """AC-4: only what may enter TOURNEY_HOME/run/warm reaches the server, not any process of the uid
    in the same network namespace."""
    env = tag(TOURNEY_HOME=str(short_home))
    server = _started(env)
    of_key = _in(env, "key")
    folder = short_home / "run" / "warm"
    sock = folder / f"{of_key}.sock"
    assert warm.socket_file({**os.environ, **env}) == str(sock)
    st = folder.lstat()
    assert (stat.S_ISDIR(st.st_mode), stat.S_IMODE(st.st_mode), st.st_uid) == (True, 0o700, os.getuid())
    assert stat.S_ISSOCK(sock.lstat().st_mode)
    assert sorted(p.name for p in folder.iterdir()) == [f"{of_key}.lock", f"{of_key}.sock"]
    listening = _unix_sockets()
    assert str(sock) in listening
    assert [name for name in listening if name.startswith("@") and of_key in name] == []
    assert run_process("--json", "poker", "list", env=env).returncode == 0
    assert _status(env)["served"] == server["served"] + 1  # through that file

    assert _in(env, "stop") == "warm start: stopped"
    assert not sock.exists()  # at once, while it lets its running commands end
    assert _gone([server["pid"]])
    assert sorted(folder.iterdir()) == [] and stat.S_IMODE(folder.lstat().st_mode) == 0o700


def test_the_idle_exit_removes_the_socket_file(engine, tag, short_home):
    env = tag(TOURNEY_HOME=str(short_home), TOURNEY_WARM_IDLE="10")
    server = _started(env)
    sock = Path(_in(env, "socket_file"))
    assert stat.S_ISSOCK(sock.lstat().st_mode)
    assert _gone([server["pid"]], timeout=60)  # idle for 10 s
    assert sorted((short_home / "run" / "warm").iterdir()) == []


def test_a_killed_servers_stale_socket_file_is_replaced_and_another_keys_is_removed(committed, tag, short_home):
    first, other = (tag(TOURNEY_HOME=str(short_home)) for _ in range(2))
    killed = [_started(first)["pid"], _started(other)["pid"]]
    for pid in killed:
        os.kill(pid, signal.SIGKILL)
    assert _gone(killed)
    stale, other_stale = Path(_in(first, "socket_file")), Path(_in(other, "socket_file"))
    assert stat.S_ISSOCK(stale.lstat().st_mode) and stat.S_ISSOCK(other_stale.lstat().st_mode)  # left behind
    probe = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    with probe, pytest.raises(ConnectionRefusedError):
        probe.connect(str(stale))  # nobody listens there
    assert _status(first) is None

    direct = run_process("--json", "poker", "list", env={**first, "TOURNEY_WARM": "0"})
    assert direct.returncode == 0, direct.stderr
    _same(run_process("--json", "poker", "list", env=first), direct)  # in its own process, and starts a server
    new = _up(first)
    assert new["pid"] not in killed and new["served"] == 0
    assert stat.S_ISSOCK(stale.lstat().st_mode)  # the new server's socket, at the same name
    assert not other_stale.exists() and not other_stale.with_suffix(".lock").exists()  # swept: its lock was free
    _same(run_process("--json", "poker", "list", env=first), direct)
    assert _status(first)["served"] == 1


def test_a_socket_path_longer_than_a_socket_address_still_goes_warm(committed, tag, short_home):
    home = short_home / ("h" * 60) / ("o" * 60)
    env = tag(TOURNEY_HOME=str(home))
    sock = Path(_in(env, "socket_file"))
    assert len(os.fsencode(sock)) > 108
    server = _started(env)
    assert stat.S_ISSOCK(sock.lstat().st_mode)
    assert run_process("--json", "poker", "list", env=env).returncode == 0
    assert _status(env)["served"] == server["served"] + 1


@pytest.mark.parametrize("how", ["mode 0755", "a symlink", "another user's"])
def test_a_socket_folder_others_may_enter_is_refused_and_the_command_runs_in_its_own_process(
    committed, tag, short_home, how
):
    """AC-4: the folder is never used (nor chmodded) when it is looser than 0700, a symlink or another
    user's; every command runs in its own process and no server is started."""
    folder = short_home / "run" / "warm"
    if how == "a symlink":
        real = short_home / "elsewhere"
        real.mkdir(mode=0o700)
        folder.parent.mkdir()
        folder.symlink_to(real)
    else:
        folder.mkdir(parents=True, mode=0o700)
        if how == "mode 0755":
            folder.chmod(0o755)
        elif os.getuid() != 0:
            pytest.skip("only root can give a folder to another user")
        else:
            os.chown(folder, 65534, 65534)
    before = folder.lstat()
    env = tag(TOURNEY_HOME=str(short_home))
    direct = run_process("--json", "poker", "list", env={**env, "TOURNEY_WARM": "0"})
    assert direct.returncode == 0, direct.stderr
    for _ in range(2):
        _same(run_process("--json", "poker", "list", env=env), direct)
    time.sleep(2)  # a server would have been bound and importing by now
    assert _servers(env) == [] and _status(env) is None
    after = folder.lstat()
    assert (after.st_mode, after.st_uid) == (before.st_mode, before.st_uid)  # left as it was
    assert list(folder.iterdir()) == []


_GETPASS = """import os
with open(os.environ["WARM_TEST_MARKER"], "a") as marker:
    marker.write(f"{os.getpid()} {os.getppid()}\\n")


def getuser():
    return "foreign"
"""


def _foreign(into: Path) -> Path:
    """A folder outside the installation holding `getpass.py`, which a command that writes imports
    (the audit trail's operator) and the warm server has not: imported, it notes its process and its
    parent in WARM_TEST_MARKER."""
    into.mkdir()
    (into / "getpass.py").write_text(_GETPASS)
    (into / "tourney.py").write_text("import sys\n\nfrom flows.cli.warm import main\n\nsys.exit(main())\n")
    return into


def test_a_caller_whose_sys_path_leaves_the_installation_runs_its_command_in_its_own_process(committed, tag, tmp_path):
    """AC-4: a `tourney` whose sys.path holds a folder outside the installation (here its script's
    folder) is refused by the server: the folder's code runs in the caller's own process only, never
    in a child of the server, and no other server is started for it."""
    env = tag()
    server = _started(env)
    foreign = _foreign(tmp_path / "foreign")
    marker = tmp_path / "marker"
    add = ("--json", "player", "add", "Player Foreign", "warm-foreign", "--born", "1990-01-01")
    proc = subprocess.Popen(
        [sys.executable, str(foreign / "tourney.py"), *add],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, **env, "WARM_TEST_MARKER": str(marker)},
    )
    out, err = proc.communicate(timeout=120)
    assert proc.returncode == 0, err
    assert marker.read_text() == f"{proc.pid} {os.getpid()}\n"  # once, in the caller's own process
    trail = json.loads(run_process("--json", "audit", env=env).stdout)
    assert [row["actor"] for row in trail if row["action"] == "player add" and "warm-foreign" in json.dumps(row)] == [
        "foreign"
    ]
    time.sleep(2)  # a server started for it would be up by now
    assert _status(env) == {**server, "served": server["served"] + 1}  # the `audit` only
    assert _servers(env) == [server["pid"]]


def _start_path(env: dict[str, str]) -> list[str]:
    """The sys.path of `tourney` in `env`: its script's folder, then the interpreter's."""
    code = "import json, sys; print(json.dumps(sys.path[1:]))"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env={**os.environ, **env})
    return [str(Path(TOURNEY).parent), *json.loads(done.stdout)]


def _first_answer(of: dict[str, str], **changes) -> str:
    """The server's first line to a run request of a `tourney player add` in `of`, with `changes`;
    no go is sent, so nothing runs even when it forks."""
    full = {**os.environ, **of}
    request = {
        "ask": "run",
        "argv": [TOURNEY, "--json", "player", "add", "Player Raw", "warm-raw", "--born", "1990-01-01"],
        "env": full,
        "cwd": "/",
        "umask": 0o022,
        "path": _start_path(of),
        **changes,
    }
    conn, _ = warm._connect(full)
    assert conn is not None
    with conn, open(os.devnull, "rb") as stdin, open(os.devnull, "wb") as stdout:
        warm.send(conn, request, [stdin.fileno(), stdout.fileno(), stdout.fileno()])
        return warm._Lines(conn).line()


def test_the_server_refuses_a_request_of_a_foreign_sys_path_or_another_start_environment(committed, tag, tmp_path):
    """AC-4, at the socket: what the server answers each request, and that it forked only for the one
    of its installation and its own start-up environment."""
    env = tag()
    server = _started(env)
    foreign = _foreign(tmp_path / "foreign")
    marker = tmp_path / "marker"
    env["WARM_TEST_MARKER"] = str(marker)  # not a start-up variable: the same key
    path = _start_path(env)
    full = {**os.environ, **env}
    assert _first_answer(env).startswith("pid ")  # its own: forked (and, without a go, ended)
    assert _first_answer(env, path=[str(foreign), *path]) == "refused path"
    assert _first_answer(env, path=[*path, str(foreign)]) == "refused path"
    assert _first_answer(env, path=["", *path], cwd=str(foreign)) == "refused path"  # '' is the folder
    assert _first_answer(env, path=["foreign", *path], cwd=str(tmp_path)) == "refused path"
    assert _first_answer(env, env={**full, "PYTHONWARNINGS": "error"}) == "refused env"
    assert _first_answer(env, env={**full, "LD_PRELOAD": str(foreign / "lib.so")}) == "refused env"
    assert _first_answer(env, path="/") == "refused request"
    assert not marker.exists()  # nothing of the foreign folder ran
    answer = _status(env)
    assert (answer["pid"], answer["served"], answer["running"]) == (server["pid"], server["served"] + 1, 0)


def test_warm_home_is_tourney_home_as_the_settings_resolve_it(monkeypatch, tmp_path):
    """The client finds TOURNEY_HOME without importing infra.config: the same folder, each way it is
    given."""
    from infra.config import load_settings

    (tmp_path / "real").mkdir()
    (tmp_path / "link").symlink_to(tmp_path / "real")
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("HOME", str(tmp_path))
    for given in (None, str(tmp_path / "link" / "home"), "relative/home", "~/home", "link/../real/./home/"):
        if given is None:
            monkeypatch.delenv("TOURNEY_HOME", raising=False)
        else:
            monkeypatch.setenv("TOURNEY_HOME", given)
        assert warm.home(os.environ) == str(load_settings().home), given
    assert warm.folder(os.environ) == str(load_settings().home / "run" / "warm")
