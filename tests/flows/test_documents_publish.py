"""`publish-results` on a real Prefect API, the real database and a real SMTP server (DOC-1..DOC-3):
a finished poker tournament is rendered, stored and mailed to its club; a complete Pusoy Dos
tournament without an address is stored only; running it again produces and sends nothing."""

from __future__ import annotations

import asyncio
import io
import json

from prefect.client.orchestration import get_client
from pypdf import PdfReader

from domain.store.db import unit_of_work
from flows.jobs.documents import publish_results
from infra import pdf
from tests.documents_samples import smtp_inbox
from tests.support.world import SP7_FINISHED_AT, complete_pusoy, finished_poker


def test_doc_1_publish_results_renders_stores_sends_once_and_lists_it_in_an_artifact(
    prefect_api, committed, tmp_path, monkeypatch
):
    """DOC-1, DOC-2, DOC-3"""
    with unit_of_work(committed) as s:
        poker_id = finished_poker(s).id
        pusoy_id = complete_pusoy(s)[0].id

    async def artifact():
        async with get_client() as client:
            return json.loads({a.key: a for a in await client.read_latest_artifacts()}["publish-results"].data)

    with smtp_inbox() as (url, inbox):
        monkeypatch.setenv("TOURNEY_HOME", str(tmp_path))
        monkeypatch.setenv("SMTP_URL", url)
        first = publish_results(now=SP7_FINISHED_AT)
        rows = asyncio.run(artifact())
        again = publish_results(now=SP7_FINISHED_AT)
        rows_again = asyncio.run(artifact())
    assert first == {
        "published": [f"poker-{poker_id}", f"pusoy-{pusoy_id}"],
        "documents": 5,
        "sent": [f"poker-{poker_id}"],
        "failed": [],
        "skipped": [],
    }
    assert again == {"published": [], "documents": 0, "sent": [], "failed": [], "skipped": []}
    (msg,) = inbox.messages
    assert msg["To"] == "floor@example.org" and msg["Subject"] == "Results: <b>Пятница</b>"
    attachments = {p.get_filename(): p.get_content() for p in msg.iter_attachments()}
    assert sorted(attachments) == [
        f"certificate-SP-{poker_id:06d}-01.pdf",
        f"certificate-SP-{poker_id:06d}-02.pdf",
        "results.pdf",
    ]
    champion = PdfReader(io.BytesIO(attachments[f"certificate-SP-{poker_id:06d}-01.pdf"])).pages[0].extract_text()
    assert "Кирилл" in champion and "Кубок чемпиона" in champion and "<b>Пятница</b>" in champion
    assert all(pdf.verify(b"test-secret-key-of-at-least-32-bytes", data)[1] == [] for data in attachments.values())
    stored = sorted(p.relative_to(tmp_path / "outbox").as_posix() for p in (tmp_path / "outbox").rglob("*.pdf"))
    assert len(stored) == 5 and f"no-club/pusoy-{pusoy_id}-Кубок-Пусой/results.pdf" in stored
    assert [(r["tournament"], r["produced"], r["delivery"], r["recipient"]) for r in rows] == [
        (f"poker {poker_id}: <b>Пятница</b>", 3, "pending", "floor@example.org"),
        (f"pusoy {pusoy_id}: Кубок <Пусой>", 2, "stored", "—"),
        (f"poker {poker_id}", 0, "sent", "floor@example.org"),
    ]
    assert rows_again == [{"tournament": "—", "produced": 0, "delivery": "—", "recipient": "—", "note": "nothing due"}]


def test_lg3_publish_results_delivers_the_seasons_standings_after_its_tournament_once(
    prefect_api, committed, tmp_path, monkeypatch
):
    """LG-3, DOC-1: the results sheet, then the standings of the season it counts for, each mailed
    to the club once; a second run publishes and sends nothing."""
    from datetime import date

    from domain.leagues.services import leagues

    with unit_of_work(committed) as s:
        t = finished_poker(s)
        season = leagues.create_season(
            s,
            club_id=t.club_id,
            name="Зима",
            date_from=date(2026, 11, 1),
            date_to=date(2026, 12, 1),
            formula="sqrt",
            now=SP7_FINISHED_AT,
        )
        leagues.add_to_season(s, season.id, tournament_ids=[t.id])
    with smtp_inbox() as (url, inbox):
        monkeypatch.setenv("TOURNEY_HOME", str(tmp_path))
        monkeypatch.setenv("SMTP_URL", url)
        first = publish_results(now=SP7_FINISHED_AT)
        again = publish_results(now=SP7_FINISHED_AT)
    assert first == {
        "published": [f"poker-{t.id}", f"season-{season.id}-{t.id}"],
        "documents": 4,
        "sent": [f"poker-{t.id}", f"season-{season.id}-{t.id}"],
        "failed": [],
        "skipped": [],
    }
    assert again == {"published": [], "documents": 0, "sent": [], "failed": [], "skipped": []}
    assert [m["Subject"] for m in inbox.messages] == [
        "Results: <b>Пятница</b>",
        "Season standings: Зима after <b>Пятница</b>",
    ]
    standings = tmp_path / "outbox" / f"{t.club_id}-Pik" / f"season-{season.id}-Зима" / f"standings-after-{t.id}.pdf"
    text = PdfReader(io.BytesIO(standings.read_bytes())).pages[0].extract_text()
    # SP-7's example, 10 players, sqrt (LG-2): place p scores 10 × √(10/p); D and E share 8th (`best`)
    rows = [line for line in text.splitlines() if line[:1].isdigit() and "," in line and "г." not in line]
    assert rows == [
        "1 Кирилл 31,62 1 1 1 31,62",
        "2 J 22,36 1 1 0 22,36",
        "3 I 18,26 1 1 0 18,26",
        "4 H 15,81 1 1 0 15,81",
        "5 Борис 14,14 1 1 0 14,14",
        "6 G 12,91 1 1 0 12,91",
        "7 F 11,95 1 1 0 11,95",
        "8 D 11,18 1 1 0 11,18",
        "8 E 11,18 1 1 0 11,18",
        "10 C 10,00 1 1 0 10,00",
    ]
