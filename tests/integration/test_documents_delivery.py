"""Publishing and delivering documents: outbox files, database records, and e-mail to a real
local SMTP server (aiosmtpd on 127.0.0.1); refused or down servers are recorded and retried,
nothing is sent twice (DOC-1, DOC-2, DOC-3)."""

from __future__ import annotations

import io
import threading
from datetime import UTC, datetime, timedelta

import pytest
from pypdf import PdfReader
from sqlalchemy import func, select

from domain.documents.rules.model import Bundle
from domain.documents.services import records as service
from domain.documents.services.publish import publish
from domain.documents.tables import Document, DocumentPublication
from domain.errors import NotFound
from domain.store.db import unit_of_work
from flows.jobs.documents import send_due
from infra import mail, pdf
from infra.render import Renderer
from tests.documents_samples import poker_sheet, pusoy_sheet, smtp_inbox
from tests.support.net import free_port

KEY = b"test-secret-key-of-at-least-32-bytes"
NOW = datetime(2026, 11, 28, 20, 0, tzinfo=UTC)
CLUB_MAIL = "results@tuz.example"


@pytest.fixture
def smtp():
    """A real SMTP server on 127.0.0.1: (target, inbox)."""
    with smtp_inbox() as (url, inbox):
        yield mail.parse_url(url), inbox


@pytest.fixture(scope="module")
def renderer() -> Renderer:
    return Renderer(KEY)


def _poker_bundle(recipient: str | None = CLUB_MAIL) -> Bundle:
    return Bundle(poker_sheet(players=8, paid=3), club_id=12, recipient=recipient)


def _publish(engine, renderer, outbox, bundle):
    with unit_of_work(engine) as session:
        return publish(session, renderer, outbox, bundle, NOW)


def _state(engine, tournament_id: int) -> DocumentPublication:
    with unit_of_work(engine) as session:
        return session.scalars(
            select(DocumentPublication).where(DocumentPublication.tournament_id == tournament_id)
        ).one()


def test_doc_1_publishing_stores_the_sheet_and_every_certificate_in_the_outbox_and_database(
    session, renderer, tmp_path
):
    """DOC-1"""
    outcome = publish(session, renderer, tmp_path, _poker_bundle(), NOW)
    folder = tmp_path / "12-Клуб-Туз" / "poker-42-Пятничный-турнир-i-Deepstack-i"
    assert outcome["folder"] == str(folder)
    assert outcome["files"] == [
        "results.pdf",
        "certificate-SP-000042-01.pdf",
        "certificate-SP-000042-02.pdf",
        "certificate-SP-000042-03.pdf",
    ]
    assert sorted(p.name for p in folder.iterdir()) == sorted(outcome["files"])
    rows = session.scalars(select(Document).order_by(Document.id)).all()
    assert [(r.kind, r.serial, r.player) for r in rows] == [
        ("results", None, None),
        ("certificate", "SP-000042-01", "<b>Иван</b>"),
        ("certificate", "SP-000042-02", "Zoë O'Hara & Co"),
        ("certificate", "SP-000042-03", "Пётр Ёлкин"),
    ]
    assert all(pdf.verify(KEY, (folder / r.filename).read_bytes())[1] == [] for r in rows)
    (pub,) = service.publications(session)
    assert (pub.state, pub.recipient, pub.attempts) == ("pending", CLUB_MAIL, 0)


def test_doc_1_publishing_a_tournament_twice_does_nothing_the_second_time(session, renderer, tmp_path):
    """DOC-1: never twice."""
    assert publish(session, renderer, tmp_path, _poker_bundle(), NOW) is not None
    assert publish(session, renderer, tmp_path, _poker_bundle(), NOW + timedelta(hours=1)) is None
    assert session.scalar(select(func.count()).select_from(Document)) == 4


def test_a_tournament_without_an_address_is_only_stored(session, renderer, tmp_path):
    outcome = publish(session, renderer, tmp_path, Bundle(pusoy_sheet(), club_id=None, recipient=None), NOW)
    assert outcome["state"] == "stored" and outcome["files"] == ["results.pdf", "certificate-PD-000007-01.pdf"]
    assert outcome["folder"] == str(tmp_path / "no-club" / "pusoy-7-Кубок-Пусой")
    with pytest.raises(NotFound) as caught:
        service.retry_now(session, "pusoy", 7, NOW)
    assert caught.value.code == "no-recipient"


def test_doc_3_the_club_receives_one_mail_with_every_pdf_attached_readable_in_cyrillic(
    committed, renderer, tmp_path, smtp
):
    """DOC-1, DOC-2, DOC-3"""
    target, inbox = smtp
    _publish(committed, renderer, tmp_path, _poker_bundle())
    outcomes = send_due(committed, tmp_path, mail.SmtpMailer(target), NOW)
    assert [(o["state"], o["attempts"]) for o in outcomes] == [("sent", 1)]
    (msg,) = inbox.messages
    assert inbox.envelopes[0].rcpt_tos == [CLUB_MAIL]
    assert msg["To"] == CLUB_MAIL and msg["From"] == "docs@tourney.example"
    assert msg["Subject"] == "Results: Пятничный турнир <i>Deepstack</i>"
    attachments = {part.get_filename(): part.get_content() for part in msg.iter_attachments()}
    assert sorted(attachments) == [
        "certificate-SP-000042-01.pdf",
        "certificate-SP-000042-02.pdf",
        "certificate-SP-000042-03.pdf",
        "results.pdf",
    ]
    sheet_text = PdfReader(io.BytesIO(attachments["results.pdf"])).pages[0].extract_text()
    assert "Пятничный турнир <i>Deepstack</i>" in sheet_text and "<b>Иван</b>" in sheet_text
    cert_text = PdfReader(io.BytesIO(attachments["certificate-SP-000042-03.pdf"])).pages[0].extract_text()
    assert "Пётр Ёлкин" in cert_text and "Dinner for 2" in cert_text
    assert all(pdf.verify(KEY, data)[1] == [] for data in attachments.values())
    sent = _state(committed, 42)
    assert (sent.state, sent.sent_at, sent.message_id) == ("sent", NOW, msg["Message-ID"])


def test_sending_again_sends_nothing_twice(committed, renderer, tmp_path, smtp):
    """DOC-1: never twice."""
    target, inbox = smtp
    _publish(committed, renderer, tmp_path, _poker_bundle())
    send_due(committed, tmp_path, mail.SmtpMailer(target), NOW)
    assert _publish(committed, renderer, tmp_path, _poker_bundle()) is None
    assert send_due(committed, tmp_path, mail.SmtpMailer(target), NOW + timedelta(days=1)) == []
    with unit_of_work(committed) as session:
        assert service.retry_now(session, "poker", 42, NOW).state == "sent"
    assert send_due(committed, tmp_path, mail.SmtpMailer(target), NOW + timedelta(days=1)) == []
    assert len(inbox.messages) == 1


def test_a_down_server_is_recorded_retryable_and_sent_once_it_is_back(committed, renderer, tmp_path, smtp):
    target, inbox = smtp
    down = mail.parse_url(f"smtp://127.0.0.1:{free_port()}")
    _publish(committed, renderer, tmp_path, _poker_bundle())
    (outcome,) = send_due(committed, tmp_path, mail.SmtpMailer(down), NOW)
    assert outcome["state"] == "failed" and outcome["attempts"] == 1
    assert "connection refused (is the SMTP server down?)" in outcome["error"]
    failed = _state(committed, 42)
    assert failed.next_attempt_at == NOW + timedelta(minutes=1)
    # one second before the next attempt: nothing is due; exactly at it: sent
    assert send_due(committed, tmp_path, mail.SmtpMailer(target), NOW + timedelta(seconds=59)) == []
    (retried,) = send_due(committed, tmp_path, mail.SmtpMailer(target), NOW + timedelta(minutes=1))
    assert (retried["state"], retried["attempts"], retried["error"]) == ("sent", 2, None)
    assert len(inbox.messages) == 1


def test_a_refused_recipient_is_recorded_with_the_server_s_answer_and_backs_off(committed, renderer, tmp_path, smtp):
    target, inbox = smtp
    inbox.refuse = True
    _publish(committed, renderer, tmp_path, _poker_bundle())
    later = NOW
    for attempt, wait in enumerate((1, 5, 15, 60, 60), start=1):
        (outcome,) = send_due(committed, tmp_path, mail.SmtpMailer(target), later)
        assert (outcome["state"], outcome["attempts"]) == ("failed", attempt)
        assert "recipient refused: results@tuz.example (550 5.1.1 mailbox unavailable)" in outcome["error"]
        assert _state(committed, 42).next_attempt_at == later + timedelta(minutes=wait)
        later += timedelta(minutes=wait)
    assert inbox.messages == []


def test_a_stored_file_changed_after_publishing_is_not_sent(committed, renderer, tmp_path, smtp):
    target, inbox = smtp
    outcome = _publish(committed, renderer, tmp_path, _poker_bundle())
    (tmp_path / outcome["folder"] / "results.pdf").write_bytes(b"%PDF-1.7 forged")
    (result,) = send_due(committed, tmp_path, mail.SmtpMailer(target), NOW)
    assert result["state"] == "failed" and "differs from the one recorded" in result["error"]
    assert inbox.messages == []


def test_two_concurrent_runs_publish_and_send_a_tournament_once(committed, renderer, tmp_path, smtp):
    target, inbox = smtp
    barrier = threading.Barrier(2)
    published, errors = [], []

    def run() -> None:
        try:
            barrier.wait()
            published.append(_publish(committed, Renderer(KEY), tmp_path, _poker_bundle()))
            barrier.wait()
            send_due(committed, tmp_path, mail.SmtpMailer(target), NOW)
        except Exception as exc:  # surfaced below
            errors.append(exc)

    threads = [threading.Thread(target=run) for _ in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    assert sorted(p is None for p in published) == [False, True]
    assert len(inbox.messages) == 1
    with unit_of_work(committed) as session:
        assert session.scalar(select(func.count()).select_from(Document)) == 4
