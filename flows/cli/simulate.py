"""`tourney simulate`: drive a live poker and/or a Pusoy Dos tournament to the end in compressed
time (flows/simulate.py), or seed the demo first (`--demo`, what `make run` does)."""

from __future__ import annotations

import random
import subprocess
import sys
from datetime import timedelta
from typing import Annotated

import typer

from domain.errors import DomainError
from flows import bootstrap
from flows.cli import clock
from flows.cli.lazy import lazy
from flows.cli.output import emit, say, transaction

demo_service = lazy("domain.simulate.services.demo")


def simulate_command(
    poker: Annotated[int | None, typer.Option(help="live poker tournament id")] = None,
    pusoy: Annotated[str | None, typer.Option(help="Pusoy Dos join code")] = None,
    demo: Annotated[
        bool,
        typer.Option(
            help="seed the demo (club, series, tournaments) and drive it; when "
            "it is seeded, drive its unfinished tournaments on"
        ),
    ] = False,
    seed: Annotated[int, typer.Option(help="seed of every random choice")] = 1,
    speed: Annotated[
        float,
        typer.Option(
            help="1: the wall clock (served jobs); S: S simulated seconds a "
            "second, jobs run here with the simulated now; 0: no waiting"
        ),
    ] = 1.0,
    play_minutes: Annotated[
        int, typer.Option(help="poker: minutes from the start to the last bust", min=1, max=24 * 60)
    ] = 4,
    no_shows: Annotated[int, typer.Option(help="poker: registered players who never come", min=0, max=10000)] = 3,
    players: Annotated[int, typer.Option(help="--demo: live poker players registered", min=2, max=10000)] = 30,
    pusoy_players: Annotated[int, typer.Option(help="--demo: Pusoy Dos capacity (8, 16 or 32)")] = 16,
    background: Annotated[
        bool, typer.Option(help="run the simulation in a detached process (log: TOURNEY_HOME/simulate.log)")
    ] = False,
    timeout_minutes: Annotated[int, typer.Option(help="give up after this long", min=1, max=24 * 60)] = 30,
) -> None:
    """Drive tournaments through the real services and jobs: check-ins, no-shows, busts with
    killers, re-entries, add-ons, Pusoy Dos game reports; stops when both finish and their
    documents are published."""
    resuming = None
    if demo:
        if poker is not None or pusoy is not None:
            raise DomainError(
                "simulate-demo-or-ids", "--demo seeds its own tournaments: give --demo or --poker/--pusoy"
            )
        made = _demo(seed, players, pusoy_players)
        if made is None:
            return
        poker, pusoy, resuming = made
    if poker is None and pusoy is None:
        raise DomainError("simulate-nothing", "name a tournament: --poker ID and/or --pusoy CODE (or --demo)")
    try:
        with demo_service.driving(bootstrap.engine(), poker, pusoy):  # one simulator at a time on a tournament
            if resuming:
                say(resuming)
            if not background:  # (in the background, the detached process takes them itself)
                from flows.simulate import simulate

                emit(
                    simulate(
                        poker_id=poker,
                        pusoy_code=pusoy,
                        seed=seed,
                        speed=speed,
                        play=timedelta(minutes=play_minutes),
                        absent=no_shows,
                        timeout=timedelta(minutes=timeout_minutes),
                        say=say,
                    ),
                    "simulation",
                )
                return
    except DomainError as exc:
        if demo and exc.code == "simulate-running":  # `make run` again while the demo's simulator runs on
            say("the demo's simulator is still running: nothing to resume")
            return
        raise
    _detach(
        [
            "--seed",
            str(seed),
            "--speed",
            str(speed),
            "--play-minutes",
            str(play_minutes),
            "--no-shows",
            str(no_shows),
            "--timeout-minutes",
            str(timeout_minutes),
        ]
        + (["--poker", str(poker)] if poker is not None else [])
        + (["--pusoy", pusoy] if pusoy is not None else [])
    )


def _demo(seed: int, players: int, pusoy_players: int) -> tuple[int, str, str | None] | None:
    """The demo's poker id and Pusoy Dos code, seeded now unless it is there, and what to say when
    resuming it; None when it is there and both tournaments are over (nothing to resume)."""
    with transaction() as session:
        made = demo_service.find_demo(session)
        if made is None:
            made = demo_service.seed_demo(
                session, clock.now(), random.Random(seed), players=players, pusoy_players=pusoy_players
            )
            seeded = None
        else:
            seeded = (
                demo_service.poker_status(session, made.poker_id),
                demo_service.pusoy_status(session, made.pusoy_code),
            )
        # (a demo seeded before accounts existed gets them now; a seeded one keeps its own)
        sign_in, held = _demo_accounts(session, made.club_id)
    if seeded is None:
        emit(
            {
                "club_id": made.club_id,
                "series_id": made.series_id,
                "poker_id": made.poker_id,
                "pusoy_code": made.pusoy_code,
                "sign_in": sign_in,
            },
            "demo seeded",
        )
        _say_each(held)
        return made.poker_id, made.pusoy_code, None
    say(sign_in)
    _say_each(held)
    if seeded[0] in ("finished", "cancelled") and seeded[1] in ("complete", "cancelled"):
        say(f"the demo is finished (poker {made.poker_id}, pusoy {made.pusoy_code}): nothing to resume")
        return None
    return (
        made.poker_id,
        made.pusoy_code,
        (
            f"resuming the demo: poker {made.poker_id} {seeded[0].replace('_', ' ')}, "
            f"pusoy {made.pusoy_code} {seeded[1]}"
        ),
    )


DEMO_ACCOUNTS_FILE = "demo-accounts.txt"
ROLE_WORDS = {"owner": "owner", "floor": "floor manager", "cashier": "cashier", "operator": "operator"}


def _demo_accounts(session, club_id: int) -> tuple[str, list[str]]:
    """The demo's accounts (both demo clubs' staff and the players), seeded unless they are there;
    each password written once, to TOURNEY_HOME/demo-accounts.txt (mode 0600), inside the seeding's
    transaction (a file that cannot be written seeds nothing). The file is rewritten only when the
    seeding changed something, keeping the passwords it holds.
    Returns where to sign in and where the passwords are, and how to sign in as each account (its
    e-mail, roles and clubs), never a password."""
    settings = bootstrap.settings()
    path = settings.home / DEMO_ACCOUNTS_FILE
    now = clock.now()
    made = demo_service.seed_demo_accounts(session, bootstrap.password_hasher(), club_id, now)
    made += demo_service.seed_second_demo_club(session, bootstrap.password_hasher(), now)[1]
    url = f"{settings.public_url()}/signin"
    known = _passwords(path) | {a.email: a.password for a in made}
    there = demo_service.demo_sign_ins(session)
    rows = [f"{s.email}\t{_held(s)}\t{known.get(s.email, '-')}" for s in there]
    if made or (path.exists() and _rows(path) != rows):
        lines = [
            f"# The demo's accounts, seeded {now:%Y-%m-%d %H:%M} UTC: sign in at {url}.",
            "# Each password drawn once and kept only here (`tourney user password EMAIL` sends a new link;",
            "# '-': an account seeded before this file, its password not here).",
            "# e-mail\trole(s)\tpassword",
            *rows,
        ]
        _write_private(path, "\n".join(lines) + "\n")
    held = [f"{s.email}: {_held(s)}" for s in there]
    if not path.exists():
        return f"the demo's accounts are there already (their passwords were in {path}); sign in at {url}", held
    return f"demo accounts: sign in at {url} with an e-mail and password from {path}", held


def _say_each(held: list[str]) -> None:
    """How to sign in as each account, then where each works (the desk, the players' pages)."""
    for line in held:
        say(f"  sign in as {line}")
    say(where_to_work())


def where_to_work() -> str:
    url = bootstrap.settings().public_url().rstrip("/")
    return f"  the floor and the counter work at {url}/desk, players at {url}/play"


def _held(account) -> str:
    """What a demo account holds, in words: 'floor manager of club 1 (Демо-клуб Tourney), ...'."""
    held = [
        f"{ROLE_WORDS.get(role, role)} of club {club} ({name})" if club else ROLE_WORDS.get(role, role)
        for role, club, name in account.roles
    ]
    return ", ".join(held + ([f"player {account.player}"] if account.player else []))


def _rows(path) -> list[str]:
    return [line for line in path.read_text().splitlines() if line and not line.startswith("#")]


def _passwords(path) -> dict[str, str]:
    """The passwords the demo's file holds, by e-mail (the last column; '-' is none)."""
    if not path.exists():
        return {}
    cells = [row.split("\t") for row in _rows(path)]
    return {c[0]: c[-1] for c in cells if len(c) >= 2 and c[-1] != "-"}


def _write_private(path, text: str) -> None:
    """`text` into `path`, readable by its owner only, replacing it whole (never half written)."""
    import os

    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w") as out:
        out.write(text)
    os.replace(tmp, path)


def _detach(options: list[str]) -> None:
    """`tourney simulate <options>` in a detached process logging to TOURNEY_HOME/simulate.log,
    recorded so `tourney stop` ends it."""
    from infra import processes

    log = bootstrap.settings().home / "simulate.log"
    log.parent.mkdir(parents=True, exist_ok=True)
    args = [sys.executable, "-c", "from flows.cli.app import main; main()", "simulate", *options]
    with open(log, "ab") as out:
        process = subprocess.Popen(
            args, stdout=out, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, start_new_session=True
        )
    processes.record(bootstrap.settings(), "simulator", process.pid)
    say(f"simulator running in the background (pid {process.pid}); log: {log}")
