"""The composition root: where every entry point (the `tourney` CLI, `tourney serve` and its flow runs,
the web app, the timekeeper's process, the simulator) gets its settings, its database engine and the
outside world's adapters, built here and handed down to the use cases.

The domain names what it needs from the outside world as ports (`domain/clubs/ports.py`: the
registry; `domain/documents/ports.py`: the renderer and the mailer); infra implements them; only this
module (and the entry points through it) puts the two together. A use case takes a session and `now`
and never opens its own transaction: its caller does, with `unit_of_work()`.

Imports are made where they are used, so an entry point that needs no database (`tourney --help`)
loads no SQLAlchemy. The engine is one per process and database URL (the URL comes from the settings each time it is
asked for, so a test session or a benchmark that points DATABASE_URL elsewhere gets its own);
`dispose()` closes them all.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager
from typing import TYPE_CHECKING

from infra.config import (
    RegistrySettings,
    Settings,
    load_registry_settings,
    load_settings,
)

if TYPE_CHECKING:
    from sqlalchemy import Engine
    from sqlalchemy.orm import Session

    from domain.access.ports import PasswordHasher
    from domain.clubs.ports import RegistryProvider
    from domain.draw import SeedSource
    from infra.mail import SmtpMailer
    from infra.render import Renderer
    from infra.webhooks_http import HttpSender

_ENGINES: dict[str, Engine] = {}


def settings() -> Settings:
    """The settings, read from the environment (and TOURNEY_HOME) now."""
    return load_settings()


def database_url() -> str:
    """The configured database's URL (DATABASE_URL, else the embedded cluster's)."""
    from infra import database

    return database.database_url(settings())


def server_url() -> str:
    """The configured server's URL, the embedded cluster started when it is the one in use."""
    from infra import database

    return database.server_url(settings())


def draw_seeds() -> SeedSource:
    """SP-13, PD-12: the platform's seed of a draw, an HMAC of the draw's description under a key
    derived from the platform secret (TOURNEY_SECRET_KEY or TOURNEY_HOME/secret.key, never in the
    database; `domain.draw.seed_key`). The secret is read when a draw asks, so a command that draws
    nothing never reads or makes it."""
    from domain import draw

    return lambda what: draw.platform_seed(draw.seed_key(settings().secret_key()), what)


def engine() -> Engine:
    """The process's engine for the configured database (made on first use), its sessions given the
    platform's seed source (`draw_seeds`)."""
    from domain.store import db

    url = database_url()
    if url not in _ENGINES:
        _ENGINES[url] = db.make_engine(url, seeds=draw_seeds())
    return _ENGINES[url]


def own_engine(url: str, **pool) -> Engine:
    """An engine of its own for a part of a process that must not share the pool (the timekeeper's
    loop: `pool` sizes it, and no pre-ping), with the platform's seed source like `engine()`'s."""
    from domain.store import db

    return db.make_engine(url, seeds=draw_seeds(), **pool)


def unit_of_work() -> AbstractContextManager[Session]:
    """A transaction on the process's engine: commits when the block ends normally."""
    from domain.store import db

    return db.unit_of_work(engine())


def dispose() -> None:
    """Close every pooled connection and forget the engines (the configured URL may change)."""
    for made in list(_ENGINES.values()):
        made.dispose()
    _ENGINES.clear()


def check_reachable() -> Engine:
    """The engine, once the database has answered (else one line saying which and what to do)."""
    from infra import database

    made = engine()
    database.check_reachable(settings(), made)
    return made


def unreachable(exc: Exception) -> str:
    """The one line for a database that did not answer."""
    from infra import database

    return database.unreachable(settings(), exc).message


@contextmanager
def renderer() -> Iterator[Renderer]:
    """The documents' renderer (WeasyPrint, its worker processes), signing with the platform key."""
    from infra.render import Renderer

    current = settings()
    with Renderer(current.secret_key(), workers=current.render_workers, public_url=current.public_url()) as made:
        yield made


def mailer() -> SmtpMailer | None:
    """The SMTP server of SMTP_URL, or None when delivery is off."""
    from infra.mail import SmtpMailer, parse_url

    url = settings().smtp_url
    return SmtpMailer(parse_url(url)) if url else None


def registry_settings() -> RegistrySettings:
    """The state registry's settings (REGISTRY_*)."""
    return load_registry_settings()


def registry(limiter: Callable[[str, float], object]) -> RegistryProvider | None:
    """The state registry's client of the settings, rate-limited by `limiter(name, rate)`; None when
    no registry is configured (applications go to the moderators, CL-3)."""
    from infra.registry_http import provider_from_settings

    return provider_from_settings(registry_settings(), limiter)


def password_hasher() -> PasswordHasher:
    """Passwords as argon2id (argon2-cffi, OWASP's parameters)."""
    from infra.passwords import Argon2idHasher

    return Argon2idHasher()


def webhook_sender() -> HttpSender:
    """The webhooks' HTTP client (httpx; 10 s time-out, no redirects): close it when done."""
    from infra.webhooks_http import HttpSender

    return HttpSender()


def webhook_key() -> bytes:
    """The platform key the endpoints' secrets are derived from (outside the database)."""
    return settings().secret_key()
