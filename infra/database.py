"""Which PostgreSQL the settings name, and what to say when it does not answer: DATABASE_URL (on the
psycopg 3 driver), else the embedded cluster of TOURNEY_HOME."""

from __future__ import annotations

from sqlalchemy import Engine, text
from sqlalchemy.engine import make_url
from sqlalchemy.exc import OperationalError

from domain.errors import ConfigurationError
from infra.cluster import Cluster
from infra.config import Settings


def database_url(settings: Settings) -> str:
    """DATABASE_URL normalised to the psycopg 3 driver, else the embedded cluster's URL."""
    if settings.database_url:
        url = make_url(settings.database_url)
        if url.drivername in ("postgresql", "postgres"):
            url = url.set(drivername="postgresql+psycopg")
        return url.render_as_string(hide_password=False)
    return Cluster(settings.home).url()


def server_url(settings: Settings) -> str:
    """The configured server's URL, starting the embedded cluster when that is the one in use (test
    sessions and benchmarks make their scratch databases there)."""
    if settings.embedded:
        Cluster(settings.home).up()
    return database_url(settings)


def check_reachable(settings: Settings, engine: Engine) -> None:
    """One clear line when the database cannot be reached, naming the host and what to do."""
    try:
        with engine.connect() as conn:
            conn.execute(text("SELECT 1"))
    except OperationalError as exc:
        raise unreachable(settings, exc, engine.url) from None


def unreachable(settings: Settings, exc: Exception, url=None) -> ConfigurationError:
    """The one-line error for a database that does not answer: which one (URL without its password,
    or the embedded cluster's data folder) and what to do."""
    url = make_url(url or database_url(settings))
    orig = getattr(exc, "orig", None) or exc
    reason = (str(orig).strip().splitlines() or [type(orig).__name__])[0]
    if settings.embedded:
        where = f"the embedded cluster at {url.host}:{url.port} (data folder {Cluster(settings.home).data_dir})"
        hint = (
            "start it with `tourney db up` (or `make run`), or set TOURNEY_HOME to the data folder "
            "you meant, or DATABASE_URL to another server"
        )
    else:
        where = url.render_as_string(hide_password=True)
        hint = "check DATABASE_URL, or unset it to use the embedded cluster"
    return ConfigurationError("database-unreachable", f"cannot reach PostgreSQL, {where}: {reason} — {hint}")
