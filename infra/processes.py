"""The long-lived processes `make run` starts, each recorded in TOURNEY_HOME/run/<name>.pid, so
`tourney stop` (`make stop`) finds and ends every one of them and what they started.

A pid file holds the pid and the process's start time (from /proc), so a pid the kernel has since
given to another process is never signalled. Stopping sends SIGTERM to the process and all its
descendants, waits, then SIGKILLs what is left. The process is signalled first, and given all but
the last 5 s of a 30 s grace to end what it started itself (the runner cancels its flow runs, so
`make stop` leaves no Crashed run; on a loaded machine that takes several seconds), before its
descendants are; it is not signalled twice (a runner still cancelling would drop its runs)."""

from __future__ import annotations

import os
import signal
import time
from pathlib import Path

from infra.config import Settings

# in the order `tourney stop` ends them: what drives work first, the server it reports to last
NAMES = ("simulator", "web", "serve")


def start_time(pid: int) -> str | None:
    """The process's start time (/proc), which tells it from a later process given the same pid."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except (FileNotFoundError, ProcessLookupError, PermissionError):
        return None
    return stat.rsplit(")", 1)[1].split()[19]  # field 22, starttime (fields after the command name)


def _pid_file(settings: Settings, name: str) -> Path:
    return settings.home / "run" / f"{name}.pid"


def record(settings: Settings, name: str, pid: int | None = None) -> None:
    """Remember process `pid` (default: this one) as `name`."""
    pid = pid or os.getpid()
    path = _pid_file(settings, name)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(f"{pid} {start_time(pid)}\n")


def recorded(settings: Settings, name: str) -> int | None:
    """The pid recorded as `name`, when that very process still runs."""
    try:
        pid_text, started = _pid_file(settings, name).read_text().split()
    except (FileNotFoundError, ValueError):
        return None
    pid = int(pid_text)
    return pid if start_time(pid) == started else None


def _descendants(pid: int) -> list[int]:
    children: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                ppid = int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1])
            except (FileNotFoundError, ProcessLookupError, PermissionError, IndexError):
                continue
            children.setdefault(ppid, []).append(int(entry.name))
    found, todo = [], [pid]
    while todo:
        for child in children.get(todo.pop(), []):
            found.append(child)
            todo.append(child)
    return found


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (FileNotFoundError, ProcessLookupError):
        return False
    return state != "Z"


def _command(pid: int, width: int = 60) -> str:
    """The process's command line, cut to `width` characters (what a stop that had to kill names)."""
    try:
        line = Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace").strip()
    except (FileNotFoundError, ProcessLookupError, PermissionError):
        return ""
    return line if len(line) <= width else line[: width - 1] + "…"


def _signal(pids: list[int], sig: int) -> None:
    for member in pids:
        try:
            os.kill(member, sig)
        except ProcessLookupError:
            pass


def stop(settings: Settings, name: str, grace: float = 30.0, tree_grace: float = 5.0) -> str:
    """End the process recorded as `name` and everything it started: the process alone for up to
    `grace - tree_grace` seconds (a loaded machine's runner takes several to cancel its runs), then
    every process it started is asked, then what is left is killed at `grace`."""
    pid = recorded(settings, name)
    _pid_file(settings, name).unlink(missing_ok=True)
    if pid is None:
        return f"{name}: not running"
    tree = [pid, *_descendants(pid)]
    deadline = time.monotonic() + grace
    # the process first: the runner of `tourney serve` cancels its flow runs itself (they end
    # Cancelled, not Crashed: a run's process signalled directly would crash) and exits
    _signal([pid], signal.SIGTERM)
    while time.monotonic() < deadline - tree_grace and _alive(pid):
        time.sleep(0.1)
    # then what it started, not the process again: Prefect's runner exits at once at a second SIGTERM,
    # so one still waiting for a run's process to end (a run that missed its SIGTERM: the exception
    # Prefect raises from its handler is lost when the signal lands in a weakref callback) would leave
    # that run Running instead of marking it Cancelled. What it started since the first look counts too
    # (a run it began just before its SIGTERM).
    if _alive(pid):
        tree += [m for m in _descendants(pid) if m not in tree]
    _signal([m for m in tree[1:] if _alive(m)], signal.SIGTERM)
    while time.monotonic() < deadline and any(_alive(m) for m in tree):
        time.sleep(0.1)
    killed = [m for m in tree if _alive(m)]
    said = ", ".join(f"{m} {_command(m)}" for m in killed)
    for member in killed:
        try:
            os.kill(member, signal.SIGKILL)
        except ProcessLookupError:
            pass
    return f"{name}: stopped (pid {pid}{f', killed after {int(grace)} s: {said}' if killed else ''})"
