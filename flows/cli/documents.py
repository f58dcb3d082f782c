"""`tourney documents`: results sheets and certificates — render, send, verify, list, language (DOC-1..DOC-5)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from domain.errors import DomainError
from flows import bootstrap
from flows.cli.clock import now as _now
from flows.cli.output import emit, transaction
from flows.cli.params import one_of

app = typer.Typer(rich_markup_mode=None, no_args_is_help=True, help=__doc__)


@app.command("render")
def render(
    source: Annotated[str, typer.Argument(help="poker or pusoy")],
    tournament: Annotated[int, typer.Argument(help="the tournament's id")],
    out: Annotated[Path | None, typer.Option(help="folder for the PDFs (default ./documents-SOURCE-ID)")] = None,
) -> None:
    """Render a finished tournament's results sheet and certificates into a folder, signed, without
    storing or sending anything (the job `publish-results` does that)."""
    from domain.documents.services.publish import rendered
    from domain.documents.services.sources import bundle

    with bootstrap.unit_of_work() as session:
        found = bundle(session, source, tournament)
    folder = out or Path(f"documents-{source}-{tournament}")
    folder.mkdir(parents=True, exist_ok=True)
    with bootstrap.renderer() as renderer:
        files = rendered(renderer, found)
    for f in files:
        (folder / f.filename).write_bytes(f.data)
    emit(
        [{"file": str(folder / f.filename), "kind": f.kind, "serial": f.serial, "bytes": len(f.data)} for f in files],
        "rendered",
    )


@app.command("verify")
def verify(files: Annotated[list[Path], typer.Argument(help="PDF files to check")]) -> None:
    """Check each file's signature and seal offline with the platform secret: valid, or what differs.
    Every file given is reported (a missing or unreadable one too). Exits 1 when any file is not valid;
    2 when there is no key to check with (a key is never created here)."""
    import logging

    logging.getLogger("pypdf").setLevel(logging.CRITICAL)  # a damaged file is reported below, once
    key = bootstrap.settings().secret_key(create=False)
    rows = [verify_file(key, path) for path in files]
    emit(rows, "verification")
    if not all(r["valid"] for r in rows):
        raise typer.Exit(1)


def verify_file(key: bytes, path: Path) -> dict:
    """One file's verdict; never raises, whatever the file holds."""
    from infra.pdf import verify as verify_pdf

    row: dict = {"file": str(path), "valid": False, "type": None, "serial": None, "player": None, "tournament": None}
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        return {**row, "problems": ["the file does not exist"]}
    except IsADirectoryError:
        return {**row, "problems": ["this is a folder, not a file"]}
    except OSError as exc:
        return {**row, "problems": [f"the file cannot be read: {exc.strerror or type(exc).__name__}"]}
    try:
        embedded, problems = verify_pdf(key, data)
    except Exception as exc:  # noqa: BLE001 - a hostile file must give a verdict, not a traceback
        return {**row, "problems": [f"the file cannot be checked: {type(exc).__name__}"]}
    fields = (embedded or {}).get("data")
    fields = fields if isinstance(fields, dict) else {}

    def text(value: object) -> str | None:
        return value if isinstance(value, str) else None

    return {
        **row,
        "valid": not problems,
        "type": text((embedded or {}).get("type")),
        "serial": text(fields.get("serial")),
        "player": text(fields.get("player")),
        "tournament": text(fields.get("tournament")),
        "problems": [p.message for p in problems],
    }


@app.command("language")
def language(
    scope: Annotated[str, typer.Argument(help="club, or pusoy (one Pusoy Dos tournament)")],
    ref_id: Annotated[int, typer.Argument(metavar="ID", help="the club's or the tournament's id")],
    locale: Annotated[str, typer.Argument(help="ru or en")],
) -> None:
    """Set the language of a club's documents, or of one Pusoy Dos tournament's (its organizer's
    choice). Without one: Russian for a Sport Poker club; Pusoy Dos follows its club, else English."""
    from domain.documents.services.locales import set_locale

    with transaction() as session:
        emit(set_locale(session, scope, ref_id, locale, _now()), "documents' language set")


@app.command("list")
def list_(
    source: Annotated[str | None, typer.Option(help="poker, pusoy or season")] = None,
) -> None:
    """Every published tournament (and season's standings after one): where its files are and its
    delivery state."""
    from domain.documents.services import records as service
    from domain.documents.services.publish import outbox_root
    from domain.documents.tables import SOURCES

    one_of("source", source, SOURCES)
    outbox = outbox_root(bootstrap.settings().home)
    with bootstrap.unit_of_work() as session:
        rows = [
            {
                "source": p.source,
                "tournament_id": p.tournament_id,
                "tournament": p.tournament,
                "season_id": p.season_id,
                "season": p.season,
                "club": p.club,
                "recipient": p.recipient,
                "state": p.state,
                "attempts": p.attempts,
                "last_error": p.last_error,
                "next_attempt_at": p.next_attempt_at,
                "sent_at": p.sent_at,
                "files": [d.filename for d in service.documents_of(session, p.id)],
                "folder": str(outbox / p.folder),
            }
            for p in service.publications(session, source)
        ]
    emit(rows, "documents")


@app.command("send")
def send(
    source: Annotated[str | None, typer.Option(help="with --tournament: make that delivery due now")] = None,
    tournament: Annotated[int | None, typer.Option(help="the tournament's id")] = None,
) -> None:
    """Send every delivery that is due now through SMTP_URL (retrying failed ones whose wait is over);
    with --source and --tournament, that tournament's delivery first becomes due now."""
    from domain.documents.services import records as service
    from domain.documents.services.publish import outbox_root
    from domain.documents.tables import SOURCES
    from flows.jobs.documents import send_due

    one_of("source", source, SOURCES)
    settings = bootstrap.settings()
    if not settings.smtp_url:
        raise DomainError("no-smtp", "SMTP_URL is not set: documents stay in the outbox until it is")
    now = _now()
    if (source is None) != (tournament is None):
        raise DomainError("bad-option", "give both --source and --tournament, or neither")
    if source is not None and tournament is not None:
        with transaction() as session:
            service.retry_now(session, source, tournament, now)
    outcomes = send_due(bootstrap.engine(), outbox_root(settings.home), bootstrap.mailer(), now)
    emit(outcomes, "deliveries")
