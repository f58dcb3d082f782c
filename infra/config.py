"""Settings in one place, read from the environment when asked for (never at import time).

DATABASE_URL     the application's PostgreSQL; unset means the project's own embedded cluster
PREFECT_API_URL  the Prefect API flows report to; default the server `make run` starts
TOURNEY_HOME     data folder (embedded cluster, outbox, secret key); default the checkout's .tourney
                 (beside pyproject.toml), or ~/.local/share/tourney for an installed package
SMTP_URL         smtp://[user:pass@]host:port for delivering documents to clubs; unset = outbox only
REGISTRY_URL     the state-registry provider (DaData-style findById/party); unset = moderator queue
REGISTRY_TOKEN   the provider's API token
TOURNEY_SECRET_KEY  the platform secret (signatures, draw seeds; at least 32 bytes); unset = generated once into
                 TOURNEY_HOME/secret.key (mode 0600)
TOURNEY_PUBLIC_URL  where the public verification page is served (certificate QR codes point at
                 <it>/verify/<serial>?code=<code>); default http://127.0.0.1:8080
TOURNEY_RENDER_WORKERS  processes that render a large batch of certificates; default the CPU count
TOURNEY_PUBLIC_URL  the public web pages' address (certificates' QR codes point there); default
                 http://127.0.0.1:8080
TOURNEY_PREFECT_LISTEN  host:port the Prefect server `tourney server up` starts listens on; default
                 127.0.0.1:4200 (PREFECT_API_URL's default follows it)
TOURNEY_MACHINE  this machine's name among those serving the jobs (the timekeeper's standby is placed on
                 another machine than its active run); default the host name
TOURNEY_WEB_HEADER_TIMEOUT  seconds a client of the web pages has to send a request's headers; default 10
TOURNEY_WEB_IDLE_TIMEOUT  seconds an idle kept-alive connection to the web pages stays open; default 5
"""

from __future__ import annotations

import ipaddress
import os
import re
import secrets
import socket
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

from domain.errors import ConfigurationError

DEFAULT_PREFECT_API_URL = "http://127.0.0.1:4200/api"
DEFAULT_PUBLIC_URL = "http://127.0.0.1:8080"
DEFAULT_PREFECT_LISTEN = "127.0.0.1:4200"
MIN_KEY_BYTES = 32  # an HMAC-SHA256 key shorter than its output weakens every signature (DOC-2)
# a key long enough but guessable is refused too (DOC-2, docs/decisions.md): three plain measures
MIN_KEY_DISTINCT = 8  # distinct characters
MAX_KEY_RUN = 8  # characters in a row in order: each the same as, or each one above, or each one below the one before
REPEAT_MIN = 4  # a repeat is a piece of 4 or more characters seen earlier in the key
MAX_REPEATED_SHARE = 0.25  # of the key's bytes inside repeats
KEY_FILE = "secret.key"
PREFECT_AUTH_FILE = "prefect.auth"  # the Prefect API's basic-auth string, `admin:<64 hex digits>`


def key_weakness(key: bytes) -> str | None:
    """Why a signing key of 32 bytes or more is still guessable, or None (DOC-2). Three measures a
    person can check by eye: too few distinct characters (one character or a short word repeated,
    spaces); a long run in order (`aaaa…`, `1234…`, `abcd…`, `9876…`); too much of the key repeating
    an earlier part (a word or a pattern said again). A random key — `secrets.token_hex(32)`,
    `secrets.token_urlsafe(32)`, 32 random bytes in Base64 — passes all three with a margin: the odds
    that one fails are about one in 25 million for 64 hex digits, the weakest of those alphabets."""
    distinct = len(set(key))
    if distinct < MIN_KEY_DISTINCT:
        return f"only {distinct} distinct character{'' if distinct == 1 else 's'}"
    run, step, longest = 1, None, 1
    for before, here in zip(key, key[1:]):
        if abs(here - before) <= 1 and (run == 1 or here - before == step):
            run, step = run + 1, here - before
        else:
            run, step = (2, here - before) if abs(here - before) <= 1 else (1, None)
        longest = max(longest, run)
    if longest > MAX_KEY_RUN:
        return f"{longest} characters in a row in order"
    repeated, i = 0, REPEAT_MIN
    while i < len(key):  # greedy: the longest piece at i already seen before i
        length = 0
        while i + length < len(key) and key[i : i + length + 1] in key[: i + length]:
            length += 1
        if length >= REPEAT_MIN:
            repeated += length
            i += length
        else:
            i += 1
    if repeated > MAX_REPEATED_SHARE * len(key):
        return f"{repeated} of its {len(key)} bytes repeat earlier ones"
    return None


@dataclass(frozen=True)
class Settings:
    home: Path
    database_url: str | None
    prefect_api_url: str
    smtp_url: str | None
    registry_url: str | None
    registry_token: str | None
    render_workers: int

    def __repr__(self) -> str:  # never a password in a log line, a traceback or a run's parameters
        return (
            f"Settings(home={str(self.home)!r}, database_url={masked(self.database_url)!r}, "
            f"prefect_api_url={masked(self.prefect_api_url)!r}, smtp_url={masked(self.smtp_url)!r}, "
            f"registry_url={masked(self.registry_url)!r}, render_workers={self.render_workers})"
        )

    @property
    def embedded(self) -> bool:
        """True when the project runs its own PostgreSQL cluster."""
        return self.database_url is None

    def secret_key(self, create: bool = True) -> bytes:
        """The platform secret: TOURNEY_SECRET_KEY, else TOURNEY_HOME/secret.key, created once when
        missing and `create` (DOC-2). A key shorter than 32 bytes is refused; `create=False` (checking
        documents) never makes a key: a new key could not check anything signed before."""
        given = os.environ.get("TOURNEY_SECRET_KEY")
        if given:
            key = given.encode()
            if len(key) < MIN_KEY_BYTES:
                raise ConfigurationError(
                    "short-secret-key",
                    f"TOURNEY_SECRET_KEY is {len(key)} bytes: a signing key must be at least {MIN_KEY_BYTES} bytes",
                )
            weak = key_weakness(key)
            if weak:
                raise ConfigurationError(
                    "short-secret-key",
                    f"TOURNEY_SECRET_KEY is guessable ({weak}): a signing key must be at least {MIN_KEY_BYTES} "
                    "random bytes",
                )
            return key
        path = self.home / KEY_FILE
        if not path.exists():
            if not create:
                raise ConfigurationError(
                    "no-secret-key",
                    f"there is no signing key to check with: {path} does not exist and TOURNEY_SECRET_KEY is not set "
                    "(restore the key from your backup)",
                )
            create_key_file(path)
        key = path.read_bytes().strip()
        if len(key) < MIN_KEY_BYTES:
            raise ConfigurationError(
                "short-secret-key",
                f"the signing key {path} is {len(key)} bytes: a signing key must be at least {MIN_KEY_BYTES} bytes "
                "(restore it from your backup)",
            )
        weak = key_weakness(key)
        if weak:
            raise ConfigurationError(
                "short-secret-key",
                f"the signing key {path} is guessable ({weak}): a signing key must be at least {MIN_KEY_BYTES} "
                "random bytes (restore it from your backup)",
            )
        return key

    def prefect_auth(self, create: bool = False) -> str | None:
        """The Prefect API's basic-auth string `user:password`: PREFECT_API_AUTH_STRING, else
        TOURNEY_HOME/prefect.auth, created once (like the signing key) when `create` (the server
        that `tourney server up` starts requires it); None while there is neither. Every client
        sends it; an admin types it into the Prefect UI when it asks."""
        given = os.environ.get("PREFECT_API_AUTH_STRING")
        if given:
            return given
        path = self.home / PREFECT_AUTH_FILE
        if not path.exists():
            if not create:
                return None
            create_key_file(path, prefix=b"admin:")
        return path.read_text().strip()

    def prefect_listen(self) -> tuple[str, int]:
        """TOURNEY_PREFECT_LISTEN as (host, port): where `tourney server up` makes the Prefect server listen."""
        return prefect_listen()

    def machine(self) -> str:
        """TOURNEY_MACHINE, else the host name: this machine among those serving the jobs."""
        given = os.environ.get("TOURNEY_MACHINE") or socket.gethostname()
        name = re.sub(r"[^A-Za-z0-9._-]+", "-", given).strip("-")[:40]
        if not name:
            raise ConfigurationError("bad-setting", f"TOURNEY_MACHINE must hold letters or digits, not {given!r}")
        return name

    def web_timeouts(self) -> tuple[float, float]:
        """(TOURNEY_WEB_HEADER_TIMEOUT, TOURNEY_WEB_IDLE_TIMEOUT) in seconds: a request's headers must be
        in within the first, a kept-alive connection is closed after the second without a request."""
        return _positive_seconds("TOURNEY_WEB_HEADER_TIMEOUT", 10.0), _positive_seconds("TOURNEY_WEB_IDLE_TIMEOUT", 5.0)

    def web_trusted_proxies(self) -> str | None:
        """TOURNEY_WEB_TRUSTED_PROXIES: the addresses (comma-separated IPs or networks) of the load balancers
        in front of `tourney web`, whose `X-Forwarded-For` and `X-Forwarded-Proto` name the client; unset,
        the connection's own address is the client's and those headers are ignored (no one spoofs one)."""
        value = (os.environ.get("TOURNEY_WEB_TRUSTED_PROXIES") or "").strip()
        if not value:
            return None
        for part in value.split(","):
            try:
                ipaddress.ip_network(part.strip(), strict=False)
            except ValueError:
                raise ConfigurationError(
                    "bad-setting",
                    f"TOURNEY_WEB_TRUSTED_PROXIES must list IP addresses or networks, not {part.strip()!r}",
                ) from None
        return ",".join(part.strip() for part in value.split(","))

    def web_safety_poll(self) -> float:
        """TOURNEY_WEB_SAFETY_POLL: seconds between a watched thing's looks at its fingerprint when no
        NOTIFY woke it (the event streams' safety net, flows/web/live.py); default 5."""
        return _positive_seconds("TOURNEY_WEB_SAFETY_POLL", 5.0)

    def public_url(self) -> str:
        """TOURNEY_PUBLIC_URL without a trailing slash: http(s)://host[:port][/prefix]."""
        value = (os.environ.get("TOURNEY_PUBLIC_URL") or DEFAULT_PUBLIC_URL).rstrip("/")
        parts = urlsplit(value)
        if (
            parts.scheme not in ("http", "https")
            or not parts.hostname
            or parts.username
            or parts.query
            or parts.fragment
        ):
            raise ConfigurationError(
                "bad-setting", f"TOURNEY_PUBLIC_URL must look like https://host[:port][/path], not {masked(value)!r}"
            )
        return value


def new_key() -> bytes:
    """32 random bytes as 64 hex digits, drawn again in the rare case (about one in 25 million) that
    chance made them look guessable to `key_weakness`, so a key the project makes is always accepted."""
    while True:
        key = secrets.token_hex(32).encode()
        if key_weakness(key) is None:
            return key


def create_key_file(path: Path, prefix: bytes = b"") -> None:
    """Create the key file once, atomically, even with many processes at once: each writer fills its
    own temporary file (a unique name, created exclusively with mode 0600), fsyncs it, then links it
    to the final name; link fails when the name exists, so the first complete key wins and nobody
    ever reads a partial or empty key."""
    path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.{secrets.token_hex(8)}.tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    try:
        try:
            os.write(fd, prefix + new_key() + b"\n")
            os.fsync(fd)
        finally:
            os.close(fd)
        try:
            os.link(tmp, path)  # atomic; never replaces an existing key
        except FileExistsError:
            pass
    finally:
        tmp.unlink(missing_ok=True)
    dir_fd = os.open(path.parent, os.O_RDONLY)
    try:
        os.fsync(dir_fd)
    finally:
        os.close(dir_fd)


def masked(url: str | None) -> str:
    """A URL with its password replaced by ***, for any message, log or run output."""
    if not url:
        return url or ""
    try:
        parts = urlsplit(url)
        password = parts.password
    except ValueError:
        return re.sub(r"(//[^:/@]*:)[^@/]*@", r"\1***@", url)
    if not password:
        return url
    netloc = parts.netloc.rpartition("@")
    user = netloc[0].partition(":")[0]
    return urlunsplit(parts._replace(netloc=f"{user}:***@{netloc[2]}"))


def redact(text: str, settings: Settings | None = None) -> str:
    """`text` with the password of every configured URL (DATABASE_URL, SMTP_URL) masked: for error
    messages whose origin (a driver, a server) might echo one."""
    urls = [os.environ.get("DATABASE_URL"), os.environ.get("SMTP_URL")]
    if settings is not None:
        urls += [settings.database_url, settings.smtp_url]
    for url in filter(None, urls):
        text = text.replace(url, masked(url))
        try:
            password = urlsplit(url).password
        except ValueError:
            password = None
        if password:
            from urllib.parse import unquote

            for secret in {password, unquote(password)}:
                if len(secret) >= 3:
                    text = text.replace(secret, "***")
    return text


def load_settings() -> Settings:
    given = os.environ.get("TOURNEY_HOME")
    home = Path(given).expanduser().resolve() if given else default_home()
    return Settings(
        home=home,
        database_url=os.environ.get("DATABASE_URL") or None,
        prefect_api_url=os.environ.get("PREFECT_API_URL") or _default_api_url(),
        smtp_url=os.environ.get("SMTP_URL") or None,
        registry_url=os.environ.get("REGISTRY_URL") or None,
        registry_token=os.environ.get("REGISTRY_TOKEN") or None,
        render_workers=_positive_int("TOURNEY_RENDER_WORKERS", os.cpu_count() or 1),
    )


def _default_api_url() -> str:
    if not os.environ.get("TOURNEY_PREFECT_LISTEN"):
        return DEFAULT_PREFECT_API_URL
    host, port = prefect_listen()
    host = "127.0.0.1" if host in ("0.0.0.0", "::") else host
    return f"http://{f'[{host}]' if ':' in host else host}:{port}/api"


def prefect_listen() -> tuple[str, int]:
    value = os.environ.get("TOURNEY_PREFECT_LISTEN") or DEFAULT_PREFECT_LISTEN
    host, sep, port = value.rpartition(":")
    if not sep or not host or not (port.isascii() and port.isdigit()) or not 0 < int(port) < 65536 or "/" in host:
        raise ConfigurationError(
            "bad-setting", f"TOURNEY_PREFECT_LISTEN must look like 127.0.0.1:4200 (host:port), not {value!r}"
        )
    return host.strip("[]"), int(port)


def _positive_seconds(name: str, default: float) -> float:
    value = os.environ.get(name)
    if not value:
        return default
    try:
        seconds = float(value)
    except ValueError:
        seconds = 0.0
    if not seconds > 0:
        raise ConfigurationError("bad-setting", f"{name} must be a number of seconds above 0, not '{value}'")
    return seconds


def default_home() -> Path:
    """The checkout's .tourney when the package runs from a checkout (so `tourney` finds the same data
    from any folder), else the user's data folder."""
    checkout = Path(__file__).resolve().parent.parent
    if (checkout / "pyproject.toml").exists():
        return checkout / ".tourney"
    base = Path(os.environ.get("XDG_DATA_HOME") or Path.home() / ".local" / "share")
    return base / "tourney"


def _positive_int(name: str, default: int) -> int:
    value = os.environ.get(name)
    if not value:
        return default
    if not (value.isascii() and value.isdigit()) or int(value) < 1:
        raise ConfigurationError("bad-setting", f"{name} must be a whole number of at least 1, not '{value}'")
    return int(value)


@dataclass(frozen=True)
class RegistrySettings:
    """The club registry provider (CL-2, CL-3). Without a URL every application goes to moderators.

    REGISTRY_RATE          most requests per second to the provider, across every process and machine (default 10)
    REGISTRY_TIMEOUT       seconds per request (default 5)
    REGISTRY_RETRIES       retries of one lookup on 5xx, 429 and time-outs, with backoff (default 3)
    REGISTRY_MAX_ATTEMPTS  failed lookups before an application goes to the moderator queue (default 3)
    REGISTRY_CONCURRENCY   lookups in flight at once in `verify-clubs` (default 8)
    REGISTRY_RECHECK_DAYS  age of the last check after which `reverify-clubs` checks again (default 30)
    """

    url: str | None
    token: str | None
    rate: float = 10.0
    timeout: float = 5.0
    retries: int = 3
    max_attempts: int = 3
    concurrency: int = 8
    recheck_days: int = 30


def load_registry_settings() -> RegistrySettings:
    settings = load_settings()
    env = os.environ
    return RegistrySettings(
        url=settings.registry_url,
        token=settings.registry_token,
        rate=float(env.get("REGISTRY_RATE") or 10),
        timeout=float(env.get("REGISTRY_TIMEOUT") or 5),
        retries=int(env.get("REGISTRY_RETRIES") or 3),
        max_attempts=int(env.get("REGISTRY_MAX_ATTEMPTS") or 3),
        concurrency=int(env.get("REGISTRY_CONCURRENCY") or 8),
        recheck_days=int(env.get("REGISTRY_RECHECK_DAYS") or 30),
    )
