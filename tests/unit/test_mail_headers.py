"""DOC-3 in mail: user text in a subject is never a header of its own."""

from __future__ import annotations

from infra.mail import SmtpTarget, message


def test_doc_3_a_line_break_in_a_name_in_the_subject_becomes_a_space():
    """DOC-3: a club's name with line breaks (written to the database directly) in a subject makes one
    header line, not a refused message or an injected header."""
    target = SmtpTarget("127.0.0.1", 25, None, None, "tourney@example.org", False, False)
    msg = message(
        target,
        "club@example.org",
        "Results: Friday (Pik\r\nBcc: x@example.org\u2028Club)",
        "body",
        [],
        "<1@example.org>",
    )
    assert msg["Subject"] == "Results: Friday (Pik Bcc: x@example.org Club)"
    assert msg["Bcc"] is None
