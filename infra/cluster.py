"""The project's own PostgreSQL cluster, used when DATABASE_URL is unset.

initdb/pg_ctl into TOURNEY_HOME/pg, listening on 127.0.0.1 only, on a port derived from the data
folder's path (so two checkouts never collide; TOURNEY_PG_PORT overrides), never the standard 5432.
initdb refuses root, so as root the server runs as the `postgres` system user (TOURNEY_PG_USER
overrides); as an ordinary user it runs as that user.

Safe to call from several processes at once: starting takes an exclusive file lock, and a running
server is reused. A killed initdb cannot leave a half-made cluster behind: initdb writes into a
scratch folder that is renamed into place only when complete; a data folder without the completion
marker is moved aside and made anew.
"""

from __future__ import annotations

import fcntl
import glob
import grp
import os
import pwd
import secrets
import shutil
import subprocess
import time
import zlib
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import quote

from domain.errors import ConfigurationError

SUPERUSER = "tourney"
DATABASES = ("tourney", "prefect")
MARKER = ".tourney-initdb-complete"


@dataclass(frozen=True)
class Cluster:
    home: Path

    @property
    def base(self) -> Path:
        """The folder holding the cluster's files: TOURNEY_HOME, or one the server's user owns when
        it cannot reach TOURNEY_HOME."""
        owner = self._owner_entry()
        if owner is None or _reachable(self.home, owner):
            return self.home
        digest = zlib.crc32(str(self.home).encode())
        return Path(owner.pw_dir) / "tourney" / f"{self.home.name.lstrip('.') or 'home'}-{digest:08x}"

    @property
    def data_dir(self) -> Path:
        return self.base / "pg"

    @property
    def log_file(self) -> Path:
        return self.base / "pg.log"

    @property
    def password_file(self) -> Path:
        return self.home / "pg.password"

    def password(self) -> str | None:
        try:
            return self.password_file.read_text().strip() or None
        except FileNotFoundError:
            return None

    @property
    def port(self) -> int:
        given = os.environ.get("TOURNEY_PG_PORT")
        if given:
            return int(given)
        return 55000 + zlib.crc32(str(self.data_dir).encode()) % 900

    def url(self, database: str = "tourney", driver: str = "psycopg") -> str:
        password = self.password()
        auth = f"{SUPERUSER}:{quote(password, safe='')}" if password else SUPERUSER
        return f"postgresql+{driver}://{auth}@127.0.0.1:{self.port}/{database}"

    # -- lifecycle ---------------------------------------------------------------------------

    def up(self) -> str:
        """Start the cluster (or reuse the running one) and create its databases. Returns a message."""
        bindir = _bindir()
        self.home.mkdir(parents=True, exist_ok=True)
        with self._lock():
            note = self._place_note() + self._ensure_initialised(bindir)
            if self._running(bindir):
                state = f"reused the running cluster on 127.0.0.1:{self.port}"
            else:
                self._start(bindir)
                state = f"started the cluster on 127.0.0.1:{self.port}"
            note += self._require_password(bindir)
            self._create_databases()
        return f"{note}{state} ({self.data_dir})"

    def stop(self) -> str:
        bindir = _bindir()
        if not (self.data_dir / "PG_VERSION").exists() or not self._running(bindir):
            return "the cluster is not running"
        self._run_as_owner([str(bindir / "pg_ctl"), "stop", "-D", str(self.data_dir), "-m", "fast", "-w"])
        return f"stopped the cluster ({self.data_dir})"

    # -- internals -----------------------------------------------------------------------------

    @contextmanager
    def _lock(self) -> Iterator[None]:
        with open(self.home / "pg.lock", "w") as handle:
            fcntl.flock(handle, fcntl.LOCK_EX)
            try:
                yield
            finally:
                fcntl.flock(handle, fcntl.LOCK_UN)

    def _place_note(self) -> str:
        if self.base == self.home:
            return ""
        if not self.base.exists():
            owner = self._owner_entry()
            assert owner is not None
            for folder in (self.base.parent, self.base):
                folder.mkdir(mode=0o700, exist_ok=True)
                os.chown(folder, owner.pw_uid, owner.pw_gid)
        return (
            f"the PostgreSQL user '{self._owner()}' cannot reach {self.home}, so the cluster's files are in "
            f"{self.base}; "
        )

    def _ensure_initialised(self, bindir: Path) -> str:
        note = ""
        if self.data_dir.exists() and not (self.data_dir / MARKER).exists():
            aside = self.base / f"pg.broken-{int(time.time())}"
            self.data_dir.rename(aside)
            note = f"found a half-initialised data folder; moved it to {aside.name} and made a new one; "
        if self.data_dir.exists():
            return note
        scratch = self.base / "pg.initdb"
        shutil.rmtree(scratch, ignore_errors=True)
        scratch.mkdir(mode=0o700)
        password = self._new_password()
        pwfile = self.base / "pg.initdb.pw"
        pwfile.write_text(password + "\n")
        pwfile.chmod(0o600)
        self._give_to_owner(pwfile)
        self._give_to_owner(scratch)
        self._run_as_owner(
            [
                str(bindir / "initdb"),
                "-D",
                str(scratch),
                "-U",
                SUPERUSER,
                "--auth=scram-sha-256",
                f"--pwfile={pwfile}",
                "--encoding=UTF8",
                "--locale=C.UTF-8",
            ]
        )
        pwfile.unlink()
        conf = scratch / "postgresql.conf"
        with conf.open("a") as handle:
            handle.write(
                "\n# tourney: loopback only, no unix socket, own port\n"
                "listen_addresses = '127.0.0.1'\n"
                "unix_socket_directories = ''\n"
                "max_connections = 200\n"
                "fsync = off\n"  # a local development and test cluster; crash safety is the server's
                "synchronous_commit = off\n"
                "full_page_writes = off\n"
            )
        (scratch / MARKER).write_text("initdb completed\n")
        self._give_to_owner(scratch)
        scratch.rename(self.data_dir)
        return note

    def _new_password(self) -> str:
        """A fresh password, written to TOURNEY_HOME/pg.password (0600) before the cluster uses it."""
        password = secrets.token_urlsafe(24)
        tmp = self.home / f".pg.password.{os.getpid()}.{secrets.token_hex(4)}"
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(fd, "w") as handle:
            handle.write(password + "\n")
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, self.password_file)
        return password

    def _require_password(self, bindir: Path) -> str:
        """A cluster still on trust authentication (made by an older version) gets a password and
        scram-sha-256; a cluster whose password file is missing is refused with what to do."""
        hba = self.data_dir / "pg_hba.conf"
        lines = hba.read_text().splitlines()
        trusting = [line for line in lines if line.split()[-1:] == ["trust"] and not line.lstrip().startswith("#")]
        if not trusting:
            if self.password() is None:
                raise ConfigurationError(
                    "cluster-password-missing",
                    f"the cluster in {self.data_dir} asks for a password and {self.password_file} is missing: "
                    "restore that file from your backup, or move the data folder aside to make a new cluster",
                )
            return ""
        import psycopg

        password = self._new_password()
        with psycopg.connect(
            host="127.0.0.1", port=self.port, user=SUPERUSER, dbname="postgres", autocommit=True
        ) as conn:
            conn.execute("SET password_encryption = 'scram-sha-256'")
            conn.execute(
                psycopg.sql.SQL("ALTER ROLE {} PASSWORD {}").format(
                    psycopg.sql.Identifier(SUPERUSER), psycopg.sql.Literal(password)
                )
            )
        rewritten = [line[: line.rindex("trust")] + "scram-sha-256" if line in trusting else line for line in lines]
        hba.write_text("\n".join(rewritten) + "\n")
        self._run_as_owner([str(bindir / "pg_ctl"), "reload", "-D", str(self.data_dir)])
        return "switched the cluster from trust to password authentication; "

    def _running(self, bindir: Path) -> bool:
        result = self._run_as_owner([str(bindir / "pg_ctl"), "status", "-D", str(self.data_dir)], check=False)
        return result.returncode == 0

    def _start(self, bindir: Path) -> None:
        self.log_file.touch()
        self._give_to_owner(self.log_file)
        result = self._run_as_owner(
            [
                str(bindir / "pg_ctl"),
                "start",
                "-D",
                str(self.data_dir),
                "-l",
                str(self.log_file),
                "-o",
                f"-p {self.port}",
                "-w",
                "-t",
                "60",
            ],
            check=False,
        )
        if result.returncode != 0:
            tail = self.log_file.read_text(errors="replace").strip().splitlines()[-3:]
            raise ConfigurationError(
                "cluster-start-failed",
                f"PostgreSQL did not start on 127.0.0.1:{self.port}: {' | '.join(tail)} "
                f"(see {self.log_file}; set TOURNEY_PG_PORT if the port is taken)",
            )

    def _create_databases(self) -> None:
        import psycopg

        with psycopg.connect(
            host="127.0.0.1",
            port=self.port,
            user=SUPERUSER,
            password=self.password(),
            dbname="postgres",
            autocommit=True,
        ) as conn:
            existing = {row[0] for row in conn.execute("SELECT datname FROM pg_database")}
            for name in DATABASES:
                if name not in existing:
                    try:
                        conn.execute(f'CREATE DATABASE "{name}"')
                    except psycopg.errors.DuplicateDatabase:
                        pass  # created by a concurrent starter

    def _owner(self) -> str | None:
        """The system user the server runs as: None means the current user."""
        if os.geteuid() != 0:
            return None
        return os.environ.get("TOURNEY_PG_USER", "postgres")

    def _owner_entry(self) -> pwd.struct_passwd | None:
        owner = self._owner()
        if owner is None:
            return None
        try:
            return pwd.getpwnam(owner)
        except KeyError:
            raise ConfigurationError(
                "no-postgres-user",
                f"running as root needs an unprivileged system user for PostgreSQL; '{owner}' does not "
                "exist (install PostgreSQL, or set TOURNEY_PG_USER)",
            ) from None

    def _give_to_owner(self, path: Path) -> None:
        entry = self._owner_entry()
        if entry is None:
            return
        os.chown(path, entry.pw_uid, entry.pw_gid)
        if path.is_dir():
            for root, dirs, files in os.walk(path):
                for name in dirs + files:
                    os.chown(os.path.join(root, name), entry.pw_uid, entry.pw_gid)

    def _run_as_owner(self, argv: list[str], check: bool = True) -> subprocess.CompletedProcess[str]:
        owner = self._owner()
        full = ["runuser", "-u", owner, "--", *argv] if owner else argv
        result = subprocess.run(full, capture_output=True, text=True, cwd="/")
        if check and result.returncode != 0:
            raise ConfigurationError(
                "cluster-command-failed",
                f"{Path(argv[0]).name} failed: {(result.stderr or result.stdout).strip().splitlines()[-1:]}",
            )
        return result


def _reachable(path: Path, user: pwd.struct_passwd) -> bool:
    """Whether `user` can traverse every folder down to `path` (the part of it that exists)."""
    groups = {g.gr_gid for g in grp.getgrall() if user.pw_name in g.gr_mem} | {user.pw_gid}
    for folder in [path, *path.parents]:
        if not folder.exists():
            continue
        st = folder.stat()
        if st.st_uid == user.pw_uid:
            bit = 0o100
        elif st.st_gid in groups:
            bit = 0o010
        else:
            bit = 0o001
        if not st.st_mode & bit:
            return False
    return True


def _bindir() -> Path:
    given = os.environ.get("TOURNEY_PG_BINDIR")
    candidates = [given] if given else sorted(glob.glob("/usr/lib/postgresql/*/bin"), reverse=True)
    for candidate in candidates:
        if candidate and (Path(candidate) / "pg_ctl").exists():
            return Path(candidate)
    found = shutil.which("pg_ctl")
    if found:
        return Path(found).parent
    raise ConfigurationError(
        "postgres-not-installed",
        "PostgreSQL server binaries (initdb, pg_ctl) were not found: run `make setup` "
        "(installs postgresql-15), set TOURNEY_PG_BINDIR, or set DATABASE_URL to use another server",
    )
