"""Settings in one place, read from the environment when asked for (never at import time).

DATABASE_URL     the application's PostgreSQL; unset means the project's own embedded cluster
PREFECT_API_URL  the Prefect API flows report to; default the server `make run` starts
TOURNEY_HOME     data folder (embedded cluster, outbox, secret key); default ./.tourney
SMTP_URL         smtp://[user:pass@]host:port for delivering documents to clubs; unset = outbox only
REGISTRY_URL     the state-registry provider (DaData-style findById/party); unset = moderator queue
REGISTRY_TOKEN   the provider's API token
TOURNEY_SECRET_KEY  the platform secret (signatures); unset = generated once into TOURNEY_HOME
"""

from __future__ import annotations

import os
import secrets
from dataclasses import dataclass
from pathlib import Path

DEFAULT_PREFECT_API_URL = "http://127.0.0.1:4200/api"


@dataclass(frozen=True)
class Settings:
    home: Path
    database_url: str | None
    prefect_api_url: str
    smtp_url: str | None
    registry_url: str | None
    registry_token: str | None

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
    home = Path(os.environ.get("TOURNEY_HOME", ".tourney")).expanduser().resolve()
    return Settings(
        home=home,
        database_url=os.environ.get("DATABASE_URL") or None,
        prefect_api_url=os.environ.get("PREFECT_API_URL") or DEFAULT_PREFECT_API_URL,
        smtp_url=os.environ.get("SMTP_URL") or None,
        registry_url=os.environ.get("REGISTRY_URL") or None,
        registry_token=os.environ.get("REGISTRY_TOKEN") or None,
    )
