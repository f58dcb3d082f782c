"""`tourney`: the operator's and the floor's commands. Calls the same services the flows call."""

from __future__ import annotations

import functools
import json
import os
import sys
from typing import Annotated

import typer

from domain.errors import DomainError
from flows import bootstrap
from flows.cli.output import Invocation, clean, emit, follow_tournaments, say
from flows.cli.params import INT_MAX, argument_problems, bound_integers, json_flag, name_problems
from flows.cli.warm import group_of as _group_of  # the warm start's client reads the group the same way
from infra.config import redact

app = typer.Typer(rich_markup_mode=None, no_args_is_help=True, add_completion=False, help=__doc__)
db_app = typer.Typer(rich_markup_mode=None, no_args_is_help=True, help="The database: embedded cluster and migrations.")
server_app = typer.Typer(
    rich_markup_mode=None,
    no_args_is_help=True,
    help="The Prefect server (API and UI) on TOURNEY_PREFECT_LISTEN (127.0.0.1:4200).",
)
jobs_app = typer.Typer(
    rich_markup_mode=None, no_args_is_help=True, help="The jobs (Prefect flows) and their schedules."
)
app.add_typer(db_app, name="db")
app.add_typer(server_app, name="server")
app.add_typer(jobs_app, name="jobs")
# Each area registers its command group on its own line below.

# area: clubs
from flows.cli.clubs import app as clubs_app

app.add_typer(clubs_app, name="club")

# area: pusoy
from flows.cli.pusoy import app as pusoy_app

app.add_typer(pusoy_app, name="pusoy")

# area: poker (one `poker` group: the tournaments' commands, the floor's, the results', structures)
from flows.cli import players, poker, poker_clock_seating, poker_knockouts_places, structures

poker.app.add_typer(poker_clock_seating.app)
poker.app.add_typer(poker_knockouts_places.app)
poker.app.add_typer(structures.app, name="structure")
app.add_typer(poker.app, name="poker")
app.add_typer(players.app, name="player")

# area: documents
from flows.cli.documents import app as documents_app

app.add_typer(documents_app, name="documents")

# area: series and operations
from flows.cli.series import app as series_app

app.add_typer(series_app, name="series")

# area: leagues
from flows.cli.leagues import app as leagues_app

app.add_typer(leagues_app, name="league")

# area: webhooks
from flows.cli.webhooks import app as webhooks_app

app.add_typer(webhooks_app, name="webhook")

# area: demo and simulator
from flows.cli.simulate import simulate_command

app.command("simulate")(simulate_command)

# area: accounts and access (users, tokens, the audit trail)
from flows.cli.accounts import audit_command, token_app, user_app

app.add_typer(user_app, name="user")
app.add_typer(token_app, name="token")
app.command("audit")(audit_command)

# area: web (the public pages)
from flows.cli.web import web_command

app.command("web")(web_command)


@app.command("deploy")
def deploy(
    pool: Annotated[str, typer.Option(help="the process work pool (created when missing)")] = "tourney",
    pool_limit: Annotated[
        int | None, typer.Option(help="most runs at once in the whole pool", min=1, max=INT_MAX)
    ] = None,
    requeue_after: Annotated[
        int, typer.Option(help="seconds without a heartbeat before a run is requeued", min=1, max=INT_MAX)
    ] = 90,
    requeue_pending_after: Annotated[
        int,
        typer.Option(
            min=1,
            max=INT_MAX,
            help="seconds a claimed run may stay Pending before it is requeued (longer than a run's process "
            "takes to start on a busy machine)",
        ),
    ] = 300,
    only: Annotated[list[str] | None, typer.Option("--job", help="only this job (repeat); default: every job")] = None,
) -> None:
    """Register deployments to a process work pool, for workers on any machine (`tourney worker`):
    every job, or the `--job` ones (e.g. the heavy `publish-results` on a pool of its own)."""
    from datetime import timedelta

    from flows.deployments import job
    from flows.ops import register

    jobs = [job(name) for name in only] if only else None
    _require_prefect_api()
    emit(
        register(pool, pool_limit, timedelta(seconds=requeue_after), timedelta(seconds=requeue_pending_after), jobs),
        f"deployments in pool '{pool}'",
    )


@app.command("worker")
def worker(
    pool: Annotated[str, typer.Option(help="the work pool to take runs from")] = "tourney",
    limit: Annotated[int, typer.Option(help="most runs this worker executes at once", min=1, max=1000)] = 4,
) -> None:
    """Run a Prefect process worker for the pool in the foreground, with tourney's environment."""
    _require_prefect_api()
    command = [
        sys.executable,
        "-m",
        "prefect",
        "worker",
        "start",
        "--pool",
        pool,
        "--type",
        "process",
        "--limit",
        str(limit),
    ]
    os.execv(sys.executable, command)


@app.callback()
def _global(
    ctx: typer.Context,
    as_json: Annotated[
        bool, typer.Option("--json", help="Print machine-readable JSON (anywhere on the line).")
    ] = False,
    as_name: Annotated[
        str | None,
        typer.Option(
            "--as",
            metavar="NAME",
            help="Who is at the keyboard, for the audit trail of every change (default: the OS user).",
        ),
    ] = None,
) -> None:
    # the invocation's output state (`main()` passes it, `--json` taken off the line) takes the global
    # options; every subcommand's context inherits it as `ctx.obj` (no docstring: that would be the help)
    state = ctx.ensure_object(Invocation)
    state.json = state.json or as_json
    if as_name is not None:
        if not as_name.strip():
            raise DomainError("as-blank", "--as takes a name: who is at the keyboard")
        name_problems("--as name", as_name)
        state.actor = as_name.strip()


# -- db ------------------------------------------------------------------------------------------


@db_app.command("up")
def db_up() -> None:
    """Start the embedded PostgreSQL cluster (reused when running) and create its databases."""
    settings = bootstrap.settings()
    if not settings.embedded:
        say("DATABASE_URL is set: using that server, nothing started")
        return
    from infra.cluster import Cluster

    say(Cluster(settings.home).up())


@db_app.command("upgrade")
def db_upgrade() -> None:
    """Apply every pending migration."""
    from domain.store.migrate import database_heads, upgrade

    engine = bootstrap.check_reachable()
    upgrade(engine)
    emit({"database": engine.url.database, "heads": sorted(database_heads(engine))}, "schema upgraded")


@db_app.command("stop")
def db_stop() -> None:
    """Stop the embedded cluster cleanly."""
    settings = bootstrap.settings()
    if not settings.embedded:
        say("DATABASE_URL is set: nothing to stop")
        return
    from infra.cluster import Cluster

    say(Cluster(settings.home).stop())


@db_app.command("url")
def db_url() -> None:
    """Print the database URL in use (embedded or DATABASE_URL)."""
    from sqlalchemy.engine import make_url

    settings = bootstrap.settings()
    url = make_url(bootstrap.database_url())
    emit(
        {
            "url": url.render_as_string(hide_password=True),
            "embedded": settings.embedded,
            "prefect_api_url": settings.prefect_api_url,
        }
    )


# -- Prefect server --------------------------------------------------------------------------------


@server_app.command("up")
def server_up() -> None:
    """Start the Prefect server in the background on TOURNEY_PREFECT_LISTEN (the one this data folder
    started is reused; anything else answering there is refused)."""
    from infra import prefect_server as server

    say(server.up(bootstrap.settings()))


@server_app.command("stop")
def server_stop() -> None:
    """Stop the Prefect server started by `tourney server up`."""
    from infra import prefect_server as server

    say(server.stop(bootstrap.settings()))


# -- jobs ------------------------------------------------------------------------------------------


@jobs_app.command("list")
def jobs_list() -> None:
    """Every job, with its schedule."""
    from flows.deployments import JOBS

    emit(
        [{"name": j.name, "schedule": j.schedule, "description": j.description} for j in JOBS],
        "jobs",
    )


def _parse_params(pairs: list[str]) -> dict[str, object]:
    params: dict[str, object] = {}
    for pair in pairs:
        key, sep, raw = pair.partition("=")
        if not sep or not key:
            raise DomainError("bad-param", f"--param takes key=value, got '{pair}'")
        try:
            params[key] = json.loads(raw)
        except json.JSONDecodeError:
            params[key] = raw
    return params


@jobs_app.command("run")
def jobs_run(
    name: str,
    param: Annotated[list[str], typer.Option("--param", help="key=value (value as JSON if it parses)")] = [],  # noqa: B006
) -> None:
    """Run a job now, in this process, reporting to the configured Prefect API."""
    from flows.deployments import job

    chosen = job(name)
    params = _parse_params(param)
    _require_prefect_api()
    result = chosen.flow(**params)
    emit({"job": name, "result": result})


@app.command("serve")
def serve(
    limit: Annotated[int, typer.Option(help="Most flow runs executing at once.", min=1, max=1000)] = 4,
    skip: Annotated[
        list[str] | None,
        typer.Option(
            help="a job this runner leaves to a work pool's workers (repeat; `tourney deploy --job` it there)"
        ),
    ] = None,
) -> None:
    """Serve every deployment (but the `--skip` ones) with its schedule, in the foreground (Ctrl-C
    stops); start the timekeeper (its active run and its standby, which take two slots beside the
    `limit`; its deployment is this machine's, TOURNEY_MACHINE) and the event consumer (a thread of
    this process, flows/jobs/events.py); make the requeue automations when
    missing. The runner is Prefect's public `Runner`, held here so that the timekeeper's start sees
    its `stopping` (set by its SIGTERM handler) and makes no run while it shuts down."""
    import asyncio

    from prefect.exceptions import TerminationSignal
    from prefect.runner import Runner

    from flows.deployments import deployments
    from flows.jobs import events
    from flows.jobs.timekeeper import RUNS, deployment_name, start_when_served
    from flows.ops import REQUEUE_AFTER, REQUEUE_PENDING_AFTER, ensure_requeue_automation
    from infra import processes

    if "timekeeper" in (skip or ()):
        raise DomainError(
            "timekeeper-not-skippable", "the timekeeper runs where `tourney serve` runs: it cannot be skipped"
        )
    settings = bootstrap.settings()
    machine = settings.machine()
    served = deployments(skip or (), machine=machine)  # an unknown job is refused before anything starts
    _require_prefect_api()
    processes.record(settings, "serve")
    ensure_requeue_automation(REQUEUE_AFTER, REQUEUE_PENDING_AFTER, replace=False)  # as `tourney deploy` makes it
    runner = Runner(limit=limit + RUNS)
    for d in served:
        runner.add_deployment(d)
    start_when_served(own=deployment_name(machine), stopping=lambda: runner.stopping)
    consumer = events.start()  # the event consumer: active here, or standby to another machine's
    say(f"serving {len(served)} jobs on machine {machine} (Ctrl-C stops)")
    try:
        asyncio.run(runner.start())
    except (KeyboardInterrupt, TerminationSignal):
        say("stopped serving")
    finally:
        consumer.stop()


@app.command("stop")
def stop() -> None:
    """Stop everything `make run` started: the demo simulator, `tourney serve` and the flow runs it
    started, the Prefect server, the embedded cluster; and this environment's warm server."""
    from flows.cli import warm
    from infra import prefect_server as server
    from infra import processes

    settings = bootstrap.settings()
    for name in processes.NAMES:
        say(processes.stop(settings, name))
    say(server.stop(settings))
    say(warm.stop())
    if settings.embedded:
        from infra.cluster import Cluster

        say(Cluster(settings.home).stop())


@app.command("version")
def version() -> None:
    """The installed version."""
    from importlib.metadata import version as package_version

    emit({"tourney": package_version("tourney"), "python": sys.version.split()[0]})


def _require_prefect_api() -> None:
    from prefect.settings import PREFECT_API_URL

    from flows.runs import api_answers

    if not api_answers():
        url = PREFECT_API_URL.value()
        raise DomainError(
            "prefect-unreachable",
            f"the Prefect API at {url} does not answer: start it with `make run` "
            "(or `tourney server up`), or set PREFECT_API_URL",
        )


@functools.cache
def _command(group: str | None = None):
    """The click command of the CLI, with every integer bounded and every tournament followed: built
    once per process (a test runs many commands in one). A command line that names a group builds
    that group alone beside the top-level commands (a fraction of the tree: `tourney` starts faster);
    `tourney --help` and an unknown group build the whole tree."""
    source = app
    if group is not None and any(info.name == group for info in app.registered_groups):
        source = typer.Typer(rich_markup_mode=None, add_completion=False)
        source.info = app.info
        source.registered_callback = app.registered_callback
        source.registered_commands = app.registered_commands
        source.registered_groups = [info for info in app.registered_groups if info.name == group]
    command = typer.main.get_command(source)
    bound_integers(command)
    if "poker" in command.commands:
        follow_tournaments(command.commands["poker"])
    return command


def main(argv: list[str] | None = None) -> None:
    """Entry point: Prefect's environment set up, domain errors as one line and exit code 2."""
    from infra.prefect_server import prefect_env

    for key, value in prefect_env(bootstrap.settings()).items():
        os.environ.setdefault(key, value)
    try:
        args, as_json = json_flag(list(sys.argv[1:] if argv is None else argv))
        argument_problems(args)
        command = _command(_group_of(args))
        code = command.main(args=args, prog_name="tourney", standalone_mode=False, obj=Invocation(json=as_json))
        if isinstance(code, int) and code:
            sys.exit(code)
    except DomainError as exc:
        _refuse(exc.message)
    except typer.Abort:
        sys.exit(1)
    except typer.TyperException as exc:  # a bad argument or option (click's errors): one line, exit 2
        _refuse(exc.format_message())
    except Exception as exc:
        message = _database_refusal(exc)
        if message is None:
            raise
        _refuse(message)


def _database_refusal(exc: Exception) -> str | None:
    """The one line for what the database refused or could not do; None for any other error. Only a
    command that loaded SQLAlchemy can raise its errors, so the others never load it here."""
    if "sqlalchemy" not in sys.modules:
        return None
    from psycopg import OperationalError as PsycopgOperationalError
    from psycopg.errors import UndefinedTable
    from sqlalchemy.exc import DataError, OperationalError, ProgrammingError

    if isinstance(exc, OperationalError | PsycopgOperationalError):  # the database does not answer
        return bootstrap.unreachable(exc)
    if isinstance(exc, ProgrammingError) and isinstance(exc.orig, UndefinedTable):
        return "the database's schema is behind this version: run `tourney db upgrade` (or `make run`)"
    if isinstance(exc, DataError):  # a value the checks above missed: refused by PostgreSQL, nothing written
        return f"a value is outside what the database stores: {str(exc.orig).splitlines()[0]}"
    return None


def _refuse(message: str) -> None:
    """One line on stderr (control characters dropped, wrapped lines joined), exit 2."""
    print(f"error: {' '.join(clean(redact(message)).split())}", file=sys.stderr)
    sys.exit(2)


if __name__ == "__main__":
    main()
