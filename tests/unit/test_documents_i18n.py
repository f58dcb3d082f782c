"""DOC-4: the documents' catalogs are complete and compiled; dates, numbers and places in CLDR
formats of the document's language; PD-13's final standings."""

from __future__ import annotations

import dataclasses
from datetime import date
from decimal import Decimal

import pytest

from domain.documents.rules import signing
from domain.documents.rules.model import (
    LOCALES,
    Certificate,
    final_standings,
    pusoy_certificates,
)
from infra import catalogs, i18n
from tests.documents_samples import poker_sheet, pusoy_sheet


def test_doc_4_every_message_is_translated_in_every_language_and_the_mo_files_are_compiled():
    """DOC-4: extracted afresh with Babel from the templates and code; nothing missing, untranslated,
    fuzzy or stale, and each committed .mo is exactly its .po compiled (`make catalogs` fixes it)."""
    assert catalogs.problems() == []
    template = catalogs.extracted()
    assert {"Entries", "Prize places", "Final standings", "Champion", "fewer points"} <= {m.id for m in template}


def test_doc_4_no_document_says_paid():
    """DOC-4: places that carry prizes are prize places, never "paid"."""
    for locale in LOCALES:
        for message in catalogs.read(locale):
            text = f"{message.id} {message.string}".lower()
            assert "paid" not in text and "оплач" not in text and "платн" not in text, message.id


def test_doc_4_no_document_label_names_a_rule_id():
    """DOC-4: documents speak to players and clubs: no label carries a rule id (SP-12, PD-12, ...)."""
    import re

    rule_id = re.compile(r"\b(?:SP|PD|DOC|LG|AC|CL)-\d{1,2}\b")
    for locale in LOCALES:
        for message in catalogs.read(locale):
            texts = [
                *(message.id if isinstance(message.id, tuple) else (message.id,)),
                *(message.string if isinstance(message.string, tuple) else (message.string,)),
            ]
            assert not any(rule_id.search(t or "") for t in texts), message.id


@pytest.mark.parametrize(
    ("n", "en", "ru"),
    [
        (1, "1st place", "1-е место"),
        (2, "2nd place", "2-е место"),
        (3, "3rd place", "3-е место"),
        (4, "4th place", "4-е место"),
        (11, "11th place", "11-е место"),
        (12, "12th place", "12-е место"),
        (13, "13th place", "13-е место"),
        (21, "21st place", "21-е место"),
        (22, "22nd place", "22-е место"),
        (103, "103rd place", "103-е место"),
        (1111, "1,111th place", "1\xa0111-е место"),
    ],
)
def test_doc_4_places_are_worded_by_the_locale_s_cldr_ordinal_rules(n, en, ru):
    """DOC-4"""
    assert (i18n.place(n, "en"), i18n.place(n, "ru")) == (en, ru)


def test_doc_4_dates_and_numbers_are_in_the_document_s_locale():
    """DOC-4"""
    day = date(2026, 11, 27)
    assert i18n.long_date(day, "ru") == "27 ноября 2026\u202fг."
    assert i18n.long_date(day, "en") == "November 27, 2026"
    assert (i18n.number(Decimal("2.5"), "ru"), i18n.number(Decimal("2.5"), "en")) == ("2,5", "2.5")
    assert (i18n.number(12345, "ru"), i18n.number(12345, "en")) == ("12\xa0345", "12,345")
    with pytest.raises(ValueError):
        i18n.number(1, "fr")


def test_doc_4_a_russian_certificate_s_lines():
    """DOC-4"""
    cert = Certificate(
        "SP-000042-02", "poker", 42, "Турнир", "Клуб", date(2026, 11, 27), "Иван", 2, "Кубок", "Prize winner", "ru"
    )
    assert i18n.certificate_lines(cert, "ABCD-EFGH") == {
        "title": "Призёр",
        "player": "Иван",
        "place": "2-е место",
        "tournament": "Турнир",
        "date": "27 ноября 2026\u202fг.",
        "serial": "Номер SP-000042-02",
        "code": "Код проверки ABCD-EFGH",
        "club": "Клуб",
        "prize": "Кубок",
    }


def test_doc_4_certificates_take_the_sheet_s_language_and_sign_it():
    """DOC-4, DOC-2: the language is signed data: changing it fails the signature."""
    (cert,) = pusoy_certificates(pusoy_sheet(locale="ru"))
    assert cert.locale == "ru"
    data = signing.payload(cert)
    signature = signing.sign(b"k" * 32, data)
    altered = {**data, "data": {**data["data"], "locale": "en"}}
    assert signing.sign(b"k" * 32, altered) != signature
    assert poker_sheet(locale="ru").locale == "ru"


def test_doc_4_a_certificate_signed_before_languages_reads_back_as_english():
    """DOC-2, DOC-4"""
    (cert,) = pusoy_certificates(pusoy_sheet())
    data = signing.payload(cert)["data"]
    del data["locale"]
    assert signing.certificate_from(data) == dataclasses.replace(cert, locale="en")
    with pytest.raises(ValueError):
        signing.certificate_from({**data, "locale": "fr"})


def test_pd_13_final_standings_champion_final_table_then_each_earlier_round_s_eliminated():
    """PD-13"""
    sheet = pusoy_sheet()
    assert [(f.position, f.player, f.round_left) for f in final_standings(sheet)] == [
        (1, "Борис", 2),
        (2, "E", 2),
        (3, "A", 2),
        (4, "G", 2),
        (5, "H", 1),
        (6, "F", 1),
        (7, "D", 1),
        (8, "C", 1),
    ]
