"""`tourney club ...`: the catalog, applications, the moderator queue and the operator's powers
(CL-1..CL-4). Each command runs the same services the jobs use, in one unit of work."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from flows.cli.clock import now as _now
from flows.cli.output import emit, transaction
from flows.cli.params import name_problems, one_of

if TYPE_CHECKING:
    from domain.clubs.tables import Club

app = typer.Typer(
    rich_markup_mode=None, no_args_is_help=True, help="Clubs: catalog, registry verification, moderation."
)

Reason = Annotated[str | None, typer.Option("--reason", help="Why (required; kept in the club's history).")]
Operator = Annotated[str, typer.Option("--by", help="Who decides (kept in the club's history).")]


@contextmanager
def _services() -> Iterator[tuple]:
    """The clubs services and a unit of work, imported on use: `tourney` starts fast for every group."""
    from domain.clubs.services import clubs as service

    with transaction() as session:
        yield service, session


def _view(club: Club) -> dict:
    from domain.clubs.services.clubs import club_view

    return club_view(club)


def _row(club: Club) -> dict:
    return {
        "id": club.id,
        "name": club.name,
        "inn": club.inn,
        "ogrn": club.ogrn,
        "listing_status": club.listing_status,
        "verification_status": club.verification_status,
        "verification_reason": club.verification_reason,
    }


@app.command("add")
def add(
    name: str,
    inn: Annotated[str, typer.Option("--inn", help="10 digits (legal entity) or 12 (entrepreneur).")],
    ogrn: Annotated[str, typer.Option("--ogrn", help="OGRN, 13 digits, or OGRNIP, 15 digits.")],
    email: Annotated[str, typer.Option("--email", help="Where results and certificates go.")],
    timezone: Annotated[str, typer.Option("--timezone", help="IANA name, e.g. Europe/Moscow.")],
    form: Annotated[str, typer.Option("--form", help="legal_entity or entrepreneur.")] = "legal_entity",
) -> None:
    """List a new club (unverified)."""
    name_problems("club name", name)
    from domain.clubs.rules.catalog import NewClub

    with _services() as (service, session):
        club = service.add_club(session, NewClub(name, form, inn, ogrn, email, timezone), _now())
        emit(_view(club), f"club {club.id} listed")


@app.command("show")
def show(club_id: int) -> None:
    """A club with the full history of decisions about it."""
    with _services() as (service, session):
        club = service.get_club(session, club_id)
        view = _view(club)
        view["history"] = [
            {
                "at": d.decided_at,
                "action": d.action,
                "verification_status": d.verification_status,
                "listing_status": d.listing_status,
                "source": d.source,
                "actor": d.actor,
                "reason": d.reason,
                "raw_answer": d.raw_answer,
            }
            for d in service.history(session, club_id)
        ]
        emit(view, f"club {club_id}")


@app.command("list")
def list_(
    listing: Annotated[str | None, typer.Option(help="listed, suspended or terminated.")] = None,
    verification: Annotated[str | None, typer.Option(help="unverified, pending, verified, refused or revoked.")] = None,
) -> None:
    """Every club, or those with the given statuses."""
    from domain.clubs.rules.status import Listing, Verification

    one_of("listing", listing, [v.value for v in Listing])
    one_of("verification", verification, [v.value for v in Verification])
    with _services() as (service, session):
        emit([_row(c) for c in service.list_clubs(session, listing, verification)], "clubs")


@app.command("apply")
def apply(club_id: int) -> None:
    """Apply for verification: checked against the registry at once (a verify-clubs run starts), or
    queued for a moderator when no provider is configured."""
    from infra.config import load_registry_settings

    configured = load_registry_settings().url is not None
    with _services() as (service, session):
        club = service.apply(session, club_id, _now(), provider_configured=configured)
    view = _view(club)
    if configured:
        from flows.jobs.clubs import trigger_verification

        view["verification_run"] = trigger_verification(club.id, club.application_no)
    emit(view, f"club {club_id} applied")


@app.command("queue")
def queue() -> None:
    """The moderator queue (CL-3), oldest first."""
    with _services() as (service, session):
        rows = [
            {**_row(c), "queued_at": c.queued_at, "last_error": c.last_error} for c in service.moderation_queue(session)
        ]
    emit(rows, "moderator queue")


@app.command("approve")
def approve(
    club_id: int,
    by: Operator = "moderator",
    reason: Annotated[str | None, typer.Option("--reason", help="What was checked.")] = None,
) -> None:
    """A moderator verifies a pending application by hand (CL-3)."""
    with _services() as (service, session):
        emit(_view(service.approve(session, club_id, by, reason, _now())), f"club {club_id} verified")


@app.command("refuse")
def refuse(club_id: int, reason: Reason = None, by: Operator = "moderator") -> None:
    """Refuse a pending application, with the reason (CL-3, CL-4)."""
    with _services() as (service, session):
        emit(_view(service.refuse(session, club_id, by, reason, _now())), f"club {club_id} refused")


@app.command("revoke")
def revoke(club_id: int, reason: Reason = None, by: Operator = "operator") -> None:
    """Take the verified status away, with the reason (CL-4)."""
    with _services() as (service, session):
        emit(_view(service.revoke(session, club_id, by, reason, _now())), f"club {club_id} revoked")


@app.command("suspend")
def suspend(club_id: int, reason: Reason = None, by: Operator = "operator") -> None:
    """Suspend the club's listing, with the reason (CL-4)."""
    with _services() as (service, session):
        emit(_view(service.suspend(session, club_id, by, reason, _now())), f"club {club_id} suspended")


@app.command("reinstate")
def reinstate(club_id: int, reason: Reason = None, by: Operator = "operator") -> None:
    """List a suspended club again, with the reason (CL-4)."""
    with _services() as (service, session):
        emit(_view(service.reinstate(session, club_id, by, reason, _now())), f"club {club_id} reinstated")


@app.command("terminate")
def terminate(club_id: int, reason: Reason = None, by: Operator = "operator") -> None:
    """End the club's listing for good, with the reason (CL-4)."""
    with _services() as (service, session):
        emit(_view(service.terminate(session, club_id, by, reason, _now())), f"club {club_id} terminated")


@app.command("logo")
def logo(
    club_id: int,
    file: Annotated[
        Path | None, typer.Argument(help="A PNG or JPEG image: at most 512 KiB, 2000 pixels a side.")
    ] = None,
    remove: Annotated[bool, typer.Option("--remove", help="Print the club's documents without a logo again.")] = False,
) -> None:
    """The club's logo on its certificates and results sheets (checked by its bytes, not its name)."""
    from domain.clubs.rules.logo import MAX_BYTES
    from domain.clubs.services import logos
    from domain.errors import DomainError

    if remove == (file is not None):
        raise DomainError("logo-usage", "give either a logo FILE or --remove")
    if remove:
        with transaction() as session:
            emit(logos.remove_logo(session, club_id), f"club {club_id}: no logo")
        return
    assert file is not None
    try:
        with file.open("rb") as f:
            data = f.read(MAX_BYTES + 1)  # one byte more than allowed is enough to refuse it
    except IsADirectoryError:
        raise DomainError("logo-file-invalid", f"'{file}' is a folder, not a file") from None
    except OSError as exc:
        raise DomainError("logo-file-invalid", f"cannot read '{file}': {exc.strerror}") from None
    with transaction() as session:
        emit(logos.set_logo(session, club_id, data, _now()), f"club {club_id}: logo set")
