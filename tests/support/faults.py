"""The fault tests' parts (tests/faults/, docs/testing.md#faults): a PostgreSQL cluster of the test's own
(the project's binaries, its own port and data folder: stopping it hurts nobody else's tests), a real
`tourney web` process over it, and API clients that send every write with an `Idempotency-Key` and
send it again, the same key, on a connection error or a 5xx, keeping what each key was finally answered."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

import httpx

from infra.cluster import Cluster
from tests.support.net import free_port


@contextmanager
def own_cluster(setenv: Callable[[str, str], None]) -> Iterator[Cluster]:
    """A fresh cluster on a free port in a folder of its own (the postgres user can traverse it), its
    TOURNEY_PG_PORT set by `setenv` (a test's `monkeypatch.setenv`). Stopped and removed afterwards,
    whatever happened."""
    home = Path(tempfile.mkdtemp(prefix="tourney-fault-", dir="/tmp"))
    os.chmod(home, 0o755)  # the postgres user runs the cluster when the tests run as root
    setenv("TOURNEY_PG_PORT", str(free_port()))
    cluster = Cluster(home)
    try:
        cluster.up()
        yield cluster
    finally:
        try:
            cluster.stop()
        finally:
            shutil.rmtree(cluster.base, ignore_errors=True)
            shutil.rmtree(home, ignore_errors=True)


@contextmanager
def web_process(database_url: str, log: Path, *, within: float = 60) -> Iterator[str]:
    """`tourney web` as a process of its own over `database_url`; yields its base URL once it answers;
    terminated (killed if it must be) at the end."""
    port = free_port()
    env = {**os.environ, "DATABASE_URL": database_url}
    with log.open("ab") as out:
        process = subprocess.Popen(
            [sys.executable, "-c", "from flows.cli.app import main; main()", "web", "--port", str(port)],
            env=env,
            stdout=out,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
            start_new_session=True,
        )
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + within
        while True:
            if process.poll() is not None:
                raise RuntimeError(f"tourney web exited with {process.returncode}: {log.read_text()[-2000:]}")
            try:
                if httpx.get(f"{url}/static/web.css", timeout=2).status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            if time.monotonic() > deadline:
                raise RuntimeError(f"tourney web did not answer in {within:.0f} s: {log.read_text()[-2000:]}")
            time.sleep(0.2)
        yield url
    finally:
        process.terminate()
        try:
            process.wait(15)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


@dataclass
class Outcome:
    """What one write (one key) was finally answered: its status and body, how many times it was sent,
    whether the answer was a replay (`Idempotent-Replayed: true`); status 0: never answered."""

    who: str
    action: str
    path: str
    key: str
    status: int = 0
    body: object = None
    tries: int = 0
    replayed: bool = False


@dataclass
class Clients:
    """Every client's writes through one connection pool (`http`, thread-safe), and what each was
    finally answered, shared by the clients' threads."""

    base_url: str
    http: httpx.Client
    give_up_after: float = 90.0  # seconds one write may take, retries included
    outcomes: list[Outcome] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def write(
        self,
        who: str,
        action: str,
        path: str,
        token: str,
        body: dict | None,
        *,
        impatient: bool = False,
    ) -> Outcome:
        """POST `body` to /api/v1`path` with a new Idempotency-Key, again with the same key on a
        connection error, a 5xx or `idempotency-key-in-use` (a try still being answered), until a
        final answer or `give_up_after`. `impatient`: the first try gives up after 5 ms without reading
        its answer (an answer lost on the way: the change may be made, the client does not know)."""
        out = Outcome(who, action, path, str(uuid.uuid4()))
        headers = {"authorization": f"Bearer {token}", "idempotency-key": out.key}
        deadline = time.monotonic() + self.give_up_after
        while time.monotonic() < deadline:
            out.tries += 1
            timeout = httpx.Timeout(30, read=0.005) if impatient and out.tries == 1 else httpx.Timeout(30)
            try:
                r = self.http.post(f"{self.base_url}/api/v1{path}", json=body, headers=headers, timeout=timeout)
            except httpx.TransportError:
                time.sleep(_pause(out.tries))
                continue
            answer = r.json() if r.content else None
            in_use = (
                r.status_code == 409 and isinstance(answer, dict) and answer.get("code") == "idempotency-key-in-use"
            )
            if r.status_code >= 500 or in_use:
                time.sleep(_pause(out.tries))
                continue
            out.status, out.body = r.status_code, answer
            out.replayed = r.headers.get("idempotent-replayed") == "true"
            break
        with self.lock:
            self.outcomes.append(out)
        return out


def _pause(tries: int) -> float:
    """Seconds before the next try: 0.1, 0.2, 0.4, then 0.5 (a client backing off, not hammering)."""
    return min(0.5, 0.1 * 2 ** (tries - 1))


@dataclass(frozen=True)
class Host:
    """A network namespace made by a test: a machine of its own whose one link (a veth pair) reaches
    the test's host at `gateway`; `partition()` takes the link down on the host's side, `heal()` up."""

    name: str
    link: str  # the host's end of the veth pair
    gateway: str  # the host's address on the link (where the host's servers listen for this machine)
    address: str  # the machine's address

    def run(self, argv: list[str]) -> list[str]:
        """`argv` run inside the namespace."""
        return ["ip", "netns", "exec", self.name, *argv]

    def partition(self) -> None:
        _ip("link", "set", self.link, "down")

    def heal(self) -> None:
        _ip("link", "set", self.link, "up")


def _ip(*args: str) -> None:
    subprocess.run(["ip", *args], check=True, capture_output=True, text=True)


@contextmanager
def hosts(count: int) -> Iterator[list[Host]]:
    """`count` network namespaces, each with a veth pair to this host on a /30 of its own (10.x.y.z, drawn
    so that two runs at once do not meet); the namespaces and links removed at the end, whatever happened."""
    tag = uuid.uuid4().hex[:6]
    net = (200 + int(tag[:2], 16) % 50, int(tag[2:4], 16))
    made: list[Host] = []
    try:
        for n in range(count):
            host = Host(
                f"tourney-{tag}-{n}",
                f"tk{tag}{n}",
                f"10.{net[0]}.{net[1]}.{4 * n + 1}",
                f"10.{net[0]}.{net[1]}.{4 * n + 2}",
            )
            made.append(host)
            inside = f"tk{tag}{n}i"
            _ip("netns", "add", host.name)
            _ip("link", "add", host.link, "type", "veth", "peer", "name", inside)
            _ip("link", "set", inside, "netns", host.name)
            _ip("addr", "add", f"{host.gateway}/30", "dev", host.link)
            _ip("link", "set", host.link, "up")
            for args in (("addr", "add", f"{host.address}/30", "dev", inside), ("link", "set", inside, "up")):
                _ip("-n", host.name, *args)
            _ip("-n", host.name, "link", "set", "lo", "up")
        yield made
    finally:
        for host in made:
            subprocess.run(["ip", "netns", "del", host.name], capture_output=True)
            subprocess.run(["ip", "link", "del", host.link], capture_output=True)  # gone with its peer, else now


def listen_for(cluster: Cluster, machines: list[Host]) -> None:
    """The cluster listening on each machine's gateway too and taking password sign-ins from it: restarted."""
    conf, hba = cluster.data_dir / "postgresql.conf", cluster.data_dir / "pg_hba.conf"
    with conf.open("a") as handle:
        handle.write(f"listen_addresses = '{','.join(['127.0.0.1', *(m.gateway for m in machines)])}'\n")
    with hba.open("a") as handle:
        handle.writelines(f"host all all {m.address}/32 scram-sha-256\n" for m in machines)
    cluster.stop()
    cluster.up()


class PrefectProcess:
    """`prefect server start` on a database and port of the test's own, as tests/support/prefect_server.py
    starts the session's, but killed (SIGKILL) and started again on the same database and port by the test."""

    def __init__(self, database_url: str, log: Path):
        from sqlalchemy.engine import make_url

        self.port = free_port()
        self.api_url = f"http://127.0.0.1:{self.port}/api"
        self.log = log
        asyncpg = make_url(database_url).set(drivername="postgresql+asyncpg").render_as_string(hide_password=False)
        self.env = {
            **os.environ,
            "PREFECT_API_URL": self.api_url,
            "PREFECT_SERVER_DATABASE_CONNECTION_URL": asyncpg,
            "PREFECT_SERVER_ANALYTICS_ENABLED": "false",
            "PREFECT_UI_ENABLED": "false",
        }
        self.env.pop("PREFECT_API_AUTH_STRING", None)
        self.process: subprocess.Popen | None = None

    def start(self, within: float = 180) -> None:
        argv = [sys.executable, "-m", "prefect", "server", "start", "--host", "127.0.0.1", "--port", str(self.port)]
        with self.log.open("ab") as out:
            self.process = subprocess.Popen(
                argv, stdout=out, stderr=subprocess.STDOUT, env=self.env, start_new_session=True
            )
        deadline = time.monotonic() + within
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(
                    f"prefect server exited with {self.process.returncode}: {self.log.read_text()[-2000:]}"
                )
            try:
                if httpx.get(f"{self.api_url}/health", timeout=2).status_code == 200:
                    return
            except httpx.HTTPError:
                pass
            time.sleep(0.3)
        raise RuntimeError(f"prefect server did not answer in {within:.0f} s: {self.log.read_text()[-2000:]}")

    def kill(self) -> None:
        """The server and every process it started, at once (SIGKILL): nothing of it answers."""
        if self.process is not None and self.process.poll() is None:
            os.killpg(self.process.pid, 9)
            self.process.wait()
        self.process = None
