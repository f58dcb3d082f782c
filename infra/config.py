"""Settings in one place, read from the environment when asked for (never at import time).

DATABASE_URL     the application's PostgreSQL; unset means the project's own embedded cluster
PREFECT_API_URL  the Prefect API flows report to; default the server `make run` starts
TOURNEY_HOME     data folder (embedded cluster, outbox, secret key); default the checkout's .tourney
                 (beside pyproject.toml), or ~/.local/share/tourney for an installed package
SMTP_URL         smtp://[user:pass@]host:port for delivering documents to clubs; unset = outbox only
REGISTRY_URL     the state-registry provider (DaData-style findById/party); unset = moderator queue
REGISTRY_TOKEN   the provider's API token
TOURNEY_SECRET_KEY  the platform secret (signatures); unset = generated once into TOURNEY_HOME
TOURNEY_RENDER_WORKERS  processes that render a large batch of certificates; default the CPU count
TOURNEY_PUBLIC_URL  the public web pages' address (certificates' QR codes point there); default
                 http://127.0.0.1:8080
"""

from __future__ import annotations

import os
import secrets
from dataclasses import dataclass
from pathlib import Path

from domain.errors import ConfigurationError

DEFAULT_PREFECT_API_URL = "http://127.0.0.1:4200/api"
DEFAULT_PUBLIC_URL = "http://127.0.0.1:8080"


@dataclass(frozen=True)
class Settings:
    home: Path
    database_url: str | None
    prefect_api_url: str
    smtp_url: str | None
    registry_url: str | None
    registry_token: str | None
    render_workers: int
    public_url: str = DEFAULT_PUBLIC_URL

    @property
    def embedded(self) -> bool:
        """True when the project runs its own PostgreSQL cluster."""
        return self.database_url is None

    def secret_key(self) -> bytes:
        """The platform secret: TOURNEY_SECRET_KEY, else a key generated once into TOURNEY_HOME."""
        given = os.environ.get("TOURNEY_SECRET_KEY")
        if given:
            return given.encode()
        path = self.home / "secret.key"
        if not path.exists():
            self.home.mkdir(parents=True, exist_ok=True)
            tmp = path.with_suffix(".tmp")
            tmp.write_text(secrets.token_hex(32))
            tmp.chmod(0o600)
            try:
                os.link(tmp, path)  # first writer wins; a concurrent second keeps the first key
            except FileExistsError:
                pass
            tmp.unlink()
        return path.read_text().strip().encode()


def load_settings() -> Settings:
    given = os.environ.get("TOURNEY_HOME")
    home = Path(given).expanduser().resolve() if given else default_home()
    return Settings(
        home=home,
        database_url=os.environ.get("DATABASE_URL") or None,
        prefect_api_url=os.environ.get("PREFECT_API_URL") or DEFAULT_PREFECT_API_URL,
        smtp_url=os.environ.get("SMTP_URL") or None,
        registry_url=os.environ.get("REGISTRY_URL") or None,
        registry_token=os.environ.get("REGISTRY_TOKEN") or None,
        render_workers=_positive_int("TOURNEY_RENDER_WORKERS", os.cpu_count() or 1),
        public_url=(os.environ.get("TOURNEY_PUBLIC_URL") or DEFAULT_PUBLIC_URL).rstrip("/"),
    )


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
    if not value.isdigit() or int(value) < 1:
        raise ConfigurationError("bad-setting", f"{name} must be a whole number of at least 1, not '{value}'")
    return int(value)


@dataclass(frozen=True)
class RegistrySettings:
    """The club registry provider (CL-2, CL-3). Without a URL every application goes to moderators.

    REGISTRY_RATE          most requests per second to the provider, across all threads (default 10)
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
