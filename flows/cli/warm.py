"""The warm start of `tourney` (the design of Rails' Spring, Nailgun): the console script's entry point,
and the client's side. docs/cli.md#a-warm-start.

A command line of a short request/response group (`GROUPS`) is handed to a resident process of this
user and start-up environment, the warm server (flows/cli/warm_server.py), which has already imported
the CLI, SQLAlchemy, psycopg and the services: it forks a child per command, and the child runs
`flows.cli.app.main()` on this process's standard streams (passed over a Unix socket, SCM_RIGHTS),
with its environment, working folder, umask and arguments. This process waits, forwards SIGINT,
SIGTERM, SIGHUP and SIGQUIT to the child, and exits as the child did (killed by a signal: by the same
signal). Every other command line (`db`, `server`, `serve`, `worker`, `web`, `simulate`, `deploy`,
`jobs`, `stop`, `version`, `--help` alone), TOURNEY_WARM=0, and any failure to hand the command over
before it started (no server, a stale one, another user's socket, no answer in time, a refusal) run
`main()` in this process, as without the warm start; then, unless TOURNEY_WARM=0, the socket folder
is refused, the server refused this process's sys.path or environment, or this process's script is
outside the installation, a server is started in the background for the next command.

A server is found by its key: a hash of the uid, the interpreter, the folder of the packages and the
environment variables that act when a process starts or when the preloaded modules are imported
(`starts_process`); every other variable is the command's own in the child. The socket is a file,
TOURNEY_HOME/run/warm/KEY.sock, in a folder of this user's closed to everyone else (0700, not a
symlink: `open_folder`; any other such folder and the command runs here, no server started), and each
side checks the other's uid (SO_PEERCRED) before anything is sent. The server runs only a request of
its own key whose sys.path is inside the installation (`installation`, `inside`); else it answers
`refused ...` and the command runs here (AC-4).

This side imports only the standard library (`python -X importtime`): the CLI is imported by the
server, or here when the command runs in this process."""

from __future__ import annotations

import hashlib
import json
import os
import signal
import socket
import stat
import struct
import sys

# the groups whose commands answer and end; the others start daemons, exec, detach or hold the terminal
GROUPS = frozenset(
    {"club", "pusoy", "poker", "player", "documents", "series", "league", "webhook", "user", "token", "audit"}
)
FORWARDED = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP, signal.SIGQUIT)
PROTOCOL = 2  # in the key: a client of another protocol never meets this server
HANDOVER_TIMEOUT = 10.0  # seconds for the server to answer with the child's pid, else run here (nothing started)
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.realpath(__file__))))  # holds domain, flows, infra
STATUS_LOST = "error: the command's process ended without an exit status"
SUN_PATH_MAX = 107  # bytes of a socket file's path (sun_path holds 108 with the NUL); longer: through the folder's fd
# read when a process starts (the interpreter, the dynamic loader, libfaketime, glibc) or when the
# server's preloaded modules are imported (psycopg's implementation, Typer's, Babel's default locales)
_START_PREFIXES = ("PYTHON", "LD_", "FAKETIME", "FAKERANDOM", "LC_", "PSYCOPG_", "TYPER_", "_TYPER_", "MALLOC_")
_START_NAMES = frozenset(
    {"LANG", "LANGUAGE", "NO_FAKE_STAT", "DONT_FAKE_MONOTONIC", "GLIBC_TUNABLES", "TOURNEY_WARM_TAG"}
)
_SERVE = "import sys; sys.path[0] = sys.argv[1]; from flows.cli.warm_server import serve; serve(*sys.argv[2:])"


def group_of(args: list[str]) -> str | None:
    """The first word of the command line that is not a global option (`--as NAME`, `--as=NAME`)."""
    rest = iter(args)
    for word in rest:
        if word == "--as":
            next(rest, None)
        elif not word.startswith("-"):
            return word
    return None


def main() -> None:
    """The console script: the command handed to the warm server, else run in this process."""
    if sys.platform == "linux" and os.environ.get("TOURNEY_WARM", "1") != "0" and group_of(sys.argv[1:]) in GROUPS:
        if _hand_over():  # exits when the command was handed over
            _spawn(os.environ)
    from flows.cli.app import main as run

    run()


def starts_process(name: str) -> bool:
    """Whether an environment variable acts when a process starts (it is in the key), not per command."""
    return name.startswith(_START_PREFIXES) or name in _START_NAMES


def key(env) -> str:
    """The warm server's key for an environment (a mapping of its variables)."""
    start = sorted((name, value) for name, value in env.items() if starts_process(name))
    text = json.dumps([PROTOCOL, os.getuid(), sys.executable, ROOT, start])
    return hashlib.sha256(text.encode("utf-8", "surrogateescape")).hexdigest()[:24]


def home(env) -> str:
    """TOURNEY_HOME as infra.config.load_settings resolves it (that module is not imported here):
    the variable (`~` expanded, made absolute and real), else the checkout's .tourney, else the
    user's data folder's `tourney`."""
    given = env.get("TOURNEY_HOME")
    if given:
        return os.path.realpath(os.path.expanduser(given))
    if os.path.exists(os.path.join(ROOT, "pyproject.toml")):
        return os.path.join(ROOT, ".tourney")
    base = env.get("XDG_DATA_HOME") or os.path.join(os.path.expanduser("~"), ".local", "share")
    return os.path.join(os.path.normpath(base), "tourney")


def folder(env) -> str:
    """The folder of the warm servers' sockets (and their lock files): TOURNEY_HOME/run/warm."""
    return os.path.join(home(env), "run", "warm")


def socket_file(env) -> str:
    """The socket of the server of `env`: TOURNEY_HOME/run/warm/KEY.sock."""
    return os.path.join(folder(env), f"{key(env)}.sock")


def open_folder(path: str) -> int:
    """The socket folder opened (O_PATH), once known to be a folder of this user's that nobody else
    may enter (mode 0700 or tighter) and not a symlink itself. FileNotFoundError when it (or a
    folder above it) is missing; another OSError when it is refused, left as it is."""
    fd = os.open(path, os.O_PATH | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC)  # a symlink: ENOTDIR
    st = os.fstat(fd)
    if stat.S_ISDIR(st.st_mode) and st.st_uid == os.getuid() and not st.st_mode & 0o077:
        return fd
    os.close(fd)
    raise PermissionError(f"{path}: mode {stat.S_IMODE(st.st_mode):o}, owner {st.st_uid}: refused")


def address(path: str, fd: int, of_key: str) -> str:
    """The socket of `of_key` in the folder `path` opened as `fd`: its path, or when that is longer than
    a socket's path may be, the same file through the folder's descriptor (/proc/self/fd/FD/KEY.sock)."""
    name = os.path.join(path, f"{of_key}.sock")
    return name if len(os.fsencode(name)) <= SUN_PATH_MAX else f"/proc/self/fd/{fd}/{of_key}.sock"


def installation(start: list[str]) -> tuple[frozenset[str], frozenset[str]]:
    """What a request's sys.path may hold (AC-4): the folders of the installation (ROOT, the
    interpreter's bin folder, the real path of each folder of `start`, a server's own sys.path at its
    start: PYTHONPATH, the standard library, site-packages, what their .pth files add), and the
    entries of `start` that are no path but a path hook's name (the editable install's finder)."""
    folders = {ROOT, os.path.join(sys.prefix, "bin"), os.path.dirname(sys.executable)}
    folders.update(entry for entry in start if os.path.isabs(entry))
    names = frozenset(entry for entry in start if entry and not os.path.isabs(entry))
    return frozenset(os.path.realpath(folder) for folder in folders), names


def inside(entry: str, cwd: str, allowed: tuple[frozenset[str], frozenset[str]]) -> bool:
    """Whether the sys.path entry `entry` of a process in the folder `cwd` is of the installation: a
    folder (relative ones, '' among them, are of `cwd`) whose real path is one of its folders, or one
    of its hooks' names that names nothing in `cwd`."""
    folders, names = allowed
    where = os.path.join(cwd, entry)
    if entry in names and not os.path.lexists(where):
        return True
    return os.path.realpath(where) in folders


def peer_uid(conn: socket.socket) -> int:
    """The uid of the process at the other end (the kernel's word, not the peer's)."""
    creds = conn.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, struct.calcsize("3i"))
    return struct.unpack("3i", creds)[1]


def send(conn: socket.socket, request: dict, fds: list[int]) -> None:
    """A request: its length in 4 bytes (carrying `fds`), then its JSON."""
    body = json.dumps(request).encode()
    head = struct.pack("!I", len(body))
    if fds:
        socket.send_fds(conn, [head], fds)
    else:
        conn.sendall(head)
    conn.sendall(body)


def kill(pid: int, signum: int) -> None:
    try:
        os.kill(pid, signum)
    except ProcessLookupError:
        pass


def _connect(env) -> tuple[socket.socket | None, bool]:
    """A connection to the server of `env`, once it is known to run as this user, or None; and whether
    a server may be started for `env` (not when its socket folder is refused: `open_folder`)."""
    path = folder(env)
    try:
        fd = open_folder(path)
    except FileNotFoundError:
        return None, True  # no server has made it yet
    except OSError:
        return None, False
    conn = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    conn.settimeout(HANDOVER_TIMEOUT)
    try:
        conn.connect(address(path, fd, key(env)))
        if peer_uid(conn) == os.getuid():
            return conn, True
    except OSError:  # none there, or a stale socket file (its server was killed): the next server removes it
        pass
    finally:
        os.close(fd)
    conn.close()
    return None, True


class _Lines:
    """The server's lines (`pid N`, `exit N`, `signal N`, `refused WHY`, ...); '' at the end."""

    def __init__(self, conn: socket.socket) -> None:
        self.conn, self.data = conn, b""

    def line(self) -> str:
        while b"\n" not in self.data:
            chunk = self.conn.recv(4096)
            if not chunk:
                return ""
            self.data += chunk
        line, _, self.data = self.data.partition(b"\n")
        return line.decode()


def _hand_over() -> bool:
    """Hand this command line to the warm server and exit as its child exits. Returns only when
    nothing was started (no server, refused, no answer in time), the signals' handlers as they were:
    whether a server is to be started (none answered, or the one there is stale; not when the
    socket folder is refused, nor when the server refused this request's sys.path or environment).

    The child says its pid when it is ready, then waits for this side's go: a command is never run
    twice (here and there), and a signal that came before the pid is forwarded after it."""
    child: list[int] = []
    pending: list[int] = []

    def forward(signum, _frame) -> None:
        if child:
            kill(child[0], signum)
        else:
            pending.append(signum)

    previous = {signum: signal.signal(signum, forward) for signum in FORWARDED}
    conn, start = _connect(os.environ)
    if conn is not None:
        with conn:
            lines = _Lines(conn)
            try:
                umask = os.umask(0o022)
                os.umask(umask)
                request = {
                    "ask": "run",
                    "argv": sys.argv,
                    "env": dict(os.environ),
                    "cwd": os.getcwd(),
                    "umask": umask,
                    "path": sys.path,
                }
                send(conn, request, [0, 1, 2])
                first = lines.line()
                if first.startswith("pid "):
                    child.append(int(first[4:]))
                    conn.settimeout(None)
                    conn.sendall(b"g")
                elif first.startswith("refused ") and first != "refused stale":
                    start = False  # a server runs; it serves other callers, not this one
            except (OSError, ValueError):  # no go was sent: nothing started
                child.clear()
            if child:
                for signum in pending:
                    kill(child[0], signum)
                try:
                    status = lines.line()
                except OSError:
                    status = ""
                _exit_as(status)
    for signum, handler in previous.items():
        signal.signal(signum, handler)
    for signum in pending:
        signal.raise_signal(signum)
    return start


def _exit_as(status: str) -> None:
    """Exit with the child's exit code, or by the signal that ended it (as its own process would)."""
    word, _, number = status.partition(" ")
    if word == "exit" and number.isdigit():
        sys.exit(int(number))
    if word == "signal" and number.isdigit():
        signum = int(number)
        try:
            signal.signal(signum, signal.SIG_DFL)
        except (OSError, ValueError):  # SIGKILL's cannot be set, nor needs to be
            pass
        os.kill(os.getpid(), signum)
        sys.exit(128 + signum)  # a signal whose default is not to end a process
    print(STATUS_LOST, file=sys.stderr)
    sys.exit(1)


def _spawn(env) -> None:
    """Start the server of `env` in the background, for the next command: in a session of its own, its
    standard streams on /dev/null and no other descriptor (it holds none of its caller's pipes), a
    grandchild (nobody's zombie), only the key's variables in its environment (no secret). When a
    server already holds the key's lock, the new one exits before importing anything. None is started
    for a process whose sys.path[0] (its script's folder) is outside the installation: a server
    would have it in its own sys.path."""
    first = os.path.abspath(sys.path[0])
    if not sys.flags.safe_path and not inside(first, "/", installation(sys.path[1:])):
        return
    server_env = {name: value for name, value in env.items() if starts_process(name) or name == "TOURNEY_WARM_IDLE"}
    argv = [sys.executable, "-c", _SERVE, first, key(env), folder(env)]
    try:
        pid = os.fork()
    except OSError:
        return
    if pid == 0:  # the intermediate: a new session, the server in its child, then gone at once
        try:
            os.setsid()
            if os.fork() == 0:
                null = os.open(os.devnull, os.O_RDWR)
                for fd in (0, 1, 2):
                    os.dup2(null, fd)
                os.closerange(3, os.sysconf("SC_OPEN_MAX"))
                os.chdir("/")
                os.execve(sys.executable, argv, server_env)
        finally:
            os._exit(0)
    os.waitpid(pid, 0)


def _ask(env, what: str) -> str | None:
    conn, _ = _connect(env)
    if conn is None:
        return None
    with conn:
        try:
            send(conn, {"ask": what}, [])
            return _Lines(conn).line() or None
        except OSError:
            return None


def status(env=None) -> dict | None:
    """What the server of `env` (default this process's environment) says of itself; None when none
    answers. Its pid, the commands it forked (`served`), those `running`, whether it is `listening`,
    its `threads`, whether `prefect` is imported."""
    line = _ask(os.environ if env is None else env, "status")
    return json.loads(line) if line else None


def stop(env=None) -> str:
    """Tell the server of `env` (default this process's environment) to stop: it stops listening at
    once, and exits when its running commands have ended."""
    line = _ask(os.environ if env is None else env, "stop")
    return "warm start: stopped" if line else "warm start: not running"
