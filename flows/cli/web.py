"""`tourney web`: the public, read-only web pages (docs/web.md), served by uvicorn."""

from __future__ import annotations

import subprocess
import sys
from typing import Annotated

import typer

from flows.cli.output import say
from infra.config import load_settings


def web_command(
    host: Annotated[str, typer.Option(help="the address to listen on")] = "127.0.0.1",
    port: Annotated[int, typer.Option(help="the port to listen on")] = 8080,
    background: Annotated[bool, typer.Option(help="serve in a detached process, recorded for `tourney stop` "
                                                  "(log: TOURNEY_HOME/web.log)")] = False,
) -> None:
    """Serve the public pages: the club's screen, live results, certificate checks, calendars."""
    from infra import processes

    settings = load_settings()
    if background:
        running = processes.recorded(settings, "web")
        if running is not None:
            say(f"the web pages are already served (pid {running}) at {settings.public_url}")
            return
        log = settings.home / "web.log"
        log.parent.mkdir(parents=True, exist_ok=True)
        args = [sys.executable, "-c", "from flows.cli.app import main; main()", "web", "--host", host,
                "--port", str(port)]
        with open(log, "ab") as out:
            process = subprocess.Popen(args, stdout=out, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                                       start_new_session=True)
        processes.record(settings, "web", process.pid)
        say(f"web pages served in the background (pid {process.pid}) at {settings.public_url}; log: {log}")
        return
    import uvicorn

    from domain.store.db import check_reachable, get_engine
    from flows.web.app import create_app

    engine = get_engine()
    check_reachable(engine)
    uvicorn.run(create_app(engine), host=host, port=port, log_level="warning", access_log=False,
                server_header=False, proxy_headers=False)
