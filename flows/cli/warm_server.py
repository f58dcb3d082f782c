"""The warm server of `tourney` (flows/cli/warm.py starts it): a resident process of one user and
start-up environment that has imported what the commands of `warm.GROUPS` need, and forks a child
per command. docs/cli.md#a-warm-start.

- One thread: it forks only from it. It accepts a connection, checks the client's uid, reads the
  request (the client's argv, environment, folder, umask, sys.path, and its fds 0, 1, 2), and forks.
  The child becomes the command (`_adopt`), says its pid, waits for the client's go, runs
  `flows.cli.app.main()` and exits as a process would (`_run_command`). The server reports each
  child's end to its client (`exit N`, `signal N`), and kills a child whose client went away.
- Before it forks, nothing reads the settings, makes an engine or opens a connection: `_preload`
  imports and builds only what every environment shares; Prefect is never imported here (it reads
  its settings from the environment when imported: a child that needs it imports it itself).
- It notes the code it runs when it starts (`_fingerprint`), and checks it before each fork:
  changed (an edit, a checkout, an install), it stops listening, refuses the command (the client
  runs it and starts a new server) and exits once its running commands have ended.
- Its socket is the file TOURNEY_HOME/run/warm/KEY.sock (never a name in the abstract namespace,
  which any process of the uid in the same network namespace reaches), in a folder it makes with
  mode 0700 and refuses when it is looser, another user's or a symlink (`warm.open_folder`): then it
  exits and each command runs in its client. It holds KEY.lock (a POSIX lock: its children do not
  inherit it) from before it binds until it has removed its socket, so a socket file without a lock
  held is stale: the next server removes it, its own key's and any other's (`_sweep`).
- It runs only a request of its own key (the variables that act at a process's start are its own)
  whose sys.path is inside the installation: ROOT, the interpreter's folders and its own sys.path at
  its start (`warm.installation`); else it answers `refused env` or `refused path` and the client
  runs the command itself (AC-4).
- It exits after TOURNEY_WARM_IDLE seconds (default 600) without a command, at `stop`, or at SIGTERM,
  SIGHUP, SIGINT, in the same way, its socket and lock files removed as it stops listening. It writes
  nothing else anywhere (its streams are /dev/null), and holds the environment it is sent (passwords,
  keys) only while it forks the child that gets it."""

from __future__ import annotations

import fcntl
import gc
import hashlib
import json
import os
import re
import select
import signal
import socket
import struct
import sys
import time

from flows.cli.warm import (
    GROUPS,
    ROOT,
    address,
    inside,
    installation,
    key,
    kill,
    open_folder,
    peer_uid,
)

IDLE_DEFAULT = 600.0
REQUEST_TIMEOUT = 5.0  # seconds the server waits for a connected client's request
REQUEST_MAX = 4 << 20
PACKAGES = ("domain", "flows", "infra")
_FILE = re.compile(r"([0-9a-f]{24})\.(sock|lock)")  # a server's files in the socket folder


def serve(of_key: str, path: str) -> None:
    """The warm server of `of_key`, its socket in the folder `path`; returns when it exits. First,
    before importing anything: a second server started at once, a refused folder, a sys.path[0]
    outside the installation, and it ends here."""
    allowed = installation(sys.path[1:])
    if not sys.flags.safe_path and not inside(sys.path[0], "/", allowed):
        return
    place = _Place.claim(path, of_key)
    if place is None:
        return
    try:
        listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        listener.bind(place.address)
    except OSError:
        place.release()
        return
    try:
        idle = float(os.environ.get("TOURNEY_WARM_IDLE", IDLE_DEFAULT))
    except ValueError:
        idle = IDLE_DEFAULT
    _Server(listener, place, idle, installation(sys.path)).run()


class _Place:
    """The server's files in the socket folder: KEY.lock, held, and KEY.sock."""

    def __init__(self, path: str, folder_fd: int, lock_fd: int, of_key: str) -> None:
        self.path, self.folder_fd, self.lock_fd, self.key = path, folder_fd, lock_fd, of_key
        self.address = address(path, folder_fd, of_key)

    @classmethod
    def claim(cls, path: str, of_key: str) -> _Place | None:
        """The folder made (0700) or checked, the key's lock taken, a stale socket file removed; None
        when the folder is refused or another server holds the lock."""
        folder_fd = _folder(path)
        if folder_fd is None:
            return None
        lock_fd = _lock(folder_fd, of_key)
        if lock_fd is None:
            os.close(folder_fd)
            return None
        place = cls(path, folder_fd, lock_fd, of_key)
        _remove(folder_fd, f"{of_key}.sock")  # a socket file without its lock held: its server was killed
        _sweep(path, folder_fd, of_key)
        return place

    def release(self) -> None:
        """The socket file removed, then the lock file, then the lock let go (a new server may start)."""
        if self.lock_fd < 0:
            return
        _remove(self.folder_fd, f"{self.key}.sock")
        _remove(self.folder_fd, f"{self.key}.lock")
        os.close(self.lock_fd)
        os.close(self.folder_fd)
        self.lock_fd = self.folder_fd = -1

    def forget(self) -> None:
        """In a forked child: the descriptors closed, nothing removed (the lock is the server's)."""
        for fd in (self.lock_fd, self.folder_fd):
            if fd >= 0:
                os.close(fd)
        self.lock_fd = self.folder_fd = -1


def _folder(path: str) -> int | None:
    """The socket folder, opened (warm.open_folder): made with mode 0700 when missing (the folders
    above it as `tourney` makes them); None when it is refused (looser, another user's, a symlink)."""
    try:
        return open_folder(path)
    except FileNotFoundError:
        pass
    except OSError:
        return None
    try:
        os.makedirs(os.path.dirname(path), exist_ok=True)
        umask = os.umask(0o077)
        try:
            os.mkdir(path, 0o700)
        finally:
            os.umask(umask)
    except FileExistsError:  # another server made it meanwhile
        pass
    except OSError:
        return None
    try:
        return open_folder(path)
    except OSError:
        return None


def _lock(folder_fd: int, of_key: str) -> int | None:
    """KEY.lock in the folder, locked (POSIX, not inherited by a fork): its descriptor, or None when
    another process holds it. The file locked is the one of that name still: a server that stops
    removes the file it held, and a server that had opened it meanwhile takes the lock of a new one."""
    name = f"{of_key}.lock"
    for _ in range(5):
        try:
            fd = os.open(name, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600, dir_fd=folder_fd)
        except OSError:
            return None
        try:
            fcntl.lockf(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:  # another server's
            os.close(fd)
            return None
        held = os.fstat(fd)
        try:
            named = os.stat(name, dir_fd=folder_fd, follow_symlinks=False)
        except FileNotFoundError:
            named = None
        if named is not None and (named.st_dev, named.st_ino) == (held.st_dev, held.st_ino):
            return fd
        os.close(fd)
    return None


def _sweep(path: str, folder_fd: int, own: str) -> None:
    """The files of the other keys' servers that are gone (killed): each lock free is taken, then its
    socket and lock files removed."""
    try:
        names = os.listdir(path)
    except OSError:
        return
    for other in sorted({m[1] for m in map(_FILE.fullmatch, names) if m and m[1] != own}):
        fd = _lock(folder_fd, other)
        if fd is not None:
            _remove(folder_fd, f"{other}.sock")
            _remove(folder_fd, f"{other}.lock")
            os.close(fd)


def _remove(folder_fd: int, name: str) -> None:
    try:
        os.unlink(name, dir_fd=folder_fd)
    except FileNotFoundError:
        pass


def _fingerprint() -> str:
    """The code this server runs: every file of the packages (path, mtime, size; not the bytecode)
    and the site-packages folders' mtimes (installing or removing a package changes them). ~2 ms."""
    digest = hashlib.sha256()

    def note(path: str, st: os.stat_result) -> None:
        digest.update(f"{path}\0{st.st_mtime_ns}\0{st.st_size}\n".encode("utf-8", "surrogateescape"))

    def walk(folder: str) -> None:
        with os.scandir(folder) as entries:
            for entry in sorted(entries, key=lambda e: e.name):
                if entry.is_dir(follow_symlinks=False):
                    if entry.name != "__pycache__":
                        walk(entry.path)
                elif entry.is_file(follow_symlinks=False):
                    note(entry.path, entry.stat(follow_symlinks=False))

    for package in PACKAGES:
        walk(os.path.join(ROOT, package))
    for folder in sys.path:
        if folder.endswith("-packages") and os.path.isdir(folder):
            note(folder, os.stat(folder))
    return digest.hexdigest()


def _preload() -> None:
    """What a command of `GROUPS` uses, made once: the CLI, the services its groups load at their
    first command (flows/cli/lazy.py), SQLAlchemy's ORM (its mappers configured) and PostgreSQL
    dialect, psycopg, Rich and Babel for the tables; each group's command tree built. Nothing that
    depends on the environment: no setting read, no engine, no Prefect."""
    import importlib
    from types import ModuleType

    from sqlalchemy.orm import configure_mappers

    from flows.cli import app

    for name in (
        "sqlalchemy.dialects.postgresql.psycopg",
        "psycopg",
        "domain.tables",
        "domain.store.db",
        "infra.database",
        "infra.prefect_server",
        "typer._click.decorators",
        "rich.console",
        "rich.table",
        "rich.text",
        "babel.numbers",
        "babel.dates",
    ):
        importlib.import_module(name)
    for name, module in list(sys.modules.items()):
        if name.startswith("domain.") and type(module) is not ModuleType:  # a lazy module, not run yet
            _ = module.__name__  # any attribute runs it
    configure_mappers()  # else each child's first query does it (~0.1 s)
    for group in sorted(GROUPS):
        app._command(group)  # the cache `main()` reads, by the word it is called with


class _Server:
    """Accepts commands, forks a child for each, reports each child's end to its client."""

    def __init__(
        self, listener: socket.socket, place: _Place, idle: float, allowed: tuple[frozenset[str], frozenset[str]]
    ) -> None:
        self.listener, self.place, self.idle, self.allowed = listener, place, idle, allowed
        self.listening = False
        self.children: dict[int, socket.socket] = {}  # a running child's pid -> its client's connection
        self.watched: dict[int, int] = {}  # the fd of that connection -> the pid (its client may hang up)
        self.served = 0
        self.stopping = False
        self.last = time.monotonic()
        self.poller = select.poll()
        self.wake_r, self.wake_w = os.pipe()
        self.fingerprint = ""

    def run(self) -> None:
        try:
            self._run()
        finally:
            self._close()

    def _run(self) -> None:
        self.fingerprint = _fingerprint()  # before the imports: a file changed during them is seen
        _preload()
        gc.collect()
        gc.freeze()  # the children share the preloaded objects' pages, and their collections skip them
        for fd in (self.wake_r, self.wake_w):
            os.set_blocking(fd, False)
        signal.set_wakeup_fd(self.wake_w)  # a signal (a child's end) wakes the poll
        signal.signal(signal.SIGCHLD, lambda *_: None)
        for signum in (signal.SIGTERM, signal.SIGHUP, signal.SIGINT):
            signal.signal(signum, self._stop_signal)
        self.poller.register(self.wake_r, select.POLLIN)
        self.poller.register(self.listener, select.POLLIN)
        self.listener.listen(64)  # clients that came during the imports were refused: they ran direct
        self.listening = True
        while True:
            self._reap()
            if self.stopping:
                self._close()
            if not self.children and (not self.listening or time.monotonic() - self.last >= self.idle):
                return
            wait = None if self.children or not self.listening else self.idle - (time.monotonic() - self.last)
            for fd, _events in self.poller.poll(None if wait is None else max(0.0, wait) * 1000 + 1):
                if fd == self.wake_r:
                    _drain(self.wake_r)
                elif self.listening and fd == self.listener.fileno():
                    self._accept()
                elif fd in self.watched:  # the client is gone: so is its command, as its process would be
                    self.poller.unregister(fd)
                    kill(self.watched.pop(fd), signal.SIGKILL)

    def _stop_signal(self, _signum, _frame) -> None:
        self.stopping = True

    def _close(self) -> None:
        """Stop listening, the socket and lock files removed (free at once for a new server); the
        running commands end."""
        if self.listening:
            self.poller.unregister(self.listener)
            self.listening = False
        self.place.release()
        self.listener.close()

    def _accept(self) -> None:
        try:
            conn, _ = self.listener.accept()
        except OSError:
            return
        fds: list[int] = []
        try:
            conn.settimeout(REQUEST_TIMEOUT)
            if peer_uid(conn) != os.getuid():
                raise PermissionError("another user's connection")
            request, fds = _receive(conn)
            ask = request.get("ask")
            if ask == "status":
                conn.sendall(json.dumps(self._status()).encode() + b"\n")
            elif ask == "stop":
                self._close()
                conn.sendall(b"stopping\n")
            elif ask == "run" and len(fds) == 3:
                refused = self._refused(request)
                if refused:
                    conn.sendall(f"refused {refused}\n".encode())  # the client runs it itself (AC-4)
                elif _fingerprint() != self.fingerprint:
                    self._close()  # stale: the client runs the command and starts a new server
                    conn.sendall(b"refused stale\n")
                else:
                    self._fork(conn, request, fds)
                    return
        except (OSError, ValueError):
            pass
        finally:
            for fd in fds:  # the child has its own copies
                os.close(fd)
        conn.close()

    def _refused(self, request: dict) -> str | None:
        """Why the server does not run this request (AC-4), or None: `env` when a variable that acts
        at a process's start differs from the server's own (another key), `path` when an entry of its
        sys.path is outside the installation (code that is not the project's, nor its interpreter's
        and their packages', would run with this user's secrets in reach), `request` when it is no
        well-formed request."""
        env, cwd, path = request.get("env"), request.get("cwd"), request.get("path")
        if not (
            isinstance(env, dict)
            and all(isinstance(k, str) and isinstance(v, str) for k, v in env.items())
            and isinstance(cwd, str)
            and os.path.isabs(cwd)
            and isinstance(path, list)
            and all(isinstance(entry, str) for entry in path)
            and isinstance(request.get("argv"), list)
            and isinstance(request.get("umask"), int)
        ):
            return "request"
        if key(env) != self.place.key:
            return "env"
        if not all(inside(entry, cwd, self.allowed) for entry in path):
            return "path"
        return None

    def _status(self) -> dict:
        import threading

        return {
            "pid": os.getpid(),
            "served": self.served,
            "running": len(self.children),
            "listening": self.listening,
            "threads": threading.active_count(),
            "prefect": "prefect" in sys.modules,
        }

    def _fork(self, conn: socket.socket, request: dict, fds: list[int]) -> None:
        self.last = time.monotonic()
        pid = os.fork()
        if pid == 0:
            self._child(conn, request, fds)  # never returns
        self.served += 1
        self.children[pid] = conn
        self.watched[conn.fileno()] = pid
        self.poller.register(conn, select.POLLRDHUP | select.POLLHUP)

    def _reap(self) -> None:
        while self.children:
            try:
                pid, wait_status = os.waitpid(-1, os.WNOHANG)
            except ChildProcessError:
                return
            if pid == 0:
                return
            conn = self.children.pop(pid, None)
            if conn is None:
                continue
            if self.watched.pop(conn.fileno(), None) is not None:
                self.poller.unregister(conn)
            code = os.waitstatus_to_exitcode(wait_status)
            try:
                conn.sendall(f"signal {-code}\n".encode() if code < 0 else f"exit {code}\n".encode())
            except OSError:
                pass
            conn.close()
            self.last = time.monotonic()

    def _child(self, conn: socket.socket, request: dict, fds: list[int]) -> None:
        """The forked child: nothing of the server's kept, then the client's command."""
        try:
            self.listener.close()
            self.place.forget()
            for other in self.children.values():
                other.close()
            signal.set_wakeup_fd(-1)
            os.close(self.wake_r)
            os.close(self.wake_w)
            for signum in (signal.SIGCHLD, signal.SIGTERM, signal.SIGHUP, signal.SIGQUIT):
                signal.signal(signum, signal.SIG_DFL)
            signal.signal(signal.SIGINT, signal.default_int_handler)
            _adopt(request, fds)
            conn.settimeout(None)
            conn.sendall(f"pid {os.getpid()}\n".encode())
            if conn.recv(1) != b"g":  # the client went away before its go: nothing runs
                os._exit(0)
        except BaseException:  # noqa: BLE001 - nothing ran: the client, told `exit 1` first, runs it itself
            os._exit(1)
        _run_command()


def _drain(fd: int) -> None:
    try:
        while os.read(fd, 512):
            pass
    except BlockingIOError:
        pass


def _exactly(conn: socket.socket, size: int) -> bytes:
    data = b""
    while len(data) < size:
        chunk = conn.recv(min(size - len(data), 1 << 16))
        if not chunk:
            raise ValueError("the request ended early")
        data += chunk
    return data


def _receive(conn: socket.socket) -> tuple[dict, list[int]]:
    """A request (warm.send): its 4-byte length with the client's descriptors, then its JSON."""
    head, fds, flags, _ = socket.recv_fds(conn, 4, 3)
    try:
        if flags & socket.MSG_CTRUNC or not head:
            raise ValueError("no request")
        (size,) = struct.unpack("!I", head + _exactly(conn, 4 - len(head)))
        if size > REQUEST_MAX:
            raise ValueError("the request is too large")
        request = json.loads(_exactly(conn, size))
        if not isinstance(request, dict):
            raise ValueError("not a request")
        return request, fds
    except BaseException:
        for fd in fds:
            os.close(fd)
        raise


def _adopt(request: dict, fds: list[int]) -> None:
    """The child takes the client's standard streams, environment, folder, umask, argv and sys.path."""
    for target, fd in enumerate(fds):
        os.dup2(fd, target)
        os.close(fd)
    os.environ.clear()  # os.environ's changes reach the C library's (libpq reads PG* there)
    os.environ.update(request["env"])
    time.tzset()
    os.chdir(request["cwd"])
    os.umask(request["umask"])
    sys.argv = list(request["argv"])
    sys.path[:] = request["path"]
    buffered = not sys.__stdout__.write_through  # False under PYTHONUNBUFFERED, in the key: as the client's
    sys.stdin = sys.__stdin__ = _stream(0, "stdin", sys.__stdin__, buffered)
    sys.stdout = sys.__stdout__ = _stream(1, "stdout", sys.__stdout__, buffered)
    sys.stderr = sys.__stderr__ = _stream(2, "stderr", sys.__stderr__, buffered)


def _stream(fd: int, name: str, like, buffered: bool):
    """The standard stream on `fd` as the interpreter makes it at its start (create_stdio in
    Python/pylifecycle.c): stdin always buffered, the others unless unbuffered; line-buffered on a
    terminal, stderr always; newline '\\n'; the encoding and errors of this process's streams, which
    the same start-up environment (the key's) made as it made the client's."""
    import io

    write = name != "stdin"
    buffer = open(fd, "wb" if write else "rb", buffering=-1 if buffered or not write else 0, closefd=False)
    raw = buffer.raw if isinstance(buffer, io.BufferedIOBase) else buffer
    raw.name = f"<{name}>"
    stream = io.TextIOWrapper(
        buffer,
        encoding=like.encoding,
        errors=like.errors,
        newline="\n",
        line_buffering=buffered and (raw.isatty() or name == "stderr"),
        write_through=not buffered,
    )
    stream.mode = "w" if write else "r"
    return stream


def _run_command() -> None:
    """`flows.cli.app.main()` as the console script runs it, then what the interpreter does when it
    exits: an uncaught exception's traceback and exit 1 (SystemExit: its code), the non-daemon
    threads joined, the atexit functions, the streams flushed (stdout failing: exit 120), and after
    an uncaught KeyboardInterrupt death by SIGINT. Then os._exit: none of the server's frames unwind."""
    interrupted = False
    try:
        from flows.cli.app import main as run

        run()
        code = 0
    except SystemExit as exc:
        code = 0 if exc.code is None else exc.code
        if not isinstance(code, int):
            print(code, file=sys.stderr)
            code = 1
    except KeyboardInterrupt as exc:
        sys.excepthook(type(exc), exc, exc.__traceback__)
        code, interrupted = 1, True
    except BaseException as exc:  # noqa: BLE001 - as the interpreter reports an uncaught exception
        sys.excepthook(type(exc), exc, exc.__traceback__)
        code = 1
    try:
        if "threading" in sys.modules:
            sys.modules["threading"]._shutdown()  # the interpreter's exit waits for them first
        import atexit

        atexit._run_exitfuncs()
    finally:
        code = _flush(code)
        if interrupted:
            signal.signal(signal.SIGINT, signal.SIG_DFL)
            os.kill(os.getpid(), signal.SIGINT)
        os._exit(code & 0xFF)


def _flush(code: int) -> int:
    try:
        sys.stdout.flush()
    except Exception as exc:  # noqa: BLE001 - as the interpreter reports it (a closed pipe): exit 120
        import traceback

        try:
            print(f"Exception ignored in: {sys.stdout!r}", file=sys.stderr)
            print("".join(traceback.format_exception_only(exc)), end="", file=sys.stderr)
        except Exception:  # noqa: BLE001
            pass
        code = code or 120
    try:
        sys.stderr.flush()
    except Exception:  # noqa: BLE001
        pass
    return code
