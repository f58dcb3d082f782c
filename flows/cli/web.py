"""`tourney web`: the public, read-only web pages (docs/web.md), served by uvicorn."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Callable
from typing import Annotated, Any

import typer

from flows import bootstrap
from flows.cli.output import say


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
) -> None:
    """Serve the public pages: the club's screen, live results, certificate checks, calendars."""
    from infra import processes

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
        say(f"web pages served in the background (pid {process.pid}) on {listening}{also}; log: {log}")
        return
    server(host, port).run()


def server(host: str, port: int, wrap: Callable[[Any], Any] | None = None, **app_options: Any) -> Any:
    """The web server `tourney web` runs (a uvicorn.Server): the app over an engine whose pool keeps a
    connection for every worker thread (`infra/web_server.POOL`), served by `infra/web_server.config`.
    The one place it is configured: `bench/bench_players.py` serves through it too, its app wrapped by
    `wrap` (a timing middleware) and made with `app_options` (`create_app`'s)."""
    import uvicorn

    from flows.web.app import create_app
    from infra import database
    from infra.web_server import POOL, config

    settings = bootstrap.settings()
    engine = bootstrap.own_engine(bootstrap.database_url(), **POOL)
    database.check_reachable(settings, engine)
    app = create_app(engine, **app_options)
    return uvicorn.Server(config(wrap(app) if wrap else app, host, port, settings))
