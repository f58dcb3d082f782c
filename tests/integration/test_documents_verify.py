"""`tourney documents verify` on hostile input, and no secret ever printed (DOC-2). A real process:
every file given gets a verdict, nothing crashes, no key is ever created by checking."""

from __future__ import annotations

import io
import json
import os
from pathlib import Path

import pytest
from pypdf import PdfWriter

from domain.documents.rules.model import poker_certificates
from infra import mail, pdf
from infra.render import Renderer
from tests.documents_samples import poker_sheet, smtp_inbox
from tests.support.cli import run
from tests.support.net import free_port

KEY = os.environ["TOURNEY_SECRET_KEY"].encode()


def _pdf_with(attachment: bytes | None) -> bytes:
    writer = PdfWriter()
    writer.add_blank_page(200, 200)
    if attachment is not None:
        writer.add_attachment(pdf.ATTACHMENT, attachment)
    out = io.BytesIO()
    writer.write(out)
    return out.getvalue()


@pytest.fixture(scope="module")
def certificate() -> bytes:
    with Renderer(KEY) as renderer:
        return next(iter(renderer.certificates(poker_certificates(poker_sheet(players=4, paid=2))[:1])))


HOSTILE: dict[str, tuple[bytes | None, list[str]]] = {
    "missing.pdf": (None, ["the file does not exist"]),
    "binary.pdf": (bytes(range(256)) * 4, ["the file is not a PDF"]),
    "text.pdf": ("Кубок, not a PDF\n".encode(), ["the file is not a PDF"]),
    "empty.pdf": (b"", ["the file is not a PDF"]),
    "truncated.pdf": (b"%PDF-1.7\n1 0 obj <<", None),
    "plain.pdf": (
        _pdf_with(None),
        ["the file's seal is missing or damaged", "the file carries no signed Tourney data"],
    ),
}
NOT_OBJECTS = [b"[1, 2]", b'"a string"', b"42", b"null", b"\xff\xfe not json"]
BAD_DATA = [
    {"type": "Certificate", "data": [1, 2], "signature": "00"},
    {"type": "Certificate", "data": {"player": ["x"]}, "signature": "zz"},
    {"type": "Certificate", "data": "text", "signature": 5},
    {"type": ["Certificate"], "data": None},
]


def test_doc_2_verify_reports_every_file_and_never_crashes_on_hostile_input(tmp_path, certificate):
    """DOC-2"""
    files: list[Path] = []
    for name, (content, _) in HOSTILE.items():
        path = tmp_path / name
        if content is not None:
            path.write_bytes(content)
        files.append(path)
    for i, content in enumerate(NOT_OBJECTS):
        (path := tmp_path / f"not-object-{i}.pdf").write_bytes(_pdf_with(content))
        files.append(path)
    for i, data in enumerate(BAD_DATA):
        (path := tmp_path / f"bad-data-{i}.pdf").write_bytes(_pdf_with(json.dumps(data).encode()))
        files.append(path)
    (folder := tmp_path / "a-folder").mkdir()
    (good := tmp_path / "good.pdf").write_bytes(certificate)
    files += [folder, good]

    result = run("--json", "documents", "verify", *map(str, files), env={"TOURNEY_HOME": str(tmp_path / "home")})
    assert result.returncode == 1, result.stderr
    assert "Traceback" not in result.stderr
    rows = json.loads(result.stdout)
    assert [r["file"] for r in rows] == [str(f) for f in files]
    by_name = {Path(r["file"]).name: r for r in rows}
    for name, (_, problems) in HOSTILE.items():
        assert by_name[name]["valid"] is False
        if problems is not None:
            assert by_name[name]["problems"] == problems, name
    assert by_name["truncated.pdf"]["problems"][0].startswith("the PDF cannot be read")
    for i in range(len(NOT_OBJECTS)):
        assert by_name[f"not-object-{i}.pdf"]["problems"] == [
            "the attachment tourney.json is not a JSON object of signed Tourney data",
            "the file's seal is missing or damaged",
        ]
    for i in range(len(BAD_DATA)):
        row = by_name[f"bad-data-{i}.pdf"]
        assert row["valid"] is False and row["player"] is None
        assert "the file's seal is missing or damaged" in row["problems"]
    assert by_name["a-folder"]["problems"] == ["this is a folder, not a file"]
    assert by_name["good.pdf"]["valid"] is True and by_name["good.pdf"]["problems"] == []
    assert not (tmp_path / "home").exists()  # checking created nothing, no key either


def test_doc_2_verify_without_a_key_says_so_in_one_line_exit_2_and_creates_none(tmp_path, certificate):
    """DOC-2"""
    (cert := tmp_path / "cert.pdf").write_bytes(certificate)
    home = tmp_path / "home"
    result = run("documents", "verify", str(cert), env={"TOURNEY_HOME": str(home), "TOURNEY_SECRET_KEY": ""})
    assert result.returncode == 2
    assert result.stdout == ""
    assert result.stderr.strip() == (
        f"error: there is no signing key to check with: {home / 'secret.key'} does not exist and "
        "TOURNEY_SECRET_KEY is not set (restore the key from your backup)"
    )
    assert not home.exists()


def test_doc_2_a_short_key_is_refused_in_one_line_exit_2(tmp_path, certificate):
    """DOC-2"""
    (cert := tmp_path / "cert.pdf").write_bytes(certificate)
    result = run("documents", "verify", str(cert), env={"TOURNEY_HOME": str(tmp_path), "TOURNEY_SECRET_KEY": "short"})
    assert result.returncode == 2
    assert result.stderr.strip() == "error: TOURNEY_SECRET_KEY is 5 bytes: a signing key must be at least 32 bytes"


def test_doc_2_a_guessable_key_is_refused_in_one_line_exit_2(tmp_path, certificate):
    """DOC-2: 40 spaces are 40 bytes, and no key."""
    (cert := tmp_path / "cert.pdf").write_bytes(certificate)
    result = run("documents", "verify", str(cert), env={"TOURNEY_HOME": str(tmp_path), "TOURNEY_SECRET_KEY": " " * 40})
    assert (result.returncode, result.stdout) == (2, "")
    assert result.stderr == (
        "error: TOURNEY_SECRET_KEY is guessable (only 1 distinct character): a signing key must be at least 32 "
        "random bytes\n"
    )


PASSWORD = "hunter2-Pa55"


def test_a_malformed_smtp_url_is_refused_without_showing_its_password(engine, tmp_path):
    url = f"smtp://mailer:{PASSWORD}@mail.example.org:notaport"
    result = run("documents", "send", env={"TOURNEY_HOME": str(tmp_path), "SMTP_URL": url})
    assert result.returncode == 2
    assert result.stderr.strip() == (
        "error: SMTP_URL must look like smtp://[user:pass@]host:port, got 'smtp://mailer:***@mail.example.org:notaport'"
    )
    assert PASSWORD not in result.stdout + result.stderr


def test_a_failing_smtp_server_never_shows_the_password_of_smtp_url():
    down = mail.parse_url(f"smtp://mailer:{PASSWORD}@127.0.0.1:{free_port()}")
    assert PASSWORD not in repr(down)
    msg = mail.message(down, "to@example.org", "s", "b", [], "<id@tourney>")
    with pytest.raises(mail.DeliveryError) as caught:
        mail.send(down, msg)
    assert PASSWORD not in str(caught.value) and caught.value.__cause__ is None
    with smtp_inbox() as (url, _inbox):  # a live server that offers no login: refused, password unseen
        target = mail.parse_url(url.replace("smtp://", f"smtp://mailer:{PASSWORD}@"))
        with pytest.raises(mail.DeliveryError) as caught:
            mail.send(target, msg)
    assert str(caught.value).startswith(f"{target.host}:{target.port}: ")
    assert PASSWORD not in str(caught.value)
