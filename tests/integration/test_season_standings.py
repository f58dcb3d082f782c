"""A season's standings as a signed PDF delivered to the club after each of its tournaments
(RULES LG-1..LG-3, DOC-1..DOC-4): rendered from the leagues service, one publication per (season,
tournament that triggered it), a rerun publishes nothing, a crash before the commit leaves nothing
and the next run publishes it once; the e-mail goes to a real SMTP server on loopback."""

from __future__ import annotations

import io
import itertools
from datetime import UTC, date, datetime
from decimal import Decimal

import pytest
from pypdf import PdfReader
from sqlalchemy import func, select, text

from domain.documents.rules.model import SeasonSheet
from domain.documents.services import records, sources
from domain.documents.services.publish import publish
from domain.documents.tables import Document, DocumentPublication
from domain.leagues.services import leagues
from domain.ops.services.status import read_status
from domain.poker.tables.tournaments import Tournament
from domain.store.db import unit_of_work
from flows.jobs.documents import send_due
from infra import mail, pdf
from infra.render import Renderer
from tests.documents_samples import smtp_inbox
from tests.support import world as w
from tests.support.db import refused_by

KEY = b"test-secret-key-of-at-least-32-bytes"
NOW = w.EVENING  # 2026-11-29 20:00 UTC: the season is November 2026 in the club's timezone (Moscow)
_n = itertools.count(1)


def winter(session, club_id: int, *tournaments: Tournament):
    """Season "Winter": November 2026, points 10 · 6 · 3 by place (LG-2 `table`)."""
    s = leagues.create_season(
        session,
        club_id=club_id,
        name=f"Winter <{next(_n)}>",
        date_from=date(2026, 11, 1),
        date_to=date(2026, 12, 1),
        formula="table",
        table=[Decimal(10), Decimal(6), Decimal(3)],
        now=NOW,
    )
    leagues.add_to_season(session, s.id, tournament_ids=[t.id for t in tournaments])
    return s


def run(session, renderer, outbox) -> list[dict]:
    """What the publish-results job does: results sheets first, then the seasons' standings."""
    out = [
        publish(session, renderer, outbox, b, NOW) for b in sources.due(session) if not isinstance(b, sources.Skipped)
    ]
    out += [publish(session, renderer, outbox, b, NOW) for b in sources.season_bundles(session)]
    return [o for o in out if o is not None]


def seasons_due(engine) -> int:
    with engine.connect() as conn:
        return conn.execute(sources.pending_seasons()).scalar_one()


def lines(data: bytes) -> list[str]:
    return [ln.strip() for page in PdfReader(io.BytesIO(data)).pages for ln in page.extract_text().splitlines()]


@pytest.fixture(scope="module")
def renderer() -> Renderer:
    with Renderer(KEY) as r:
        yield r


def test_lg3_doc1_the_standings_after_each_tournament_are_one_signed_pdf_in_order(session, renderer, tmp_path):
    """LG-1, LG-2, LG-3, DOC-1, DOC-2, DOC-3, DOC-4: after the first tournament, then after the
    second (cumulative), each its own document in the club's language (Russian by default)."""
    anna, boris, vera = [w.player(session, n) for n in ("Анна", "Борис", "<b>Вера</b>")]
    first = w.played(session, [vera, boris, anna], datetime(2026, 11, 6, 16, 0, tzinfo=UTC), "Пятница 1")
    s = winter(session, first.club_id, first)
    published = run(session, renderer, tmp_path)
    assert [(o["source"], o["season_id"], o["tournament_id"]) for o in published] == [
        ("poker", None, first.id),
        ("season", s.id, first.id),
    ]
    after_first = published[1]
    assert after_first["files"] == [f"standings-after-{first.id}.pdf"]
    folder = tmp_path / after_first["folder"]
    assert folder.relative_to(tmp_path).as_posix() == f"{first.club_id}-Pik/season-{s.id}-Winter-{s.name[8:-1]}"
    text = lines((folder / f"standings-after-{first.id}.pdf").read_bytes())
    assert s.name in text and "Таблица сезона после турнира «Пятница 1», 6 ноября 2026\u202fг." in text
    # rank, player, points, counted, played, first places, best: Анна won (10), Борис 2nd (6), Вера 3rd (3)
    rows = [ln for ln in text if ln.split(" ")[0] in ("1", "2", "3") and "," in ln]
    assert rows == ["1 Анна 10,00 1 1 1 10,00", "2 Борис 6,00 1 1 0 6,00", "3 <b>Вера</b> 3,00 1 1 0 3,00"]
    assert "Очки за места: 10,00 · 6,00 · 3,00; за остальные места — 0." in " ".join(text)

    # the second tournament: Борис wins, Вера 2nd, Анна 3rd → Борис 16, Анна 13, Вера 9
    second = w.played(session, [anna, vera, boris], datetime(2026, 11, 13, 16, 0, tzinfo=UTC), "Пятница 2")
    leagues.add_to_season(session, s.id, tournament_ids=[second.id])
    published = run(session, renderer, tmp_path)
    assert [(o["source"], o["season_id"], o["tournament_id"]) for o in published] == [
        ("poker", None, second.id),
        ("season", s.id, second.id),
    ]
    data = (folder / f"standings-after-{second.id}.pdf").read_bytes()
    rows = [ln for ln in lines(data) if ln.split(" ")[0] in ("1", "2", "3") and "," in ln]
    assert rows == ["1 Борис 16,00 2 2 1 10,00", "2 Анна 13,00 2 2 1 10,00", "3 <b>Вера</b> 9,00 2 2 0 6,00"]
    embedded, problems = pdf.verify(KEY, data)
    assert problems == [] and embedded["type"] == "SeasonSheet"
    assert embedded["data"]["tournaments"] == 2 and embedded["data"]["tournament_id"] == second.id
    # the first file is untouched: it still shows the standings after the first tournament
    assert "1 Анна 10,00 1 1 1 10,00" in lines((folder / f"standings-after-{first.id}.pdf").read_bytes())

    assert run(session, renderer, tmp_path) == []  # a rerun publishes nothing
    kinds = session.execute(
        select(DocumentPublication.tournament_id, Document.kind, Document.filename)
        .join(Document, Document.publication_id == DocumentPublication.id)
        .where(DocumentPublication.source == "season")
        .order_by(Document.id)
    ).all()
    assert kinds == [
        (first.id, "standings", f"standings-after-{first.id}.pdf"),
        (second.id, "standings", f"standings-after-{second.id}.pdf"),
    ]


def test_lg3_standings_after_a_tournament_count_only_results_published_up_to_it(session, renderer, tmp_path):
    """LG-3: two tournaments published before the season's first delivery each get their own
    standings, the first counting only itself, so a late run renders what an on-time run would."""
    anna, boris = [w.player(session, n) for n in ("Анна", "Борис")]
    first = w.played(session, [boris, anna], datetime(2026, 11, 6, 16, 0, tzinfo=UTC), "Пятница 1")
    second = w.played(session, [anna, boris], datetime(2026, 11, 13, 16, 0, tzinfo=UTC), "Пятница 2")
    run(session, renderer, tmp_path)  # both results sheets, no season yet
    s = winter(session, first.club_id, first, second)
    due = sources.season_bundles(session)
    assert [(b.sheet.tournament_id, b.sheet.tournaments, [(r.player, r.total) for r in b.sheet.rows]) for b in due] == [
        (first.id, 1, [("Анна", Decimal("10.00")), ("Борис", Decimal("6.00"))]),
        (second.id, 2, [("Анна", Decimal("16.00")), ("Борис", Decimal("16.00"))]),
    ]
    assert all(isinstance(b.sheet, SeasonSheet) and b.sheet.season_id == s.id for b in due)
    assert [(r.rank, r.player) for r in due[1].sheet.rows] == [(1, "Анна"), (1, "Борис")]  # level: shared rank


def test_lg3_the_standings_speak_english_when_the_club_chose_it(session, renderer, tmp_path):
    """DOC-4"""
    from domain.documents.services.locales import set_locale

    anna, boris = [w.player(session, n) for n in ("Anna", "Boris")]
    first = w.played(session, [boris, anna], datetime(2026, 11, 6, 16, 0, tzinfo=UTC), "Friday")
    winter(session, first.club_id, first)
    set_locale(session, "club", first.club_id, "en", NOW)
    published = run(session, renderer, tmp_path)
    text = lines((tmp_path / published[1]["folder"] / published[1]["files"][0]).read_bytes())
    assert "Season standings after Friday, November 6, 2026" in text
    assert "1 Anna 10.00 1 1 1 10.00" in text and "Every result counts." in " ".join(text)


def test_lg3_a_crash_before_the_commit_leaves_nothing_and_the_next_run_publishes_once(committed, renderer, tmp_path):
    """LG-3, DOC-1: the claim, the records and the delivery go together or not at all; a second
    claim of the same (season, tournament) finds it taken."""
    with unit_of_work(committed) as s:
        anna, boris = [w.player(s, n) for n in ("Анна", "Борис")]
        first = w.played(s, [boris, anna], datetime(2026, 11, 6, 16, 0, tzinfo=UTC), "Пятница")
        season = winter(s, first.club_id, first)
        for b in sources.due(s):
            publish(s, renderer, tmp_path, b, NOW)
    assert seasons_due(committed) == 1  # the status report counts it
    with pytest.raises(RuntimeError), unit_of_work(committed) as s:
        (bundle,) = sources.season_bundles(s)
        assert publish(s, renderer, tmp_path, bundle, NOW) is not None
        raise RuntimeError("the process dies before the commit")
    with unit_of_work(committed) as s:
        assert s.scalar(select(func.count()).where(DocumentPublication.source == "season")) == 0
        (bundle,) = sources.season_bundles(s)
        assert publish(s, renderer, tmp_path, bundle, NOW)["state"] == "pending"
    with unit_of_work(committed) as s:
        assert publish(s, renderer, tmp_path, bundle, NOW) is None  # a concurrent run's late claim
        assert sources.season_bundles(s) == []
        assert s.scalar(select(func.count()).where(DocumentPublication.source == "season")) == 1
        assert records.publication(s, "season", first.id).season_id == season.id
    assert seasons_due(committed) == 0
    # publish-results' pending work: the two deliveries (no SMTP here), nothing left to render
    assert dict(read_status(committed).pending)["publish-results"] == 2


def test_lg3_the_standings_are_mailed_to_the_club_once(committed, renderer, tmp_path):
    """LG-3, DOC-1: one e-mail per delivery, to the club's address, the standings attached."""
    with unit_of_work(committed) as s:
        anna, boris = [w.player(s, n) for n in ("Анна", "Борис")]
        first = w.played(s, [boris, anna], datetime(2026, 11, 6, 16, 0, tzinfo=UTC), "Пятница")
        season = winter(s, first.club_id, first)
        run(s, renderer, tmp_path)
    with smtp_inbox() as (url, inbox):
        target = mail.parse_url(url)
        sent = send_due(committed, tmp_path, mail.SmtpMailer(target), NOW)
        again = send_due(committed, tmp_path, mail.SmtpMailer(target), NOW)
    assert [(x["source"], x["season_id"], x["state"]) for x in sent] == [
        ("poker", None, "sent"),
        ("season", season.id, "sent"),
    ]
    assert again == []
    msg = inbox.messages[1]
    assert msg["To"] == "floor@example.org"
    assert msg["Subject"] == f"Season standings: {season.name} after Пятница"
    (attachment,) = list(msg.iter_attachments())
    assert attachment.get_filename() == f"standings-after-{first.id}.pdf"
    assert pdf.verify(KEY, attachment.get_content())[1] == []


def test_lg3_migration_0602_steps_back_to_one_publication_per_tournament_and_forward_again(database_url):
    """LG-3: 0602 down drops the seasons' publications and restores (source, tournament) unique;
    up again lets a season's standings in beside the tournament's results."""
    from alembic import command

    from domain.store.db import make_engine
    from domain.store.migrate import _config, upgrade
    from domain.store.scratch import scratch_database

    def step(engine, how: str, target: str) -> None:
        config = _config()
        with engine.begin() as conn:
            config.attributes["connection"] = conn
            getattr(command, how)(config, target)

    insert = text(
        "INSERT INTO document_publications (source, tournament_id, tournament, folder, state, attempts, created_at,"
        " season_id, season) VALUES (:source, 7, 'Friday', 'f', 'stored', 0, now(), :season_id, :season)"
    )
    with scratch_database(database_url, "season0602") as url:
        engine = make_engine(url)
        try:
            upgrade(engine)
            with engine.begin() as conn:
                conn.execute(insert, {"source": "poker", "season_id": None, "season": None})
                conn.execute(insert, {"source": "season", "season_id": 1, "season": "Winter"})
                conn.execute(insert, {"source": "season", "season_id": 2, "season": "Year"})
                with refused_by("uq_document_publications_source_tournament_id_season_id"), conn.begin_nested():
                    # NULLs not distinct
                    conn.execute(insert, {"source": "poker", "season_id": None, "season": None})
            step(engine, "downgrade", "0601")
            with engine.begin() as conn:
                assert conn.execute(text("SELECT source FROM document_publications")).scalars().all() == ["poker"]
            step(engine, "upgrade", "heads")
            with engine.begin() as conn:
                conn.execute(insert, {"source": "season", "season_id": 1, "season": "Winter"})
                assert conn.execute(text("SELECT count(*) FROM document_publications")).scalar_one() == 2
        finally:
            engine.dispose()
