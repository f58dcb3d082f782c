"""`tourney web`: the web pages and `/api/v1` (docs/web.md), served by uvicorn: one process, or
`--workers N` processes on one port (docs/web.md#processes)."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Callable
from typing import Annotated, Any

import typer

from flows import bootstrap
from flows.cli.output import say

MAX_WORKERS = 64


def _wait_listening(process: subprocess.Popen, host: str, port: int, log, timeout: float = 60.0) -> None:
    """Return once the detached server accepts connections; a server that exits first (the port is
    taken, the database is away) is one line saying why."""
    import time

    import httpx

    from domain.errors import DomainError

    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process.poll() is not None:
            lines = [line for line in log.read_text(errors="replace").splitlines() if line.strip()]
            why = lines[-1] if lines else f"exit code {process.returncode}"
            raise DomainError("web-not-started", f"the web pages did not start on {host}:{port}: {why} (log: {log})")
        target = host if host not in ("0.0.0.0", "::") else "127.0.0.1"
        try:  # our server, not another one on the same port: it sends our security policy
            answer = httpx.get(f"http://{target}:{port}/static/web.css", timeout=1)
            if "content-security-policy" in answer.headers and process.poll() is None:
                return
        except httpx.HTTPError:
            pass
        time.sleep(0.3)


def web_command(
    host: Annotated[str, typer.Option(help="the address to listen on")] = "127.0.0.1",
    port: Annotated[int, typer.Option(help="the port to listen on")] = 8080,
    background: Annotated[
        bool, typer.Option(help="serve in a detached process, recorded for `tourney stop` (log: TOURNEY_HOME/web.log)")
    ] = False,
    workers: Annotated[
        int, typer.Option(help=f"how many processes serve the port (1 to {MAX_WORKERS}; about one per core)")
    ] = 1,
) -> None:
    """Serve the public pages: the club's screen, live results, certificate checks, calendars."""
    from domain.errors import DomainError
    from infra import processes

    if not 1 <= workers <= MAX_WORKERS:
        raise DomainError("bad-workers", f"--workers takes 1 to {MAX_WORKERS} processes, not {workers}")
    settings = bootstrap.settings()
    if background:
        running = processes.recorded(settings, "web")
        if running is not None:
            say(f"the web pages are already served (pid {running}) at {settings.public_url()}")
            return
        log = settings.home / "web.log"
        log.parent.mkdir(parents=True, exist_ok=True)
        args = [
            sys.executable,
            "-c",
            "from flows.cli.app import main; main()",
            "web",
            "--host",
            host,
            "--port",
            str(port),
            "--workers",
            str(workers),
        ]
        with open(log, "ab") as out:
            process = subprocess.Popen(
                args, stdout=out, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, start_new_session=True
            )
        processes.record(settings, "web", process.pid)
        _wait_listening(process, host, port, log)
        listening = f"http://{host}:{port}"
        public = settings.public_url().rstrip("/")
        also = f" (public address {public})" if public != listening else ""
        by = f", {workers} processes" if workers > 1 else ""
        say(f"web pages served in the background (pid {process.pid}{by}) on {listening}{also}; log: {log}")
        return
    if workers == 1:
        server(host, port).run()
    else:
        serve_workers(host, port, workers)


def shared_socket(host: str, port: int):
    """One of the processes' listening sockets of one port (SO_REUSEPORT: the kernel spreads the
    connections). IPPROTO_TCP is named: asyncio sets TCP_NODELAY only on the connections of such a
    socket; with protocol 0 every request after a connection's first waited ~40 ms (Nagle's algorithm
    and delayed ACKs)."""
    import socket

    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    listening = socket.socket(family, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    listening.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    listening.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)
    listening.bind((host, port))
    listening.listen(2048)
    return listening


def serve_workers(host: str, port: int, workers: int) -> None:
    """`workers` processes serving one port, forked from this one (before any engine or thread is
    made): each binds its own socket with SO_REUSEPORT, so the kernel spreads the connections over
    them, and has its own engine and its own LISTEN connection (flows/web/live.py). Nothing a request
    needs lives in one process alone (docs/web.md#processes). This process only watches them: one that
    dies is started again after a second; SIGTERM or SIGINT ends them all, then this one."""
    import os
    import signal
    import socket
    import time

    from domain.errors import DomainError
    from infra import database

    try:  # taken (another server, or another `tourney web` of this machine): one line, nothing started
        with socket.create_server((host, port)):
            pass
    except OSError as exc:
        raise DomainError("web-port-taken", f"{host}:{port} cannot be served: {exc.strerror}") from None
    engine = bootstrap.own_engine(bootstrap.database_url(), pool_size=1)
    database.check_reachable(bootstrap.settings(), engine)
    engine.dispose()
    children: dict[int, int] = {}
    stopping = False

    def start(n: int) -> None:
        pid = os.fork()
        if pid == 0:  # the worker: its own socket, engine, app and loop
            signal.signal(signal.SIGTERM, signal.SIG_DFL)
            signal.signal(signal.SIGINT, signal.SIG_DFL)
            code = 0
            try:
                server(host, port).run(sockets=[shared_socket(host, port)])
            except BaseException:  # said in the log; the watcher starts it again
                import traceback

                traceback.print_exc()
                code = 1
            finally:
                os._exit(code)
        children[pid] = n

    def stop(signum, frame) -> None:
        nonlocal stopping
        stopping = True
        for pid in list(children):
            try:
                os.kill(pid, signal.SIGTERM)
            except ProcessLookupError:
                pass

    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)
    for n in range(workers):
        start(n)
    while children:
        try:
            pid, status = os.wait()
        except ChildProcessError:
            break
        n = children.pop(pid, None)
        if n is not None and not stopping:
            print(f"web process {n + 1} (pid {pid}) ended ({status}); starting it again", flush=True)
            time.sleep(1.0)
            if not stopping:
                start(n)


def server(host: str, port: int, wrap: Callable[[Any], Any] | None = None, **app_options: Any) -> Any:
    """The web server `tourney web` runs (a uvicorn.Server): the app over an engine whose pool keeps a
    connection for every worker thread (`infra/web_server.POOL`), served by `infra/web_server.config`.
    The one place it is configured: `bench/bench_players.py` serves through it too, its app wrapped by
    `wrap` (a timing middleware) and made with `app_options` (`create_app`'s)."""
    import uvicorn

    from flows.web.app import create_app
    from infra import database
    from infra.web_server import POOL, collect_less, config

    settings = bootstrap.settings()
    engine = bootstrap.own_engine(bootstrap.database_url(), **POOL)
    database.check_reachable(settings, engine)
    app = create_app(engine, **{"poll_interval": settings.web_safety_poll(), **app_options})
    served = uvicorn.Server(config(wrap(app) if wrap else app, host, port, settings))
    collect_less()
    return served
