"""Documents, the pure parts: which certificates, serials, canonical data, signatures (DOC-1, DOC-2)."""

from __future__ import annotations

import dataclasses
from datetime import date
from decimal import Decimal

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from domain.documents.rules import signing
from domain.documents.rules.model import (
    Certificate,
    poker_certificates,
    pusoy_certificates,
    serial,
)
from infra.i18n import certificate_lines
from tests.documents_samples import poker_sheet, pusoy_sheet

KEY = b"unit-test-key"


def _cert(**changes) -> Certificate:
    base = Certificate(
        "SP-000042-01", "poker", 42, "Турнир", "Клуб", date(2026, 11, 27), "<b>Иван</b>", 1, None, "Champion"
    )
    return dataclasses.replace(base, **changes)


def _embedded(doc) -> dict:
    data = signing.payload(doc)
    return {**data, "signature": signing.sign(KEY, data)}


def _check(embedded, text, unsealed=b"file"):
    return signing.check(KEY, embedded, text, signing.seal(KEY, unsealed), unsealed, certificate_lines)


def test_doc_1_poker_certificates_go_to_every_prize_winner_and_the_champion():
    """DOC-1"""
    sheet = poker_sheet(players=10, paid=5)
    certs = poker_certificates(sheet)
    assert [(c.place, c.serial, c.title) for c in certs] == [
        (1, "SP-000042-01", "Champion"),
        (2, "SP-000042-02", "Prize winner"),
        (3, "SP-000042-03", "Prize winner"),
        (4, "SP-000042-04", "Prize winner"),
        (5, "SP-000042-05", "Prize winner"),
    ]
    assert certs[0].player == "<b>Иван</b>" and certs[0].prize == "Кубок чемпиона"


def test_doc_1_a_poker_champion_without_a_prize_still_gets_a_certificate():
    """DOC-1"""
    sheet = poker_sheet(players=4, paid=0)
    assert [(c.place, c.prize) for c in poker_certificates(sheet)] == [(1, None)]


def test_doc_1_a_pusoy_tournament_certifies_its_champion():
    """DOC-1"""
    (cert,) = pusoy_certificates(pusoy_sheet())
    assert (cert.serial, cert.player, cert.place, cert.title, cert.club) == (
        "PD-000007-01",
        "Борис",
        1,
        "Champion",
        None,
    )


@pytest.mark.parametrize(
    ("source", "tournament", "ordinal", "expected"),
    [("poker", 1, 1, "SP-000001-01"), ("pusoy", 123456, 12, "PD-123456-12"), ("poker", 42, 200, "SP-000042-200")],
)
def test_serials_name_source_tournament_and_ordinal(source, tournament, ordinal, expected):
    assert serial(source, tournament, ordinal) == expected


def test_canonical_data_is_sorted_compact_utf8_with_decimals_and_dates_as_strings():
    data = signing.payload(poker_sheet(players=1, paid=1))
    text = signing.canonical(data).decode()
    assert text.startswith('{"data":{"addons":5,"club":"Клуб «Туз»","entries":3,"held_on":"2026-11-27",')
    assert '"knockouts":"2.5"' in text and text.endswith('"type":"PokerSheet"}')


def test_floats_are_never_signed():
    with pytest.raises(TypeError):
        signing.payload(dataclasses.replace(poker_sheet().places[0], knockouts=2.5))


def test_doc_2_a_valid_certificate_passes():
    """DOC-2"""
    cert = _cert()
    embedded = _embedded(cert)
    text = "\n".join(certificate_lines(cert, signing.verification_code(embedded["signature"])).values())
    assert _check(embedded, text) == []


def test_the_verification_code_is_eight_base32_characters_from_the_signature():
    assert signing.verification_code("ff" * 32) == "7777-7777"
    assert signing.verification_code("00" * 32) == "AAAA-AAAA"
    assert signing.verification_code(signing.sign(KEY, signing.payload(_cert()))) != signing.verification_code(
        signing.sign(b"other", signing.payload(_cert()))
    )


@settings(max_examples=25, deadline=None)
@given(
    field=st.sampled_from(["player", "place", "tournament", "club", "prize", "serial", "held_on"]),
    value=st.one_of(st.text(min_size=1, max_size=20), st.integers(2, 99)),
)
def test_doc_2_any_altered_field_fails_the_signature(field, value):
    """DOC-2"""
    embedded = _embedded(_cert(prize="Cup"))
    original = embedded["data"][field]
    altered = str(value) if isinstance(original, str) else value
    if altered == original:
        return
    embedded["data"][field] = altered
    assert "signature-mismatch" in [p.code for p in _check(embedded, "")]


def test_doc_2_a_certificate_signed_with_another_key_fails():
    """DOC-2"""
    data = signing.payload(_cert())
    forged = {**data, "signature": signing.sign(b"forger", data)}
    assert [p.code for p in _check(forged, "")][0] == "signature-mismatch"


def test_doc_2_a_changed_byte_breaks_the_seal_and_a_missing_seal_is_named():
    """DOC-2"""
    embedded = _embedded(_cert())
    seal = signing.seal(KEY, b"the file")
    assert [p.code for p in signing.check(KEY, embedded, "", seal, b"the filE")][0] == "seal-mismatch"
    assert [p.code for p in signing.check(KEY, embedded, "", None, b"the file")][0] == "seal-missing"
    assert [p.code for p in signing.check(KEY, None, "", seal, b"the file")] == ["not-signed"]


def test_doc_2_a_page_that_does_not_show_the_signed_fields_names_each_one():
    """DOC-2"""
    cert = _cert(prize="Cup")
    embedded = _embedded(cert)
    lines = certificate_lines(cert, signing.verification_code(embedded["signature"]))
    shown = dict(lines, player="Пётр", prize="Car")
    problems = _check(embedded, "\n".join(shown.values()))
    assert [p.message for p in problems] == [
        "the page does not show the signed player: '<b>Иван</b>'",
        "the page does not show the signed prize: 'Cup'",
    ]


def test_page_text_is_compared_without_regard_to_line_breaks():
    cert = _cert(tournament="A very long tournament name that wraps")
    embedded = _embedded(cert)
    lines = certificate_lines(cert, signing.verification_code(embedded["signature"]))
    text = " ".join(lines.values()).replace("long tournament", "long\ntournament")
    assert _check(embedded, text) == []


def test_knockout_credits_keep_their_halves():
    assert signing.payload(poker_sheet().places[0])["data"]["knockouts"] == "2.5"
    assert (
        signing.payload(dataclasses.replace(poker_sheet().places[0], knockouts=Decimal("3.0")))["data"]["knockouts"]
        == "3"
    )
