"""Issue 41, "The web on N processes": real `tourney web` processes sharing the test database. A desk's
action through one reaches an event stream held on another (NOTIFY, not a poll: the safety net's
poll is 10 minutes here); the join-code throttle and the sign-in throttle count the asks made on both;
a session made on one works on the other; the LISTEN connection comes back after its backend is ended
(pg_terminate_backend) and the next change still reaches the stream; `tourney web --workers 2` serves
one port from two processes and `tourney stop` ends them all (issue 40: the other tablet and the
screen follow an action by NOTIFY)."""

from __future__ import annotations

import json
import queue
import secrets
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import httpx
import pytest
from sqlalchemy import text

from flows import bootstrap
from infra import processes
from tests.support.cli import refused, run_process
from tests.support.net import free_port
from tests.support.world import PASSWORD, access_world

WAIT_S = 30.0  # the longest a change may take to reach a stream on a loaded machine before the test fails
CODES = "23456789ABCDEFGHJKLMNPQRSTUVWXYZ"
LISTENERS = text(
    "SELECT pid FROM pg_stat_activity WHERE application_name = 'tourney web live' AND datname = current_database()"
)


@contextmanager
def served(home: Path, *args: str, env: dict[str, str] | None = None) -> Iterator[str]:
    """`tourney web --background` on a free port with its own TOURNEY_HOME (the safety net's poll at 10
    minutes: what a stream gets in this test came by NOTIFY); its address; `tourney stop` afterwards."""
    port = free_port()
    env = {"TOURNEY_HOME": str(home), "TOURNEY_WEB_SAFETY_POLL": "600", **(env or {})}
    started = run_process("web", "--background", "--port", str(port), *args, env=env, timeout=120)
    assert started.returncode == 0, started.stderr
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        stopped = run_process("stop", env=env, timeout=60)
        assert stopped.returncode == 0, stopped.stderr


class Stream:
    """A follower of an event stream in a thread: each event's JSON in `events`, in order."""

    def __init__(self, url: str):
        self.events: queue.Queue[dict] = queue.Queue()
        self.thread = threading.Thread(target=self._follow, args=(url,), daemon=True)
        self.thread.start()

    def _follow(self, url: str) -> None:
        try:
            with httpx.stream("GET", url, timeout=httpx.Timeout(10, read=None)) as r:
                for line in r.iter_lines():
                    if line.startswith("data: "):
                        self.events.put(json.loads(line[6:]))
        except httpx.HTTPError:  # the server stopped at the test's end: the stream ends
            pass

    def next(self) -> dict:
        return self.events.get(timeout=WAIT_S)


def _arrive(url: str, w, handle: str = "anna") -> None:
    r = httpx.post(
        f"{url}/api/v1/desk/tournaments/{w.tournament_a}/arrivals",
        json={"player": handle},
        headers=w.headers("floor"),
        timeout=30,
    )
    assert r.status_code == 200, r.text


def _registered(state: dict) -> int:
    return state["registered"]


def _pids_alive(pids: list[int]) -> list[int]:
    return [p for p in pids if processes.start_time(p) is not None and not _zombie(p)]


def _zombie(pid: int) -> bool:
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] == "Z"
    except FileNotFoundError:
        return True


def test_issue_41_a_desk_action_through_one_web_process_reaches_a_stream_held_on_another(committed, tmp_path):
    """Issue 41 (live hub across processes), issue 40 (the other tablet and the screen follow by NOTIFY):
    the club's screen follows the tournament on process B; the floor records an arrival through
    process A; B's stream sends the new state, one more player registered, with no poll to find it."""
    w = access_world(committed)
    with served(tmp_path / "a") as a, served(tmp_path / "b") as b:
        stream = Stream(f"{b}/t/{w.tournament_a}/events")
        before = stream.next()
        _arrive(a, w)
        after = stream.next()
        assert _registered(after) == _registered(before) + 1


def test_issue_41_a_cli_write_reaches_a_stream_by_notify(committed, tmp_path):
    """Issue 41 (no poll on the hot path): the operator registers a player with `tourney poker register`; a
    stream held on a web process (its safety net at 10 minutes) sends the new state, one more registered:
    the command's NOTIFY, sent in its transaction, woke it."""
    w = access_world(committed)
    with served(tmp_path / "a") as a:
        stream = Stream(f"{a}/t/{w.tournament_a}/events")
        before = stream.next()
        done = run_process("poker", "register", str(w.tournament_a), "anna", env={"TOURNEY_WARM": "0"})
        assert done.returncode == 0, done.stderr
        assert _registered(stream.next()) == _registered(before) + 1


def test_issue_41_the_join_code_throttle_counts_the_asks_made_on_both_processes(committed, tmp_path):
    """Issue 41 (throttles across processes), PD-3: 10 distinct join codes a minute per address, counted
    once for every process: 6 codes guessed on A and 4 on B, the 11th is refused on either (429); a code
    already asked on A costs nothing again on B (its 404, not a 429)."""
    guesses = ["".join(secrets.choice(CODES) for _ in range(6)) for _ in range(11)]
    with served(tmp_path / "a") as a, served(tmp_path / "b") as b:
        asked = [
            httpx.get(f"{a if n < 6 else b}/p/{code}", timeout=30).status_code for n, code in enumerate(guesses[:10])
        ]
        assert asked == [404] * 10
        assert httpx.get(f"{a}/p/{guesses[10]}", timeout=30).status_code == 429
        assert httpx.get(f"{b}/p/{guesses[10]}", timeout=30).status_code == 429
        assert httpx.get(f"{b}/p/{guesses[0]}", timeout=30).status_code == 404


@pytest.mark.parametrize("trusted", [True, False])
def test_issue_41_behind_a_trusted_load_balancer_the_throttle_counts_each_forwarded_client(
    committed, tmp_path, trusted
):
    """Issue 41 (several hosts behind one address), PD-3: with TOURNEY_WEB_TRUSTED_PROXIES naming the
    balancer (here loopback), its `X-Forwarded-For` is the client: one client's 11th distinct code is
    refused (429) while another client behind the same balancer still asks (404). Without the setting the
    header is ignored (a client cannot pick its own address) and both are the one connection's address."""
    guesses = ["".join(secrets.choice(CODES) for _ in range(6)) for _ in range(12)]
    env = {"TOURNEY_WEB_TRUSTED_PROXIES": "127.0.0.1/32"} if trusted else {}

    def ask(url: str, code: str, client: str) -> int:
        return httpx.get(f"{url}/p/{code}", headers={"x-forwarded-for": client}, timeout=30).status_code

    with served(tmp_path / "a", env=env) as a:
        assert [ask(a, code, "198.51.100.7") for code in guesses[:10]] == [404] * 10
        assert ask(a, guesses[10], "198.51.100.7") == 429
        assert ask(a, guesses[11], "203.0.113.9") == (404 if trusted else 429)


def test_issue_41_a_session_made_on_one_process_works_on_the_other_and_sign_ins_throttle_on_both(committed, tmp_path):
    """Issue 41 (sessions and throttles across processes), AC-4: a session begun on A reads my account on
    B; 5 failed sign-ins of one account, 3 on A and 2 on B, and the right password is refused on
    either (429) until the window passes."""
    w = access_world(committed, bootstrap.password_hasher(), passwords=("floor", "owner"))
    with served(tmp_path / "a") as a, served(tmp_path / "b") as b:
        begun = httpx.post(f"{a}/api/v1/session", json={"email": w.emails["owner"], "password": PASSWORD}, timeout=30)
        assert begun.status_code == 200, begun.text
        me = httpx.get(f"{b}/api/v1/me", cookies=begun.cookies, timeout=30)
        assert me.status_code == 200 and me.json()["email"] == w.emails["owner"]
        wrong = {"email": w.emails["floor"], "password": "not the password"}
        failed = [
            httpx.post(f"{a if n < 3 else b}/api/v1/session", json=wrong, timeout=30).status_code for n in range(5)
        ]
        assert failed == [401] * 5
        right = {"email": w.emails["floor"], "password": PASSWORD}
        assert httpx.post(f"{a}/api/v1/session", json=right, timeout=30).status_code == 429
        assert httpx.post(f"{b}/api/v1/session", json=right, timeout=30).status_code == 429


def test_issue_41_the_listen_connection_comes_back_after_its_backend_is_ended(committed, tmp_path):
    """Issue 41 (a reconnecting listener): the web process's one LISTEN connection is ended by
    pg_terminate_backend; the process connects again (a new backend of that name), and the next
    arrival recorded still reaches the stream held on it."""
    w = access_world(committed)
    with served(tmp_path / "a") as a:
        stream = Stream(f"{a}/t/{w.tournament_a}/events")
        first = stream.next()
        with committed.connect() as conn:
            [listener] = conn.execute(LISTENERS).scalars().all()
            assert conn.execute(text("SELECT pg_terminate_backend(:pid)"), {"pid": listener}).scalar()
        deadline = time.monotonic() + WAIT_S
        while True:
            with committed.connect() as conn:
                now_listening = conn.execute(LISTENERS).scalars().all()
            if now_listening and listener not in now_listening:
                break
            assert time.monotonic() < deadline, "the LISTEN connection did not come back"
            time.sleep(0.1)
        _arrive(a, w)
        seen = stream.next()
        while _registered(seen) == _registered(first):  # a state re-read at the reconnection, if any
            seen = stream.next()
        assert _registered(seen) == _registered(first) + 1


def test_issue_41_tourney_web_workers_2_serves_one_port_from_two_processes_and_tourney_stop_ends_them(
    committed, tmp_path
):
    """Issue 41 (`tourney web --workers N`): two processes under the recorded one serve the port, each
    with its own LISTEN connection; an arrival through the port reaches a stream through the port;
    `tourney stop` ends the watcher and both; --workers 0 is one line, exit 2."""
    w = access_world(committed)
    home = tmp_path / "home"
    with served(home, "--workers", "2") as url:
        watcher = int((home / "run" / "web.pid").read_text().split()[0])
        workers = processes._descendants(watcher)
        assert len(workers) == 2
        stream = Stream(f"{url}/t/{w.tournament_a}/events")
        before = stream.next()
        _arrive(url, w)
        assert _registered(stream.next()) == _registered(before) + 1
    assert _pids_alive([watcher, *workers]) == []
    assert "--workers takes 1 to 64 processes, not 0" in refused(committed, "web", "--workers", "0", process=True)


@pytest.fixture(autouse=True)
def _no_listener_left(committed):
    """Each test's web processes are gone with their LISTEN connections."""
    yield
    deadline = time.monotonic() + WAIT_S
    while True:
        with committed.connect() as conn:
            if not conn.execute(LISTENERS).scalars().all():
                return
        assert time.monotonic() < deadline, "a web process's LISTEN connection outlived it"
        time.sleep(0.2)


def test_issue_41_a_web_process_socket_answers_without_nagles_delay():
    """Issue 41 (the web on N processes): the connections a `--workers` process accepts from its shared
    socket have TCP_NODELAY (asyncio sets it only for a socket named IPPROTO_TCP), so a kept-alive
    connection's second request is not held back by Nagle's algorithm and delayed ACKs."""
    import asyncio
    import socket
    from concurrent.futures import ThreadPoolExecutor

    from flows.cli.web import shared_socket

    async def accepted() -> int:
        seen: asyncio.Future[int] = asyncio.get_running_loop().create_future()

        def connected(reader, writer) -> None:
            seen.set_result(writer.get_extra_info("socket").getsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY))
            writer.close()

        listening = shared_socket("127.0.0.1", free_port())
        served = await asyncio.start_server(connected, sock=listening)
        try:
            _, writer = await asyncio.open_connection(*listening.getsockname())
            value = await asyncio.wait_for(seen, 10)
            writer.close()
            return value
        finally:
            served.close()

    with ThreadPoolExecutor(1) as thread:  # a loop of its own: a browser's may run in this one
        assert thread.submit(asyncio.run, accepted()).result(timeout=30) == 1
